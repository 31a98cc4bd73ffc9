// Inverting and composing changesets, from the changesets alone: where every record goes is
// worked out from the positions, and the changes are built again by the diff's own builder.

extension Changeset {
    /// The changeset from NEW back to OLD: applied to NEW, it gives OLD, fingerprints included.
    ///
    /// A delete becomes an insert of the record it held, an insert a delete, a move goes
    /// back, and an update brings back the old record, rebuilt from the new one and the old
    /// values of its changed fields. The moves are those a diff of NEW and OLD chooses,
    /// unless that would move a record no change names (whose key the changeset does not
    /// hold): then they are this changeset's moves, reversed, as few.
    ///
    /// - Throws: a `ListDiffError` of kind `changeset` for a changeset whose positions do
    ///   not fit together, or one this cannot invert (see `checkAlgebra`).
    public func inverted() throws(ListDiffError) -> Changeset {
        try checkAlgebra("invert")
        let flow = try RecordFlow(self)
        // OLD' is NEW, NEW' is OLD: the pairing runs from NEW's records to OLD's.
        let pairing = flow.newToOld.map { $0 >= 0 ? Int($0) : nil }
        var stays = [Bool](repeating: true, count: newCount)
        if layout.shape != .map {
            stays = [Bool](repeating: false, count: newCount)
            visitLongestIncreasingSubsequence(count: newCount, value: { Int(flow.newToOld[$0]) }) { stays[$0] = true }
            let unnamedMove = (0..<newCount).contains { j in flow.newToOld[j] >= 0 && !stays[j] && flow.newChange[j] < 0 }
            if unnamedMove { stays = flow.movedNew.map { !$0 } }
        }
        let (changes, summary) = try Differ(comparison: comparison).changes(
            old: flow.newSide(), new: flow.oldSide(), pairing: pairing, stays: stays,
            same: { _, i in flow.updateAt[i] < 0 })
        var inverse = Changeset(
            algorithm: algorithm, key: key, oldCount: newCount, newCount: oldCount, changes: changes, summary: summary)
        inverse.copyHeader(of: self)
        // The changeset records how OLD was read, not NEW, which is the inverse's OLD:
        // apply reads it by its name and the options it is given, as for an older changeset.
        inverse.layout.format = nil
        inverse.layout.csvInfersTypes = false
        inverse.fingerprints = fingerprints.map { Fingerprints(old: $0.new, new: $0.old) }
        inverse.inputNames = inputNames.map { (old: $0.new, new: $0.old) }
        if self.summary.renamed > 0 {
            // Each rename goes back: the inverse's delete at its new position and its insert
            // at its old position are one rename again.
            var deleteAt: [RecordPosition: Int] = [:], insertAt: [RecordPosition: Int] = [:]
            for (k, change) in inverse.changes.enumerated() {
                if change.operation == .delete, let p = change.old { deleteAt[p] = k }
                if change.operation == .insert, let p = change.new { insertAt[p] = k }
            }
            var pairs: [(delete: Int, insert: Int)] = []
            for change in self.changes where change.operation == .rename {
                guard let o = change.old, let n = change.new, let d = deleteAt[n], let i = insertAt[o] else { continue }
                pairs.append((d, i))
            }
            try inverse.join(pairs)
        }
        return inverse
    }

    /// This changeset followed by `next` (made from this one's NEW): the changeset from this
    /// one's OLD to `next`'s NEW, as a diff of those two documents gives it.
    ///
    /// The moves are those such a diff chooses, unless that would move a record neither
    /// changeset names (whose key neither holds): then, of the fewest moves, those that
    /// move named records only. `composed(with:oldPath:)` reads such keys from OLD.
    ///
    /// - Throws: a `ListDiffError` of kind `changeset` when `next` does not start where
    ///   this one ends (its OLD fingerprint or record count differs, or its key, layout or
    ///   rules), for positions that do not fit together, or for a changeset this cannot
    ///   compose (see `checkAlgebra`); when even the fewest moves must move a record
    ///   neither changeset names, with the hint `.oldDocument`.
    public func composed(with next: Changeset) throws(ListDiffError) -> Changeset {
        try checkAlgebra("compose")
        try next.checkAlgebra("compose")
        try checkChain(to: next)
        return try composition(with: next, oldKeys: nil)
    }

