#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// The fast path: diffs two plain lists of records (a JSON list at the top level, or NDJSON)
/// straight from their bytes, on two cores, without building a value for any record that
/// did not change.
///
/// OLD is scanned first, both halves at once, keeping per record its byte range, its
/// `CanonicalHash` and a hash of its identity; its key hashes go into an index. NEW is
/// scanned next, both halves at once, and each of its records is either found to be, byte
/// for byte, the OLD record after the last one found (lists mostly keep their order: such
/// a record is neither parsed nor compared again), or scanned and hashed and its key hash
/// looked up. Records are matched by identity with the differ's algorithm and moves; a
/// matched pair is unchanged when its bytes are equal, and otherwise both are parsed and
/// compared as values, so that no hash collision can hide an update. Values are built only
/// for the records in the changeset.
///
/// It gives exactly the changeset, fingerprints included, that `Differ` gives from the full
/// documents. It covers plain lists keyed by top-level fields under `--duplicates error`;
/// for anything else `diff` returns nil and the caller reads the documents in full.
public struct FastDiff: Sendable {
    public enum Input: Sendable {
        /// One JSON text whose top level is the list.
        case json
        /// One record per line.
        case ndjson
    }

    public var key: IdentityKey
    public var differ: Differ
    public var maxDepth = 1000
    /// Inputs of this many bytes or more are scanned in two halves at once.
    var splitsFrom = 1 << 20
    public var progress: Progress?

    public init(key: IdentityKey, differ: Differ = Differ(), progress: Progress? = nil) {
        self.key = key
        self.differ = differ
        self.progress = progress
    }

    /// The progress units a diff of these inputs counts (bytes scanned, then compared).
    public static func work(old: MappedFile, new: MappedFile) -> Int {
        2 * (old.bytes.count + new.bytes.count)
    }

    /// The changeset from `old` to `new`, or nil when one of them is not a plain list this
    /// path covers (a top-level object, sections) or the key is a path into the records.
    ///
    /// - Throws: the error the full reader would give, at the same place: malformed input, a
    ///   record without a key or with a key that is not a scalar, a key found twice.
    public func diff(old: MappedFile, _ oldInput: Input, new: MappedFile, _ newInput: Input) throws(ListDiffError) -> Changeset? {
        guard let names = KeyNames(key) else { return nil }
        // Report as the full reader would, which reads and keys OLD before it reads NEW.
        // Other layouts, and records without a usable key (which may be section objects,
        // or an error the full reader words), are for the full reader.
        var oldSide: Side
        do {
            let oldScan = scan(old, oldInput, names: names, release: false, old: nil)
            progress?.lap("scan OLD")
            guard let side = try accepted(oldScan, old, oldInput) else { return nil }
            oldSide = side
        }
        let newScan: Scan
        do {
            // OLD's key index lives until NEW is scanned (its memory is the next tables').
            let (keys, oldRepeat) = OldKeys.build(oldSide.table)
            if let pair = oldRepeat { return try duplicateKey(oldSide, pair) }
            progress?.lap("index OLD")
            let oldRecords = OldRecords(bytes: old.bytes.baseAddress ?? UnsafePointer(bitPattern: 8)!, table: oldSide.table,
                                        keys: keys, copies: oldInput == newInput)
            newScan = scan(new, newInput, names: names, release: true, old: oldRecords)
        }
        progress?.lap("scan NEW")
        // Memory let go as soon as it is done with is taken again, warm, by what comes next.
        oldSide.table.dropHashes()
        guard let newSide = try accepted(newScan, new, newInput) else { return nil }
        let claims = Claims(new: newSide.table, oldCount: oldSide.table.count)
        if let pair = claims.repeated { return try duplicateKey(newSide, pair) }
        progress?.lap("index NEW")
        progress?.enter(.comparing)
        let stays = try matching(claims)
        progress?.lap("matching")
        guard let (changes, summary) = try compare(old: oldSide, new: newSide, claims: claims, stays: stays) else { return nil }
        var changeset = Changeset(algorithm: differ.algorithm.name, key: key, oldCount: oldSide.table.count,
                                  newCount: newSide.table.count, changes: changes, summary: summary)
        changeset.fingerprints = Changeset.Fingerprints(old: Fingerprint.string(oldSide.table.list.finish()),
                                                        new: Fingerprint.string(newSide.table.list.finish()))
        progress?.lap("compare")
        progress?.enter(.writing)
        return changeset
    }

