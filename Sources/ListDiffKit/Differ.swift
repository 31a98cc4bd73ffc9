/// Diffs two keyed documents: matches records by identity with a pluggable algorithm,
/// chooses the fewest moves, and finds updates and their changed fields.
public struct Differ: Sendable {
    /// Whether the order of an object's members is part of a record's content.
    public enum MemberOrder: String, Sendable, CaseIterable {
        /// Objects are unordered (RFC 8259): members that only change order change nothing.
        case ignore
        /// A record whose members changed order is updated (with no changed field).
        case significant
    }

    /// The algorithm that pairs the records.
    public var algorithm: any DiffAlgorithm
    /// Whether members that only changed order make an update.
    public var memberOrder: MemberOrder
    /// The rules under which two versions of a record are the same.
    public var comparison: Comparison

    /// A differ: Heckel's algorithm, objects unordered and exact comparison unless told otherwise.
    public init(algorithm: any DiffAlgorithm = HeckelDiff(), memberOrder: MemberOrder = .ignore, comparison: Comparison = Comparison()) {
        self.algorithm = algorithm
        self.memberOrder = memberOrder
        self.comparison = comparison
    }

    /// Refuses what this differ cannot compare under `key`: comparison rules with
    /// significant member order (that order compares records exactly), and rules that
    /// reach a key field or apply when the whole record is the key (`Comparison.check`).
    /// Every diff calls it before it reads anything.
    package func check(key: IdentityKey) throws(ListDiffError) {
        if memberOrder == .significant, !comparison.isEmpty {
            throw ListDiffError(.usage, "--member-order significant compares records exactly; it does not go with comparison rules")
        }
        try comparison.check(key: key)
    }

    /// Diffs two lists of records held in memory, matched by `key`.
    ///
    /// ```swift
    /// let changeset = try Differ().diff(old: oldRecords, new: newRecords, key: IdentityKey(parsing: ["id"]))
    /// ```
    ///
    /// - Throws: when a record has no usable key, or (under `DuplicatePolicy.error`) two
    ///   records of one list share a key.
    public func diff(old: [Value], new: [Value], key: IdentityKey, duplicates: DuplicatePolicy = .error)
        throws(ListDiffError) -> Changeset
    {
        try diff(old: .array(old), new: .array(new), key: key, duplicates: duplicates)
    }

    /// Diffs two values held in memory, each a list of records, an object of lists (one
    /// section per member) or a list of section objects, found as `options` says.
    ///
    /// The values run through the same engine as files do: they are written as JSON text
    /// (YAML when they hold a non-finite number, which JSON cannot spell) and read back, so
    /// that every rule and every error is the engine's. Errors name `old` or `new`, without
    /// a line and column, since the text is not the caller's.
    public func diff(
        old: Value, new: Value, key: IdentityKey, duplicates: DuplicatePolicy = .error, options: LayoutOptions = LayoutOptions()
    ) throws(ListDiffError) -> Changeset {
        let files = FileDiffer(key: key, differ: self, duplicates: duplicates, layout: options)
        let (oldFile, oldFormat) = try MappedFile.of(old, name: "old")
        let (newFile, newFormat) = try MappedFile.of(new, name: "new")
        do {
            return try files.diffOpened(oldFile, oldFormat, newFile, newFormat).changeset
        } catch {
            var error = error
            error.location = nil
            throw error
        }
    }

    /// How the change builder sees the records of one side: values are asked for only for
    /// records that changed, so that a side can build them on demand, or (`reference`)
    /// leave them to be read when the change is written.
    package struct RecordSide {
        var count: Int
        var position: (Int) -> RecordPosition
        var value: (Int) throws(ListDiffError) -> Value
        /// The key as written, given the record's value when it is at hand.
        var key: (Int, Value?) throws(ListDiffError) -> Value
        /// Whether the record is a scalar, keyed by itself.
        var isScalar: (Int, Value?) -> Bool
        var occurrence: (Int) -> Int?
        /// The record, for a change whose value is read later; nil to read it now.
        var reference: (Int) -> RecordReference? = { _ in nil }

        package init(
            count: Int, position: @escaping (Int) -> RecordPosition, value: @escaping (Int) throws(ListDiffError) -> Value,
            key: @escaping (Int, Value?) throws(ListDiffError) -> Value, isScalar: @escaping (Int, Value?) -> Bool,
            occurrence: @escaping (Int) -> Int?
        ) {
            self.count = count
            self.position = position
            self.value = value
            self.key = key
            self.isScalar = isScalar
            self.occurrence = occurrence
        }
    }

