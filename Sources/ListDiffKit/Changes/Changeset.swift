/// A record's place: a section and an index in it (section 0 for a plain list).
public struct RecordPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var section: Int
    public var index: Int

    public init(section: Int = 0, index: Int) {
        self.section = section
        self.index = index
    }

    public static func < (a: RecordPosition, b: RecordPosition) -> Bool {
        (a.section, a.index) < (b.section, b.index)
    }

    public var description: String { "[\(section), \(index)]" }
}

/// One changed field of an updated record. `old == nil` means the field was added,
/// `new == nil` that it was removed.
public struct FieldChange: Sendable, Equatable {
    /// An RFC 6901 JSON Pointer into the record (`""` is the record itself).
    public var path: String
    public var old: Value?
    public var new: Value?

    public init(path: String, old: Value?, new: Value?) {
        self.path = path
        self.old = old
        self.new = new
    }
}

/// One change, in UIKit batch-update terms: delete and update name old positions,
/// insert names a new position, move goes from old to new. A record that moved and
/// changed appears twice: once as `move`, once as `update`.
public struct Change: Sendable {
    public enum Operation: String, Sendable, CaseIterable {
        case delete, insert, move, update
    }

    public var operation: Operation
    /// The key as written (an array for a composite key).
    public var key: Value
    /// The record is a scalar in a list of scalars, keyed by itself.
    public var keyedBySelf: Bool
    public var old: RecordPosition?
    public var new: RecordPosition?
    /// For `update`: the changed fields.
    public var fields: [FieldChange]
    /// `delete`: the old record; `insert` and `update`: the new record; `move`: nil.
    public var value: Value?
    /// Under `--duplicates match`: which occurrence of the key (0 for the first); nil otherwise.
    public var occurrence: Int?

    public init(_ operation: Operation, key: Value, keyedBySelf: Bool = false, old: RecordPosition? = nil,
                new: RecordPosition? = nil, fields: [FieldChange] = [], value: Value? = nil, occurrence: Int? = nil)
    {
        self.occurrence = occurrence
        self.operation = operation
        self.key = key
        self.keyedBySelf = keyedBySelf
        self.old = old
        self.new = new
        self.fields = fields
        self.value = value
    }
}

/// The result of a diff: every change, in order (deletes by old index, then inserts,
/// moves and updates by new index), with counts.
public struct Changeset: Sendable {
    public struct Summary: Sendable, Equatable {
        public var inserted = 0
        public var deleted = 0
        public var moved = 0
        public var updated = 0
        /// Records matched by key that neither moved nor changed.
        public var unchanged = 0

        public init(inserted: Int = 0, deleted: Int = 0, moved: Int = 0, updated: Int = 0, unchanged: Int = 0) {
            self.inserted = inserted
            self.deleted = deleted
            self.moved = moved
            self.updated = updated
            self.unchanged = unchanged
        }
    }

    public var algorithm: String
    public var key: IdentityKey
    public var duplicates: DuplicatePolicy = .error
    public var oldCount: Int
    public var newCount: Int
    public var changes: [Change]
    public var summary: Summary

    public init(algorithm: String, key: IdentityKey, oldCount: Int, newCount: Int, changes: [Change], summary: Summary) {
        self.algorithm = algorithm
        self.key = key
        self.oldCount = oldCount
        self.newCount = newCount
        self.changes = changes
        self.summary = summary
    }

    /// Whether old and new are the same list.
    public var isEmpty: Bool { changes.isEmpty }

    /// Applies the changes to the old list, in UIKit batch-update semantics: remove the
    /// deleted and moved-away records (old positions), replace updated records, then place
    /// inserted and moved records at their new positions; the records left keep their order.
    ///
    /// - Throws: when the changeset does not fit `old`: a position out of range or used twice,
    ///   an update without a value, or counts that do not reconcile.
    public func apply(to old: [Value]) throws(ListDiffError) -> [Value] {
        var removed = [Bool](repeating: false, count: old.count)
        var deleted = [Bool](repeating: false, count: old.count)
        var replacement: [Int: Value] = [:]
        /// What fills a new position: a moved old record, or an inserted value.
        enum Placement { case moved(from: Int), inserted(Value) }
        var placed: [Int: Placement] = [:]
        func checkOld(_ p: RecordPosition?, _ c: Change) throws(ListDiffError) -> Int {
            guard let p, p.section == 0, p.index >= 0, p.index < old.count else {
                throw ListDiffError("\(c.operation.rawValue) names an old position out of range")
            }
            return p.index
        }
        for change in changes {
            switch change.operation {
            case .delete, .move:
                let i = try checkOld(change.old, change)
                guard !removed[i] else { throw ListDiffError("old position \(i) is deleted or moved twice") }
                removed[i] = true
                deleted[i] = change.operation == .delete
                if change.operation == .move {
                    guard let n = change.new, n.section == 0, n.index >= 0 else {
                        throw ListDiffError("move names a new position out of range")
                    }
                    guard placed[n.index] == nil else { throw ListDiffError("new position \(n.index) is filled twice") }
                    placed[n.index] = .moved(from: i)
                }
            case .insert:
                guard let n = change.new, n.section == 0, n.index >= 0, let value = change.value else {
                    throw ListDiffError("insert needs a new position and a value")
                }
                guard placed[n.index] == nil else { throw ListDiffError("new position \(n.index) is filled twice") }
                placed[n.index] = .inserted(value)
            case .update:
                let i = try checkOld(change.old, change)
                guard let value = change.value else { throw ListDiffError("update of old position \(i) has no value") }
                guard replacement.updateValue(value, forKey: i) == nil else {
                    throw ListDiffError("old position \(i) is updated twice")
                }
            }
        }
        if let i = replacement.keys.first(where: { deleted[$0] }) {
            throw ListDiffError("old position \(i) is both updated and deleted")
        }
        let count = removed.lazy.filter { !$0 }.count + placed.count
        guard placed.keys.allSatisfy({ $0 < count }) else {
            throw ListDiffError("a new position is beyond the end of the new list (\(count) records)")
        }
        var result: [Value] = []
        result.reserveCapacity(count)
        var next = 0  // next old index to consider for an unfilled slot
        for j in 0..<count {
            switch placed[j] {
            case .moved(let i)?:
                result.append(replacement[i] ?? old[i])
            case .inserted(let value)?:
                result.append(value)
            case nil:
                while removed[next] { next += 1 }
                result.append(replacement[next] ?? old[next])
                next += 1
            }
        }
        return result
    }
}
