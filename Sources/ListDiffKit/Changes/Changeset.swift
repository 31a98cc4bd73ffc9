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
    /// Fingerprints of the two documents, when computed (the JSON changeset carries them).
    public var fingerprints: Fingerprints?
    /// Set when the changeset was read from a file.
    public var origin: Origin?

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
        try apply(to: old, check: nil)
    }

    /// Applies the changes to a document's records and gives the new document's root.
    ///
    /// Beyond `apply(to:)`, every change that names an old position must name the key of the
    /// record there, so that a changeset applied to the wrong file fails instead of
    /// scrambling it (the fingerprint check is the caller's, and can be forced; this one cannot).
    public func apply(to document: Document) throws(ListDiffError) -> Value {
        let values = try apply(to: document.records.map(\.value)) { (n: Int, change: Change, i: Int) throws(ListDiffError) in
            let record = document.records[i]
            let numbered = duplicates == .match ? record.occurrence : nil
            guard record.key == change.key, numbered == nil || numbered == (change.occurrence ?? 0) else {
                let formatter = KeyFormatter(key)
                let named = formatter.format(change.key, selfKeyed: change.keyedBySelf, occurrence: change.occurrence)
                let found = formatter.format(record.key, selfKeyed: record.value.isScalar, occurrence: numbered)
                throw error(change: n, "the \(change.operation.rawValue) of \(named) names old position \(i), which holds \(found): the changeset was not made from this file")
            }
        }
        return .array(values)
    }

    /// Where the changeset was read from, so that errors about a change can name its place.
    public struct Origin: Sendable {
        public let source: SourceText
        /// The pre-order index of each change's value in `source`.
        let changePreorders: [Int]
    }

    /// The fingerprints of the old and new documents (see `Fingerprint`).
    public struct Fingerprints: Sendable, Equatable {
        public var old: String
        public var new: String

        public init(old: String, new: String) {
            self.old = old
            self.new = new
        }
    }

    /// An error about change `n`, placed in the changeset's file when it was read from one.
    func error(change n: Int, _ message: String) -> ListDiffError {
        guard let origin else { return ListDiffError("change \(n + 1): " + message) }
        let offset = origin.source.offset(ofValueAt: origin.changePreorders[n])
        return ListDiffError(file: origin.source.name, location: offset.map(origin.source.location(ofOffset:)), message)
    }

    func apply(to old: [Value], check: ((Int, Change, Int) throws(ListDiffError) -> Void)?) throws(ListDiffError) -> [Value] {
        var removed = [Bool](repeating: false, count: old.count)
        var deleted = [Bool](repeating: false, count: old.count)
        var replacement: [Int: (value: Value, change: Int)] = [:]
        /// What fills a new position: a moved old record, or an inserted value.
        enum Placement { case moved(from: Int), inserted(Value) }
        var placed: [Int: (placement: Placement, change: Int)] = [:]
        func oldIndex(_ n: Int, _ c: Change) throws(ListDiffError) -> Int {
            guard let p = c.old, p.section == 0, p.index < old.count else {
                throw error(change: n, "the \(c.operation.rawValue) names old position \(c.old?.description ?? "nil"), beyond the old file's \(old.count) records")
            }
            try check?(n, c, p.index)
            return p.index
        }
        func place(_ n: Int, _ c: Change, _ placement: Placement) throws(ListDiffError) {
            guard let p = c.new, p.section == 0 else {
                throw error(change: n, "the \(c.operation.rawValue) names new position \(c.new?.description ?? "nil"), which does not exist")
            }
            if let earlier = placed.updateValue((placement, n), forKey: p.index) {
                throw error(change: n, "new position \(p) is filled twice (also by change \(earlier.change + 1))")
            }
        }
        for (n, change) in changes.enumerated() {
            switch change.operation {
            case .delete, .move:
                let i = try oldIndex(n, change)
                guard !removed[i] else { throw error(change: n, "old position [0, \(i)] is deleted or moved twice") }
                removed[i] = true
                deleted[i] = change.operation == .delete
                if change.operation == .move { try place(n, change, .moved(from: i)) }
            case .insert:
                guard let value = change.value else { throw error(change: n, "the insert has no value") }
                try place(n, change, .inserted(value))
            case .update:
                let i = try oldIndex(n, change)
                guard let value = change.value else { throw error(change: n, "the update has no value") }
                guard replacement.updateValue((value, n), forKey: i) == nil else {
                    throw error(change: n, "old position [0, \(i)] is updated twice")
                }
            }
        }
        if let (i, r) = replacement.first(where: { deleted[$0.key] }) {
            throw error(change: r.change, "old position [0, \(i)] is both updated and deleted")
        }
        let count = removed.lazy.filter { !$0 }.count + placed.count
        if let (j, p) = placed.first(where: { $0.key >= count }) {
            throw error(change: p.change, "new position [0, \(j)] is beyond the end of the new list (\(count) records)")
        }
        var result: [Value] = []
        result.reserveCapacity(count)
        var next = 0  // next old index to consider for an unfilled slot
        for j in 0..<count {
            switch placed[j]?.placement {
            case .moved(let i)?:
                result.append(replacement[i]?.value ?? old[i])
            case .inserted(let value)?:
                result.append(value)
            case nil:
                while removed[next] { next += 1 }
                result.append(replacement[next]?.value ?? old[next])
                next += 1
            }
        }
        return result
    }
}
