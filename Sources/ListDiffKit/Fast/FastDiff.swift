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
/// Each input is scanned once (both at the same time), keeping per record its byte range,
/// its identity and its `CanonicalHash`. Records are matched by identity with the differ's
/// algorithm and moves; a matched pair is unchanged when its hashes agree and its bytes are
/// equal, and only when the hashes agree but the bytes differ (the same record written
/// differently) are both parsed and compared as values, so that a hash collision can never
/// hide an update. Values are built only for the records in the changeset.
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
        if let n = getenv("SCANBENCH").map({ Int(atoi($0)) }) {
            var best = 1e9
            for _ in 0..<n {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let s = scan(old, lines: oldInput == .ndjson, names: names, release: true)
                let t = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
                best = min(best, t)
                precondition(s.table.count > 0)
            }
            print("SCANBENCH best \(best) ms")
            exit(0)
        }
        let sides = [(old, oldInput), (new, newInput)]
        let scans = UnsafeMutableBufferPointer<Scan>.allocate(capacity: 2)
        scans.initialize(repeating: Scan())
        defer { scans.deinitialize(); scans.deallocate() }
        nonisolated(unsafe) let out = scans
        DispatchQueue.concurrentPerform(iterations: 2) { s in
            out[s] = scan(sides[s].0, lines: sides[s].1 == .ndjson, names: names, release: s == 1)
        }
        progress?.lap("scan")
        // Report as the full reader would, which reads and keys OLD before it reads NEW.
        // Other layouts, and records without a usable key (which may be section objects,
        // or an error the full reader words), are for the full reader.
        if let failure = scans[0].failure { throw failure }
        if scans[0].notAList || scans[0].unkeyed { return nil }
        let oldSide: Side = (old, scans[0].table, oldInput)
        let newRead = scans[1].failure == nil && !scans[1].notAList && !scans[1].unkeyed
        let newSide: Side = (new, newRead ? scans[1].table : RecordTable(), newInput)
        // Symbols and matches are 32-bit (two billion records a side is beyond any memory).
        guard oldSide.table.count < Int32.max, newSide.table.count < Int32.max else { return nil }
        let index = KeyIndex.match(old: oldSide.table, new: newSide.table)
        // Equal key hashes in one file: the same key twice, or (never seen, but possible)
        // two keys with one hash, which the full reader sorts out.
        if let (first, second) = index.oldRepeat {
            guard try sameKey(oldSide, first, oldSide, second) else { return nil }
            throw try duplicate(oldSide, first: first, second: second)
        }
        if let failure = scans[1].failure { throw failure }
        if !newRead { return nil }
        if let (first, second) = index.newRepeat {
            guard try sameKey(newSide, first, newSide, second) else { return nil }
            throw try duplicate(newSide, first: first, second: second)
        }
        progress?.lap("index")
        progress?.enter(.comparing)
        let stays = try matching(index)
        progress?.lap("matching")
        guard let (changes, summary) = try compare(old: oldSide, new: newSide, index: index, stays: stays) else { return nil }
        var changeset = Changeset(algorithm: differ.algorithm.name, key: key, oldCount: oldSide.table.count,
                                  newCount: newSide.table.count, changes: changes, summary: summary)
        changeset.fingerprints = Changeset.Fingerprints(old: Fingerprint.string(oldSide.table.list.finish()),
                                                        new: Fingerprint.string(newSide.table.list.finish()))
        progress?.lap("compare")
        progress?.enter(.writing)
        return changeset
    }

    /// Which OLD records stay in place (the rest of the matched ones move). Every key is
    /// unique on each side here, so the matching is the index's whatever the algorithm;
    /// Heckel's (the default) is taken as it is, the others are run for what they cost
    /// and refuse, as `Differ` runs them.
    func matching(_ index: KeyIndex) throws(ListDiffError) -> [Bool] {
        let oldCount = index.oldToNew.count, newCount = index.newToOld.count
        if !(differ.algorithm is HeckelDiff) {
            let symbols = (0..<newCount).map { j in index.newToOld[j] >= 0 ? Int(index.newToOld[j]) : oldCount + j }
            return try differ.matching(old: Array(0..<oldCount), new: symbols, symbolCount: oldCount + newCount).stays
        }
        let oldToNew = index.oldToNew.buffer
        var stays = [Bool](repeating: false, count: oldCount)
        visitLongestIncreasingSubsequence(count: oldCount, value: { Int(oldToNew[$0]) }) { stays[$0] = true }
        return stays
    }

    struct Scan {
        var table = RecordTable()
        var failure: ListDiffError?
        var notAList = false
        /// A record has no usable key.
        var unkeyed = false
    }

    /// Scans one input into its table. With `release`, its pages are handed back behind
    /// the scan (NEW's: the compare reads it again in order, so they come back one at a
    /// time); without, they stay (OLD's: the compare reads it again too, but its moved
    /// records anywhere). Peak memory is about OLD's size plus the tables.
    func scan(_ file: MappedFile, lines: Bool, names: KeyNames, release: Bool) -> Scan {
        var result = Scan()
        // Room for records of 64 bytes on average (untouched room costs address space only).
        result.table = RecordTable(capacity: max(16, file.bytes.count / 64))
        var parser = JSONParser(bytes: file.bytes, maxDepth: maxDepth)
        let progress = progress
        var reported = 0
        do throws(JSONParseFailure) {
            let outcome = try parser.scanList(lines: lines, names: names, into: &result.table) { offset in
                if release { file.release(below: offset) }
                progress?.advance(by: offset - reported)
                reported = offset
            }
            switch outcome {
            case .done: break
            case .notAList: result.notAList = true
            case .unkeyed: result.unkeyed = true
            }
        } catch {
            let location = SourceLocation.of(offset: error.offset, in: file.bytes)
            result.failure = ListDiffError(file: file.name, location: location, error.message)
        }
        progress?.advance(by: file.bytes.count - reported)
        return result
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
    /// A matched pair is unchanged when its hashes agree and its bytes are equal (equal
    /// bytes are equal keys too). Otherwise both are parsed: their keys must agree, and
    /// their values are compared when the hashes agree (the same record written
    /// differently, or a collision), so that no hash collision can hide an update.
    func compare(old: Side, new: Side, index: KeyIndex, stays: [Bool]) throws(ListDiffError) -> ([Change], Changeset.Summary)? {
        // NEW's second half starts at `middle`; OLD's records from the first that stays
        // there on are the second half's to build when deleted (the records that stay are in
        // one order on both sides, so the first half's all come before).
        let newToOld = index.newToOld
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
                try compare(old: old, new: new, newRange: parts[k].0, oldRange: parts[k].1, index: index, stays: stays)
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
    func compare(old: Side, new: Side, newRange: Range<Int>, oldRange: Range<Int>, index: KeyIndex,
                 stays: [Bool]) throws(ListDiffError) -> Differ.ChangeBuilder?
    {
        func side(_ count: Int) -> Differ.RecordSide {
            Differ.RecordSide(count: count, position: { RecordPosition(section: 0, index: $0) },
                              value: { _ in preconditionFailure("the fast path gives every value it changes") },
                              key: { [key] _, value in key.written(in: value) ?? .null },
                              occurrence: { _ in nil })
        }
        var builder = Differ.ChangeBuilder(old: side(old.table.count), new: side(new.table.count))
        let newToOld = index.newToOld, oldToNew = index.oldToNew
        let oldBase = UnsafeRawPointer(old.file.bytes.baseAddress), newBase = UnsafeRawPointer(new.file.bytes.baseAddress)
        let significant = differ.memberOrder == .significant
        func start(_ side: Side, _ i: Int) -> Int { i < side.table.count ? side.table.starts[i] : side.file.bytes.count }
        let newFloor = start(new, newRange.lowerBound), oldFloor = start(old, oldRange.lowerBound)
        let oldCeiling = start(old, oldRange.upperBound)
        var nextOld = oldRange.lowerBound  // OLD's deleted records before this one are built
        var counted = newFloor
        func deleted(below end: Int) throws(ListDiffError) {
            while nextOld < end {
                if oldToNew[nextOld] < 0 { builder.delete(nextOld, value: try value(old.file, at: old.table.starts[nextOld], old.input)) }
                nextOld += 1
            }
        }
        let oldStarts = old.table.starts.buffer, oldEnds = old.table.ends.buffer, oldHashes = old.table.hashes.buffer
        let newStarts = new.table.starts.buffer, newEnds = new.table.ends.buffer, newHashes = new.table.hashes.buffer
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
            let oldStart = oldStarts[i], newStart = newStarts[j]
            if staying, nextOld < i { try deleted(below: i) }
            let sameHash = oldHashes[i] == newHashes[j]
            if sameHash {
                let length = oldEnds[i] - oldStart
                if length == newEnds[j] - newStart, memcmp(oldBase! + oldStart, newBase! + newStart, length) == 0 {
                    if staying {
                        builder.matched(i, j, stays: true, same: true)
                    } else {
                        builder.matched(i, j, stays: false, same: true, after: try value(new.file, at: newStart, new.input))
                    }
                    continue
                }
            }
            let a = try value(old.file, at: oldStart, old.input)
            let b = try value(new.file, at: newStart, new.input)
            guard sameKey(a, b) else { return nil }  // equal key hashes, different keys
            let same = sameHash && (significant ? a.isIdentical(to: b) : a == b)
            builder.matched(i, j, stays: staying, same: same, before: a, after: b)
        }
        try deleted(below: oldRange.upperBound)
        let end = newRange.upperBound < new.table.count ? new.table.starts[newRange.upperBound] : new.file.bytes.count
        progress?.advance(by: 2 * (end - counted))
        // Done with its ranges (the other half's moved records may touch them again).
        new.file.release(newFloor..<end)
        old.file.release(oldFloor..<oldCeiling)
        return builder
    }
}