    /// This changeset followed by `next`, as `composed(with:)`, with the keys of the
    /// records neither changeset names read from the file at `path`, the OLD this one was
    /// made from: the result is the changeset a diff of OLD and `next`'s NEW writes, moves
    /// included. OLD is read as `FileApplier` reads it (as this changeset records), and
    /// scanned, not parsed: only the keys of records that move are read.
    ///
    /// - Throws: the errors of `composed(with:)` (but for the one about a record neither
    ///   names); the errors reading OLD for a diff gives; a `.changeset` error when this
    ///   changeset has no fingerprints, or OLD is not the document it was made from.
    public func composed(with next: Changeset, oldPath path: String) throws(ListDiffError) -> Changeset {
        try checkAlgebra("compose")
        try next.checkAlgebra("compose")
        try checkChain(to: next)
        guard let fingerprints else {
            throw ListDiffError(
                .changeset, file: origin?.source.name, "the first changeset has no fingerprints, so it cannot be checked against \(path)")
        }
        let scan = try FileApplier.scan(FileApplier.Header(self), old: path, reader: DocumentReader(key: key), progress: nil)
        let side = scan.side
        let fingerprint = Fingerprint.string(side.fingerprint)
        guard fingerprint == fingerprints.old, side.count == oldCount else {
            throw ListDiffError(
                .changeset, file: scan.name,
                "this is not the document the first changeset was made from (its fingerprint is \(fingerprint.prefix(19))…, the changeset's \(fingerprints.old.prefix(19))…; \(side.count) records, the changeset's \(oldCount))"
            )
        }
        let records = side.records, key = key
        let composed = try composition(with: next, oldKeys: { a throws(ListDiffError) in (try records.key(a, key), records.isScalar(a)) })
        // The keys were read as they were found.
        try side.file.checkIntact()
        return composed
    }

