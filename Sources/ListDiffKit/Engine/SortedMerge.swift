/// Diffs two NDJSON inputs that are both sorted by key in one streaming pass, in memory
/// that grows with the changes, not with the inputs: files larger than memory can be diffed.
///
/// Both inputs are read a block at a time and merged by key, as `comm(1)` merges sorted
/// lines: a key only OLD has is a delete, one only NEW has an insert, one both have is
/// compared (bytes, then hash and values, as the engine does). The changes are built by
/// the engine's change builder. Sorted records cannot
/// move. The order is jq's `sort_by(.key)`: false, true, numbers by value, strings by
/// Unicode scalars; a composite key compares field by field, an absent part (null) first.
/// A record out of order, or a
/// key found twice, stops the diff with its place.
///
/// The changeset equals the one `Differ` gives for the same inputs, but for its algorithm,
/// which is `merge`.
package struct SortedMerge: Sendable {
    package var key: IdentityKey
    package var memberOrder: Differ.MemberOrder
    /// The rules under which two versions of a record are the same.
    package var comparison = Comparison()
    /// Deletes and inserts alike enough are paired as renames (`--renames`), when set.
    package var renames: RenameRule?
    package var maxDepth = NestingLimit.standard
    package var progress: Progress?
    /// Bytes read at a time (a record longer than this grows the buffer).
    package var blockSize = 1 << 20

    package init(key: IdentityKey, memberOrder: Differ.MemberOrder = .ignore, progress: Progress? = nil) {
        self.key = key
        self.memberOrder = memberOrder
        self.progress = progress
    }

    /// - Throws: when the key is a path into the records (not covered), an input is
    ///   unreadable, malformed, not sorted or repeats a key, or a record has no usable key.
    package func diff(old oldPath: String, new newPath: String) throws(ListDiffError) -> Changeset {
        try Differ(memberOrder: memberOrder, comparison: comparison).check(key: key)
        guard let names = KeyTrie(key) else {
            throw ListDiffError(.limit, "the key has more than 64 fields or path steps in all")
        }
        let old = try RecordStream(oldPath, names: names, key: key, maxDepth: maxDepth, blockSize: blockSize)
        let new = try RecordStream(newPath, names: names, key: key, maxDepth: maxDepth, blockSize: blockSize)
        progress?.begin(total: old.size + new.size)
        // The changes are built by the engine's change builder, from each stream's current
        // record (the only one a stream holds).
        func side(_ stream: RecordStream) -> RecordSide {
            let key = key
            var side = RecordSide(
                count: 0, position: { RecordPosition(index: $0) },
                value: { (_: Int) throws(ListDiffError) -> Value in try stream.value() },
                key: { (_: Int, value: Value?) throws(ListDiffError) -> Value in
                    (try? key.identify(value ?? stream.value()).get().written) ?? .null
                },
                isScalar: { _, value in value?.isScalar ?? ((try? stream.value())?.isScalar ?? false) },
                occurrence: { _ in nil })
            side.error = { _, _, message in stream.error(.key, at: stream.current?.start ?? 0, message) }
            return side
        }
        var builder = ChangeBuilder(old: side(old), new: side(new), comparison: comparison)
        // Under rules, the new fingerprint is that of what `apply` makes: each NEW record's
        // hash, or its OLD record's where the two are the same under the rules.
        var result = CanonicalHash.ListHasher(unordered: comparison.unorderedRecords)
        let significant = memberOrder == .significant
        let rules = RuleHasher(comparison)
        try old.advance(progress)
        try new.advance(progress)
        while old.current != nil || new.current != nil {
            let order: Int
            if old.current == nil { order = 1 } else if new.current == nil { order = -1 } else { order = old.compareKeys(new) }
            if order < 0 {
                try builder.delete(old.index)
                try old.advance(progress)
            } else if order > 0 {
                result.add(new.current!.hash)
                try builder.insert(new.index)
                try new.advance(progress)
            } else {
                // Sorted records cannot move: a match stays, and is an update unless the same.
                if old.sameBytes(new) {
                    result.add(new.current!.hash)
                    try builder.matched(old.index, new.index, stays: true, same: true)
                } else if let rules, try old.isSameUnderRules(rules, as: new) {
                    // The same under the rules, told by their hashes without reading either.
                    result.add(old.current!.hash)
                    try builder.matched(old.index, new.index, stays: true, same: true)
                } else {
                    let before = try old.value(), after = try new.value()
                    let same = try builder.compared(old.index, new.index, stays: true, before, after, significant: significant)
                    result.add(same ? old.current!.hash : new.current!.hash)
                }
                try old.advance(progress)
                try new.advance(progress)
            }
        }
        let (changes, summary) = builder.finish()
        var changeset = Changeset(
            algorithm: "merge", key: key, oldCount: old.count, newCount: new.count,
            changes: changes, summary: summary)
        changeset.comparison = comparison
        changeset.memberOrderSignificant = memberOrder == .significant
        // Both inputs are NDJSON, which apply must read OLD as.
        changeset.layout.format = .ndjson
        let resultHash = result.finish()
        changeset.fingerprints = Changeset.Fingerprints(
            old: Fingerprint.string(old.list.finish()),
            new: Fingerprint.string(comparison.hasRules ? resultHash : new.list.finish()))
        if let renames { changeset = try changeset.pairingRenames(renames) }
        progress?.enter(.writing)
        return changeset
    }

}

