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
        let sides = [(old, oldInput), (new, newInput)]
        let scans = UnsafeMutableBufferPointer<Scan>.allocate(capacity: 2)
        scans.initialize(repeating: Scan())
        defer { scans.deinitialize(); scans.deallocate() }
        nonisolated(unsafe) let out = scans
        DispatchQueue.concurrentPerform(iterations: 2) { s in
            out[s] = scan(sides[s].0, lines: sides[s].1 == .ndjson, names: names)
        }
        progress?.lap("scan")
        // Report as the full reader would, which reads and keys OLD before it reads NEW.
        // Other layouts, and records without a usable key (which may be section objects,
        // or an error the full reader words), are for the full reader.
        if let failure = scans[0].failure { throw failure }
        if scans[0].notAList || scans[0].unkeyed { return nil }
        var keys = KeyIndex(capacity: scans[0].table.count + scans[1].table.count)
        switch keys.addOld(scans[0].table) {
        case .repeated(let first, let second)?: throw try duplicate((old, scans[0].table, oldInput), first: first, second: second)
        case .collision?: return nil
        case nil: break
        }
        if let failure = scans[1].failure { throw failure }
        if scans[1].notAList || scans[1].unkeyed { return nil }
        let symbols: (new: [Int], count: Int)
        switch keys.symbols(new: scans[1].table, old: scans[0].table) {
        case .success(let found): symbols = found
        case .failure(.repeated(let first, let second)): throw try duplicate((new, scans[1].table, newInput), first: first, second: second)
        case .failure(.collision): return nil
        }
        keys = KeyIndex(capacity: 0)
        scans[0].table.dropKeys()
        scans[1].table.dropKeys()
        progress?.lap("index")
        progress?.enter(.comparing)
        let oldTable = scans[0].table, newTable = scans[1].table
        let (pairing, stays) = try differ.matching(old: Array(0..<oldTable.count), new: symbols.new, symbolCount: symbols.count)
        progress?.lap("matching")
        let found = try compare(old: (old, oldTable, oldInput), new: (new, newTable, newInput), pairing: pairing, stays: stays)
        progress?.lap("compare")
        func side(_ values: [Int: Value], count: Int) -> Differ.RecordSide {
            Differ.RecordSide(count: count, position: { RecordPosition(section: 0, index: $0) },
                              value: { values[$0] ?? .null },
                              key: { [key] _, value in key.written(in: value) ?? .null },
                              occurrence: { _ in nil })
        }
        let same = found.same
        let (changes, summary) = differ.changes(old: side(found.oldValues, count: oldTable.count),
                                                new: side(found.newValues, count: newTable.count),
                                                pairing: pairing, stays: stays) { _, j in same[j] }
        var changeset = Changeset(algorithm: differ.algorithm.name, key: key, oldCount: oldTable.count,
                                  newCount: newTable.count, changes: changes, summary: summary)
        changeset.fingerprints = Changeset.Fingerprints(old: Fingerprint.string(oldTable.list.finish()),
                                                        new: Fingerprint.string(newTable.list.finish()))
        progress?.lap("changes")
        progress?.enter(.writing)
        return changeset
    }

    struct Scan {
        var table = RecordTable()
        var failure: ListDiffError?
        var notAList = false
        /// A record has no usable key.
        var unkeyed = false
    }

    /// Scans one input into its table.
    func scan(_ file: MappedFile, lines: Bool, names: KeyNames) -> Scan {
        var result = Scan()
        result.table.reserve(max(16, file.bytes.count / 128))
        var parser = JSONParser(bytes: file.bytes, maxDepth: maxDepth)
        let progress = progress
        var reported = 0
        do throws(JSONParseFailure) {
            let outcome = try parser.scanList(lines: lines, names: names, into: &result.table) { offset in
                file.release(below: offset)
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

    func duplicate(_ side: Side, first: Int, second: Int) throws(ListDiffError) -> ListDiffError {
        let value = try value(side.file, at: side.table.starts[second], side.input)
        let written = (try? key.identify(value).get().written) ?? .null
        let message = KeyFormatter(key).duplicate(
            written, selfKeyed: value.isScalar, places: "records \(first) and \(second)",
            first: SourceLocation.of(offset: side.table.starts[first], in: side.file.bytes))
        return ListDiffError(file: side.file.name, location: SourceLocation.of(offset: side.table.starts[second], in: side.file.bytes), message)
    }

    /// Finds, for each NEW record, whether it equals its old record (false when it has
    /// none), building on the way the values the changeset shows: NEW's inserted, moved and
    /// updated records, OLD's deleted and updated ones. NEW is walked in two halves at once.
    ///
    /// Equal hashes and equal bytes: the same. Different hashes: different. Equal hashes but
    /// different bytes: both are parsed and compared as values.
    func compare(old: Side, new: Side, pairing: [Int?], stays: [Bool]) throws(ListDiffError)
        -> (same: [Bool], oldValues: [Int: Value], newValues: [Int: Value])
    {
        var newToOld = [Int32](repeating: -1, count: new.table.count)
        for (i, j) in pairing.enumerated() { if let j { newToOld[j] = Int32(truncatingIfNeeded: i) } }
        var same = [Bool](repeating: false, count: new.table.count)
        // NEW's second half starts at `middle`; OLD's records from the first that stays
        // there on are the second half's to build when deleted (the records that stay are in
        // one order on both sides, so the first half's all come before).
        let middle = new.table.count / 2
        var oldMiddle = old.table.count
        for j in middle..<new.table.count where newToOld[j] >= 0 && stays[Int(newToOld[j])] {
            oldMiddle = Int(newToOld[j])
            break
        }
        let parts = [(0..<middle, 0..<oldMiddle), (middle..<new.table.count, oldMiddle..<old.table.count)]
        let results = UnsafeMutableBufferPointer<Result<Found, ListDiffError>>.allocate(capacity: 2)
        results.initialize(repeating: .success(Found()))
        defer { results.deinitialize(); results.deallocate() }
        nonisolated(unsafe) let out = results
        newToOld.withUnsafeBufferPointer { newToOld in
            same.withUnsafeMutableBufferPointer { same in
                nonisolated(unsafe) let same = same, newToOld = newToOld
                DispatchQueue.concurrentPerform(iterations: 2) { k in
                    out[k] = Result { () throws(ListDiffError) -> Found in
                        try compare(old: old, new: new, newRange: parts[k].0, oldRange: parts[k].1,
                                    newToOld: newToOld, stays: stays, pairing: pairing, same: same)
                    }
                }
            }
        }
        old.file.release(0..<old.file.bytes.count)
        new.file.release(0..<new.file.bytes.count)
        let first = try results[0].get(), second = try results[1].get()
        return (same, first.oldValues.merging(second.oldValues) { a, _ in a },
                first.newValues.merging(second.newValues) { a, _ in a })
    }

    struct Found {
        var oldValues: [Int: Value] = [:]
        var newValues: [Int: Value] = [:]
    }

    /// One half of `compare`: NEW's records in `newRange`, OLD's deleted records in
    /// `oldRange`. Pages behind the walk are handed back: NEW's in order, OLD's but for a
    /// window at the last record that stayed in place (moved records jump around), each half
    /// in its own ranges.
    func compare(old: Side, new: Side, newRange: Range<Int>, oldRange: Range<Int>, newToOld: UnsafeBufferPointer<Int32>,
                 stays: [Bool], pairing: [Int?], same: UnsafeMutableBufferPointer<Bool>) throws(ListDiffError) -> Found
    {
        var found = Found()
        let oldBase = UnsafeRawPointer(old.file.bytes.baseAddress), newBase = UnsafeRawPointer(new.file.bytes.baseAddress)
        let significant = differ.memberOrder == .significant
        func start(_ side: Side, _ i: Int) -> Int { i < side.table.count ? side.table.starts[i] : side.file.bytes.count }
        let newFloor = start(new, newRange.lowerBound), oldFloor = start(old, oldRange.lowerBound)
        let oldCeiling = start(old, oldRange.upperBound)
        var nextOld = oldRange.lowerBound  // OLD's deleted records before this one are built
        var lowWater = oldFloor
        var counted = newFloor
        func deleted(below end: Int) throws(ListDiffError) {
            while nextOld < end {
                if pairing[nextOld] == nil { found.oldValues[nextOld] = try value(old.file, at: old.table.starts[nextOld], old.input) }
                nextOld += 1
            }
        }
        for j in newRange {
            if j & 0xFFF == 0xFFF {
                let here = new.table.starts[j]
                new.file.release(newFloor..<here)
                // OLD's range but for a window at the last record that stayed: moved records
                // (of either half) may have touched it anywhere.
                old.file.release(oldFloor..<lowWater)
                old.file.release(min(lowWater + (1 << 20), oldCeiling)..<oldCeiling)
                progress?.advance(by: 2 * (here - counted))
                counted = here
            }
            let i = Int(newToOld[j])
            guard i >= 0 else {
                found.newValues[j] = try value(new.file, at: new.table.starts[j], new.input)
                continue
            }
            if stays[i] {
                lowWater = old.table.starts[i]
                try deleted(below: i)
            } else {
                found.newValues[j] = try value(new.file, at: new.table.starts[j], new.input)
            }
            let oldStart = old.table.starts[i], newStart = new.table.starts[j]
            if old.table.hashes[i] == new.table.hashes[j] {
                let length = old.table.ends[i] - oldStart
                if length == new.table.ends[j] - newStart, memcmp(oldBase! + oldStart, newBase! + newStart, length) == 0 {
                    same[j] = true
                    continue
                }
            }
            let a = try value(old.file, at: oldStart, old.input)
            let b = try value(new.file, at: newStart, new.input)
            if old.table.hashes[i] == new.table.hashes[j], significant ? a.isIdentical(to: b) : a == b {
                same[j] = true
            } else {
                found.oldValues[i] = a
                found.newValues[j] = b
            }
        }
        try deleted(below: oldRange.upperBound)
        let end = newRange.upperBound < new.table.count ? new.table.starts[newRange.upperBound] : new.file.bytes.count
        progress?.advance(by: 2 * (end - counted))
        // Done with its ranges (the other half's moved records may touch them again).
        new.file.release(newFloor..<end)
        old.file.release(oldFloor..<oldCeiling)
        return found
    }
}

/// An open-addressing table from identities to symbols, by their 64-bit hashes. A slot
/// holds the top 32 bits of the hash and the symbol + 1 (0 is empty); a slot whose bits
/// agree is confirmed on the full hash. Keys found equal by hash are then compared byte
/// for byte; two different keys with one 64-bit hash (never seen, but possible) send the
/// diff to the full reader.
struct KeyIndex {
    var slots: [UInt64]
    let mask: Int

    enum Problem: Error {
        /// Records `first` and `second` of one file share a key.
        case repeated(first: Int, second: Int)
        /// Two different keys share a hash.
        case collision
    }

    init(capacity: Int) {
        var size = 16
        while size < 2 * capacity { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
    }

    /// Touches the slots of a block of hashes at once, so that their cache misses overlap.
    @inline(__always)
    static func warm(_ slots: UnsafeMutableBufferPointer<UInt64>, _ hashes: UnsafeBufferPointer<UInt64>, _ range: Range<Int>, mask: Int) -> UInt64 {
        var sum: UInt64 = 0
        for k in range { sum &+= slots[Int(truncatingIfNeeded: hashes[k]) & mask] }
        return sum
    }

    /// Adds OLD's records as symbols 0..<n.
    mutating func addOld(_ old: RecordTable) -> Problem? {
        let mask = mask
        var sink: UInt64 = 0
        defer { KeyIndex.sink = sink }
        return slots.withUnsafeMutableBufferPointer { slots -> Problem? in
            old.keyHashes.withUnsafeBufferPointer { hashes -> Problem? in
                var block = 0
                while block < hashes.count {
                    let end = min(block + 16, hashes.count)
                    sink &+= Self.warm(slots, hashes, block..<end, mask: mask)
                    for k in block..<end {
                        let h = hashes[k]
                        var p = Int(truncatingIfNeeded: h) & mask
                        while slots[p] != 0 {
                            let s = Int(slots[p] & 0xFFFF_FFFF) - 1
                            if slots[p] >> 32 == h >> 32, hashes[s] == h {
                                return old.sameKey(s, old, k) ? .repeated(first: s, second: k) : .collision
                            }
                            p = (p + 1) & mask
                        }
                        slots[p] = (h >> 32) << 32 | UInt64(k + 1)
                    }
                    block = end
                }
                return nil
            }
        }
    }

    nonisolated(unsafe) static var sink: UInt64 = 0

    /// NEW's symbols, after `addOld`: an old record's index for a key OLD has, a new symbol
    /// from n on for one it has not; and the number of symbols.
    mutating func symbols(new: RecordTable, old: RecordTable) -> Result<(new: [Int], count: Int), Problem> {
        let oldCount = old.count
        let mask = mask
        var symbols = [Int](repeating: 0, count: new.count)
        var firstNew = [Int32](repeating: -1, count: oldCount)  // the NEW record that took each old symbol
        var newOnly: [Int] = []
        var sink: UInt64 = 0
        defer { KeyIndex.sink = sink }
        let problem = slots.withUnsafeMutableBufferPointer { slots -> Problem? in
            new.keyHashes.withUnsafeBufferPointer { hashes -> Problem? in
                old.keyHashes.withUnsafeBufferPointer { oldHashes -> Problem? in
                    var block = 0
                    while block < hashes.count {
                        let end = min(block + 16, hashes.count)
                        sink &+= Self.warm(slots, hashes, block..<end, mask: mask)
                        for j in block..<end {
                            let h = hashes[j]
                            var p = Int(truncatingIfNeeded: h) & mask
                            var found = -1
                            while slots[p] != 0 {
                                let s = Int(slots[p] & 0xFFFF_FFFF) - 1
                                if slots[p] >> 32 == h >> 32, (s < oldCount ? oldHashes[s] : hashes[newOnly[s - oldCount]]) == h {
                                    found = s
                                    break
                                }
                                p = (p + 1) & mask
                            }
                            if found < 0 {
                                let s = oldCount + newOnly.count
                                newOnly.append(j)
                                slots[p] = (h >> 32) << 32 | UInt64(s + 1)
                                symbols[j] = s
                            } else if found >= oldCount {
                                let first = newOnly[found - oldCount]
                                return new.sameKey(first, new, j) ? .repeated(first: first, second: j) : .collision
                            } else if firstNew[found] >= 0 {
                                let first = Int(firstNew[found])
                                return new.sameKey(first, new, j) ? .repeated(first: first, second: j) : .collision
                            } else {
                                firstNew[found] = Int32(truncatingIfNeeded: j)
                                symbols[j] = found
                            }
                        }
                        block = end
                    }
                    return nil
                }
            }
        }
        if let problem { return .failure(problem) }
        // Keys matched by hash: confirm them byte for byte, in NEW's order.
        for j in 0..<new.count where symbols[j] < oldCount {
            if !old.sameKey(symbols[j], new, j) { return .failure(.collision) }
        }
        return .success((symbols, oldCount + newOnly.count))
    }
}