    /// The composition, the changesets checked; `oldKeys` gives the key of OLD's record
    /// (and whether it is a scalar keyed by itself) for those neither changeset names.
    private func composition(
        with next: Changeset, oldKeys: ((Int) throws(ListDiffError) -> (Value, Bool))?
    ) throws(ListDiffError) -> Changeset {
        // Each changeset's flow on a core of its own; the first's error is reported first.
        let (one, two) = Concurrently.both(
            { () throws(ListDiffError) in try RecordFlow(self) }, { () throws(ListDiffError) in try RecordFlow(next) })
        let first = try one.get(), second = try two.get()
        // For each record of OLD, its place in the last NEW (-1: gone).
        var oldToLast = [Int32](repeating: -1, count: oldCount)
        for (c, b) in second.newToOld.enumerated() where b >= 0 {
            let a = first.newToOld[Int(b)]
            if a >= 0 { oldToLast[Int(a)] = Int32(c) }
        }
        // A record the first deletes and the second inserts again is the same record, matched by key.
        var deleted: [String: Int] = [:]
        for change in changes where change.operation == .delete { deleted[Fingerprint.of(change.key)] = change.old!.index }
        if !deleted.isEmpty {
            for change in next.changes where change.operation == .insert {
                if let a = deleted[Fingerprint.of(change.key)] { oldToLast[a] = Int32(change.new!.index) }
            }
        }
        func named(_ a: Int) -> Bool {
            let b = Int(first.oldToNew[a])
            return b < 0 || first.oldChange[a] >= 0 || first.newChange[b] >= 0 || second.oldChange[b] >= 0
                || second.newChange[Int(second.oldToNew[b])] >= 0
        }
        var stays = [Bool](repeating: true, count: oldCount)
        if layout.shape != .map {
            stays = [Bool](repeating: false, count: oldCount)
            visitLongestIncreasingSubsequence(count: oldCount, value: { Int(oldToLast[$0]) }) { stays[$0] = true }
            // With OLD at hand, the diff's run stands: the keys it lacks are read there.
            if oldKeys == nil, (0..<oldCount).contains(where: { oldToLast[$0] >= 0 && !stays[$0] && !named($0) }) {
                stays = Self.longestRunKeeping(oldToLast, count: next.newCount, unnamed: { !named($0) })
                if let a = (0..<oldCount).first(where: { oldToLast[$0] >= 0 && !stays[$0] && !named($0) }) {
                    throw ListDiffError(
                        .changeset,
                        "the composed changes move old record \(a), which neither changeset names, so its key is not known",
                        hint: .oldDocument)
                }
            }
        }
        // A record's values: OLD's from the first changeset (or, when it did not change
        // there, from the second's view of it), the last NEW's from the second (or the first).
        // The key of B's record b, from whichever change names it, else from OLD when at hand.
        func middleKey(_ b: Int) throws(ListDiffError) -> (Value, Bool)? {
            let a = Int(first.newToOld[b]), c = Int(second.oldToNew[b])
            if let named = first.newKey(b) ?? second.oldKey(b) ?? (a >= 0 ? first.oldKey(a) : nil) ?? (c >= 0 ? second.newKey(c) : nil) {
                return named
            }
            guard a >= 0, let oldKeys else { return nil }
            return try oldKeys(a)
        }
        var oldSide = first.oldSide(
            orElse: { a throws(ListDiffError) in
                let b = Int(first.oldToNew[a])
                return b < 0 ? (nil, nil) : (try second.oldValue(b), try middleKey(b))
            })
        var lastSide = second.newSide(
            orElse: { c throws(ListDiffError) in
                let b = Int(second.newToOld[c])
                return b < 0 ? (nil, nil) : (try first.newValue(b), try middleKey(b))
            })
        // Whether each record differs from OLD to the last NEW: it does when one changeset
        // alone updates it (as invert keeps an update). Records both update, or deleted
        // and inserted again, are compared, once: their values are kept for the builder.
        var oldKnown: [Int: Value] = [:], lastKnown: [Int: Value] = [:]
        var differ = [Bool](repeating: false, count: oldCount)
        for (a, c) in oldToLast.enumerated() where c >= 0 {
            let b = Int(first.oldToNew[a])
            let once = b < 0 ? -1 : (first.updateAt[a] >= 0 ? 1 : 0) + (second.updateAt[b] >= 0 ? 2 : 0)
            guard once != 0 else { continue }
            guard once == 3 || once < 0 else {
                differ[a] = true
                continue
            }
            let x = try oldSide.value(a), y = try lastSide.value(Int(c))
            oldKnown[a] = x
            lastKnown[Int(c)] = y
            differ[a] = x != y
        }
        let readOld = oldSide.value, readLast = lastSide.value
        oldSide.value = { a throws(ListDiffError) in
            if let known = oldKnown[a] { return known }
            return try readOld(a)
        }
        lastSide.value = { c throws(ListDiffError) in
            if let known = lastKnown[c] { return known }
            return try readLast(c)
        }
        let (changes, summary) = try Differ(comparison: comparison).changes(
            old: oldSide, new: lastSide, pairing: oldToLast.map { $0 >= 0 ? Int($0) : nil }, stays: stays,
            same: { a, _ in !differ[a] },
            update: { a, _ throws(ListDiffError) in
                // An update one changeset alone makes is the whole change: its record and its
                // fields, as the diff found them on the real old record.
                let b = Int(first.oldToNew[a])
                guard b >= 0 else { return nil }
                let one = first.updateAt[a], two = second.updateAt[b]
                guard (one >= 0) != (two >= 0) else { return nil }
                let change = one >= 0 ? self.changes[Int(one)] : next.changes[Int(two)]
                guard let value = try change.value() else { return nil }
                return (value, change.fields)
            })
        var composed = Changeset(
            algorithm: algorithm, key: key, oldCount: oldCount, newCount: next.newCount, changes: changes, summary: summary)
        composed.copyHeader(of: self)
        if let f = fingerprints, let g = next.fingerprints { composed.fingerprints = Fingerprints(old: f.old, new: g.new) }
        if let n = inputNames, let m = next.inputNames { composed.inputNames = (old: n.old, new: m.new) }
        return composed
    }