    /// Which OLD records stay in place (the rest of the matched ones move). Every key is
    /// unique on each side here, so the matching is the claims' whatever the algorithm;
    /// Heckel's (the default) is taken as it is, the others are run for what they cost
    /// and refuse, as `Differ` runs them.
    func matching(_ claims: Claims) throws(ListDiffError) -> [Bool] {
        let oldCount = claims.oldToNew.count, newCount = claims.newToOld.count
        let newToOld = claims.newToOld.buffer, oldToNew = claims.oldToNew.buffer
        if !(differ.algorithm is HeckelDiff) {
            let symbols = (0..<newCount).map { j in newToOld[j] >= 0 ? Int(newToOld[j]) : oldCount + j }
            return try differ.matching(old: Array(0..<oldCount), new: symbols, symbolCount: oldCount + newCount).stays
        }
        var stays = [Bool](repeating: false, count: oldCount)
        visitLongestIncreasingSubsequence(count: oldCount, value: { Int(oldToNew[$0]) - 1 }) { stays[$0] = true }
        return stays
    }

    struct Scan {
        var table = RecordTable()
        var failure: ListDiffError?
        var notAList = false
        /// A record the fast path cannot take.
        var unkeyed = false
        /// Where the scan stopped (see `ListScan.stopped`).
        var stopped: Int?
    }

