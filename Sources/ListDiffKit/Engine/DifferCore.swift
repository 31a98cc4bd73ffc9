// Differ's settings and the matching the engine runs with them. The engine takes a Differ,
// so it is declared here, below the engine; its in-memory diff is in Differ.swift, at the top.

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
    /// When set (`--renames`), a deleted and an inserted record whose contents are alike are
    /// paired as one renamed record (`RenameRule`).
    public var renames: RenameRule?

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
        if memberOrder == .significant, comparison.hasRules {
            throw ListDiffError(.usage, "--member-order significant compares records exactly; it does not go with comparison rules")
        }
        try comparison.check(key: key)
    }

    /// `check(key:)`, and what renames refuse (`RenameRule.check`).
    package func check(key: IdentityKey, duplicates: DuplicatePolicy) throws(ListDiffError) {
        try check(key: key)
        if renames != nil { try RenameRule.check(key: key, duplicates: duplicates) }
    }

    /// The changes, given the pairing and the records that stay: deletes by old index, then
    /// inserts, moves and updates by new index. `same(i, j)` says whether old record i and
    /// new record j have the same content; `update(i, j)`, when given, may give the new
    /// record and its changed fields of an update known already (else they are found).
    package func changes(
        old: RecordSide, new: RecordSide, pairing: [Int?], stays: [Bool],
        same: (Int, Int) -> Bool,
        update: ((Int, Int) throws(ListDiffError) -> (after: Value, fields: [FieldChange])?)? = nil
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
            let same = same(i, j)
            if !same, let update, let known = try update(i, j) {
                try builder.matched(i, j, stays: stays[i], same: false, after: known.after, fields: known.fields)
            } else {
                try builder.matched(i, j, stays: stays[i], same: same)
            }
        }
        return builder.finish()
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
    ///
    /// Without `complete`, for a list diffed as a sequence (`--key .`): the algorithm's own
    /// pairs, checked but not completed, so that each algorithm gives its own result. Myers
    /// and LCS pair a common subsequence (no moves); Heckel pairs records unique on both
    /// sides wherever they went, and the pairs that cross the longest run in order are moves.
    @_spi(Benchmarks) public func matching(old: [Int], new: [Int], symbolCount: Int, complete: Bool = true) throws(ListDiffError) -> (
        pairs: [Int?], stays: [Bool]
    ) {
        let proposed = try algorithm.pairs(old: old, new: new, symbolCount: symbolCount)
        let pairing =
            complete
            ? completePairing(proposed, old: old, new: new, symbolCount: symbolCount)
            : Self.validPairs(proposed, old: old, new: new).pairing
        var stays = [Bool](repeating: false, count: old.count)
        visitLongestIncreasingSubsequence(count: old.count, value: { pairing[$0] ?? -1 }) { stays[$0] = true }
        return (pairing, stays)
    }

    /// An algorithm's pairs, less any that joins unequal symbols, is out of range or reuses
    /// an index of NEW (the contract tests hold the algorithms to none of these); and which
    /// indexes of NEW they use.
    static func validPairs(_ proposed: [Int?], old: [Int], new: [Int]) -> (pairing: [Int?], newUsed: [Bool]) {
        var pairing = [Int?](repeating: nil, count: old.count)
        var newUsed = [Bool](repeating: false, count: new.count)
        for (i, j) in proposed.enumerated() where i < old.count {
            if let j, j >= 0, j < new.count, !newUsed[j], old[i] == new[j] {
                pairing[i] = j
                newUsed[j] = true
            }
        }
        return (pairing, newUsed)
    }

    /// Checks an algorithm's pairing, dropping any pair that joins unequal symbols or
    /// reuses an index, then pairs the equal symbols left over, in order, so that a
    /// record present on both sides is always matched.
    func completePairing(_ proposed: [Int?], old: [Int], new: [Int], symbolCount: Int) -> [Int?] {
        var (pairing, newUsed) = Self.validPairs(proposed, old: old, new: new)
        let paired = newUsed.count { $0 }
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