    /// Refuses what invert and compose do not handle yet, each for a reason: sections (a
    /// changeset does not hold their sizes), comparison rules (an update then does not
    /// hold all of the old record; array keys alone are fine), lists diffed as sequences (paired by the
    /// algorithm, not by key), and numbered repeated keys (the occurrence of a record in
    /// NEW is not held).
    func checkAlgebra(_ command: String) throws(ListDiffError) {
        let file = origin?.source.name
        func refuse(_ what: String) -> ListDiffError {
            ListDiffError(.changeset, file: file, "\(command) does not handle changesets \(what) yet")
        }
        if layout.isSectioned { throw refuse("of sections or of many lists") }
        if comparison.hasRules { throw refuse("made under comparison rules") }
        if key.isWholeRecord { throw refuse("of sequences (--key .)") }
        if duplicates == .match { throw refuse("made with --duplicates match") }
        if command != "invert", summary.renamed > 0 { throw refuse("with renamed keys (--renames)") }
    }

    /// Refuses a `next` that does not start where this changeset ends.
    func checkChain(to next: Changeset) throws(ListDiffError) {
        let file = next.origin?.source.name
        func refuse(_ message: String) -> ListDiffError {
            ListDiffError(.changeset, file: file, "the changesets do not chain: " + message)
        }
        if let f = fingerprints, let g = next.fingerprints, f.new != g.old {
            throw refuse("the second was made from a document (\(g.old)) other than the one the first leads to (\(f.new))")
        }
        if newCount != next.oldCount {
            throw refuse("the first leads to \(newCount) records, the second starts from \(next.oldCount)")
        }
        if key != next.key { throw refuse("the keys differ (\(key) and \(next.key))") }
        // (How each OLD was read may differ: the second's OLD is the first's NEW.)
        if layout.placement != next.layout.placement {
            throw refuse("the layouts differ (\(layout.placement) and \(next.layout.placement))")
        }
    }

    /// The members that are not changes, as `other` has them.
    private mutating func copyHeader(of other: Changeset) {
        duplicates = other.duplicates
        comparison = other.comparison
        memberOrderSignificant = other.memberOrderSignificant
        layout = other.layout
        renames = other.renames
    }

    /// Of the longest runs of `targets` (in order, increasing; negative values left out),
    /// one that leaves out the fewest `unnamed` positions: the positions on it. Values are
    /// below `count`.
    static func longestRunKeeping(_ targets: [Int32], count: Int, unnamed: (Int) -> Bool) -> [Bool] {
        // Each run scores its length times (n + 1) plus the unnamed positions on it, so
        // that a longer run always wins and, among the longest, the one that keeps most.
        let n = targets.count
        var best = [(score: Int, position: Int32)](repeating: (0, -1), count: count + 1)  // prefix maxima, a Fenwick tree
        var previous = [Int32](repeating: -1, count: n)
        var top: (score: Int, position: Int32) = (0, -1)
        for p in 0..<n where targets[p] >= 0 {
            let v = Int(targets[p])
            var found: (score: Int, position: Int32) = (0, -1)
            var k = v
            while k > 0 {
                if best[k].score > found.score { found = best[k] }
                k -= k & -k
            }
            let score = found.score + (n + 1) + (unnamed(p) ? 1 : 0)
            previous[p] = found.position
            if score > top.score { top = (score, Int32(p)) }
            k = v + 1
            while k <= count {
                if score > best[k].score { best[k] = (score, Int32(p)) }
                k += k & -k
            }
        }
        var stays = [Bool](repeating: false, count: n)
        var p = top.position
        while p >= 0 {
            stays[Int(p)] = true
            p = previous[Int(p)]
        }
        return stays
    }
}

/// Where each record of a plain list goes under one changeset, and which change names it:
/// the positions of the changes, with the records no change names filling the places left,
/// in order, as `apply` fills them.
struct RecordFlow: Sendable {
    let changeset: Changeset
    /// For each NEW record, the OLD record it was (-1: inserted).
    var newToOld: [Int32]
    /// For each OLD record, the NEW record it became (-1: deleted).
    var oldToNew: [Int32]
    /// For each OLD record, the change that names it there (its update before its move), -1 for none.
    var oldChange: [Int32]
    /// For each NEW record, the change that names it there (its update before its move), -1 for none.
    var newChange: [Int32]
    /// For each OLD record, its update, -1 for none.
    var updateAt: [Int32]
    /// Whether each NEW record was moved there.
    var movedNew: [Bool]