    /// Scans one input into its table (OLD's; NEW's when `old` is given), the two halves of
    /// a large one at once: the second from a record start guessed after the middle
    /// (`splitPoint`), the first up to it. When the first finds a record starting exactly
    /// there, the guess was right and the halves join; when not (the guess fell inside a
    /// record), the first goes on to the end alone.
    ///
    /// With `release`, pages are handed back behind the scan (NEW's: the compare reads few of
    /// them again); without, they stay (OLD's: NEW's scan and the compare read them again).
    /// Peak memory is about OLD's size plus the tables.
    func scan(_ file: MappedFile, _ input: Input, names: KeyNames, release: Bool, old: OldRecords?) -> Scan {
        let lines = input == .ndjson
        // Room for records of 64 bytes on average (untouched room costs address space only).
        let capacity = max(16, file.bytes.count / 64)
        guard file.bytes.count >= splitsFrom, let from = Self.splitPoint(file.bytes, lines: lines) else {
            return scanPart(file, lines: lines, names: names, part: ListPart(), capacity: capacity, release: release, old: old)
        }
        let parts = UnsafeMutableBufferPointer<Scan>.allocate(capacity: 2)
        parts.initialize(repeating: Scan())
        defer { parts.deinitialize(); parts.deallocate() }
        nonisolated(unsafe) let out = parts
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            out[k] = scanPart(file, lines: lines, names: names, part: k == 0 ? ListPart(stop: from) : ListPart(from: from),
                              capacity: k == 0 ? capacity : capacity / 2, release: release, old: old)
        }
        var first = parts[0]
        guard first.failure == nil, !first.notAList, let stopped = first.stopped else { return first }
        if stopped == from {
            let second = parts[1]
            first.table.append(second.table, oldHashes: old?.table.hashes)
            first.failure = second.failure
            first.unkeyed = first.unkeyed || second.unkeyed
            first.stopped = nil
            return first
        }
        // A wrong guess: the first half goes on from where it stopped.
        var rest = scanPart(file, lines: lines, names: names, part: ListPart(from: stopped), capacity: capacity / 2,
                            release: release, old: old)
        first.table.append(rest.table, oldHashes: old?.table.hashes)
        rest.table = first.table
        rest.unkeyed = rest.unkeyed || first.unkeyed
        return rest
    }

    /// One part of a list's scan.
    func scanPart(_ file: MappedFile, lines: Bool, names: KeyNames, part: ListPart, capacity: Int, release: Bool,
                  old: OldRecords?) -> Scan
    {
        var result = Scan()
        result.table = RecordTable(capacity: capacity, new: old != nil, keepsHashes: old == nil || part.from != nil)
        var parser = JSONParser(bytes: file.bytes, maxDepth: maxDepth)
        let progress = progress
        let floor = part.from ?? 0
        var reported = floor, released = floor
        do throws(JSONParseFailure) {
            let outcome = try parser.scanList(lines: lines, names: names, part: part, into: &result.table, old: old) { offset in
                if release {
                    file.release(released..<offset)
                    released = offset
                }
                progress?.advance(by: offset - reported)
                reported = offset
            }
            result.notAList = outcome.notAList
            result.unkeyed = outcome.unkeyed
            result.stopped = outcome.stopped
        } catch {
            let location = SourceLocation.of(offset: error.offset, in: file.bytes)
            result.failure = ListDiffError(file: file.name, location: location, error.message)
        }
        let end = result.stopped ?? file.bytes.count
        if release { file.release(floor..<end) }
        progress?.advance(by: max(0, end - reported))
        return result
    }

    /// Where the second half of a split scan starts: the first record start found from the
    /// middle on (a line's start in NDJSON; in JSON, a `{` that a `,` and white space come
    /// before, preferably at a line's start), or nil. A guess: the scan of the first half
    /// tells whether a record does start there.
    static func splitPoint(_ bytes: UnsafeBufferPointer<UInt8>, lines: Bool) -> Int? {
        let n = bytes.count
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        func nextToken(from k: Int) -> Int {
            var k = k
            while k < n, isSpace(bytes[k]) { k += 1 }
            return k
        }
        func precededByComma(_ k: Int) -> Bool {
            var q = k - 1
            while q >= 0, isSpace(bytes[q]) { q -= 1 }
            return q >= 0 && bytes[q] == UInt8(ascii: ",")
        }
        let middle = n / 2
        let window = min(n, middle + (1 << 20))
        if lines {
            guard let base = bytes.baseAddress, let newline = memchr(base + middle, 0x0A, n - middle) else { return nil }
            let k = nextToken(from: UnsafeRawPointer(newline) - UnsafeRawPointer(base) + 1)
            return k < n ? k : nil
        }
        var comma: Int? = nil
        var k = middle
        while k < window {
            if bytes[k] == 0x0A {
                let q = nextToken(from: k + 1)
                if q < n, bytes[q] == UInt8(ascii: "{"), precededByComma(k) { return q }
                k = q
                continue
            }
            if comma == nil, bytes[k] == UInt8(ascii: ","), case let q = nextToken(from: k + 1), q < n, bytes[q] == UInt8(ascii: "{") {
                comma = q
            }
            k += 1
        }
        return comma
    }

    /// Parses the record at `offset`. The scan has validated it; a failure here means the
    /// file changed while it was read.
    func value(_ file: MappedFile, at offset: Int, _ input: Input) throws(ListDiffError) -> Value {
        do throws(JSONParseFailure) {
            return try JSONParser.value(in: file.bytes, at: offset, depth: input == .json ? 1 : 0, maxDepth: maxDepth)
        } catch {
            throw ListDiffError(file: file.name, location: SourceLocation.of(offset: error.offset, in: file.bytes),
                                "the file changed while it was being read: \(error.message)")
        }
    }

    typealias Side = (file: MappedFile, table: RecordTable, input: Input)

    /// A scanned input, or nil when it is the full reader's (not a list, a record without a
    /// usable key; two billion records, as matches are 32-bit); throws its error.
    func accepted(_ scan: Scan, _ file: MappedFile, _ input: Input) throws(ListDiffError) -> Side? {
        if let failure = scan.failure { throw failure }
        guard !scan.notAList, !scan.unkeyed, scan.table.count < Int32.max else { return nil }
        return (file, scan.table, input)
    }

    /// Two records of one input with one key hash: the same key twice, thrown, or (never
    /// seen, but possible) two keys with one hash: nil, for the full reader.
    func duplicateKey(_ side: Side, _ pair: (first: Int, second: Int)) throws(ListDiffError) -> Changeset? {
        guard try sameKey(side, pair.first, side, pair.second) else { return nil }
        throw try duplicate(side, first: pair.first, second: pair.second)
    }

    /// Whether record i of `a` and record j of `b`, whose key hashes agree, have one key:
    /// read again from their bytes, as the scan found it.
    func sameKey(_ a: Side, _ i: Int, _ b: Side, _ j: Int) throws(ListDiffError) -> Bool {
        sameKey(try value(a.file, at: a.table.starts[i], a.input), try value(b.file, at: b.table.starts[j], b.input))
    }

    /// Whether two records have one key, as values (strings by their scalars, numbers by
    /// their value: as identities compare).
    func sameKey(_ a: Value, _ b: Value) -> Bool {
        guard let keyA = key.written(in: a) else { return false }
        return keyA == key.written(in: b)
    }

    func duplicate(_ side: Side, first: Int, second: Int) throws(ListDiffError) -> ListDiffError {
        let value = try value(side.file, at: side.table.starts[second], side.input)
        let written = (try? key.identify(value).get().written) ?? .null
        let message = KeyFormatter(key).duplicate(
            written, selfKeyed: value.isScalar, places: "records \(first) and \(second)",
            first: SourceLocation.of(offset: side.table.starts[first], in: side.file.bytes))
        return ListDiffError(file: side.file.name, location: SourceLocation.of(offset: side.table.starts[second], in: side.file.bytes), message)
    }

    /// The changes: NEW is walked in two halves at once, each building the changes of its
    /// records (inserts, moves, updates) and of OLD's deleted records up to its own; nil
    /// when two records matched by key hash turn out to have different keys.
    ///
    /// A matched pair is unchanged when its bytes are equal (as NEW's scan found them;
    /// equal bytes are equal keys too). Otherwise both are parsed: their keys must agree,
    /// and their values are compared.
    func compare(old: Side, new: Side, claims: Claims, stays: [Bool]) throws(ListDiffError) -> ([Change], Changeset.Summary)? {
        // NEW's second half starts at `middle`; OLD's records from the first that stays
        // there on are the second half's to build when deleted (the records that stay are in
        // one order on both sides, so the first half's all come before).
        let newToOld = claims.newToOld
        let middle = new.table.count / 2
        var oldMiddle = old.table.count
        for j in middle..<new.table.count where newToOld[j] >= 0 && stays[Int(newToOld[j])] {
            oldMiddle = Int(newToOld[j])
            break
        }
        let parts = [(0..<middle, 0..<oldMiddle), (middle..<new.table.count, oldMiddle..<old.table.count)]
        let results = UnsafeMutableBufferPointer<Result<Differ.ChangeBuilder?, ListDiffError>>.allocate(capacity: 2)
        results.initialize(repeating: .success(nil))
        defer { results.deinitialize(); results.deallocate() }
        nonisolated(unsafe) let out = results
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            out[k] = Result { () throws(ListDiffError) -> Differ.ChangeBuilder? in
                try compare(old: old, new: new, newRange: parts[k].0, oldRange: parts[k].1, claims: claims, stays: stays)
            }
        }
        old.file.release(0..<old.file.bytes.count)
        new.file.release(0..<new.file.bytes.count)
        guard var builder = try results[0].get(), let second = try results[1].get() else { return nil }
        builder.append(second)
        return builder.result
    }

    /// One half of `compare`: NEW's records in `newRange`, OLD's deleted records in
    /// `oldRange`. NEW's pages behind the walk are handed back; OLD's, still mapped since
    /// its scan, when the half is done.
    func compare(old: Side, new: Side, newRange: Range<Int>, oldRange: Range<Int>, claims: Claims,
                 stays: [Bool]) throws(ListDiffError) -> Differ.ChangeBuilder?
    {
        func side(_ count: Int) -> Differ.RecordSide {
            Differ.RecordSide(count: count, position: { RecordPosition(section: 0, index: $0) },
                              value: { _ in preconditionFailure("the fast path gives every value it changes") },
                              key: { [key] _, value in key.written(in: value) ?? .null },
                              occurrence: { _ in nil })
        }
        var builder = Differ.ChangeBuilder(old: side(old.table.count), new: side(new.table.count))
        let newToOld = claims.newToOld.buffer, oldToNew = claims.oldToNew.buffer
        let significant = differ.memberOrder == .significant
        func start(_ side: Side, _ i: Int) -> Int { i < side.table.count ? side.table.starts[i] : side.file.bytes.count }
        let newFloor = start(new, newRange.lowerBound), oldFloor = start(old, oldRange.lowerBound)
        let oldCeiling = start(old, oldRange.upperBound)
        var nextOld = oldRange.lowerBound  // OLD's deleted records before this one are built
        var counted = newFloor
        let oldStarts = old.table.starts.buffer
        let newStarts = new.table.starts.buffer, copies = new.table.copies.buffer
        func deleted(below end: Int) throws(ListDiffError) {
            while nextOld < end {
                if oldToNew[nextOld] == 0 { builder.delete(nextOld, value: try value(old.file, at: oldStarts[nextOld], old.input)) }
                nextOld += 1
            }
        }
        for j in newRange {
            if j & 0x3FFF == 0x3FFF {
                let here = newStarts[j]
                new.file.release(newFloor..<here)
                progress?.advance(by: 2 * (here - counted))
                counted = here
            }
            let i = Int(newToOld[j])
            guard i >= 0 else {
                builder.insert(j, value: try value(new.file, at: newStarts[j], new.input))
                continue
            }
            let staying = stays[i]
            if staying, nextOld < i { try deleted(below: i) }
            let oldStart = oldStarts[i], newStart = newStarts[j]
            // NEW's scan compared every matched record's bytes with its match's already.
            if copies[j] {
                if staying {
                    builder.matched(i, j, stays: true, same: true)
                } else {
                    builder.matched(i, j, stays: false, same: true, after: try value(new.file, at: newStart, new.input))
                }
                continue
            }
            let a = try value(old.file, at: oldStart, old.input)
            let b = try value(new.file, at: newStart, new.input)
            guard sameKey(a, b) else { return nil }  // equal key hashes, different keys
            builder.matched(i, j, stays: staying, same: significant ? a.isIdentical(to: b) : a == b, before: a, after: b)
        }
        try deleted(below: oldRange.upperBound)
        let end = newRange.upperBound < new.table.count ? newStarts[newRange.upperBound] : new.file.bytes.count
        progress?.advance(by: 2 * (end - counted))
        // Done with its ranges (the other half's moved records may touch them again).
        new.file.release(newFloor..<end)
        old.file.release(oldFloor..<oldCeiling)
        return builder
    }
}