    /// The changes, given the pairing and the records that stay: deletes by old index, then
    /// inserts, moves and updates by new index. `same(i, j)` says whether old record i and
    /// new record j have the same content.
    package func changes(
        old: RecordSide, new: RecordSide, pairing: [Int?], stays: [Bool],
        same: (Int, Int) -> Bool
    ) throws(ListDiffError) -> ([Change], Changeset.Summary) {
        var newToOld = [Int](repeating: -1, count: new.count)
        for (i, j) in pairing.enumerated() { if let j { newToOld[j] = i } }
        var builder = ChangeBuilder(old: old, new: new, comparison: comparison)
        for i in 0..<old.count where pairing[i] == nil { try builder.delete(i) }
        for j in 0..<new.count {
            let i = newToOld[j]
            guard i >= 0 else {
                try builder.insert(j)
                continue
            }
            try builder.matched(i, j, stays: stays[i], same: same(i, j))
        }
        return builder.finish()
    }

    /// Builds the changes one record at a time: deletes in old order and the rest in new
    /// order, each kept apart, so that builders of consecutive ranges of either side append.
    struct ChangeBuilder {
        let old: RecordSide, new: RecordSide
        let comparison: Comparison
        /// Changes in chunks of a fixed size: they never grow by copying, and are let go one
        /// at a time when joined (`Changes.joined`).
        private(set) var deletes = Changes()
        private(set) var others = Changes()
        private(set) var summary = Changeset.Summary()

        init(old: RecordSide, new: RecordSide, comparison: Comparison) {
            self.old = old
            self.new = new
            self.comparison = comparison
        }

        mutating func delete(_ i: Int) throws(ListDiffError) {
            if let reference = old.reference(i) {
                deletes.append(
                    Change(
                        .delete, key: try old.key(i, nil), keyedBySelf: old.isScalar(i, nil), old: old.position(i),
                        reference: reference, occurrence: old.occurrence(i)))
            } else {
                let value = try old.value(i)
                deletes.append(
                    Change(
                        .delete, key: try old.key(i, value), keyedBySelf: old.isScalar(i, value), old: old.position(i),
                        value: value, occurrence: old.occurrence(i)))
            }
            summary.deleted += 1
        }

        mutating func insert(_ j: Int) throws(ListDiffError) {
            if let reference = new.reference(j) {
                others.append(
                    Change(
                        .insert, key: try new.key(j, nil), keyedBySelf: new.isScalar(j, nil), new: new.position(j),
                        reference: reference, occurrence: new.occurrence(j)))
            } else {
                let value = try new.value(j)
                others.append(
                    Change(
                        .insert, key: try new.key(j, value), keyedBySelf: new.isScalar(j, value), new: new.position(j),
                        value: value, occurrence: new.occurrence(j)))
            }
            summary.inserted += 1
        }

