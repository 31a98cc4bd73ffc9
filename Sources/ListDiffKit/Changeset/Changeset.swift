/// `Changeset.Position` under its short name inside the package.
package typealias RecordPosition = Changeset.Position

extension Changeset {
    /// A record's place: a section and an index in it (section 0 for a plain list).
    public struct Position: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The section, counted from 0 in document order.
        public var section: Int
        /// The record's index in its section, from 0.
        public var index: Int

        /// A position in a section (section 0 for a plain list).
        public init(section: Int = 0, index: Int) {
            self.section = section
            self.index = index
        }

        public static func < (a: Changeset.Position, b: Changeset.Position) -> Bool {
            (a.section, a.index) < (b.section, b.index)
        }

        public var description: String { "[\(section), \(index)]" }

        /// The position of record `r` of a document whose sections start at `starts` (each
        /// section's first record, counted over the whole document; none or one for a list).
        package static func of(_ r: Int, starts: [Int]) -> Position {
            if starts.count <= 1 { return Position(section: 0, index: r) }
            var low = 0, high = starts.count
            while high - low > 1 {
                let mid = (low + high) / 2
                if starts[mid] <= r { low = mid } else { high = mid }
            }
            // Empty sections share their start with the next: take the last that starts here.
            return Position(section: low, index: r - starts[low])
        }

        /// Where the sections of these sizes start, counted over the whole document.
        package static func starts(_ sizes: [Int]) -> [Int] {
            var starts: [Int] = []
            starts.reserveCapacity(sizes.count)
            var start = 0
            for size in sizes {
                starts.append(start)
                start += size
            }
            return starts
        }

        /// How people read a position: `4`, or `1.4` (section 1, index 4) in sectioned files; `none`
        /// when there is no position.
        package static func spelling(_ p: RecordPosition?, sectioned: Bool, none: String = "?") -> String {
            guard let p else { return none }
            return sectioned ? "\(p.section).\(p.index)" : "\(p.index)"
        }
    }
}

/// A place in one side's records, for an annotation or an error: a record, and the steps of
/// a path inside it (`FieldChange.steps`), none for the record itself. A path that this side
/// does not hold all of leads to the nearest value above it that it holds.
package struct RecordPlace: Sendable {
    package var position: RecordPosition
    package var path: [Value]

    package init(_ position: RecordPosition, path: [Value] = []) {
        self.position = position
        self.path = path
    }
}

/// `Changeset.FieldChange` under its short name inside the package.
package typealias FieldChange = Changeset.FieldChange

extension Changeset {
    /// One changed field of an updated record. `old == nil` means the field was added,
    /// `new == nil` that it was removed.
    public struct FieldChange: Sendable, Equatable {
        /// An RFC 6901 JSON Pointer into the record (`""` is the record itself).
        public var path: String
        /// The old value; nil when the field was added.
        public var old: Value?
        /// The new value; nil when the field was removed.
        public var new: Value?
        /// For an array compared as a multiset (`--unordered-arrays`): the elements only the
        /// new array holds, and those only the old one holds (nil otherwise).
        public var added: [Value]?
        /// For an array compared as a multiset: the elements only the old array holds.
        public var removed: [Value]?
        /// For an element of a keyed list that moved: where it was, as a JSON Pointer (`path`
        /// is where it goes). A move has no `old` or `new`.
        public var from: String?
        /// The path with each element of a keyed list named by its key, as jd writes paths:
        /// a member name is a string, an index a number, and a keyed element an object of
        /// its key fields and their values. Nil when no keyed list is on the path.
        public var keyedPath: [Value]?

        /// A changed field at `path`.
        public init(
            path: String, old: Value?, new: Value?, added: [Value]? = nil, removed: [Value]? = nil, from: String? = nil,
            keyedPath: [Value]? = nil
        ) {
            self.path = path
            self.old = old
            self.new = new
            self.added = added
            self.removed = removed
            self.from = from
            self.keyedPath = keyedPath
        }
    }
}

