/// `Changeset.SectionChange` under its short name inside the package.
package typealias SectionChange = Changeset.SectionChange

extension Changeset {
    /// One change to a section: positions are section indexes, old for delete, move and update,
    /// new for insert, move and update, as in UIKit's batch updates.
    public struct SectionChange: Sendable, Equatable {
        /// What happened to the section.
        public package(set) var operation: Changeset.Change.Operation
        /// The section's name: its member key in an object of lists, its name field otherwise.
        public package(set) var name: Value
        /// The section's index in OLD: for `delete`, `update` and `move`.
        public package(set) var old: Int?
        /// The section's index in NEW: for `insert`, `update` and `move`.
        public package(set) var new: Int?
        /// `insert` and `update`: the new section object with its records list emptied (nil for
        /// an object of lists, whose sections are only names).
        public package(set) var value: Value?
        /// `update`: the section object's changed fields (its records aside).
        public package(set) var fields: [Changeset.FieldChange]

        package init(
            _ operation: Change.Operation, name: Value, old: Int? = nil, new: Int? = nil, value: Value? = nil,
            fields: [FieldChange] = []
        ) {
            self.operation = operation
            self.name = name
            self.old = old
            self.new = new
            self.value = value
            self.fields = fields
        }
    }
}

/// The sections of each document, as the changeset remembers them: names and sizes.
package struct SectionOutline: Sendable, Equatable {
    /// Names (nil for the single section of a plain list).
    var names: [Value?]
    var sizes: [Int]

    package init(names: [Value?], sizes: [Int]) {
        self.names = names
        self.sizes = sizes
    }

    static func plain(_ count: Int) -> SectionOutline { SectionOutline(names: [nil], sizes: [count]) }
}

/// `Changeset.Stage` under its short name inside the package.
package typealias Stage = Changeset.Stage

extension Changeset {
    /// One UIKit-safe batch of a staged changeset. Positions are in the stage's own before
    /// (old, delete, move-from) and after (new, insert, move-to) states, as a batch update needs.
    public struct Stage: Sendable {
        /// The four batches, in the order they are performed.
        public enum Kind: String, Sendable, CaseIterable {
            /// Record (and section) updates, at old positions; nothing moves yet.
            case updates
            /// Record deletes, at old positions (records of deleted sections go with their section,
            /// except those that move elsewhere: they are deleted here and inserted in the last stage).
            case deletes
            /// Section deletes, inserts and moves; inserted sections start empty.
            case sections
            /// Record inserts and moves into the final positions.
            case insertsAndMoves = "inserts and moves"
        }

        /// Which batch this is.
        public package(set) var kind: Kind
        /// The section changes of this batch.
        public package(set) var sections: [Changeset.SectionChange]
        /// The record changes of this batch, at the positions the batch uses.
        public package(set) var changes: [Changeset.Change]
    }
}

extension Changeset {
    /// Where each old section goes in the new document (nil: deleted), in UIKit semantics:
    /// moved sections to their new index, the others, in order, into the slots no insert or
    /// move fills.
    package var oldSectionTargets: [Int?] {
        let oldCount = oldSections.names.count, newCount = newSections.names.count
        var target = [Int?](repeating: nil, count: oldCount)
        var gone = [Bool](repeating: false, count: oldCount)
        var filled = [Bool](repeating: false, count: newCount)
        for op in sections {
            if op.operation == .delete || op.operation == .move, let s = op.old, s < oldCount { gone[s] = true }
            if op.operation == .insert || op.operation == .move, let t = op.new, t < newCount { filled[t] = true }
            if op.operation == .move, let s = op.old, s < oldCount { target[s] = op.new }
        }
        var slot = 0
        for s in 0..<oldCount where !gone[s] {
            while slot < newCount, filled[slot] { slot += 1 }
            if slot < newCount { target[s] = slot }
            slot += 1
        }
        return target
    }

    /// The changeset as four UIKit-safe batches in DifferenceKit's order: record updates;
    /// record deletes; section deletes, inserts and moves; record inserts and moves. Each is
    /// valid on its own: indexes in range of its before and after states, no index both
    /// deleted and moved, no update of a record that moves in the same batch.
    public var stages: [Changeset.Stage] {
        let plan = stagePlan
        return plan.stages.enumerated().map { k, entries in
            Stage(
                kind: Stage.Kind.allCases[k], sections: plan.sections[k],
                changes: entries.map { entry in
                    let change = changes[Int(entry.change)]
                    return Change(
                        entry.operation, key: entry.operation == .delete ? change.keyInOld : change.key, keyedBySelf: change.keyedBySelf,
                        old: entry.old, new: entry.new,
                        occurrence: change.occurrence)
                })
        }
    }

    /// One change of a stage: which change it is, as what operation, at which positions.
    struct StageEntry {
        var change: Int32
        var operation: Change.Operation
        var old: RecordPosition?
        var new: RecordPosition?
    }