        /// Old record i matched new record j: a move unless it `stays`, an update unless
        /// `same`. The records' values are asked of the sides unless given, and the fields
        /// that changed are found unless given.
        mutating func matched(
            _ i: Int, _ j: Int, stays: Bool, same: Bool, before: Value? = nil, after: Value? = nil, fields: [FieldChange]? = nil
        ) throws(ListDiffError) {
            if stays, same {
                summary.unchanged += 1
                return
            }
            let from = old.position(i)
            let to = new.position(j)
            // A matched change names OLD's occurrence of its key, which apply checks at its old
            // position (the same as NEW's, but in a sequence diffed with `--key .`).
            // (A move alone needs no value: the record is read for an update only.)
            let reference = same ? nil : new.reference(j)
            var after = after
            if !same, after == nil { after = try new.value(j) }
            let key = try new.key(j, after)
            let scalar = new.isScalar(j, after)
            if !stays {
                others.append(Change(.move, key: key, keyedBySelf: scalar, old: from, new: to, occurrence: old.occurrence(i)))
                summary.moved += 1
            }
            if !same, let after {
                let earlier = before
                let before: Value
                if let given = earlier { before = given } else { before = try old.value(i) }
                let fields = fields ?? comparison.changes(old: before, new: after)
                if let reference {
                    others.append(
                        Change(
                            .update, key: key, keyedBySelf: scalar, old: from, new: to, fields: fields,
                            reference: reference, occurrence: old.occurrence(i)))
                } else {
                    others.append(
                        Change(
                            .update, key: key, keyedBySelf: scalar, old: from, new: to, fields: fields,
                            value: after, occurrence: old.occurrence(i)))
                }
                summary.updated += 1
            }
        }

        /// The changes (deletes, then the others) and the summary; the changes are moved
        /// out, so the builder is done with.
        mutating func finish() -> ([Change], Changeset.Summary) {
            var lists = [deletes, others]
            deletes = Changes()
            others = Changes()
            return (Changes.joined(&lists), summary)
        }
    }

    /// Changes kept in chunks of a fixed capacity.
    struct Changes {
        static let chunkSize = 4096

        /// A chunk's changes, moved out (not copied) when the chunks are joined.
        final class Chunk {
            let base = UnsafeMutablePointer<Change>.allocate(capacity: Changes.chunkSize)
            var count = 0

            deinit {
                base.deinitialize(count: count)
                base.deallocate()
            }
        }

        private(set) var chunks: [Chunk] = []
        private(set) var count = 0

        mutating func append(_ change: Change) {
            if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize { chunks.append(Chunk()) }
            let chunk = chunks[chunks.count - 1]
            (chunk.base + chunk.count).initialize(to: change)
            chunk.count += 1
            count += 1
        }

        /// All changes of `lists`, in order, in one array. Each chunk's changes are moved
        /// into it and the chunk let go, so that no change is held twice.
        static func joined(_ lists: inout [Changes]) -> [Change] {
            let total = lists.reduce(0) { $0 + $1.count }
            let result = [Change](unsafeUninitializedCapacity: total) { buffer, initialized in
                for l in lists.indices {
                    for chunk in lists[l].chunks {
                        (buffer.baseAddress! + initialized).moveInitialize(from: chunk.base, count: chunk.count)
                        initialized += chunk.count
                        chunk.count = 0
                    }
                    lists[l].chunks = []
                    lists[l].count = 0
                }
            }
            return result
        }
    }

    /// Matches sections by name, with this differ's algorithm and minimal moves, and finds
    /// section objects whose own fields changed. Returns the section changes (deletes by old
    /// index, then inserts, moves and updates by new index) and where each old section goes.
    package func diffSections(old: [Section], new: [Section]) throws(ListDiffError) -> ([SectionChange], [Int?]) {
        var names: [String: Int] = [:]
        func symbol(_ name: Value?) -> Int {
            let id = Fingerprint.of(name ?? .null)
            if let s = names[id] { return s }
            names[id] = names.count
            return names.count - 1
        }
        let oldNames = old.map { symbol($0.name) }
        let newNames = new.map { symbol($0.name) }
        let (pairs, stays) = try matching(old: oldNames, new: newNames, symbolCount: names.count)
        var newToOld = [Int](repeating: -1, count: new.count)
        for (s, t) in pairs.enumerated() { if let t { newToOld[t] = s } }
        var changes: [SectionChange] = []
        for (s, section) in old.enumerated() where pairs[s] == nil {
            changes.append(SectionChange(.delete, name: section.name ?? .null, old: s))
        }
        for (t, section) in new.enumerated() {
            let s = newToOld[t]
            guard s >= 0 else {
                changes.append(SectionChange(.insert, name: section.name ?? .null, new: t, value: section.header))
                continue
            }
            if !stays[s] { changes.append(SectionChange(.move, name: section.name ?? .null, old: s, new: t)) }
            let before = old[s].header ?? .null, after = section.header ?? .null
            if memberOrder == .significant ? !before.isIdentical(to: after) : before != after {
                changes.append(
                    SectionChange(
                        .update, name: section.name ?? .null, old: s, new: t, value: section.header,
                        fields: FieldDiff.changes(old: before, new: after)))
            }
        }
        return (changes, pairs)
    }

