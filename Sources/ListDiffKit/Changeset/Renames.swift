/// Renamed keys (`--renames`): a deleted record and an inserted one whose contents are
/// alike are one record whose key changed.
///
/// Two records are alike when at least `threshold` percent of their leaf values are equal,
/// the key left out. A leaf is a scalar, an empty array or an empty object, with its path;
/// leaves are compared as the comparison rules see them (ignored fields left out, case and
/// white space folded where asked). The share is the equal leaves over the leaves of the
/// record that has more.
///
/// Pairing is near-linear. Records with the same leaves pair first, in order. Then each
/// inserted record's candidates come from its rarest leaves (a pair above the threshold
/// must share one of them), at most `candidateLimit` of them, and each candidate is
/// scored. The pairs are taken best first: the higher share, then the lower old position,
/// then the lower new position. A record is in one pair at most.
public struct RenameRule: Sendable, Equatable {
    /// The least share of equal leaves, in percent (1 to 100).
    public var threshold: Int
    /// How many deleted records one inserted record is scored against, at most.
    package static let candidateLimit = 64
    /// The default `--rename-threshold`.
    public static let defaultThreshold = 80

    /// A rule with the least share of equal leaves, in percent; throws outside 1 to 100.
    public init(threshold: Int = RenameRule.defaultThreshold) throws(ListDiffError) {
        guard (1...100).contains(threshold) else {
            throw ListDiffError(.usage, "--rename-threshold must be a percentage from 1 to 100; \(threshold) is not")
        }
        self.threshold = threshold
    }

    /// Parses `--rename-threshold`: `80`, `80%` or `0.8`.
    package init(parsing text: String) throws(ListDiffError) {
        let bad = ListDiffError(
            .usage, "--rename-threshold must be a percentage from 1 to 100 (80, 80% or 0.8); '\(SafeText.escape(text))' is not")
        var digits = Substring(text)
        if digits.hasSuffix("%") { digits = digits.dropLast() }
        if let whole = Int(digits) {
            guard (1...100).contains(whole) else { throw bad }
            try self.init(threshold: whole)
        } else if !text.hasSuffix("%"), let fraction = Double(text), fraction > 0, fraction <= 1 {
            try self.init(threshold: max(1, Int((fraction * 100).rounded())))
        } else {
            throw bad
        }
    }

    /// Refuses keys that renames cannot work with: the whole record as its key (the key is
    /// the content, so no record is ever renamed) and repeated keys matched by occurrence.
    package static func check(key: IdentityKey, duplicates: DuplicatePolicy) throws(ListDiffError) {
        if key.isWholeRecord {
            throw ListDiffError(.usage, "--renames pairs records whose key changed; with --key . the key is the whole record")
        }
        if duplicates == .match {
            throw ListDiffError(.usage, "--renames does not go with --duplicates match: a repeated key names no one record to rename")
        }
    }
}

extension Changeset {
    /// The changeset with each delete and insert that `rule` pairs made one `rename`: at
    /// the insert's place in the changes, from the delete's old position to the insert's
    /// new one, with the record's changed fields and the new record. Applying it gives
    /// what applying the delete and the insert gave.
    package func pairingRenames(_ rule: RenameRule) throws(ListDiffError) -> Changeset {
        var result = self
        result.renames = rule
        let deletes = changes.indices.filter { changes[$0].operation == .delete }
        let inserts = changes.indices.filter { changes[$0].operation == .insert }
        guard !deletes.isEmpty, !inserts.isEmpty else { return result }
        let leaves = RenameLeaves(key: layout.shape == .map ? IdentityKey([]) : key, comparison: comparison)
        var old: [[Hash128]] = [], new: [[Hash128]] = []
        old.reserveCapacity(deletes.count)
        new.reserveCapacity(inserts.count)
        for k in deletes { old.append(leaves.of(try changes[k].value())) }
        for k in inserts { new.append(leaves.of(try changes[k].value())) }
        let pairs = RenamePairing(old: old, new: new, threshold: rule.threshold).pairs()
        try result.join(pairs.map { (deletes[$0.0], inserts[$0.1]) })
        return result
    }