/// One NDJSON input read a block at a time, one record at a time.
final class RecordStream {
    struct Current {
        var start: Int
        var end: Int
        var hash: Hash128
    }

    let name: String
    let names: KeyTrie
    let key: IdentityKey
    let maxDepth: Int
    let fd: Int32
    /// The input's size when known (a regular file), for progress.
    let size: Int
    var buffer: UnsafeMutableBufferPointer<UInt8>
    var filled = 0
    var position = 0
    var atEnd = false
    /// Whether the start (a NUL byte, a byte order mark) has been looked at.
    var pastByteOrderMark = false
    /// Line number of `buffer[0]` in the input.
    var baseLine = 1
    /// Lines counted from the start of the buffer up to `countedTo`.
    var linesInBuffer = 0
    var countedTo = 0

    var current: Current?
    var currentKey: [UInt8] = []
    var index = -1
    var count = 0
    var list = CanonicalHash.ArrayHasher()
    var parts: [[UInt8]]
    let memory = ScanMemory()
    var keyHash: UInt64 = 0
    /// The previous record: its key, bytes and place, for order checks and messages.
    var previousKey: [UInt8] = []
    var previousBytes: [UInt8] = []
    var previousLocation = SourceLocation(line: 1, column: 1)

    init(_ path: String, names: KeyTrie, key: IdentityKey, maxDepth: Int, blockSize: Int) throws(ListDiffError) {
        name = path
        self.names = names
        self.key = key
        self.maxDepth = maxDepth
        let (fd, status) = try InputFile.open(path)
        self.fd = fd
        size = status?.kind == .regular ? status!.size : 0
        buffer = .allocate(capacity: max(blockSize, 16))
        parts = [[UInt8]](repeating: [], count: names.fieldCount)
    }

    deinit {
        if fd != SystemCalls.standardInput { SystemCalls.close(fd) }
        buffer.deallocate()
    }