/// Which NEW record takes which OLD record: each NEW record its key hash's match, in NEW's
/// order, unless an earlier one took it already (a key twice in NEW, or a collision, for
/// the caller to tell apart); NEW's records that matched none must have keys of their own.
struct Claims: Sendable {
    /// For each NEW record, its OLD record, or -1.
    let newToOld: PageBuffer<Int32>
    /// For each OLD record, its NEW record + 1, or 0.
    let oldToNew: PageBuffer<Int32>
    /// The earliest NEW record (by its second occurrence) whose key hash came before.
    var repeated: (first: Int, second: Int)?

    init(new: RecordTable, oldCount: Int) {
        newToOld = new.matches
        oldToNew = PageBuffer<Int32>(zeroed: oldCount)
        let matches = newToOld.buffer, taken = oldToNew.buffer
        var repeated: (first: Int, second: Int)? = nil
        for j in 0..<matches.count where matches[j] >= 0 {
            let i = Int(matches[j])
            if taken[i] != 0 {
                repeated = (Int(taken[i]) - 1, j)
                break
            }
            taken[i] = Int32(truncatingIfNeeded: j + 1)
        }
        var seen: [UInt64: Int] = [:]
        for s in 0..<new.strangers.count {
            let stranger = new.strangers[s]
            if let second = repeated?.second, stranger.record > second { break }
            if let first = seen.updateValue(stranger.record, forKey: stranger.keyHash) {
                repeated = (first, stranger.record)
                break
            }
        }
        self.repeated = repeated
    }
}