    init(_ changeset: Changeset) throws(ListDiffError) {
        self.changeset = changeset
        let oldCount = changeset.oldCount, newCount = changeset.newCount
        let unfilled: Int32 = -2
        newToOld = [Int32](repeating: unfilled, count: newCount)
        oldToNew = [Int32](repeating: -1, count: oldCount)
        oldChange = [Int32](repeating: -1, count: oldCount)
        newChange = [Int32](repeating: -1, count: newCount)
        updateAt = [Int32](repeating: -1, count: oldCount)
        movedNew = [Bool](repeating: false, count: newCount)
        var removed = [Bool](repeating: false, count: oldCount)
        func index(_ n: Int, _ p: RecordPosition?, _ side: String, _ count: Int) throws(ListDiffError) -> Int {
            guard let p, p.section == 0, p.index < count else {
                throw changeset.error(
                    change: n,
                    "the \(changeset.changes[n].operation.rawValue) names \(side) position \(p?.description ?? "nil"), beyond the \(count) records of \(side.uppercased())"
                )
            }
            return p.index
        }
        func fill(_ n: Int, _ j: Int, from i: Int32) throws(ListDiffError) {
            guard newToOld[j] == unfilled else { throw changeset.error(change: n, "new position \(j) is filled twice") }
            newToOld[j] = i
        }
        func remove(_ n: Int, _ i: Int) throws(ListDiffError) {
            guard !removed[i] else { throw changeset.error(change: n, "old position \(i) is deleted or moved twice") }
            removed[i] = true
        }
        for (n, change) in changeset.changes.enumerated() {
            let number = Int32(n)
            switch change.operation {
            case .delete:
                let i = try index(n, change.old, "old", oldCount)
                try remove(n, i)
                oldChange[i] = number
            case .insert:
                let j = try index(n, change.new, "new", newCount)
                try fill(n, j, from: -1)
                newChange[j] = number
            case .rename:
                // A delete of the old key and an insert of the new one.
                let i = try index(n, change.old, "old", oldCount), j = try index(n, change.new, "new", newCount)
                try remove(n, i)
                oldChange[i] = number
                try fill(n, j, from: -1)
                newChange[j] = number
            case .move:
                let i = try index(n, change.old, "old", oldCount), j = try index(n, change.new, "new", newCount)
                try remove(n, i)
                try fill(n, j, from: Int32(i))
                movedNew[j] = true
                if oldChange[i] < 0 { oldChange[i] = number }
                if newChange[j] < 0 { newChange[j] = number }
            case .update:
                let i = try index(n, change.old, "old", oldCount)
                _ = try index(n, change.new, "new", newCount)
                guard updateAt[i] < 0 else { throw changeset.error(change: n, "old position \(i) is updated twice") }
                updateAt[i] = number
                oldChange[i] = number
                newChange[change.new!.index] = number
                if changeset.layout.shape == .map, change.new!.index != i {
                    // A map's members have no moves: an update names where the member goes.
                    try remove(n, i)
                    try fill(n, change.new!.index, from: Int32(i))
                }
            }
        }
        // The records no change moves or deletes fill the places left, in order.
        var next = 0
        for j in 0..<newCount where newToOld[j] == unfilled {
            while next < oldCount, removed[next] { next += 1 }
            guard next < oldCount else {
                throw ListDiffError(
                    .changeset, file: changeset.origin?.source.name,
                    "the changes do not add up: NEW's \(newCount) records are more than OLD's records that stay can fill")
            }
            newToOld[j] = Int32(next)
            next += 1
        }
        while next < oldCount, removed[next] { next += 1 }
        guard next == oldCount else {
            throw ListDiffError(
                .changeset, file: changeset.origin?.source.name,
                "the changes do not add up: OLD's records that stay are more than NEW's \(newCount) places can hold")
        }
        for (j, i) in newToOld.enumerated() where i >= 0 { oldToNew[Int(i)] = Int32(j) }
        for (i, n) in updateAt.enumerated() where n >= 0 {
            let change = changeset.changes[Int(n)]
            guard oldToNew[i] == Int32(change.new!.index) else {
                throw changeset.error(
                    change: Int(n), "the update goes from old position \(i) to new position \(change.new!.index), where another record is")
            }
        }
    }