    /// Reads more: keeps the unread part, grows the buffer when a record fills it.
    func refill() throws(ListDiffError) {
        // Keep the line `position` is on, so that columns count from its start.
        var drop = position
        while drop > 0, buffer[drop - 1] != 0x0A { drop -= 1 }
        if drop > 0 {
            countLines(upTo: drop)
            let keep = filled - drop
            if keep > 0 { buffer.baseAddress!.update(from: buffer.baseAddress! + drop, count: keep) }
            baseLine += linesInBuffer
            linesInBuffer = 0
            countedTo = 0
            filled = keep
            position -= drop
        }
        if filled == buffer.count {
            let bigger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: buffer.count * 2)
            bigger.baseAddress!.initialize(from: buffer.baseAddress!, count: filled)
            buffer.deallocate()
            buffer = bigger
        }
        while true {
            let n = SystemCalls.readBytes(fd, into: buffer.baseAddress! + filled, count: buffer.count - filled)
            if n < 0 {
                if SystemCalls.wasInterrupted { continue }
                throw ListDiffError(.io, file: name, "cannot read: \(InputFile.errnoText())")
            }
            if n == 0 { atEnd = true }
            filled += n
            return
        }
    }

    func countLines(upTo offset: Int) {
        var i = countedTo
        let base = buffer.baseAddress!
        while i < offset, let found = SystemCalls.find(0x0A, in: base + i, count: offset - i) {
            linesInBuffer += 1
            i = UnsafeRawPointer(found) - UnsafeRawPointer(base) + 1
        }
        countedTo = offset
    }

    /// The line and column of a buffer offset (lines are counted once, going forward).
    func location(_ offset: Int) -> SourceLocation {
        if offset < countedTo {
            linesInBuffer = 0
            countedTo = 0
        }
        countLines(upTo: offset)
        let base = buffer.baseAddress!
        var lineStart = offset
        while lineStart > 0, base[lineStart - 1] != 0x0A { lineStart -= 1 }
        return SourceLocation.of(
            offset: offset - lineStart, in: UnsafeBufferPointer(start: base + lineStart, count: offset - lineStart),
            from: SourceLocation(line: baseLine + linesInBuffer, column: 1))
    }

    @inline(__always)
    static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }

    func error(_ kind: ListDiffError.Kind, at offset: Int, _ message: String) -> ListDiffError {
        ListDiffError(kind, file: name, location: location(offset), message)
    }

    /// Moves to the next record (nil at the end), checking that keys ascend.
    func advance(_ progress: Progress?) throws(ListDiffError) {
        if let current {
            previousKey = currentKey
            previousBytes.removeAll(keepingCapacity: true)
            previousBytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[current.start..<current.end]))
            previousLocation = location(current.start)
            progress?.advance(by: current.end - position)
            position = current.end
        }
        current = nil
        while true {
            if !pastByteOrderMark {
                // (The start is looked at as every reader looks at it: a NUL byte there is
                // refused, and a byte order mark skipped.)
                if filled < InputFile.startLength, filled < buffer.count, !atEnd {
                    try refill()
                    continue
                }
                let start = UnsafeBufferPointer(buffer.rebased(0..<filled))
                try InputFile.checkStart(start, name: name)
                position = ByteOrderMark.length(at: start)
                pastByteOrderMark = true
            }
            // Skip white space and blank lines.
            while position < filled, Self.isBlank(buffer[position]) { position += 1 }
            if position == filled {
                if atEnd { return }
                try refill()
                continue
            }
            // A whole line must be in the buffer before it is parsed.
            let base = buffer.baseAddress!
            guard SystemCalls.find(0x0A, in: base + position, count: filled - position) != nil else {
                if atEnd { break }
                try refill()
                continue
            }
            break
        }
        let start = position
        var parser = JSONParser(bytes: UnsafeBufferPointer(buffer.rebased(0..<filled)), maxDepth: maxDepth)
        parser.index = start
        parser.depth = NestingLimit.topLevelRecord
        currentKey.removeAll(keepingCapacity: true)
        let scanned: Hash128?
        let end: Int
        do throws(JSONParseFailure) {
            var status = KeyStatus.keyed
            let hash = try parser.scanRecord(names, key: &currentKey, parts: &parts, memory: memory, keyHash: &keyHash, status: &status)
            scanned = status == .keyed ? hash : nil
            end = parser.index
            try parser.endOfLine(recordStart: start)
        } catch {
            throw self.error(error.kind, at: error.offset, error.message(location))
        }
        index += 1
        count += 1
        guard let hash = scanned else {
            let value = try value(start)
            guard case .failure(let failure) = key.identify(value) else {
                throw error(.key, at: start, "record \(index) has no usable key")
            }
            throw error(.key, at: start, failure.message(place: "record \(index)"))
        }
        current = Current(start: start, end: end, hash: hash)
        list.add(hash)
        if index > 0 {
            let order = currentKey.withUnsafeBytes { a in previousKey.withUnsafeBytes { b in KeyOrder.compare(a, b) } }
            if order <= 0 {
                let here = try value(start)
                let previous = try previousValue()
                let formatter = KeyFormatter(key)
                let spelled = formatter.format(written(here), selfKeyed: here.isScalar)
                if order == 0 {
                    throw error(
                        .key,
                        at: start,
                        formatter.duplicate(
                            written(here), selfKeyed: here.isScalar,
                            places: "records \(index - 1) and \(index)", first: previousLocation)
                    ).hinting(.matchDuplicates)
                }
                throw error(
                    .usage,
                    at: start,
                    "not sorted by key: record \(index) (\(spelled)) comes after \(formatter.format(written(previous), selfKeyed: previous.isScalar)); --sorted needs both inputs in ascending key order, as jq's sort_by gives (false, true, numbers, strings)"
                )
            }
        }
    }

    func written(_ value: Value) -> Value {
        (try? key.identify(value).get().written) ?? value
    }

    func value(_ start: Int) throws(ListDiffError) -> Value {
        do throws(JSONParseFailure) {
            return try JSONParser.value(
                in: UnsafeBufferPointer(buffer.rebased(0..<filled)), at: start, depth: NestingLimit.topLevelRecord, maxDepth: maxDepth)
        } catch {
            throw self.error(error.kind, at: error.offset, error.message(location))
        }
    }

    /// Whether the current record and `other`'s are the same under `rules`, as their hashes
    /// under the rules tell; false also when a tolerance applied (the values must say).
    func isSameUnderRules(_ rules: RuleHasher, as other: RecordStream) throws(ListDiffError) -> Bool {
        var usedTolerance = false
        func hash(_ stream: RecordStream) throws(ListDiffError) -> Hash128 {
            var parser = JSONParser(bytes: UnsafeBufferPointer(stream.buffer.rebased(0..<stream.filled)), maxDepth: maxDepth)
            parser.index = stream.current!.start
            parser.depth = NestingLimit.topLevelRecord
            do throws(JSONParseFailure) {
                return try parser.ruleHash(rules, rules.root, usedTolerance: &usedTolerance)
            } catch {
                throw stream.error(error.kind, at: error.offset, error.message(stream.location))
            }
        }
        return try hash(self) == hash(other) && !usedTolerance
    }

    /// The current record's value.
    func value() throws(ListDiffError) -> Value {
        try value(current!.start)
    }

    func previousValue() throws(ListDiffError) -> Value {
        (try? JSONReader(maxDepth: maxDepth).value(previousBytes)) ?? .null
    }

    func compareKeys(_ other: RecordStream) -> Int {
        currentKey.withUnsafeBytes { a in other.currentKey.withUnsafeBytes { b in KeyOrder.compare(a, b) } }
    }

    func sameBytes(_ other: RecordStream) -> Bool {
        guard let a = current, let b = other.current, a.hash == b.hash, a.end - a.start == b.end - b.start else { return false }
        return SystemCalls.compare(buffer.baseAddress! + a.start, other.buffer.baseAddress! + b.start, a.end - a.start) == 0
    }
}

