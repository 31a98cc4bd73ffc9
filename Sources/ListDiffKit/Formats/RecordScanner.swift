/// The records of one input as the fast reader keeps them: where each record's bytes are,
/// hashes, but no value tree and not the identity itself (it is read again from the record
/// on the rare occasions it is needed).
///
/// OLD's table keeps each record's hash and key hash. NEW's keeps, instead, the OLD record
/// its key hash found, whether its bytes were found to be that record's, and the key
/// hashes of the records that found none; the hashes it needs go into the list's as it
/// scans (but in the second part of a split scan, which keeps them until they can).
struct RecordTable: Sendable {
    /// Where each record's bytes are.
    var starts: PageBuffer<Int>
    var lengths: PageBuffer<UInt32>
    /// Each record's `CanonicalHash`.
    var hashes: PageBuffer<Hash128>
    /// OLD's: a 64-bit hash of each identity (`ScanMemory.keyHash`).
    var keyHashes: PageBuffer<UInt64>
    /// NEW's: the OLD record whose key hash is the record's, or -1.
    var matches: PageBuffer<Int32>
    /// NEW's: whether the record's bytes are its match's (so it is the same record); set
    /// for every record with a match, so false means the bytes differ.
    var copies: PageBuffer<Bool>
    /// NEW's records that matched no OLD record, with their key hashes.
    var strangers: PageBuffer<Stranger>
    /// The hash of the records list being read, as `CanonicalHash.of(.array(records))`.
    var list = CanonicalHash.ArrayHasher()
    /// Whether every record's hash is kept in `hashes`.
    var keepsHashes = true

    struct Stranger {
        var record: Int
        var keyHash: UInt64
    }
}

extension Hash128: BitwiseCopyable {}

extension RecordTable {
    /// A table with room for `capacity` records to begin with: OLD's (or any input's
    /// scanned on its own) keeps key hashes; NEW's scanned `against` OLD's index keeps
    /// matches instead. `keepsHashes`: every record's hash is kept.
    init(capacity: Int = 16, against: Bool = false, keepsHashes: Bool = true) {
        starts = PageBuffer(capacity: capacity)
        lengths = PageBuffer(capacity: capacity)
        hashes = PageBuffer(capacity: keepsHashes ? capacity : 1)
        keyHashes = PageBuffer(capacity: against ? 1 : capacity)
        matches = PageBuffer(capacity: against ? capacity : 1)
        copies = PageBuffer(capacity: against ? capacity : 1)
        strangers = PageBuffer(capacity: against ? max(16, capacity / 64) : 1)
        self.keepsHashes = keepsHashes
    }

    var count: Int { starts.count }

    /// Lets the hashes and key hashes go once they are no longer read. `keeping`: the key
    /// hashes' mapping is kept for the next large buffers (`SpareMappings`), so nothing may
    /// read them any more, through another copy of the table or OLD's index either.
    mutating func dropHashes(keeping: Bool = false) {
        let dropped = keyHashes
        hashes = PageBuffer(capacity: 1)
        keyHashes = PageBuffer(capacity: 1)
        if keeping { dropped.discard(keeping: true) }
    }

    /// Appends the records of `next`, the table of the part of the input that follows,
    /// taking its tables' pages: `next` is left empty but for its strangers.
    mutating func appendRecords(of next: RecordTable) {
        let offset = count
        if keepsHashes { hashes.append(moving: next.hashes) }
        starts.append(moving: next.starts)
        lengths.append(moving: next.lengths)
        keyHashes.append(moving: next.keyHashes)
        matches.append(moving: next.matches)
        copies.append(moving: next.copies)
        for k in 0..<next.strangers.count {
            strangers.append(Stranger(record: next.strangers[k].record + offset, keyHash: next.strangers[k].keyHash))
        }
    }
}

/// What one scanning thread carries from record to record. The member names of the record
/// scanned last, by place (the first 16 members, names of up to 16 bytes), with their
/// hashes and key trie entries: records of one list mostly repeat them, and a name found
/// again is compared as two words instead of scanned and hashed. And the hashes of the
/// key's parts.
final class ScanMemory {
    struct Name {
        var words: (UInt64, UInt64) = (0, 0)
        var masks: (UInt64, UInt64) = (0, 0)
        var length = -1  // none
        var hash = Hash128(a: 0, b: 0)
        var entry: Int? = nil
    }