extension Changeset {
    /// The keyed lists the changed fields name, each once, in the order first met: a list's
    /// pointer, with `*` for each index and keyed element above it, and its key's fields.
    /// Under `Comparison.automaticArrayKeys`, these say which lists were keyed and by what.
    public var keyedLists: [Comparison.ArrayKey] {
        var lists: [Comparison.ArrayKey] = []
        var seen = Set<[String]>()
        for change in changes where change.operation == .update {
            for field in change.fields {
                guard let steps = field.keyedPath else { continue }
                var pointer: [String] = []
                for step in steps {
                    switch step {
                    case .string(let name): pointer.append(FieldPath.escape(name))
                    case .object(let key):
                        let fields = key.members.map(\.key)
                        if seen.insert(pointer + ["="] + fields).inserted,
                            let path = try? Comparison.Pattern("/" + pointer.joined(separator: "/")),
                            let identity = try? IdentityKey(parsing: fields)
                        {
                            lists.append(Comparison.ArrayKey(path: path, key: identity))
                        }
                        pointer.append("*")
                    default: pointer.append("*")
                    }
                }
            }
        }
        return lists
    }
}

extension Changeset {
    /// Those of `keys` whose pointer names no list in the records that changed (as NEW
    /// holds them): mistyped, or a list that is not there. Each updated record is read.
    package func arrayKeysUnused(_ keys: [Comparison.ArrayKey]) throws(ListDiffError) -> [Comparison.ArrayKey] {
        // (Without array keys, nothing to look for: the changes are not walked.)
        guard !keys.isEmpty else { return [] }
        var unused = keys
        for change in changes where change.operation == .update && !unused.isEmpty {
            guard let value = try change.value() else { continue }
            unused.removeAll { $0.path.namesAList(in: value) }
        }
        return unused
    }
}

extension Changeset.FieldChange {
    /// The path for people: `keyedPath` when there is one, with each keyed element written
    /// after its list's name in brackets (`/containers[name=web]/image`), else `path`; ""
    /// for the record itself. A key's string value is written as it is unless it is empty
    /// or holds one of `[]=,/~"`, white space or a control character, or reads as another
    /// type: then as a JSON string. Other values are written as JSON.
    package var readablePath: String {
        guard let keyedPath else { return path }
        return Self.readable(keyedPath)
    }

    /// Keyed steps written for people, as `readablePath` writes them.
    package static func readable(_ steps: [Value]) -> String {
        var text = ""
        for step in steps {
            switch step {
            case .string(let name): text += "/" + FieldPath.escape(name)
            case .object(let key):
                text += "[" + key.members.map { $0.key + "=" + Self.keyText($0.value) }.joined(separator: ",") + "]"
            default: text += "/" + JSONWriter.compact(step)
            }
        }
        return text
    }

    /// The path's steps, as a record's places are found by them (`RecordPlace`): `keyedPath`
    /// when there is one, else the pointer's tokens as strings.
    package var steps: [Value] {
        keyedPath ?? ((try? FieldPath.pointerComponents(path)) ?? []).map(Value.string)
    }

    static func keyText(_ value: Value) -> String {
        guard case .string(let s) = value, !s.isEmpty,
            !s.unicodeScalars.contains(where: { "[]=,/~\"".unicodeScalars.contains($0) || $0.properties.isWhitespace || $0.value < 0x20 }),
            YAMLScalar.coreSchema(s) == value
        else { return JSONWriter.compact(value) }
        return s
    }

    /// The change in one line, `path: old → new` or `path: moved #1 → #0`, both values
    /// written by `show` (nil: none) and the path by `escape`.
    package func line(escape: (String) -> String, show: (Value?, Value?) -> (String, String)) -> String {
        let place = readablePath.isEmpty ? "(record)" : escape(readablePath)
        if let (a, b) = movedIndexes { return "\(place): moved #\(a) → #\(b)" }
        let (a, b) = show(old, new)
        return "\(place): \(a) → \(b)"
    }