extension UnsafeMutableBufferPointer {
    func rebased(_ range: Range<Int>) -> UnsafeMutableBufferPointer {
        UnsafeMutableBufferPointer(rebasing: self[range])
    }
}

/// The order of identities (`RecordID` encodings) for sorted inputs: jq's — false, true,
/// numbers by value, strings by Unicode scalars — field by field for a composite key.
enum KeyOrder {
    static func rank(_ tag: UInt8) -> Int {
        switch tag {
        // An absent part of a composite key, as jq sorts null: first.
        case UInt8(ascii: "z"): return -1
        case UInt8(ascii: "F"): return 0
        case UInt8(ascii: "T"): return 1
        case UInt8(ascii: "n"): return 2
        default: return 3
        }
    }

    static func length(_ p: UnsafeRawBufferPointer, _ i: inout Int) -> Int {
        var n = 0
        var shift = 0
        while i < p.count {
            let b = p[i]
            i += 1
            n |= Int(b & 0x7F) << shift
            if b & 0x80 == 0 { break }
            shift += 7
        }
        return n
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        var i = 0, j = 0
        while i < a.count, j < b.count {
            let ta = a[i], tb = b[j]
            if rank(ta) != rank(tb) { return rank(ta) - rank(tb) }
            i += 1
            j += 1
            switch ta {
            case UInt8(ascii: "s"):
                let na = length(a, &i), nb = length(b, &j)
                let n = min(na, nb)
                let c = n == 0 ? 0 : Int(SystemCalls.compare(a.baseAddress! + i, b.baseAddress! + j, n))
                if c != 0 { return c }
                if na != nb { return na - nb }
                i += na
                j += nb
            case UInt8(ascii: "n"):
                // kind, sign, digit count, digits, 8-byte exponent.
                i += 1
                j += 1
                let negA = a[i] == 1, negB = b[j] == 1
                i += 1
                j += 1
                let na = length(a, &i), nb = length(b, &j)
                let signA = na == 0 ? 0 : (negA ? -1 : 1), signB = nb == 0 ? 0 : (negB ? -1 : 1)
                if signA != signB { return signA - signB }
                let ea = Int(Int64(littleEndian: a.loadUnaligned(fromByteOffset: i + na, as: Int64.self)))
                let eb = Int(Int64(littleEndian: b.loadUnaligned(fromByteOffset: j + nb, as: Int64.self)))
                var c = 0
                if signA != 0 {
                    if ea != eb {
                        c = ea < eb ? -1 : 1
                    } else {
                        let n = min(na, nb)
                        c = n == 0 ? 0 : Int(SystemCalls.compare(a.baseAddress! + i, b.baseAddress! + j, n))
                        if c == 0 { c = na - nb }
                    }
                    c *= signA
                }
                if c != 0 { return c }
                i += na + 8
                j += nb + 8
            default:
                break
            }
        }
        return (a.count - i) - (b.count - j)
    }
}