    static let places = 16
    private let names = UnsafeMutablePointer<Name>.allocate(capacity: ScanMemory.places)
    /// The hash of each key field's value in the record being scanned.
    let keyParts = UnsafeMutablePointer<Hash128>.allocate(capacity: 64)
    /// Mixed into every key hash; another seed gives other hashes (see `KeyHashing`).
    let keyHashing: KeyHashing
    /// NEW's scan: OLD's key index, whose slot for a key of one field is fetched as soon as
    /// the key is read.
    var keySlots: KeySlots?

    /// The hashes of the names of the record being scanned, in order, to find a name given
    /// twice.
    private(set) var nameHashes = UnsafeMutablePointer<UInt64>.allocate(capacity: 64)
    private var nameCapacity = 64
    /// When at least 0: the last record scanned had this many members, all different, and
    /// each name is at its place in `names`. A record whose names match all those places
    /// has the same names, so it needs no check of its own.
    var checkedNames = -1

    init(keyHashing: KeyHashing = KeyHashing()) {
        self.keyHashing = keyHashing
        names.initialize(repeating: Name(), count: Self.places)
        keyParts.initialize(repeating: Hash128(a: 0, b: 0), count: 64)
    }

    deinit {
        names.deinitialize(count: Self.places)
        names.deallocate()
        keyParts.deallocate()
        nameHashes.deallocate()
    }

    /// Notes the hash of the name of member number `member`.
    @inline(__always)
    func noteName(_ member: Int, _ hash: UInt64) {
        if member >= nameCapacity {
            let larger = UnsafeMutablePointer<UInt64>.allocate(capacity: nameCapacity * 2)
            larger.update(from: nameHashes, count: nameCapacity)
            nameHashes.deallocate()
            nameHashes = larger
            nameCapacity *= 2
        }
        nameHashes[member] = hash
    }

    /// A 64-bit hash of the record's identity, from its key parts' hashes: equal identities
    /// are equal scalars, which hash alike; one part's own hash, or the parts' in order. A
    /// composite key's parts not `present` are absent, hashed as null (as
    /// `IdentityKey.written` writes them).
    @inline(__always)
    func keyHash(fields: Int, present: UInt64 = ~0) -> UInt64 {
        if fields == 1 { return keyHashing.mix(keyParts[0]) }
        var hasher = CanonicalHash.ArrayHasher()
        for f in 0..<fields { hasher.add(present & (1 << UInt64(f)) != 0 ? keyParts[f] : CanonicalHash.null) }
        return keyHashing.mix(hasher.finish())
    }

    /// The name at `place` if the bytes at `i` (its opening quote) spell it, closing quote
    /// included: its length, hash and key trie entry.
    @inline(__always)
    func match(_ place: Int, _ p: UnsafePointer<UInt8>, at i: Int, count n: Int) -> (length: Int, hash: Hash128, entry: Int?)? {
        #if _endian(little)
        guard place < Self.places, i &+ 18 <= n else { return nil }
        let name = names[place]
        guard name.length >= 0, p[i] == UInt8(ascii: "\"") else { return nil }
        let raw = UnsafeRawPointer(p + i + 1)
        guard (raw.loadUnaligned(as: UInt64.self) ^ name.words.0) & name.masks.0 == 0,
            (raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) ^ name.words.1) & name.masks.1 == 0,
            p[i &+ 1 &+ name.length] == UInt8(ascii: "\"")
        else { return nil }
        return (name.length, name.hash, name.entry)
        #else
        return nil
        #endif
    }

    /// Notes the plain name read at `place`; false when it is too long or too far to keep.
    func remember(_ place: Int, _ bytes: UnsafeRawBufferPointer, hash: Hash128, entry: Int?) -> Bool {
        guard place < Self.places, bytes.count <= 16 else { return false }
        var name = Name()
        withUnsafeMutableBytes(of: &name.words) { words in
            if bytes.count > 0 { words.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        }
        func mask(_ length: Int) -> UInt64 { length >= 8 ? ~0 : length <= 0 ? 0 : (1 << UInt64(8 * length)) - 1 }
        name.masks = (mask(bytes.count), mask(bytes.count - 8))
        name.length = bytes.count
        name.hash = hash
        name.entry = entry
        names[place] = name
        return true
    }
}

