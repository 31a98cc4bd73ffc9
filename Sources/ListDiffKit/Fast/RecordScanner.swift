#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// The fingerprint hash of the list, as `CanonicalHash.of(.array(records))`.
    var list = CanonicalHash.ArrayHasher()

    struct Stranger {
        var record: Int
        var keyHash: UInt64
    }
}

extension Hash128: BitwiseCopyable {}

extension RecordTable {
    /// A table for OLD (`new` false) or NEW, with room for `capacity` records to begin with.
    init(capacity: Int = 16, new: Bool = false, keepsHashes: Bool = true) {
        starts = PageBuffer(capacity: capacity)
        lengths = PageBuffer(capacity: capacity)
        hashes = PageBuffer(capacity: keepsHashes ? capacity : 1)
        keyHashes = PageBuffer(capacity: new ? 1 : capacity)
        matches = PageBuffer(capacity: new ? capacity : 1)
        copies = PageBuffer(capacity: new ? capacity : 1)
        strangers = PageBuffer(capacity: new ? max(16, capacity / 64) : 1)
    }

    var count: Int { starts.count }

    /// Lets OLD's hashes and key hashes go once NEW is scanned: the compare reads neither.
    mutating func dropHashes() {
        hashes = PageBuffer(capacity: 1)
        keyHashes = PageBuffer(capacity: 1)
    }

    /// Appends the records of the table of the part of the list that follows this one's
    /// (NEW's, given OLD's hashes for the records that are byte for byte their match).
    mutating func append(_ next: RecordTable, oldHashes: PageBuffer<Hash128>? = nil) {
        let offset = count
        if let oldHashes {
            var kept = 0
            for k in 0..<next.count {
                if next.copies[k] {
                    list.add(oldHashes[Int(next.matches[k])])
                } else {
                    list.add(next.hashes[kept])
                    kept += 1
                }
            }
        } else {
            for k in 0..<next.hashes.count { list.add(next.hashes[k]) }
            hashes.append(contentsOf: next.hashes)
        }
        starts.append(contentsOf: next.starts)
        lengths.append(contentsOf: next.lengths)
        keyHashes.append(contentsOf: next.keyHashes)
        matches.append(contentsOf: next.matches)
        copies.append(contentsOf: next.copies)
        for k in 0..<next.strangers.count {
            strangers.append(Stranger(record: next.strangers[k].record + offset, keyHash: next.strangers[k].keyHash))
        }
    }
}

/// The key fields the fast reader picks out while it scans: each one a member of the record
/// itself (`--key id`, `--key region --key id`), not a path into it.
struct KeyNames {
    let names: [[UInt8]]
    private let lengths: [Int]

    /// Nil when a field is a path of more than one step (the full reader handles those).
    init?(_ key: IdentityKey) {
        guard key.fields.count <= 64, key.fields.allSatisfy({ $0.components.count == 1 }) else { return nil }
        names = key.fields.map { Array($0.components[0].utf8) }
        lengths = names.map(\.count)
    }

    @inline(__always)
    func field(named name: UnsafeRawBufferPointer) -> Int? {
        for f in 0..<lengths.count where lengths[f] == name.count {
            if names[f].withUnsafeBytes({ $0.count == 0 || memcmp($0.baseAddress!, name.baseAddress!, $0.count) == 0 }) { return f }
        }
        return nil
    }
}

/// What one scanning thread carries from record to record. The member names of the record
/// scanned last, by place (the first 16 members, names of up to 16 bytes), with their
/// hashes and key fields: records of one list mostly repeat them, and a name found again is
/// compared as two words instead of scanned and hashed. And the hashes of the key's parts.
final class ScanMemory {
    struct Name {
        var words: (UInt64, UInt64) = (0, 0)
        var masks: (UInt64, UInt64) = (0, 0)
        var length = -1  // none
        var hash = Hash128(a: 0, b: 0)
        var field: Int? = nil
    }

    static let places = 16
    private let names = UnsafeMutablePointer<Name>.allocate(capacity: ScanMemory.places)
    /// The hash of each key field's value in the record being scanned.
    let keyParts = UnsafeMutablePointer<Hash128>.allocate(capacity: 64)

    init() {
        names.initialize(repeating: Name(), count: Self.places)
        keyParts.initialize(repeating: Hash128(a: 0, b: 0), count: 64)
    }