/// Matches NEW's records to OLD's by key hash, on two cores: each takes the keys whose
/// hash has its top bit (half the keys, any order). OLD's keys go into an open-addressing
/// table of the core's own, sized for them: a slot holds the top 32 bits of the hash and
/// the record + 1 (0 is empty), and a slot whose bits agree is confirmed on the full hash.
/// NEW's keys that OLD has not (few, as a rule) go into a dictionary beside it.
///
/// Records matched here have equal 64-bit key hashes; whether their keys are equal is
/// checked later (equal bytes, or equal identities), and two records of one file with
/// one key hash are reported for the caller to tell a repeated key from a collision.
struct KeyIndex: Sendable {
    /// For each NEW record, its OLD record, or -1.
    let newToOld: PageBuffer<Int32>
    /// For each OLD record, its NEW record, or -1.
    let oldToNew: PageBuffer<Int32>
    /// The earliest record of OLD (by its second occurrence) whose key hash came before.
    var oldRepeat: (first: Int, second: Int)?
    var newRepeat: (first: Int, second: Int)?

    static func match(old: RecordTable, new: RecordTable) -> KeyIndex {
        let newToOld = PageBuffer<Int32>(zeroed: new.count), oldToNew = PageBuffer<Int32>(zeroed: old.count)
        let parts = UnsafeMutableBufferPointer<Part>.allocate(capacity: 2)
        parts.initialize(repeating: Part())
        defer { parts.deinitialize(); parts.deallocate() }
        nonisolated(unsafe) let out = parts
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            out[half] = Part.run(half: UInt64(half), old: old, new: new, newToOld: newToOld.buffer, oldToNew: oldToNew.buffer)
        }
        func earliest(_ a: (first: Int, second: Int)?, _ b: (first: Int, second: Int)?) -> (first: Int, second: Int)? {
            guard let a, let b else { return a ?? b }
            return a.second <= b.second ? a : b
        }
        return KeyIndex(newToOld: newToOld, oldToNew: oldToNew,
                        oldRepeat: earliest(parts[0].oldRepeat, parts[1].oldRepeat),
                        newRepeat: earliest(parts[0].newRepeat, parts[1].newRepeat))
    }

    /// One core's half of the keys.
    struct Part {
        var oldRepeat: (first: Int, second: Int)?
        var newRepeat: (first: Int, second: Int)?
        /// Keeps the warming reads from being optimised away.
        var sink: UInt64 = 0

        static func run(half: UInt64, old: RecordTable, new: RecordTable,
                        newToOld: UnsafeMutableBufferPointer<Int32>, oldToNew: UnsafeMutableBufferPointer<Int32>) -> Part
        {
            var part = Part()
            var size = 16
            while size < old.count { size <<= 1 }  // half OLD's keys, at most half full
            let mask = size - 1
            let table = PageBuffer<UInt64>(zeroed: size)
            let slots = table.buffer
            let oldHashes = UnsafeBufferPointer(old.keyHashes.buffer), newHashes = UnsafeBufferPointer(new.keyHashes.buffer)
            // Finds `h`'s slot: the OLD record that holds it, or the empty slot it would take.
            @inline(__always)
            func find(_ h: UInt64) -> (slot: Int, record: Int) {
                var p = Int(truncatingIfNeeded: h) & mask
                while slots[p] != 0 {
                    let r = Int(slots[p] & 0xFFFF_FFFF) - 1
                    if slots[p] >> 32 == h >> 32, oldHashes[r] == h { return (p, r) }
                    p = (p + 1) & mask
                }
                return (p, -1)
            }
            var sink: UInt64 = 0
            forEachKey(in: oldHashes, half: half, slots: slots, mask: mask, sink: &sink) { k in
                let h = oldHashes[k]
                let (p, r) = find(h)
                if r >= 0 {
                    if part.oldRepeat == nil { part.oldRepeat = (r, k) }
                    return
                }
                slots[p] = (h >> 32) << 32 | UInt64(k + 1)
                oldToNew[k] = -1
            }
            var newOnly: [UInt64: Int32] = [:]  // NEW's keys that OLD has not: the NEW record
            forEachKey(in: newHashes, half: half, slots: slots, mask: mask, sink: &sink) { j in
                let h = newHashes[j]
                let r = find(h).record
                if r < 0 {
                    newToOld[j] = -1
                    if let first = newOnly.updateValue(Int32(truncatingIfNeeded: j), forKey: h), part.newRepeat == nil {
                        part.newRepeat = (Int(first), j)
                    }
                } else if oldToNew[r] >= 0 {
                    if part.newRepeat == nil { part.newRepeat = (Int(oldToNew[r]), j) }
                    newToOld[j] = -1
                } else {
                    oldToNew[r] = Int32(truncatingIfNeeded: j)
                    newToOld[j] = Int32(truncatingIfNeeded: r)
                }
            }
            part.sink = sink
            return part
        }

        /// Calls `body` with each record, in order, whose key hash is in this half, 64
        /// records at a time: which ones is found without a branch, and their slots are
        /// touched first, so that the cache misses overlap.
        @inline(__always)
        static func forEachKey(in hashes: UnsafeBufferPointer<UInt64>, half: UInt64, slots: UnsafeMutableBufferPointer<UInt64>,
                               mask: Int, sink: inout UInt64, _ body: (Int) -> Void)
        {
            var block = 0
            while block < hashes.count {
                let end = min(block + 64, hashes.count)
                var mine: UInt64 = 0
                for k in block..<end { mine |= (hashes[k] >> 63 ^ half ^ 1) << UInt64(k - block) }
                var rest = mine
                while rest != 0 {
                    sink &+= slots[Int(truncatingIfNeeded: hashes[block + rest.trailingZeroBitCount]) & mask]
                    rest &= rest - 1
                }
                rest = mine
                while rest != 0 {
                    body(block + rest.trailingZeroBitCount)
                    rest &= rest - 1
                }
                block = end
            }
        }
    }
}
