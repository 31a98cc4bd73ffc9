/// Renamed keys (`--renames`): a deleted record and an inserted one whose contents are
/// alike are one record whose key changed.
///
/// Two records are alike when at least `threshold` percent of their leaf values are equal,
/// the key left out. A leaf is a scalar, an empty array or an empty object, with its path;
/// leaves are compared as the comparison rules see them (ignored fields left out, case and
/// white space folded where asked), but numbers exactly: a tolerance compares two values
/// of one record, not leaves of two records. The share is the equal leaves over the leaves
/// of the record that has more. A step into an array is not a member name: `/a/0` of
/// `{"a": ["x"]}` is not `/a/0` of `{"a": {"0": "x"}}`.
///
/// Pairing is near-linear. Records with the same leaves pair first, in order. Then each
/// inserted record's candidates come from its rarest leaves (a pair above the threshold
/// must share one of them), at most `candidateLimit` of them, and each candidate is
/// scored; the best `keptLimit` above the threshold are kept. The pairs are taken best first: the higher share, then the lower old position,
/// then the lower new position. A record is in one pair at most.
public struct RenameRule: Sendable, Equatable {
    /// The least share of equal leaves, in percent (1 to 100).
    public var threshold: Int
    /// How many deleted records one inserted record is scored against, at most.
    package static let candidateLimit = 64
    /// How many of those, the best, one inserted record keeps for the pairing.
    package static let keptLimit = 16
    /// The default `--rename-threshold`.
    public static let defaultThreshold = 80

    /// A rule with the least share of equal leaves, in percent; throws outside 1 to 100.
    public init(threshold: Int = RenameRule.defaultThreshold) throws(ListDiffError) {
        guard (1...100).contains(threshold) else {
            throw ListDiffError(.usage, "--rename-threshold must be a whole percentage from 1 to 100; \(threshold) is not")
        }
        self.threshold = threshold
    }