    /// OLD's record i: held by its delete, or rebuilt from its update. Nil when no change holds it.
    func oldValue(_ i: Int) throws(ListDiffError) -> Value? {
        let n = Int(oldChange[i])
        guard n >= 0 else { return nil }
        let change = changeset.changes[n]
        switch change.operation {
        case .delete: return try change.value()
        case .update, .rename: return try Self.reverted(change, n, in: changeset)
        default: return nil
        }
    }

    /// NEW's record j: held by its insert or update. Nil when no change holds it.
    func newValue(_ j: Int) throws(ListDiffError) -> Value? {
        let n = Int(newChange[j])
        guard n >= 0, changeset.changes[n].operation != .move else { return nil }
        return try changeset.changes[n].value()
    }

    /// The key of OLD's record i and whether it is a scalar keyed by itself, when a change names it.
    func oldKey(_ i: Int) -> (Value, Bool)? {
        let n = Int(oldChange[i])
        return n >= 0 ? (changeset.changes[n].keyInOld, changeset.changes[n].keyedBySelf) : nil
    }

    /// The same for NEW's record j.
    func newKey(_ j: Int) -> (Value, Bool)? {
        let n = Int(newChange[j])
        return n >= 0 ? (changeset.changes[n].key, changeset.changes[n].keyedBySelf) : nil
    }

    /// OLD's records as the change builder sees them; a record no change here holds is
    /// asked of `orElse` (value, and key when known).
    func oldSide(orElse: ((Int) throws(ListDiffError) -> (Value?, (Value, Bool)?))? = nil) -> RecordSide {
        side(count: changeset.oldCount, value: oldValue, key: oldKey, orElse: orElse)
    }

    /// NEW's records as the change builder sees them, as `oldSide`.
    func newSide(orElse: ((Int) throws(ListDiffError) -> (Value?, (Value, Bool)?))? = nil) -> RecordSide {
        side(count: changeset.newCount, value: newValue, key: newKey, orElse: orElse)
    }

    private func side(
        count: Int, value: @escaping (Int) throws(ListDiffError) -> Value?, key: @escaping (Int) -> (Value, Bool)?,
        orElse: ((Int) throws(ListDiffError) -> (Value?, (Value, Bool)?))?
    ) -> RecordSide {
        let changeset = changeset
        func missing(_ k: Int) -> ListDiffError {
            ListDiffError(.changeset, file: changeset.origin?.source.name, "record \(k) is needed, but no change holds it")
        }
        func found(_ k: Int) throws(ListDiffError) -> (Value?, (Value, Bool)?) {
            if let v = try value(k) { return (v, key(k)) }
            if let orElse { return try orElse(k) }
            return (nil, key(k))
        }
        return RecordSide(
            count: count, position: { RecordPosition(index: $0) },
            value: { k throws(ListDiffError) in
                guard let v = try found(k).0 else { throw missing(k) }
                return v
            },
            key: { k, _ throws(ListDiffError) in
                if let (key, _) = key(k) { return key }
                guard let (key, _) = try found(k).1 else { throw missing(k) }
                return key
            },
            isScalar: { k, _ in
                if let (_, scalar) = key(k) { return scalar }
                return ((try? found(k))?.1)?.1 ?? false
            },
            occurrence: { _ in nil })
    }