    /// Makes each pair of changes (a delete's index, an insert's index) one rename, at the
    /// insert's place, with the fields that changed between the two records.
    package mutating func join(_ pairs: [(delete: Int, insert: Int)]) throws(ListDiffError) {
        guard !pairs.isEmpty else { return }
        var renameOf = [Int: Int]()  // insert's change index -> delete's change index
        var gone = Set<Int>()
        for (d, i) in pairs {
            renameOf[i] = d
            gone.insert(d)
        }
        var out: [Change] = []
        out.reserveCapacity(changes.count - pairs.count)
        for k in changes.indices where !gone.contains(k) {
            guard let d = renameOf[k] else {
                out.append(changes[k])
                continue
            }
            let before = changes[d], after = changes[k]
            var fields: [FieldChange] = []
            if let a = try before.value(), let b = try after.value() {
                do throws(NestedKeyProblem) {
                    fields = try comparison.changes(old: a, new: b)
                } catch {
                    // A keyed list that cannot be matched: the fields as plain paths.
                    fields = FieldDiff.changes(old: a, new: b)
                }
            }
            var rename = after
            rename.operation = .rename
            rename.oldKey = before.key
            rename.old = before.old
            rename.fields = fields
            out.append(rename)
        }
        changes = out
        summary.deleted -= pairs.count
        summary.inserted -= pairs.count
        summary.renamed += pairs.count
    }
}

extension Changeset.Change {
    /// A rename's changed fields but those of the key, which its old and new key say.
    package func fieldsBesideKey(_ key: IdentityKey) -> [FieldChange] {
        let pointers = Set(key.fields.map(\.pointer))
        return fields.filter { !pointers.contains($0.path) }
    }
}

/// A record's leaves, hashed with their paths, sorted by hash: a multiset that two records
/// share a part of.
struct RenameLeaves {
    /// Key fields' paths: their leaves are left out.
    let keyPaths: [[String]]
    let comparison: Comparison

    init(key: IdentityKey, comparison: Comparison) {
        keyPaths = key.fields.map(\.components)
        self.comparison = comparison
    }

    func of(_ value: Value?) -> [Hash128] {
        guard let value else { return [] }
        var path: [String] = []
        let seen = comparison.isEmpty ? value : comparison.project(value, &path)
        var out: [Hash128] = []
        walk(seen, &path, CanonicalHash.ArrayHasher(), &out)
        out.sort { ($0.a, $0.b) < ($1.a, $1.b) }
        return out
    }

    /// Adds the leaves under `value`, each hashed with the path to it (`pathHash`: the
    /// path's steps so far).
    private func walk(_ value: Value, _ path: inout [String], _ pathHash: CanonicalHash.ArrayHasher, _ out: inout [Hash128]) {
        if !keyPaths.isEmpty, keyPaths.contains(path) { return }
        func step(_ name: String, _ child: Value) {
            var hash = pathHash
            hash.add(CanonicalHash.string(name))
            path.append(name)
            walk(child, &path, hash, &out)
            path.removeLast()
        }
        switch value {
        case .object(let object) where !object.members.isEmpty:
            for member in object.members { step(member.key, member.value) }
        case .array(let items) where !items.isEmpty:
            for (index, item) in items.enumerated() { step(String(index), item) }
        default:
            var leaf = CanonicalHash.ArrayHasher()
            leaf.add(pathHash.finish())
            leaf.add(CanonicalHash.of(value))
            out.append(leaf.finish())
        }
    }
}

/// Pairs deleted and inserted records (each a sorted multiset of leaf hashes) whose share of
/// equal leaves reaches the threshold, best first (see `RenameRule`).
struct RenamePairing {
    let old: [[Hash128]]
    let new: [[Hash128]]
    let threshold: Int

    /// A scored candidate: `shared` equal leaves of `most` (the larger record's count).
    struct Candidate {
        var shared: Int
        var most: Int
        var old: Int
        var new: Int

        /// Best first: the higher share, then the lower old, then the lower new record.
        static func before(_ x: Candidate, _ y: Candidate) -> Bool {
            let a = x.shared * y.most, b = y.shared * x.most
            if a != b { return a > b }
            return (x.old, x.new) < (y.old, y.new)
        }
    }