    /// For a moved element of a keyed list: its index before and after the move, as the list
    /// stands when the move applies.
    package var movedIndexes: (from: String, to: String)? {
        guard let from else { return nil }
        return (
            String(from.split(separator: "/", omittingEmptySubsequences: false).last ?? ""),
            String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        )
    }
}

/// `Changeset.Change` under its short name inside the package.
package typealias Change = Changeset.Change

extension Changeset {
    /// One change, in UIKit batch-update terms: delete and update name old positions,
    /// insert names a new position, move goes from old to new. A record that moved and
    /// changed appears twice: once as `move`, once as `update`. A rename (`--renames`) is a
    /// delete and an insert of one record whose key changed: from its old position to its
    /// new one, with its changed fields.
    public struct Change: Sendable {
        /// What happened to a record (or a section).
        public enum Operation: String, Sendable, CaseIterable {
            case delete, insert, move, update
            /// A record whose key changed (`--renames`): it leaves its old position and
            /// takes its new one, as a delete and an insert would.
            case rename
        }

        /// What happened to the record.
        public package(set) var operation: Operation
        /// The key as written (an array for a composite key); for `rename`, the new key.
        public package(set) var key: Value
        /// For `rename`: the key in OLD; nil for the other operations.
        public package(set) var oldKey: Value?
        /// The key the record has in OLD: `oldKey` for a rename, else `key`.
        package var keyInOld: Value { oldKey ?? key }
        /// The record is a scalar in a list of scalars, keyed by itself.
        package var keyedBySelf: Bool
        /// Where the record was in OLD: for `delete`, `update`, `move` and `rename`.
        public package(set) var old: Changeset.Position?
        /// Where the record is in NEW: for `insert`, `update`, `move` and `rename`.
        public package(set) var new: Changeset.Position?
        /// For `update` and `rename`: the changed fields.
        public package(set) var fields: [Changeset.FieldChange]
        /// `delete`: the old record; `insert`, `update` and `rename`: the new record; `move`: nil.
        ///
        /// A change from a file may hold only its record's text; each call then reads that
        /// text again, so call it once and keep the value. Throws when that text no
        /// longer reads as a value (the file changed during the diff).
        public func value() throws(ListDiffError) -> Value? {
            switch storage {
            case .none: return nil
            case .value(let value): return value
            case .reference(let reference): return try reference.value()
            }
        }
        /// Under `--duplicates match`: which occurrence of the key (0 for the first); nil otherwise.
        public package(set) var occurrence: Int?

        /// The value, or the record it is read from when it is asked for (the engine builds no
        /// value for a record it does not compare).
        enum Storage {
            case none
            case value(Value)
            case reference(RecordReference)
        }

        private var storage = Storage.none

        /// The record the value is read from, if it is read later.
        var reference: RecordReference? {
            if case .reference(let reference) = storage { return reference }
            return nil
        }

        /// Whether the change carries a value (without reading it).
        var hasValue: Bool {
            if case .none = storage { return false }
            return true
        }

        /// A change with its value, or with the record its value is read from when it is asked
        /// for (`reference`, which wins when both are given).
        init(
            _ operation: Operation, key: Value, keyedBySelf: Bool = false, old: RecordPosition? = nil,
            new: RecordPosition? = nil, fields: [FieldChange] = [], value: Value? = nil, reference: RecordReference? = nil,
            occurrence: Int? = nil, oldKey: Value? = nil
        ) {
            self.occurrence = occurrence
            self.operation = operation
            self.key = key
            self.oldKey = oldKey
            self.keyedBySelf = keyedBySelf
            self.old = old
            self.new = new
            self.fields = fields
            if let reference { storage = .reference(reference) } else if let value { storage = .value(value) }
        }
    }
}