    /// The stages as entries that point into `changes`, for writing them without copying
    /// every change (see `stages`).
    var stagePlan: (sections: [[SectionChange]], stages: [[StageEntry]]) {
        let oldSectionCount = oldSections.sizes.count
        let sectionTarget = oldSectionTargets
        var deletedSection = [Bool](repeating: false, count: oldSectionCount)
        for op in sections where op.operation == .delete { if let s = op.old, s < oldSectionCount { deletedSection[s] = true } }

        // Records leaving a deleted section for elsewhere: deleted, then inserted again.
        // The changes are read in place (a copy of each would retain all it holds).
        let changes = self.changes
        var reinserted = Set<RecordPosition>()  // old positions
        if deletedSection.contains(true) {
            for k in changes.indices where changes[k].operation == .move {
                if let o = changes[k].old, deletedSection[o.section] { reinserted.insert(o) }
            }
        }
        var updates = sections.filter { $0.operation == .update }
        updates.sort { ($0.old ?? 0) < ($1.old ?? 0) }
        // (Each stage's size is known from the summary: no array grows by copies.)
        var stage1: [StageEntry] = []
        var stage2: [StageEntry] = []
        var stage4: [StageEntry] = []
        stage1.reserveCapacity(summary.updated)
        stage2.reserveCapacity(summary.deleted + summary.renamed + reinserted.count)
        stage4.reserveCapacity(summary.inserted + summary.renamed + summary.moved)
        func entry(_ k: Int, _ operation: Change.Operation, old: RecordPosition? = nil, new: RecordPosition? = nil) -> StageEntry {
            StageEntry(change: Int32(truncatingIfNeeded: k), operation: operation, old: old, new: new)
        }
        let anyReinserted = !reinserted.isEmpty
        // The old records that leave, by section (see `survivorsBefore`), found in the same
        // pass over the changes.
        var leaving = [[Int]](repeating: [], count: oldSectionCount)
        for k in changes.indices {
            switch changes[k].operation {
            case .update:
                guard let o = changes[k].old, !anyReinserted || !reinserted.contains(o) else { continue }
                stage1.append(entry(k, .update, old: o))
            case .delete, .rename:
                guard let o = changes[k].old else { continue }
                if o.section < oldSectionCount { leaving[o.section].append(o.index) }
                // (A rename is a delete of the old key here and an insert of the new one in
                // the last stage, as UIKit sees a record whose identity changed.)
                guard !deletedSection[o.section] else { continue }
                stage2.append(entry(k, .delete, old: o))
            case .move:
                guard anyReinserted, let o = changes[k].old, reinserted.contains(o) else { continue }
                stage2.append(entry(k, .delete, old: o))
            case .insert:
                continue
            }
        }
        stage2.sortIfNeeded { $0.old! < $1.old! }
        let stage3 = sections.filter { $0.operation != .update }.map { op in
            SectionChange(op.operation, name: op.name, old: op.old, new: op.new)
        }

        // After stage 2 and 3: a surviving old record's index among its section's survivors is
        // its old index less the records before it that left (by binary search in each
        // section's sorted list of leaving indexes).
        for o in reinserted where o.section < oldSectionCount { leaving[o.section].append(o.index) }
        for s in 0..<oldSectionCount { leaving[s].sort() }
        func survivorsBefore(_ o: RecordPosition) -> Int {
            let list = leaving[o.section]
            var low = 0, high = list.count
            while low < high {
                let mid = (low + high) / 2
                if list[mid] < o.index { low = mid + 1 } else { high = mid }
            }
            return o.index - low
        }
        for k in changes.indices {
            switch changes[k].operation {
            case .insert, .rename:
                stage4.append(entry(k, .insert, new: changes[k].new))
            case .move:
                guard let o = changes[k].old, let n = changes[k].new else { continue }
                if anyReinserted, reinserted.contains(o) {
                    stage4.append(entry(k, .insert, new: n))
                } else if let t = sectionTarget[o.section] {
                    stage4.append(entry(k, .move, old: RecordPosition(section: t, index: survivorsBefore(o)), new: n))
                }
            default:
                continue
            }
        }
        stage4.sortIfNeeded { $0.new! < $1.new! }
        let sectionUpdates = updates.map { SectionChange(.update, name: $0.name, old: $0.old) }
        return ([sectionUpdates, [], stage3, []], [stage1, stage2, [], stage4])
    }
}

extension Array {
    /// Sorts, unless the elements are in order already (as changes mostly are: they come by
    /// old index, then by new index): a check costs a pass, a sort moves every element.
    mutating func sortIfNeeded(by less: (Element, Element) -> Bool) {
        if indices.dropFirst().contains(where: { less(self[$0], self[$0 - 1]) }) { sort(by: less) }
    }
}