    deinit {
        names.deinitialize(count: Self.places)
        names.deallocate()
        keyParts.deallocate()
    }

    /// A 64-bit hash of the record's identity, from its key parts' hashes: equal identities
    /// are equal scalars, which hash alike; one part's own hash, or the parts' in order.
    @inline(__always)
    func keyHash(fields: Int) -> UInt64 {
        if fields == 1 { return keyParts[0].a }
        var hasher = CanonicalHash.ArrayHasher()
        for f in 0..<fields { hasher.add(keyParts[f]) }
        return hasher.finish().a
    }

    /// The name at `place` if the bytes at `i` (its opening quote) spell it, closing quote
    /// included: its length, hash and key field.
    @inline(__always)
    func match(_ place: Int, _ p: UnsafePointer<UInt8>, at i: Int, count n: Int) -> (length: Int, hash: Hash128, field: Int?)? {
        #if _endian(little)
        guard place < Self.places, i &+ 18 <= n else { return nil }
        let name = names[place]
        guard name.length >= 0, p[i] == UInt8(ascii: "\"") else { return nil }
        let raw = UnsafeRawPointer(p + i + 1)
        guard (raw.loadUnaligned(as: UInt64.self) ^ name.words.0) & name.masks.0 == 0,
              (raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) ^ name.words.1) & name.masks.1 == 0,
              p[i &+ 1 &+ name.length] == UInt8(ascii: "\"")
        else { return nil }
        return (name.length, name.hash, name.field)
        #else
        return nil
        #endif
    }

    /// Notes the plain name read at `place`.
    func remember(_ place: Int, _ bytes: UnsafeRawBufferPointer, hash: Hash128, field: Int?) {
        guard place < Self.places, bytes.count <= 16 else { return }
        var name = Name()
        withUnsafeMutableBytes(of: &name.words) { words in
            if bytes.count > 0 { words.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        }
        func mask(_ length: Int) -> UInt64 { length >= 8 ? ~0 : length <= 0 ? 0 : (1 << UInt64(8 * length)) - 1 }
        name.masks = (mask(bytes.count), mask(bytes.count - 8))
        name.length = bytes.count
        name.hash = hash
        name.field = field
        names[place] = name
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
        if let range = try scanString() {
            return CanonicalHash.string(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])))
        }
        return scratch.withUnsafeBytes { CanonicalHash.string($0) }
    }

    mutating func hashArray() throws(JSONParseFailure) -> Hash128 {
        var hasher = CanonicalHash.ArrayHasher()
        if try openIsEmpty(close: UInt8(ascii: "]")) { return hasher.finish() }
        repeat {
            skipWhitespace()
            hasher.add(try hashValue())
            skipWhitespace()
        } while try separator(close: UInt8(ascii: "]"), "array")
        depth -= 1
        return hasher.finish()
    }

    mutating func hashObject() throws(JSONParseFailure) -> Hash128 {
        var hasher = CanonicalHash.ObjectHasher()
        if try openIsEmpty(close: UInt8(ascii: "}")) { return hasher.finish() }
        repeat {
            try nameStart()
            let name = try hashString()
            try colon()
            hasher.add(key: name, value: try hashValue())
            skipWhitespace()
        } while try separator(close: UInt8(ascii: "}"), "object")
        depth -= 1
        return hasher.finish()
    }

    /// Scans one record (a list element): returns its hash, and appends its identity, as
    /// `RecordID` encodes it, to `key`. Returns nil when the record has no usable key (no
    /// key field, a key that is not a scalar, or a record that is null or an array).
    ///
    /// Members are read on a fast path, with the offset in a register, while they are
    /// written the common way: no white space, names and strings of plain ASCII, plain
    /// decimals, literals. Anything else (and every error) goes the general way from
    /// where the fast path stopped, so that both accept and refuse alike.
    mutating func scanRecord<Key: KeyOutput>(_ names: KeyNames, key: inout Key, parts: inout [[UInt8]], memory: ScanMemory,
                                             keyHash: inout UInt64) throws(JSONParseFailure) -> Hash128? {
        guard index < bytes.count else { throw fail("expected a JSON value, found the end of the input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            break
        case UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"):
            let hash = try hashScalar(encodingInto: &key)
            keyHash = hash?.a ?? 0
            return hash
        default:
            _ = try hashValue()
            return nil
        }
        var hasher = CanonicalHash.ObjectHasher()
        let single = names.names.count == 1
        let all: UInt64 = names.names.count == 64 ? ~0 : (1 << UInt64(names.names.count)) - 1
        var found: UInt64 = 0
        var keyed = true
        if try openIsEmpty(close: UInt8(ascii: "}")) { return nil }
        if !single { for f in parts.indices { parts[f].removeAll(keepingCapacity: true) } }
        let p = bytes.baseAddress!  // not empty: a `{` was read
        let n = bytes.count
        var i = index
        var member = 0
        while true {
            // The name: as the previous record's at this place, or read.
            let nameHash: Hash128
            var field: Int? = nil
            if let (length, hash, known) = memory.match(member, p, at: i, count: n) {
                nameHash = hash
                if found != all { field = known }
                i &+= length &+ 2
            } else if i < n, p[i] == UInt8(ascii: "\""), case let end = JSONParser.plainEnd(p, from: i &+ 1, count: n),
               end < n, p[end] == UInt8(ascii: "\"")
            {
                let name = UnsafeRawBufferPointer(start: p + i + 1, count: end &- i &- 1)
                nameHash = CanonicalHash.string(name)
                field = names.field(named: name)
                memory.remember(member, name, hash: nameHash, field: field)
                if found == all { field = nil }
                i = end &+ 1
            } else {
                index = i
                try nameStart()
                if let range = try scanString() {
                    let name = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range]))
                    nameHash = CanonicalHash.string(name)
                    if found != all { field = names.field(named: name) }
                } else {
                    nameHash = scratch.withUnsafeBytes { CanonicalHash.string($0) }
                    field = scratch.withUnsafeBytes { names.field(named: $0) }
                }
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
            if let f = field, found & (1 << UInt64(f)) == 0 {
                found |= 1 << UInt64(f)
                if Key.keepsBytes {
                    index = i
                    if let hash = single ? try hashScalar(encodingInto: &key) : try hashScalar(encodingInto: &parts[f]) {
                        valueHash = hash
                    } else {
                        keyed = false
                        valueHash = try hashValue()
                    }
                    i = index
                } else {
                    let first = i < n ? p[i] : 0
                    valueHash = try fastValueHash(p, at: &i, count: n)
                    if !JSONParser.startsScalarKey(first) { keyed = false }
                }
                memory.keyParts[f] = valueHash
            } else {
                valueHash = try fastValueHash(p, at: &i, count: n)
            }
            hasher.add(key: nameHash, value: valueHash)
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
        guard keyed, found == all else { return nil }
        if Key.keepsBytes, !single { for part in parts { part.withUnsafeBytes { key.append(contentsOf: $0) } } }
        keyHash = memory.keyHash(fields: names.names.count)
        return hasher.finish()
    }

    /// A value's hash, read on the fast path when it is a plain string, a plain decimal
    /// or a literal, else the general way; `i` is the offset, `index` left behind.
    @inline(__always)
    mutating func fastValueHash(_ p: UnsafePointer<UInt8>, at i: inout Int, count n: Int) throws(JSONParseFailure) -> Hash128 {
        let valueHash: Hash128
        switch i < n ? p[i] : 0 {
        case UInt8(ascii: "\""):
            let end = JSONParser.plainEnd(p, from: i &+ 1, count: n)
            if end < n, p[end] == UInt8(ascii: "\"") {
                valueHash = CanonicalHash.string(UnsafeRawBufferPointer(start: p + i + 1, count: end &- i &- 1))
                i = end &+ 1
            } else {
                index = i
                valueHash = try hashString()
                i = index
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if let (hash, end) = CanonicalHash.plainDecimal(p, from: i, count: n) {
                valueHash = hash
                i = end
            } else {
                index = i
                valueHash = try hashValue()
                i = index
            }
        case UInt8(ascii: "t") where i &+ 4 <= n && UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == JSONParser.trueWord:
            valueHash = CanonicalHash.true
            i &+= 4
        case UInt8(ascii: "f") where i &+ 5 <= n && UnsafeRawPointer(p + i + 1).loadUnaligned(as: UInt32.self) == JSONParser.alseWord:
            valueHash = CanonicalHash.false
            i &+= 5
        case UInt8(ascii: "n") where i &+ 4 <= n && UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == JSONParser.nullWord:
            valueHash = CanonicalHash.null
            i &+= 4
        default:
            index = i
            valueHash = try hashValue()
            i = index
        }
        return valueHash
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
            if let range = try scanString() {
                let text = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range]))
                RecordID.Encoder.appendString(text, to: &key)
                return CanonicalHash.string(text)
            }
            return scratch.withUnsafeBytes { text in
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

/// Where a list scan starts and stops.
struct ListPart {
    /// The offset of a record inside the list to start at (the second part of a split
    /// scan), or nil for the input's beginning.
    var from: Int? = nil
    /// The scan stops before the first record that starts at or after this offset.
    var stop = Int.max
}

/// How a list scan ended, when it read all it could without an error.
struct ListScan: Equatable {
    /// The top level is not a list (an object of lists, a scalar): not for the fast path.
    var notAList = false
    /// A record has no usable key (or is of 4 GiB or more): the full reader's.
    var unkeyed = false
    /// Where the first record at or after `ListPart.stop` starts, when the scan stopped there.
    var stopped: Int? = nil
}

/// OLD's records, for NEW's scan: to look a key hash up, and to find a record again byte
/// for byte (the one after the last found, as lists mostly keep their order), so that it
/// is taken as it is, neither parsed nor compared again.
struct OldRecords: @unchecked Sendable {
    let bytes: UnsafePointer<UInt8>
    let table: RecordTable
    let keys: OldKeys
    /// Whether records may be found again byte for byte (both inputs of one kind: a record
    /// valid in one is valid in the other).
    let copies: Bool
}

extension JSONParser {
    /// Skips a UTF-8 byte order mark at the start, as RFC 8259 §8.1 permits.
    mutating func skipByteOrderMark() {
        if index == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    /// After a record in NDJSON that started at `start`: it must not have gone past the end
    /// of its line (white space inside a value may not be a line break); then blanks, then
    /// the end of the line or of the input.
    mutating func endOfLine(recordStart start: Int) throws(JSONParseFailure) {
        if let base = bytes.baseAddress, index > start,
           let found = memchr(base + start, 0x0A, index - start)
        {
            throw fail("a record must be on one line (NDJSON); this one goes on past the end of its line",
                       at: UnsafeRawPointer(found) - UnsafeRawPointer(base))
        }
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 }
        guard index < bytes.count else { return }
        guard bytes[index] == 0x0A else {
            throw fail("expected the end of the line after the record (NDJSON holds one JSON value per line), found \(describe(index))")
        }
        index += 1
    }

    /// Scans a list of records into `table`: the top-level JSON list, or (`lines`) one JSON
    /// value per line, blank lines skipped; all of it, or a `part`. Calls `checkpoint` with
    /// the offset reached every 4096 records. Scans to the end even past a record without a
    /// usable key, so that a malformed input is reported as such first, as the full reader
    /// does.
    ///
    /// NEW's scan (`old`) looks each record's key hash up in OLD's, and before it reads a
    /// record sees whether its bytes are those of the OLD record after the last one found.
    mutating func scanList(lines: Bool, names: KeyNames, part: ListPart = ListPart(), into table: inout RecordTable,
                           old: OldRecords? = nil, checkpoint: (Int) -> Void) throws(JSONParseFailure) -> ListScan
    {
        var outcome = ListScan()
        var parts = [[UInt8]](repeating: [], count: names.names.count)
        var key = NoKey()
        let memory = ScanMemory()
        var keyHash: UInt64 = 0
        let starts = table.starts, lengths = table.lengths, hashes = table.hashes, keyHashes = table.keyHashes
        let matches = table.matches, copies = table.copies, strangers = table.strangers
        // The list's hash is taken as the records come, but in a part that does not start
        // the list: the caller takes it on from the hashes kept (NEW's: but for records
        // found to be byte for byte their match, whose hash is the match's).
        let folds = part.from == nil
        let keepsHashes = old == nil || !folds
        var list = table.list
        defer { table.list = list }
        let n = bytes.count
        let p = bytes.baseAddress
        var cursor = part.from == nil ? 0 : -1  // the OLD record expected next
        // OLD's records as plain memory, read without reference counting in the loop.
        let oldCount = old?.table.count ?? 0, oldBytes = old?.bytes, copying = old?.copies ?? false
        let oldStarts = old?.table.starts.buffer, oldLengths = old?.table.lengths.buffer, oldHashes = old?.table.hashes.buffer
        let oldKeys = old?.keys
        @inline(__always)
        func append(start: Int, end: Int, hash: Hash128, copy: Bool) {
            starts.append(start)
            lengths.append(UInt32(truncatingIfNeeded: end - start))
            if folds { list.add(hash) }
            if keepsHashes, !copy { hashes.append(hash) }
            if starts.count & 0xFFF == 0 { checkpoint(end) }
        }
        func record(_ parser: inout JSONParser) throws(JSONParseFailure) {
            let start = parser.index
            if copying, cursor >= 0, cursor < oldCount, start < n, let p, let oldBytes, let oldStarts, let oldLengths, let oldHashes {
                let length = Int(oldLengths[cursor])
                let first = p[start]
                // Only a value that ends by itself (`{…}`, `[…]`, `"…"`): a number's bytes
                // may go on.
                if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\""),
                   length <= n - start, memcmp(p + start, oldBytes + oldStarts[cursor], length) == 0
                {
                    parser.index = start + length
                    guard !outcome.unkeyed else { return }
                    append(start: start, end: parser.index, hash: oldHashes[cursor], copy: true)
                    matches.append(Int32(truncatingIfNeeded: cursor))
                    copies.append(true)
                    cursor += 1
                    return
                }
            }
            let scanned = try parser.scanRecord(names, key: &key, parts: &parts, memory: memory, keyHash: &keyHash)
            guard !outcome.unkeyed else { return }
            // Lengths are kept in 32 bits: a record of 4 GiB is the full reader's too.
            guard let hash = scanned, parser.index - start <= Int(UInt32.max) else {
                outcome.unkeyed = true
                return
            }
            if let oldKeys {
                let match = oldKeys.lookup(keyHash)
                // Its bytes may still be its match's (a record out of the order expected):
                // seen while they are at hand, so that the compare need not read them again.
                let length = parser.index - start
                let copy = match >= 0 && Int(oldLengths![match]) == length
                    && memcmp(p! + start, oldBytes! + oldStarts![match], length) == 0
                append(start: start, end: parser.index, hash: hash, copy: copy)
                matches.append(Int32(truncatingIfNeeded: match))
                copies.append(copy)
                if match < 0 {
                    strangers.append(RecordTable.Stranger(record: starts.count - 1, keyHash: keyHash))
                } else {
                    cursor = match + 1
                }
            } else {
                append(start: start, end: parser.index, hash: hash, copy: false)
                keyHashes.append(keyHash)
            }
        }
        if lines {
            if let from = part.from { index = from } else { skipByteOrderMark() }
            while true {
                skipWhitespace()
                if index >= bytes.count { break }
                if index >= part.stop {
                    outcome.stopped = index
                    break
                }
                let start = index
                try record(&self)
                try endOfLine(recordStart: start)
            }
            return outcome
        }
        if let from = part.from {
            index = from
            depth = 1
        } else {
            skipByteOrderMark()
            skipWhitespace()
            guard index < bytes.count else { throw fail("expected a JSON value, found the end of the input") }
            // Anything else (an object of lists, a list at --path) is the full reader's.
            guard bytes[index] == UInt8(ascii: "[") else {
                outcome.notAList = true
                return outcome
            }
            if try openIsEmpty(close: UInt8(ascii: "]")) {
                skipWhitespace()
                if index < bytes.count { throw fail("unexpected \(describe(index)) after the JSON value") }
                return outcome
            }
        }
        repeat {
            skipWhitespace()
            if index >= part.stop {
                outcome.stopped = index
                return outcome
            }
            try record(&self)
            skipWhitespace()
        } while try separator(close: UInt8(ascii: "]"), "array")
        depth -= 1
        skipWhitespace()
        if index < bytes.count { throw fail("unexpected \(describe(index)) after the JSON value") }
        return outcome
    }

    /// The `CanonicalHash` of one whole JSON text, as `read` would check it.
    mutating func hashText() throws(JSONParseFailure) -> Hash128 {
        skipByteOrderMark()
        skipWhitespace()
        if index >= bytes.count { throw fail("expected a JSON value, found the end of the input") }
        let hash = try hashValue()
        skipWhitespace()
        if index < bytes.count { throw fail("unexpected \(describe(index)) after the JSON value") }
        return hash
    }
}