extension JSONParser {
    /// Scans one value and returns its `CanonicalHash`, building nothing.
    mutating func hashValue() throws(JSONParseFailure) -> Hash128 {
        guard index < bytes.count else { throw fail("expected a JSON value, found the end of the input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try hashObject()
        case UInt8(ascii: "["): return try hashArray()
        case UInt8(ascii: "\""): return try hashString()
        case UInt8(ascii: "t"): try literal("true"); return CanonicalHash.true
        case UInt8(ascii: "f"): try literal("false"); return CanonicalHash.false
        case UInt8(ascii: "n"): try literal("null"); return CanonicalHash.null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let range = try scanNumber()
            return CanonicalHash.number(text: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])))
        default: throw fail("expected a JSON value, found \(describe(index))")
        }
    }

    @inline(__always)
    mutating func hashString() throws(JSONParseFailure) -> Hash128 {
        try withString { CanonicalHash.string($0) }
    }

    mutating func hashArray() throws(JSONParseFailure) -> Hash128 {
        var hasher = CanonicalHash.ArrayHasher()
        try walkArray { (_, parser) throws(JSONParseFailure) in hasher.add(try parser.hashValue()) }
        return hasher.finish()
    }

    mutating func hashObject() throws(JSONParseFailure) -> Hash128 {
        var hasher = CanonicalHash.ObjectHasher()
        try walkObject { (_, name, parser) throws(JSONParseFailure) in hasher.add(key: name, value: try parser.hashValue()) }
        return hasher.finish()
    }

    /// Scans one record (a list element): returns its hash, and sets `status` to whether it
    /// has a usable key. When it does, `keyHash` is the hash of its identity, and the
    /// identity itself, as `RecordID` encodes it, is appended to `key` (a `NoKey` keeps
    /// nothing). A scalar is keyed by itself.
    ///
    /// Members are read on a fast path, with the offset in a register, while they are
    /// written the common way: no white space, names and strings of plain ASCII, plain
    /// decimals, literals. Anything else (and every error) goes the general way from
    /// where the fast path stopped, so that both accept and refuse alike. A key path into
    /// a member's value (`user.id`) is followed by `hashFindingKeys`.
    mutating func scanRecord<Key: KeyOutput>(
        _ keys: KeyTrie, key: inout Key, parts: inout [[UInt8]], memory: ScanMemory,
        keyHash: inout UInt64, status: inout KeyStatus
    ) throws(JSONParseFailure) -> Hash128 {
        guard index < bytes.count else { throw fail("expected a JSON value, found the end of the input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            break
        case UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"):
            let hash = try hashScalar(encodingInto: &key)!
            keyHash = memory.keyHashing.mix(hash)
            status = .keyed
            return hash
        default:
            status = .unusable
            return try hashValue()
        }
        var hasher = CanonicalHash.ObjectHasher()
        let single = keys.fieldCount == 1
        var finding = KeyFinding()
        let objectStart = index
        if try openIsEmpty(close: UInt8(ascii: "}")) {
            status = finding.status(keys)
            return hasher.finish()
        }
        if Key.keepsBytes, !single { for f in parts.indices { parts[f].removeAll(keepingCapacity: true) } }
        let p = bytes.baseAddress!  // not empty: a `{` was read
        let n = bytes.count
        var i = index
        var member = 0
        // Whether every name matched its place in `memory`, and whether every name is now
        // at its place there (see `ScanMemory.checkedNames`).
        var matchedAll = true, placedAll = true
        let checked = memory.checkedNames
        memory.checkedNames = -1
        while true {
            // The name: as the previous record's at this place, or read.
            let nameHash: Hash128
            var entry: Int? = nil
            if let (length, hash, known) = memory.match(member, p, at: i, count: n) {
                nameHash = hash
                entry = known
                i &+= length &+ 2
            } else if i < n, p[i] == UInt8(ascii: "\""), case let end = JSONParser.plainEnd(p, from: i &+ 1, count: n),
                end < n, p[end] == UInt8(ascii: "\"")
            {
                let name = UnsafeRawBufferPointer(start: p + i + 1, count: end &- i &- 1)
                nameHash = CanonicalHash.string(name)
                entry = keys.entry(0, named: name)
                matchedAll = false
                if !memory.remember(member, name, hash: nameHash, entry: entry) { placedAll = false }
                i = end &+ 1
            } else {
                matchedAll = false
                placedAll = false
                index = i
                try nameStart()
                (nameHash, entry) = try withString { (CanonicalHash.string($0), keys.entry(0, named: $0)) }
                i = index
            }
            if i < n, p[i] == UInt8(ascii: ":"), i &+ 1 < n, p[i &+ 1] > 0x20 {
                i &+= 1
            } else {
                index = i
                try colon()
                i = index
            }
            // The value. The first member of a key field's name is the key (as `Object`'s
            // subscript has it).
            let valueHash: Hash128
            if let e = entry, case let bit = UInt64(1) << UInt64(keys.levels[0].ids[e]), finding.visited & bit == 0 {
                finding.visited |= bit
                let mask = keys.levels[0].fields[e], next = keys.levels[0].next[e]
                let first = i < n ? p[i] : 0
                if next >= 0 {
                    index = i
                    valueHash = try hashFindingKeys(keys, level: next, finding: &finding, key: &key, parts: &parts, memory: memory)
                    i = index
                } else if Key.keepsBytes {
                    index = i
                    valueHash = try hashKeyPart(mask, single: single, key: &key, parts: &parts)
                    i = index
                } else {
                    valueHash = try fastValueHash(p, at: &i, count: n)
                }
                if mask != 0 {
                    finding.note(mask, scalar: JSONParser.startsScalarKey(first), hash: valueHash, memory: memory)
                    if single, let slots = memory.keySlots { slots.fetch(memory.keyHashing.mix(valueHash)) }
                }
            } else {
                valueHash = try fastValueHash(p, at: &i, count: n)
            }
            hasher.add(key: nameHash, value: valueHash)
            memory.noteName(member, nameHash.a)
            member &+= 1
            // A `,` and the next member, or the end.
            if i < n {
                if p[i] == UInt8(ascii: ",") {
                    i &+= 1
                    continue
                }
                if p[i] == UInt8(ascii: "}") {
                    i &+= 1
                    break
                }
            }
            index = i
            skipWhitespace()
            let more = try separator(close: UInt8(ascii: "}"), "object")
            i = index
            if !more { break }
        }
        index = i
        depth -= 1
        if !(matchedAll && member == checked), JSONParser.hasRepeat(memory.nameHashes, count: member) {
            try JSONParser.refuseRepeatedName(in: bytes, objectAt: objectStart, maxDepth: maxDepth)
        }
        if placedAll { memory.checkedNames = member }
        status = finding.status(keys)
        guard status == .keyed else { return hasher.finish() }
        let present = finding.present
        if Key.keepsBytes, !single {
            for (f, part) in parts.enumerated() {
                // An absent part as `RecordID.Encoder` writes null.
                if present & (1 << UInt64(f)) == 0 {
                    key.append(UInt8(ascii: "z"))
                } else {
                    part.withUnsafeBytes { key.append(contentsOf: $0) }
                }
            }
        }
        keyHash = memory.keyHash(fields: keys.fieldCount, present: present)
        return hasher.finish()
    }

    /// The hash of a key field's value, its identity encoded into `key` (one field) or
    /// `parts` (several) when it is a scalar.
    @inline(__always)
    mutating func hashKeyPart<Key: KeyOutput>(_ mask: UInt64, single: Bool, key: inout Key, parts: inout [[UInt8]])
        throws(JSONParseFailure) -> Hash128
    {
        guard mask != 0 else { return try hashValue() }
        let f = mask.trailingZeroBitCount
        guard let hash = single ? try hashScalar(encodingInto: &key) : try hashScalar(encodingInto: &parts[f]) else {
            return try hashValue()
        }
        // The same path given twice as key fields: each part is the same value.
        var rest = mask & (mask - 1)
        while rest != 0 {
            parts[rest.trailingZeroBitCount] = parts[f]
            rest &= rest - 1
        }
        return hash
    }

    /// Scans a value on a key path (below the record's own members) and returns its hash,
    /// noting in `finding` the key fields it holds: the members named at this `level` of the
    /// trie (or, in a list, the elements at the indexes named there).
    mutating func hashFindingKeys<Key: KeyOutput>(
        _ keys: KeyTrie, level: Int, finding: inout KeyFinding, key: inout Key,
        parts: inout [[UInt8]], memory: ScanMemory
    ) throws(JSONParseFailure) -> Hash128 {
        guard index < bytes.count else { throw fail("expected a JSON value, found the end of the input") }
        let single = keys.fieldCount == 1
        func member(_ e: Int?, _ parser: inout JSONParser) throws(JSONParseFailure) -> Hash128 {
            guard let e, case let bit = UInt64(1) << UInt64(keys.levels[level].ids[e]), finding.visited & bit == 0 else {
                return try parser.hashValue()
            }
            finding.visited |= bit
            let mask = keys.levels[level].fields[e], next = keys.levels[level].next[e]
            let first = parser.index < parser.bytes.count ? parser.bytes[parser.index] : 0
            let hash: Hash128
            if next >= 0 {
                hash = try parser.hashFindingKeys(keys, level: next, finding: &finding, key: &key, parts: &parts, memory: memory)
            } else if Key.keepsBytes {
                hash = try parser.hashKeyPart(mask, single: single, key: &key, parts: &parts)
            } else {
                hash = try parser.hashValue()
            }
            if mask != 0 { finding.note(mask, scalar: JSONParser.startsScalarKey(first), hash: hash, memory: memory) }
            return hash
        }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            var hasher = CanonicalHash.ObjectHasher()
            try walkObject { (name, nameHash, parser) throws(JSONParseFailure) in
                hasher.add(key: nameHash, value: try member(keys.entry(level, named: name), &parser))
            }
            return hasher.finish()
        case UInt8(ascii: "["):
            var hasher = CanonicalHash.ArrayHasher()
            try walkArray { (k, parser) throws(JSONParseFailure) in hasher.add(try member(keys.entry(level, index: k), &parser)) }
            return hasher.finish()
        default:
            return try hashValue()
        }
    }

    /// A value's hash, read on the fast path when it is a plain string, a plain decimal
    /// or a literal, else the general way; `i` is the offset, `index` left behind.
    @inline(__always)
    mutating func fastValueHash(_ p: UnsafePointer<UInt8>, at i: inout Int, count n: Int) throws(JSONParseFailure) -> Hash128 {
        switch i < n ? p[i] : 0 {
        case UInt8(ascii: "\""):
            let end = JSONParser.plainEnd(p, from: i &+ 1, count: n)
            if end < n, p[end] == UInt8(ascii: "\"") {
                let text = UnsafeRawBufferPointer(start: p + i + 1, count: end &- i &- 1)
                i = end &+ 1
                return CanonicalHash.string(text)
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if let (hash, end) = CanonicalHash.plainDecimal(p, from: i, count: n) {
                i = end
                return hash
            }
        case UInt8(ascii: "t") where i &+ 4 <= n && UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == JSONParser.trueWord:
            i &+= 4
            return CanonicalHash.true
        case UInt8(ascii: "f") where i &+ 5 <= n && UnsafeRawPointer(p + i + 1).loadUnaligned(as: UInt32.self) == JSONParser.alseWord:
            i &+= 5
            return CanonicalHash.false
        case UInt8(ascii: "n") where i &+ 4 <= n && UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == JSONParser.nullWord:
            i &+= 4
            return CanonicalHash.null
        default:
            break
        }
        // Anything else (a string with escapes, a number written otherwise): the general way.
        index = i
        let hash = try hashValue()
        i = index
        return hash
    }

    /// Whether a value starting with `byte` is one a key may be: a string, number or boolean.
    @inline(__always)
    static func startsScalarKey(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"): true
        default: false
        }
    }

    /// `true`, `alse` and `null` as four bytes load.
    static var trueWord: UInt32 { UInt32(littleEndian: 0x6575_7274) }
    static var alseWord: UInt32 { UInt32(littleEndian: 0x6573_6C61) }
    static var nullWord: UInt32 { UInt32(littleEndian: 0x6C6C_756E) }

    /// Scans a string, number or boolean, appending its `RecordID` encoding to `key`.
    /// Returns nil, having consumed nothing, at anything else.
    @inline(__always)
    mutating func hashScalar(encodingInto key: inout some KeyOutput) throws(JSONParseFailure) -> Hash128? {
        guard index < bytes.count else { throw fail("expected a JSON value, found the end of the input") }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return try withString { text in
                RecordID.Encoder.appendString(text, to: &key)
                return CanonicalHash.string(text)
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let range = try scanNumber()
            let text = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range]))
            // A plain integer (`-?[1-9][0-9]*`, the common key): its digits are in place.
            let negative = text[0] == UInt8(ascii: "-")
            let first = negative ? 1 : 0
            if text.count - first <= 19, text[first] != UInt8(ascii: "0"),
                !text[first...].contains(where: { $0 &- UInt8(ascii: "0") >= 10 })
            {
                var end = text.count
                while text[end - 1] == UInt8(ascii: "0") { end -= 1 }
                let digits = UnsafeRawBufferPointer(rebasing: text[first..<end])
                RecordID.Encoder.appendFiniteNumber(negative: negative, digits: digits, exponent: text.count - first, to: &key)
                return CanonicalHash.number(negative: negative, digits: digits, exponent: text.count - first)
            }
            var digits = Number.DigitBuffer()
            let (minus, exponent) = Number.canonicalDigits(text, into: &digits)
            return digits.withBytes { d in
                RecordID.Encoder.appendFiniteNumber(negative: minus, digits: d, exponent: exponent, to: &key)
                return CanonicalHash.number(negative: minus, digits: d, exponent: exponent)
            }
        case UInt8(ascii: "t"):
            try literal("true")
            key.append(UInt8(ascii: "T"))
            return CanonicalHash.true
        case UInt8(ascii: "f"):
            try literal("false")
            key.append(UInt8(ascii: "F"))
            return CanonicalHash.false
        default:
            return nil
        }
    }
}