    /// The matching of old to new positions, and which matched old positions stay put.
    ///
    /// The algorithm pairs; the pairing is checked and completed; then the largest set of
    /// pairs whose order agrees on both sides (a longest increasing subsequence) stays, and
    /// every other pair is a move: the fewest moves that explain the new order.
    @_spi(Benchmarks) public func matching(old: [Int], new: [Int], symbolCount: Int) throws(ListDiffError) -> (pairs: [Int?], stays: [Bool])
    {
        let pairing = completePairing(
            try algorithm.pairs(old: old, new: new, symbolCount: symbolCount),
            old: old, new: new, symbolCount: symbolCount)
        var stays = [Bool](repeating: false, count: old.count)
        visitLongestIncreasingSubsequence(count: old.count, value: { pairing[$0] ?? -1 }) { stays[$0] = true }
        return (pairing, stays)
    }

    /// The matching of a list diffed as a sequence (`--key .`): the algorithm's own pairs,
    /// checked but not completed, so that each algorithm gives its own result. Myers and
    /// LCS pair a common subsequence (no moves); Heckel pairs records unique on both sides
    /// wherever they went, and the pairs that cross the longest run in order are moves.
    package func sequenceMatching(old: [Int], new: [Int], symbolCount: Int) throws(ListDiffError) -> (pairs: [Int?], stays: [Bool]) {
        let pairing = Self.validPairs(try algorithm.pairs(old: old, new: new, symbolCount: symbolCount), old: old, new: new)
        var stays = [Bool](repeating: false, count: old.count)
        visitLongestIncreasingSubsequence(count: old.count, value: { pairing[$0] ?? -1 }) { stays[$0] = true }
        return (pairing, stays)
    }

    /// An algorithm's pairs, less any that joins unequal symbols, is out of range or reuses
    /// an index of NEW (the contract tests hold the algorithms to none of these).
    static func validPairs(_ proposed: [Int?], old: [Int], new: [Int]) -> [Int?] {
        var pairing = [Int?](repeating: nil, count: old.count)
        var newUsed = [Bool](repeating: false, count: new.count)
        for (i, j) in proposed.enumerated() where i < old.count {
            if let j, j >= 0, j < new.count, !newUsed[j], old[i] == new[j] {
                pairing[i] = j
                newUsed[j] = true
            }
        }
        return pairing
    }

    /// Checks an algorithm's pairing, dropping any pair that joins unequal symbols or
    /// reuses an index, then pairs the equal symbols left over, in order, so that a
    /// record present on both sides is always matched.
    func completePairing(_ proposed: [Int?], old: [Int], new: [Int], symbolCount: Int) -> [Int?] {
        var pairing = Self.validPairs(proposed, old: old, new: new)
        var newUsed = [Bool](repeating: false, count: new.count)
        var paired = 0
        for case let j? in pairing {
            newUsed[j] = true
            paired += 1
        }
        if paired == old.count || paired == new.count { return pairing }
        // Unpaired old indexes per symbol, as linked lists in ascending order (built from
        // the end, each pushed on its list's head).
        var head = [Int32](repeating: -1, count: symbolCount)
        var next = [Int32](repeating: -1, count: old.count)
        for i in stride(from: old.count - 1, through: 0, by: -1) where pairing[i] == nil {
            next[i] = head[old[i]]
            head[old[i]] = Int32(truncatingIfNeeded: i)
        }
        for (j, s) in new.enumerated() where !newUsed[j] && head[s] >= 0 {
            let i = Int(head[s])
            head[s] = next[i]
            pairing[i] = j
        }
        return pairing
    }
}