    /// The pairs (old record, new record), in the order they were taken.
    func pairs() -> [(Int, Int)] {
        var oldTaken = [Bool](repeating: false, count: old.count)
        var newTaken = [Bool](repeating: false, count: new.count)
        var pairs: [(Int, Int)] = []

        // Records with the same leaves: the k-th old with the k-th new, as the best-first
        // order takes them (all share 100%, so by old, then new position).
        var sameOld: [Hash128: [Int]] = [:]
        for (d, leaves) in old.enumerated() where !leaves.isEmpty { sameOld[Self.whole(leaves), default: []].append(d) }
        var nextOfGroup: [Hash128: Int] = [:]
        for (i, leaves) in new.enumerated() where !leaves.isEmpty {
            let h = Self.whole(leaves)
            guard let group = sameOld[h] else { continue }
            let n = nextOfGroup[h, default: 0]
            guard n < group.count else { continue }
            nextOfGroup[h] = n + 1
            pairs.append((group[n], i))
            oldTaken[group[n]] = true
            newTaken[i] = true
        }
        if threshold == 100 { return pairs.sorted { $0.0 < $1.0 } }

        // How many records hold each leaf: the rarest leaves find the candidates.
        var frequency: [Hash128: Int32] = [:]
        func count(_ leaves: [Hash128]) {
            for (n, h) in leaves.enumerated() where n == 0 || leaves[n - 1] != h { frequency[h, default: 0] += 1 }
        }
        for (d, leaves) in old.enumerated() where !oldTaken[d] { count(leaves) }
        for (i, leaves) in new.enumerated() where !newTaken[i] { count(leaves) }
        func prefix(_ leaves: [Hash128]) -> ArraySlice<Hash128> {
            var distinct: [(count: Int32, hash: Hash128)] = []
            for (n, h) in leaves.enumerated() where n == 0 || leaves[n - 1] != h { distinct.append((frequency[h] ?? 0, h)) }
            distinct.sort { ($0.count, $0.hash.a, $0.hash.b) < ($1.count, $1.hash.a, $1.hash.b) }
            // A pair above the threshold shares at least `needed` leaves, so one of the first
            // `count - needed + 1` leaves of either record.
            let needed = (threshold * leaves.count + 99) / 100
            return distinct.prefix(max(1, leaves.count - needed + 1)).map(\.hash)[...]
        }
        var postings: [Hash128: [Int32]] = [:]
        for (d, leaves) in old.enumerated() where !oldTaken[d] && !leaves.isEmpty {
            for h in prefix(leaves) { postings[h, default: []].append(Int32(d)) }
        }
        var candidates: [Candidate] = []
        var seen = Set<Int32>()
        for (i, leaves) in new.enumerated() where !newTaken[i] && !leaves.isEmpty {
            seen.removeAll(keepingCapacity: true)
            search: for h in prefix(leaves) {
                for d in postings[h] ?? [] where seen.insert(d).inserted {
                    let other = old[Int(d)]
                    let most = max(other.count, leaves.count)
                    // Too few leaves on one side to share enough: not scored.
                    if min(other.count, leaves.count) * 100 >= threshold * most {
                        let shared = Self.shared(other, leaves)
                        if shared * 100 >= threshold * most {
                            candidates.append(Candidate(shared: shared, most: most, old: Int(d), new: i))
                        }
                    }
                    if seen.count >= RenameRule.candidateLimit { break search }
                }
            }
        }
        candidates.sort(by: Candidate.before)
        for c in candidates where !oldTaken[c.old] && !newTaken[c.new] {
            oldTaken[c.old] = true
            newTaken[c.new] = true
            pairs.append((c.old, c.new))
        }
        return pairs
    }

    /// The hash of a whole multiset of leaves.
    static func whole(_ leaves: [Hash128]) -> Hash128 {
        var h = CanonicalHash.ArrayHasher()
        for leaf in leaves { h.add(leaf) }
        return h.finish()
    }

    /// How many leaves two sorted multisets share.
    static func shared(_ x: [Hash128], _ y: [Hash128]) -> Int {
        var i = 0, j = 0, n = 0
        while i < x.count, j < y.count {
            if x[i] == y[j] {
                n += 1
                i += 1
                j += 1
            } else if (x[i].a, x[i].b) < (y[j].a, y[j].b) {
                i += 1
            } else {
                j += 1
            }
        }
        return n
    }
}