    /// Parses `--rename-threshold`: a whole percentage (`80` or `80%`), or a fraction with a
    /// decimal point that is a whole percentage (`0.8`, `1.0`).
    package init(parsing text: String) throws(ListDiffError) {
        let bad = ListDiffError(
            .usage,
            "--rename-threshold must be a whole percentage from 1 to 100 (80, 80% or 0.8); '\(SafeText.escape(text))' is not")
        var digits = Substring(text)
        if digits.hasSuffix("%") { digits = digits.dropLast() }
        if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let whole = Int(digits) {
            guard (1...100).contains(whole) else { throw bad }
            try self.init(threshold: whole)
            return
        }
        // A fraction: digits, one point, digits; no sign, no exponent, no percent sign.
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !text.hasSuffix("%"), parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            parts.allSatisfy({ $0.allSatisfy({ $0.isASCII && $0.isNumber }) }), let fraction = Double(text)
        else { throw bad }
        let percent = (fraction * 100).rounded()
        guard abs(fraction * 100 - percent) < 1e-9, (1...100).contains(percent) else { throw bad }
        try self.init(threshold: Int(percent))
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
    /// Whether the outputs count renames: the diff looked for them, or the changeset holds
    /// some. The JSON changeset is then version 4, and every summary has a `renamed` count.
    package var countsRenames: Bool { renames != nil || summary.renamed > 0 }

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
        // The deleted records' leaves on one core, the inserted ones' on the other.
        let all = changes
        @Sendable func leavesOf(_ indexes: [Int]) throws(ListDiffError) -> [[Hash128]] {
            var out: [[Hash128]] = []
            out.reserveCapacity(indexes.count)
            for k in indexes { out.append(leaves.of(try all[k].value())) }
            return out
        }
        let (oldLeaves, newLeaves) = Concurrently.both(
            { () throws(ListDiffError) in try leavesOf(deletes) }, { () throws(ListDiffError) in try leavesOf(inserts) })
        let old = try oldLeaves.get(), new = try newLeaves.get()
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
struct RenameLeaves: Sendable {
    /// Key fields' paths: their leaves are left out.
    let keyPaths: [[String]]
    let comparison: Comparison

    init(key: IdentityKey, comparison: Comparison) {
        keyPaths = key.fields.map(\.components)
        // Numbers compare exactly: under a tolerance every number would project to one
        // value, and all numbers would be equal leaves.
        var rules = comparison
        rules.tolerances = []
        self.comparison = rules
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
        func step(_ name: String, _ child: Value, index: Bool = false) {
            var hash = pathHash
            // (An index is marked, so that it is not the member name of the same digits.)
            if index { hash.add(CanonicalHash.of(.null)) }
            hash.add(CanonicalHash.string(name))
            path.append(name)
            walk(child, &path, hash, &out)
            path.removeLast()
        }
        switch value {
        case .object(let object) where !object.members.isEmpty:
            for member in object.members { step(member.key, member.value) }
        case .array(let items) where !items.isEmpty:
            for (index, item) in items.enumerated() { step(String(index), item, index: true) }
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

        // How many records hold each leaf: the rarest leaves find the candidates. Each
        // distinct leaf has a slot in one table; `frequency` and the postings are by slot.
        var total = 0
        for (d, leaves) in old.enumerated() where !oldTaken[d] { total += leaves.count }
        for (i, leaves) in new.enumerated() where !newTaken[i] { total += leaves.count }
        var table = LeafTable(capacity: total)
        var frequency: [Int32] = []
        // Each record's distinct leaves' slots, in the order of its sorted leaves.
        func count(_ leaves: [Hash128]) -> [Int32] {
            var slots: [Int32] = []
            slots.reserveCapacity(leaves.count)
            for (n, h) in leaves.enumerated() where n == 0 || leaves[n - 1] != h {
                let slot = table.slot(h)
                if slot == frequency.count { frequency.append(0) }
                frequency[slot] += 1
                slots.append(Int32(slot))
            }
            return slots
        }
        let oldSlots = old.indices.map { d in oldTaken[d] ? [] : count(old[d]) }
        let newSlots = new.indices.map { i in newTaken[i] ? [] : count(new[i]) }
        /// The slots of a record's rarest leaves: by how many records hold them, then by slot
        /// (the order leaves were first met, the same for every record).
        func prefix(_ leaves: [Hash128], _ slots: [Int32]) -> [Int32] {
            let ordered = slots.sorted { (frequency[Int($0)], $0) < (frequency[Int($1)], $1) }
            // A pair above the threshold shares at least `needed` leaves, so one of the first
            // `count - needed + 1` leaves of either record.
            let needed = (threshold * leaves.count + 99) / 100
            return Array(ordered.prefix(max(1, leaves.count - needed + 1)))
        }
        // The postings: for each slot, the deleted records whose prefix holds it, in order
        // (counted, then filled, in one array).
        var prefixes: [[Int32]] = Array(repeating: [], count: old.count)
        var start = [Int32](repeating: 0, count: frequency.count + 1)
        for (d, leaves) in old.enumerated() where !oldTaken[d] && !leaves.isEmpty {
            prefixes[d] = prefix(leaves, oldSlots[d])
            for slot in prefixes[d] { start[Int(slot) + 1] += 1 }
        }
        for s in 0..<frequency.count { start[s + 1] += start[s] }
        var filled = start
        var postings = [Int32](repeating: 0, count: Int(start[frequency.count]))
        for d in old.indices {
            for slot in prefixes[d] {
                postings[Int(filled[Int(slot)])] = Int32(d)
                filled[Int(slot)] += 1
            }
        }
        prefixes = []
        var candidates: [Candidate] = []
        var seen = Set<Int32>()
        var found: [Candidate] = []
        for (i, leaves) in new.enumerated() where !newTaken[i] && !leaves.isEmpty {
            seen.removeAll(keepingCapacity: true)
            found.removeAll(keepingCapacity: true)
            search: for slot in prefix(leaves, newSlots[i]) {
                for k in Int(start[Int(slot)])..<Int(start[Int(slot) + 1]) where seen.insert(postings[k]).inserted {
                    let d = postings[k]
                    let other = old[Int(d)]
                    let most = max(other.count, leaves.count)
                    // Too few leaves on one side to share enough: not scored.
                    if min(other.count, leaves.count) * 100 >= threshold * most {
                        let shared = Self.shared(other, leaves)
                        if shared * 100 >= threshold * most {
                            found.append(Candidate(shared: shared, most: most, old: Int(d), new: i))
                        }
                    }
                    if seen.count >= RenameRule.candidateLimit { break search }
                }
            }
            // The insert's best few are kept: enough for the best-first pass, and the memory
            // held stays a few candidates a record.
            if found.count > RenameRule.keptLimit {
                found.sort(by: Candidate.before)
                found.removeLast(found.count - RenameRule.keptLimit)
            }
            candidates.append(contentsOf: found)
        }
        candidates.sort(by: Candidate.before)
        for c in candidates where !oldTaken[c.old] && !newTaken[c.new] {
            oldTaken[c.old] = true
            newTaken[c.new] = true
            pairs.append((c.old, c.new))
        }
        return pairs
    }

    /// The distinct leaves met, each given a slot (0, 1, 2, … in the order first met): an
    /// open-addressing table over the leaves' hashes, which are uniform already. It keys by
    /// the hash's first 64 bits: two leaves that share them (rare) share a slot, which finds
    /// a candidate more, never one less, and every candidate is scored on the full hashes.
    struct LeafTable {
        /// Each entry: a leaf's hash and its slot plus one (0: empty), side by side, so that
        /// a probe reads one cache line. Read at random: in huge pages, where the system has
        /// them.
        private let entries: PageBuffer<(UInt64, UInt32)>
        private let size: Int
        private var used: UInt32 = 0

        init(capacity: Int) {
            size = capacity + capacity / 2 + 16
            entries = PageBuffer(zeroed: size, huge: true)
        }

        /// The leaf's slot, given a new one the first time it is met.
        mutating func slot(_ h: Hash128) -> Int {
            let table = entries.buffer
            var i = Int(h.a.multipliedFullWidth(by: UInt64(size)).high)
            while table[i].1 != 0 {
                if table[i].0 == h.a { return Int(table[i].1) - 1 }
                i += 1
                if i == size { i = 0 }
            }
            used += 1
            table[i] = (h.a, used)
            return Int(used) - 1
        }
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