/// The result of a diff: every change, in order (deletes by old index, then inserts,
/// moves and updates by new index), with counts.
public struct Changeset: Sendable {
    /// How many records each kind of change touched.
    public struct Summary: Sendable, Equatable {
        /// Records only NEW holds.
        public var inserted = 0
        /// Records only OLD holds.
        public var deleted = 0
        /// Records that changed place beyond what the inserts and deletes shift.
        public var moved = 0
        /// Records whose content changed.
        public var updated = 0
        /// Records matched by key that neither moved nor changed.
        public var unchanged = 0
        /// Records whose key changed (`--renames`): a delete and an insert paired.
        public var renamed = 0

        /// Counts of each kind of change.
        public init(inserted: Int = 0, deleted: Int = 0, moved: Int = 0, updated: Int = 0, unchanged: Int = 0, renamed: Int = 0) {
            self.inserted = inserted
            self.deleted = deleted
            self.moved = moved
            self.updated = updated
            self.unchanged = unchanged
            self.renamed = renamed
        }
    }

    /// The name of the algorithm that paired the records (`heckel`, `myers`, `lcs`).
    public package(set) var algorithm: String
    /// The key records were matched by.
    public package(set) var key: IdentityKey
    /// How repeated keys were treated.
    public package(set) var duplicates: DuplicatePolicy = .error
    /// How many records OLD holds.
    public package(set) var oldCount: Int
    /// How many records NEW holds.
    public package(set) var newCount: Int
    /// The record changes, in the order the type's summary gives.
    public package(set) var changes: [Changeset.Change]
    /// The counts of each kind of change.
    public package(set) var summary: Summary
    /// Fingerprints of the two documents' diffed parts, when computed (the JSON changeset carries them).
    public package(set) var fingerprints: Fingerprints?
    /// The rules records were compared under (empty: exactly). Under rules, the new
    /// fingerprint is that of the document applying the changeset makes.
    public package(set) var comparison = Comparison()
    /// Where the records are in the documents and how they are grouped.
    package var layout = Layout()
    /// Whether a record whose members only changed order counted as updated
    /// (`Differ.MemberOrder.significant`).
    package var memberOrderSignificant = false
    /// The configuration files the settings of the diff came from (`.listdiff.yaml`), as
    /// the command showed them; none when no file set anything.
    package var configurationFiles: [String] = []
    /// The rule deletes and inserts were paired as renames by, when they were (`--renames`).
    package var renames: RenameRule?
    /// Section operations (none for plain lists).
    public package(set) var sections: [Changeset.SectionChange] = []
    /// The sections of each document: names and sizes.
    package var oldSections: SectionOutline
    package var newSections: SectionOutline
    /// Set when the changeset was read from a file.
    package var origin: Origin?
    /// The inputs' names, as a changeset read from a file gives them (`old` and `new`).
    package var inputNames: (old: String, new: String)?
    /// Set when only some kinds of change were kept (`showing(_:)`): such a changeset
    /// describes, it does not apply.
    package var shown: ChangeKinds?
    /// Every section change, when `showing(_:)` left some out (for the counts).
    var allSections: [SectionChange]?

    package init(algorithm: String, key: IdentityKey, oldCount: Int, newCount: Int, changes: [Change], summary: Summary) {
        self.algorithm = algorithm
        self.key = key
        self.oldCount = oldCount
        self.newCount = newCount
        self.changes = changes
        self.summary = summary
        self.oldSections = .plain(oldCount)
        self.newSections = .plain(newCount)
    }

    /// Whether old and new are the same.
    public var isEmpty: Bool { changes.isEmpty && sections.isEmpty }