    /// The record an update started from: its new record with each changed field, last
    /// first, set back to its old value (removed where it was added, added back where it
    /// was removed). A member added back goes before the first member the fields name after
    /// it at that level (the fields name OLD's members in OLD's order), else last.
    static func reverted(_ change: Change, _ n: Int, in changeset: Changeset) throws(ListDiffError) -> Value {
        let op = change.operation.rawValue
        guard var value = try change.value() else { throw changeset.error(change: n, "the \(op) has no value") }
        let fields = change.fields
        func unfit(_ field: FieldChange) -> ListDiffError {
            changeset.error(change: n, "the field \(field.path) of the \(op) does not fit its record")
        }
        var steps: [[String]] = []
        steps.reserveCapacity(fields.count)
        for field in fields {
            guard field.added == nil, field.removed == nil, let path = try? FieldPath.pointerComponents(field.path) else {
                throw unfit(field)
            }
            steps.append(path)
        }
        // Each level's member names, in the order the fields first name them: needed only
        // when a member is added back.
        var named: [[String]: [String]] = [:]
        if fields.contains(where: { $0.old != nil && $0.new == nil }) {
            for path in steps {
                for depth in path.indices {
                    let parent = Array(path[..<depth])
                    if named[parent]?.last != path[depth] { named[parent, default: []].append(path[depth]) }
                }
            }
        }
        var seen: [[String]: Int] = [:]  // how far each level's names were met, going back
        for (field, path) in zip(fields, steps).reversed() {
            if let from = field.from {
                // An element of a keyed list that moved: taken from where it went, put back
                // where it was.
                guard let source = try? FieldPath.pointerComponents(from), let element = Self.value(at: path[...], in: value),
                    let taken = setting(value, path[...], to: nil, adding: false, before: []),
                    let restored = setting(taken, source[...], to: element, adding: true, before: [])
                else { throw unfit(field) }
                value = restored
                continue
            }
            var later: ArraySlice<String> = []
            if field.old != nil, field.new == nil, let name = path.last {
                let parent = Array(path.dropLast())
                let names = named[parent] ?? []
                let k = names[..<(seen[parent] ?? names.count)].lastIndex(of: name) ?? 0
                seen[parent] = k + 1
                later = names[(k + 1)...]
            }
            guard let restored = setting(value, path[...], to: field.old, adding: field.new == nil, before: later) else {
                throw unfit(field)
            }
            value = restored
        }
        return value
    }

    /// The value at `steps` inside `value`, nil when there is none.
    static func value(at steps: ArraySlice<String>, in value: Value) -> Value? {
        guard let step = steps.first else { return value }
        switch value {
        case .object(let object):
            guard let member = object.members.first(where: { $0.key.scalarEquals(step) }) else { return nil }
            return Self.value(at: steps.dropFirst(), in: member.value)
        case .array(let items):
            guard let i = Int(step), items.indices.contains(i) else { return nil }
            return Self.value(at: steps.dropFirst(), in: items[i])
        default:
            return nil
        }
    }

    /// `value` with the value at `steps` set to `new`, or removed when `new` is nil; an
    /// array's element is inserted there when `adding`, else replaced; an object's new
    /// member goes before the first of `before` it holds. Nil when the path does not lead
    /// into `value`.
    static func setting(_ value: Value, _ steps: ArraySlice<String>, to new: Value?, adding: Bool, before: ArraySlice<String>) -> Value? {
        guard let step = steps.first else { return new }
        let rest = steps.dropFirst()
        switch value {
        case .object(var object):
            let k = object.members.firstIndex { $0.key.scalarEquals(step) }
            if rest.isEmpty {
                switch (k, new) {
                case (let k?, let new?): object.members[k].value = new
                case (let k?, nil): object.members.remove(at: k)
                case (nil, let new?):
                    let next = before.lazy.compactMap { name in object.members.firstIndex { $0.key.scalarEquals(name) } }.first
                    object.members.insert(.init(key: step, value: new), at: next ?? object.members.count)
                case (nil, nil): return nil
                }
                return .object(object)
            }
            guard let k, let inner = setting(object.members[k].value, rest, to: new, adding: adding, before: before) else { return nil }
            object.members[k].value = inner
            return .object(object)
        case .array(var items):
            guard let i = Int(step), i >= 0, String(i) == step else { return nil }
            if rest.isEmpty {
                switch new {
                case let new? where adding && i <= items.count: items.insert(new, at: i)
                case let new? where i < items.count: items[i] = new
                case nil where i < items.count: items.remove(at: i)
                default: return nil
                }
                return .array(items)
            }
            guard i < items.count, let inner = setting(items[i], rest, to: new, adding: adding, before: before) else { return nil }
            items[i] = inner
            return .array(items)
        default:
            return nil
        }
    }
}