/// OLD's records, for NEW's scan: to look a key hash up, and to find a record again byte
/// for byte (the one after the last found, as lists mostly keep their order), so that it
/// is taken as it is, neither parsed nor compared again.
struct OldRecords: @unchecked Sendable {
    let bytes: UnsafePointer<UInt8>
    let table: RecordTable
    let keys: OldKeys
    /// Whether records may be found again byte for byte: both inputs of one kind, records
    /// at one depth (a record valid in one is then valid in the other).
    let copies: Bool
    /// The parser depth of OLD's records list.
    let depth: Int
    /// In a map of records: the hash of each record's member name.
    var names: PageBuffer<Hash128>? = nil
    /// A YAML OLD's details (a YAML NEW is scanned against it: `YAMLScan.old`).
    var yaml: YAMLDetails? = nil
}

extension JSONParser {
    /// Skips a UTF-8 byte order mark at the start, as RFC 8259 §8.1 permits.
    mutating func skipByteOrderMark() {
        if index == 0 { index = ByteOrderMark.length(at: bytes) }
    }

    /// The error for an NDJSON record that goes on past the end of its line.
    static let recordPastItsLine = "a record must be on one line (NDJSON); this one goes on past the end of its line"

    /// After a record in NDJSON that started at `start`: it must not have gone past the end
    /// of its line (white space inside a value may not be a line break); then blanks, then
    /// the end of the line or of the input.
    mutating func endOfLine(recordStart start: Int) throws(JSONParseFailure) {
        if let base = bytes.baseAddress, index > start,
            let found = SystemCalls.find(0x0A, in: base + start, count: index - start)
        {
            throw fail(Self.recordPastItsLine, at: UnsafeRawPointer(found) - UnsafeRawPointer(base))
        }
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 }
        guard index < bytes.count else { return }
        guard bytes[index] == 0x0A else {
            throw fail("expected the end of the line after the record (NDJSON holds one JSON value per line), found \(describe(index))")
        }
        index += 1
    }
}