    /// Throws unless the record at a change's old position has the change's key (and, when
    /// numbered, its occurrence).
    package func checkKey(_ n: Int, _ change: Change, _ p: RecordPosition, found: Value, scalar: Bool, occurrence numbered: Int?)
        throws(ListDiffError)
    {
        guard found == change.keyInOld, numbered == nil || numbered == (change.occurrence ?? 0) else {
            let formatter = KeyFormatter(key)
            let named = formatter.format(change.keyInOld, selfKeyed: change.keyedBySelf, occurrence: change.occurrence)
            let holds = formatter.format(found, selfKeyed: scalar, occurrence: numbered)
            let place = layout.isSectioned ? "\(p)" : "\(p.index)"
            throw error(
                change: n,
                "the \(change.operation.rawValue) of \(named) names old position \(place), which holds \(holds): the changeset was not made from this file"
            )
        }
    }

    /// Where a new section comes from.
    private enum SectionOrigin { case old(Int), inserted(name: Value, header: Value?) }
    /// What fills a new position: a moved old record, or an inserted value.
    private enum Placement { case moved(from: RecordPosition), inserted(Value, key: Value) }

    package typealias SectionContent<R> = ListDiffKit.SectionContent<R>

    /// The new sections from the old ones. A record is an `R`: a value, or (for the engine,
    /// which does not build OLD's values) a reference to one; `wrap` makes one of the
    /// changeset's values, given with its key (a map's record needs its member name).
    package func applySections<R>(
        to old: [SectionContent<R>], wrap: (_ value: Value, _ key: Value) -> R,
        check: ((Int, Change, RecordPosition) throws(ListDiffError) -> Void)?
    )
        throws(ListDiffError) -> [SectionContent<R>]
    {
        // Sections first: where each old section goes, and what each new one starts from.
        var sectionGone = [Bool](repeating: false, count: old.count)
        var sectionDeleted = [Bool](repeating: false, count: old.count)
        var header: [Int: Value] = [:]
        var placedSection: [Int: SectionOrigin] = [:]
        for (n, op) in sections.enumerated() {
            func fail(_ message: String) -> ListDiffError { error(section: n, message) }
            if op.operation != .insert {
                guard let s = op.old, s < old.count else {
                    throw fail(
                        "the section \(op.operation.rawValue) names old section \(op.old.map(String.init) ?? "nil"), beyond the old file's \(old.count) sections"
                    )
                }
                guard old[s].name == op.name else {
                    throw fail(
                        "the section \(op.operation.rawValue) of \(JSONWriter.compact(op.name)) names old section \(s), which is \(JSONWriter.compact(old[s].name ?? .null)): the changeset was not made from this file"
                    )
                }
                if op.operation == .update {
                    guard header.updateValue(op.value ?? .null, forKey: s) == nil else { throw fail("old section \(s) is updated twice") }
                    continue
                }
                guard !sectionGone[s] else { throw fail("old section \(s) is deleted or moved twice") }
                sectionGone[s] = true
                sectionDeleted[s] = op.operation == .delete
            }
            if op.operation != .delete {
                guard let t = op.new else { throw fail("the section \(op.operation.rawValue) has no new index") }
                let origin: SectionOrigin = op.operation == .move ? .old(op.old!) : .inserted(name: op.name, header: op.value)
                guard placedSection.updateValue(origin, forKey: t) == nil else { throw fail("new section \(t) is filled twice") }
            }
        }
        if let s = header.keys.first(where: { sectionDeleted[$0] }) {
            throw error(section: 0, "old section \(s) is both updated and deleted")
        }
        let sectionCount = sectionGone.lazy.filter { !$0 }.count + placedSection.count
        if let t = placedSection.keys.first(where: { $0 >= sectionCount }) {
            throw error(section: 0, "new section \(t) is beyond the end of the new document (\(sectionCount) sections)")
        }
        var origins: [SectionOrigin] = []
        var nextSection = 0
        for t in 0..<sectionCount {
            if let origin = placedSection[t] {
                origins.append(origin)
            } else {
                while sectionGone[nextSection] { nextSection += 1 }
                origins.append(.old(nextSection))
                nextSection += 1
            }
        }

        // Then records, by old position (removals) and new position (placements).
        var removed = old.map { [Bool](repeating: false, count: $0.records.count) }
        var deleted = removed
        // Each old record's update (the change's number), -1 for none.
        var replacedBy = old.map { [Int32](repeating: -1, count: $0.records.count) }
        var placed: [RecordPosition: (placement: Placement, change: Int)] = [:]
        func oldPosition(_ n: Int, _ c: Change) throws(ListDiffError) -> RecordPosition {
            guard let p = c.old, p.section < old.count, p.index < old[p.section].records.count else {
                let size = old.count == 1 ? "the old file's \(old[0].records.count) records" : "the old file's sections"
                throw error(change: n, "the \(c.operation.rawValue) names old position \(c.old?.description ?? "nil"), beyond \(size)")
            }
            try check?(n, c, p)
            return p
        }
        func place(_ n: Int, _ c: Change, _ placement: Placement) throws(ListDiffError) {
            guard let p = c.new, p.section < sectionCount else {
                throw error(
                    change: n, "the \(c.operation.rawValue) names new position \(c.new?.description ?? "nil"), which does not exist")
            }
            if let earlier = placed.updateValue((placement, n), forKey: p) {
                throw error(change: n, "new position \(p) is filled twice (also by change \(earlier.change + 1))")
            }
        }
        // (Each change is read where it is: a copy of each would retain its every part.)
        try changes.withUnsafeBufferPointer { (changes) throws(ListDiffError) in
            for n in changes.indices {
                switch changes[n].operation {
                case .delete, .move, .rename:
                    let p = try oldPosition(n, changes[n])
                    guard !removed[p.section][p.index] else { throw error(change: n, "old position \(p) is deleted or moved twice") }
                    removed[p.section][p.index] = true
                    deleted[p.section][p.index] = changes[n].operation != .move
                    if changes[n].operation == .move { try place(n, changes[n], .moved(from: p)) }
                    if changes[n].operation == .rename {
                        guard let value = try changes[n].value() else { throw error(change: n, "the rename has no value") }
                        try place(n, changes[n], .inserted(value, key: changes[n].key))
                    }
                case .insert:
                    guard let value = try changes[n].value() else { throw error(change: n, "the insert has no value") }
                    try place(n, changes[n], .inserted(value, key: changes[n].key))
                case .update:
                    let p = try oldPosition(n, changes[n])
                    // The value is read once, when the record is placed.
                    guard changes[n].hasValue else { throw error(change: n, "the update has no value") }
                    guard replacedBy[p.section][p.index] < 0 else {
                        throw error(change: n, "old position \(p) is updated twice")
                    }
                    replacedBy[p.section][p.index] = Int32(n)
                }
            }
            for n in changes.indices where changes[n].operation == .update {
                if let p = changes[n].old, deleted[p.section][p.index] {
                    throw error(change: n, "old position \(p) is both updated and deleted")
                }
            }
        }
        /// The value of update `n` (none when `n` is -1).
        func replacement(_ n: Int32) throws(ListDiffError) -> R? {
            guard n >= 0, let value = try changes[Int(n)].value() else { return nil }
            return wrap(value, changes[Int(n)].key)
        }
        func replaced(_ from: RecordPosition) throws(ListDiffError) -> R? {
            try replacement(replacedBy[from.section][from.index])
        }
        for s in old.indices where sectionDeleted[s] {
            if let i = removed[s].firstIndex(of: false) {
                throw ListDiffError(.changeset, "record [\(s), \(i)] is in a deleted section, but no change deletes or moves it")
            }
        }
        var placedCount = [Int](repeating: 0, count: sectionCount)
        for p in placed.keys { placedCount[p.section] += 1 }
        let sources: [Int?] = origins.map { if case .old(let s) = $0 { return s } else { return nil } }
        let counts = (0..<sectionCount).map { t in
            placedCount[t] + (sources[t].map { s in removed[s].lazy.filter { !$0 }.count } ?? 0)
        }
        if let (p, r) = placed.filter({ $0.key.index >= counts[$0.key.section] }).min(by: { $0.value.change < $1.value.change }) {
            let place =
                old.count == 1 && sectionCount == 1
                ? "the new list (\(counts[0]) records)" : "new section \(p.section) (\(counts[p.section]) records)"
            throw error(change: r.change, "new position \(p) is beyond the end of \(place)")
        }
        // Each new section's placements, by index: walked in step with its slots.
        var placements = [[(index: Int, placement: Placement)]](repeating: [], count: sectionCount)
        for (p, entry) in placed { placements[p.section].append((p.index, entry.placement)) }
        for t in placements.indices { placements[t].sort { $0.index < $1.index } }
        var result: [SectionContent<R>] = []
        result.reserveCapacity(sectionCount)
        for (t, origin) in origins.enumerated() {
            let name: Value?, sectionHeader: Value?
            switch origin {
            case .old(let s):
                name = old[s].name
                sectionHeader = header[s] ?? old[s].header
            case .inserted(let n, let h):
                name = n
                sectionHeader = h
            }
            var records: [R] = []
            records.reserveCapacity(counts[t])
            // The old section the unfilled slots take from, held here: an access to `old` in
            // the loop would copy its section, for each record.
            let source = sources[t]
            let sourceRecords = source.map { old[$0].records } ?? []
            let sourceRemoved = source.map { removed[$0] } ?? []
            let sourceReplaced = source.map { replacedBy[$0] } ?? []
            var next = 0  // next old index to consider for an unfilled slot
            var k = 0  // next placement of the section
            for j in 0..<counts[t] {
                var placement: Placement? = nil
                if k < placements[t].count, placements[t][k].index == j {
                    placement = placements[t][k].placement
                    k += 1
                }
                switch placement {
                case .moved(let from)?:
                    records.append(try replaced(from) ?? old[from.section].records[from.index])
                case .inserted(let value, let key)?:
                    records.append(wrap(value, key))
                case nil:
                    // Counts reconcile: an unfilled slot always has a staying record left.
                    while sourceRemoved[next] { next += 1 }
                    records.append(try replacement(sourceReplaced[next]) ?? sourceRecords[next])
                    next += 1
                }
            }
            result.append((name, sectionHeader, records))
        }
        return result
    }