/// OLD's key hashes, for NEW's scan to look up: two open-addressing tables, each built on
/// its own core from the keys whose hash has its top bit (half the keys). A slot holds the
/// top 32 bits of the hash and the record + 1 (0 is empty); a slot whose bits agree is
/// confirmed on the full hash.
///
/// Records matched by it have equal 64-bit key hashes; whether their keys are equal is
/// checked later (equal bytes, or equal keys as values), and two records of OLD with one
/// key hash are reported for the caller to tell a repeated key from a collision.
struct OldKeys: @unchecked Sendable {
    let halves: [PageBuffer<UInt64>]
    let hashes: PageBuffer<UInt64>
    let mask: Int
    /// The tables' and hashes' memory (the buffers above keep it).
    private let low: UnsafeMutableBufferPointer<UInt64>, high: UnsafeMutableBufferPointer<UInt64>
    private let keyHashes: UnsafeMutableBufferPointer<UInt64>

    init(halves: [PageBuffer<UInt64>], hashes: PageBuffer<UInt64>, mask: Int) {
        self.halves = halves
        self.hashes = hashes
        self.mask = mask
        low = halves[0].buffer
        high = halves[1].buffer
        keyHashes = hashes.buffer
    }

    /// The index of OLD's keys, and the earliest record (by its second occurrence) whose
    /// key hash came before.
    static func build(_ old: RecordTable) -> (OldKeys, repeated: (first: Int, second: Int)?) {
        var size = 16
        while size < old.count { size <<= 1 }  // half the keys, at most half full
        let halves = [PageBuffer<UInt64>(zeroed: size, huge: true), PageBuffer<UInt64>(zeroed: size, huge: true)]
        let keys = OldKeys(halves: halves, hashes: old.keyHashes, mask: size - 1)
        let repeats = UnsafeMutableBufferPointer<(first: Int, second: Int)?>.allocate(capacity: 2)
        repeats.initialize(repeating: nil)
        defer { repeats.deinitialize(); repeats.deallocate() }
        nonisolated(unsafe) let out = repeats
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            out[half] = keys.fill(half: half)
        }
        guard let a = repeats[0], let b = repeats[1] else { return (keys, repeats[0] ?? repeats[1]) }
        return (keys, a.second <= b.second ? a : b)
    }

    /// The OLD record with key hash `h`, or -1.
    @inline(__always)
    func lookup(_ h: UInt64) -> Int {
        find(h, in: h >> 63 == 0 ? low : high, keyHashes).record
    }

    /// `h`'s slot in `slots`: the record that holds it, or the empty slot it would take.
    @inline(__always)
    func find(_ h: UInt64, in slots: UnsafeMutableBufferPointer<UInt64>, _ hashes: UnsafeMutableBufferPointer<UInt64>) -> (slot: Int, record: Int) {
        var p = Int(truncatingIfNeeded: h) & mask
        while slots[p] != 0 {
            let r = Int(slots[p] & 0xFFFF_FFFF) - 1
            if slots[p] >> 32 == h >> 32, hashes[r] == h { return (p, r) }
            p = (p + 1) & mask
        }
        return (p, -1)
    }

    /// Adds the keys of one half, 64 records at a time: which ones is found without a
    /// branch, and their slots are touched first, so that the cache misses overlap.
    func fill(half: Int) -> (first: Int, second: Int)? {
        let slots = halves[half].buffer, hashes = hashes.buffer
        var repeated: (first: Int, second: Int)? = nil
        var sink: UInt64 = 0
        var block = 0
        while block < hashes.count {
            let end = min(block + 64, hashes.count)
            var mine: UInt64 = 0
            for k in block..<end { mine |= (hashes[k] >> 63 ^ UInt64(half) ^ 1) << UInt64(k - block) }
            var rest = mine
            while rest != 0 {
                sink &+= slots[Int(truncatingIfNeeded: hashes[block + rest.trailingZeroBitCount]) & mask]
                rest &= rest - 1
            }
            rest = mine
            while rest != 0 {
                let k = block + rest.trailingZeroBitCount
                rest &= rest - 1
                let h = hashes[k]
                let (p, r) = find(h, in: slots, hashes)
                if r >= 0 {
                    if repeated == nil { repeated = (r, k) }
                    continue
                }
                slots[p] = (h >> 32) << 32 | UInt64(k + 1)
            }
            block = end
        }
        OldKeys.keep(sink)
        return repeated
    }

    /// Keeps the warming reads from being optimised away.
    @inline(never)
    static func keep(_ sink: UInt64) {
        _ = sink
    }
}
