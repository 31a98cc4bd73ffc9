// The change-building core: the engine and the sorted merge build their changes here,
// from the records of each side and how they were matched.

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
    /// An error about the record, or about the value at a path in it (`RecordPlace.path`),
    /// with its place when the side knows it.
    var error: (Int, [Value], String) -> ListDiffError = { _, _, message in ListDiffError(.key, message) }

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
        deletes.append(try unmatched(.delete, old, i))
        summary.deleted += 1
    }

    mutating func insert(_ j: Int) throws(ListDiffError) {
        others.append(try unmatched(.insert, new, j))
        summary.inserted += 1
    }

    /// The delete of old record k, or the insert of new record k: its value is read now
    /// unless the side leaves it to be read when the change is written.
    private func unmatched(_ operation: Change.Operation, _ side: RecordSide, _ k: Int) throws(ListDiffError) -> Change {
        let reference = side.reference(k)
        let value: Value? = if reference == nil { try side.value(k) } else { nil }
        return Change(
            operation, key: try side.key(k, value), keyedBySelf: side.isScalar(k, value),
            old: operation == .delete ? side.position(k) : nil, new: operation == .insert ? side.position(k) : nil,
            value: value, reference: reference, occurrence: side.occurrence(k))
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
        // (With the fields given, a record read when the change is written is not read now.)
        let after: Value? = if !same, after == nil, fields == nil || reference == nil { try new.value(j) } else { after }
        let key = try new.key(j, after)
        let scalar = new.isScalar(j, after)
        if !stays {
            others.append(Change(.move, key: key, keyedBySelf: scalar, old: from, new: to, occurrence: old.occurrence(i)))
            summary.moved += 1
        }
        if !same {
            // (The old record is read only when the fields are to be found.)
            let changed: [FieldChange]
            if let fields {
                changed = fields
            } else {
                let before: Value = if let before { before } else { try old.value(i) }
                let after: Value = if let after { after } else { try new.value(j) }
                changed = try fieldChanges(i, j, old: before, new: after)
            }
            others.append(
                Change(
                    .update, key: key, keyedBySelf: scalar, old: from, new: to, fields: changed, value: after,
                    reference: reference, occurrence: old.occurrence(i)))
            summary.updated += 1
        }
    }

    /// The fields that changed between old record i and new record j, under the rules and
    /// the array keys; a keyed list that cannot be matched is an error at the element at fault.
    func fieldChanges(_ i: Int, _ j: Int, old before: Value, new after: Value) throws(ListDiffError) -> [FieldChange] {
        do throws(NestedKeyProblem) {
            return try comparison.changes(old: before, new: after)
        } catch {
            let message = "in record \(error.inOld ? i : j), " + error.message
            throw error.inOld ? old.error(i, error.path, message) : new.error(j, error.path, message)
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
}

extension ChangeBuilder {
    /// Old record i matched new record j, their values `a` and `b`: compared under the
    /// rules, or exactly (members in order when `significant`), then built as `matched`
    /// builds them. Returns whether the two are the same. The engine and the sorted merge
    /// both compare here.
    mutating func compared(_ i: Int, _ j: Int, stays: Bool, _ a: Value, _ b: Value, significant: Bool) throws(ListDiffError) -> Bool {
        if comparison.comparesContent {
            // The fields that changed under the rules, found once: none is the same. (A
            // keyed list's elements are matched exactly, so with array keys the rules
            // decide alone.)
            let fields = try fieldChanges(i, j, old: a, new: b)
            let same = fields.isEmpty || (!comparison.arrayKeysFree && comparison.same(a, b))
            try matched(i, j, stays: stays, same: same, before: a, after: b, fields: same ? [] : fields)
            return same
        }
        let same = significant ? a.isIdentical(to: b) : a == b
        try matched(i, j, stays: stays, same: same, before: a, after: b)
        return same
    }
}