    /// Where the changeset was read from, so that errors about a change can name its place.
    package struct Origin: Sendable {
        package let source: SourceText
        /// The byte offset of each change's value in `source`.
        let changeOffsets: [Int]
        /// The same for each section change.
        var sectionOffsets: [Int] = []
    }

    /// The fingerprints of the old and new documents (see `Fingerprint`).
    public struct Fingerprints: Sendable, Equatable {
        /// OLD's fingerprint.
        public var old: String
        /// NEW's fingerprint (under comparison rules: of what applying the changeset gives).
        public var new: String

        /// Both fingerprints.
        public init(old: String, new: String) {
            self.old = old
            self.new = new
        }
    }

    /// An error about section change `n`, placed like `error(change:)`.
    func error(section n: Int, _ message: String) -> ListDiffError {
        guard let origin, origin.sectionOffsets.indices.contains(n) else {
            return ListDiffError(.changeset, "section change \(n + 1): " + message)
        }
        let offset = origin.sectionOffsets[n]
        return ListDiffError(.changeset, file: origin.source.name, location: origin.source.location(ofOffset: offset), message)
    }

    /// An error about change `n`, placed in the changeset's file when it was read from one.
    func error(change n: Int, _ message: String) -> ListDiffError {
        guard let origin else { return ListDiffError(.changeset, "change \(n + 1): " + message) }
        let offset = origin.changeOffsets[n]
        return ListDiffError(.changeset, file: origin.source.name, location: origin.source.location(ofOffset: offset), message)
    }
}
