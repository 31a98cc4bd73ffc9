/// Comparing under the rules: the changed fields, which are the changeset's own type, so
/// this part of `Comparison` sits in the changeset's layer, above the rules themselves.
extension Comparison {
    /// Whether two versions of a record are the same under the rules (array keys name
    /// changes; they never make two records the same or different).
    package func same(_ a: Value, _ b: Value) -> Bool {
        if !comparesContent { return a == b }
        var rules = self
        rules.arrayKeys = []
        rules.automaticArrayKeys = false
        return (try? rules.changes(old: a, new: b))?.isEmpty ?? false
    }

    /// The fields that changed under the rules, as `FieldDiff` names them; an unordered
    /// array that changed is one change at its path, with the elements added and removed.
    /// Applied one after another to `old`, the changes give `new` (as the rules see it).
    ///
    /// - Throws: when an element of a keyed list has no usable key, or shares it with
    ///   another element of its list.
    package func changes(old: Value, new: Value) throws(NestedKeyProblem) -> [FieldChange] {
        guard comparesContent || !arrayKeysFree else { return FieldDiff.changes(old: old, new: new) }
        var walk = FieldWalk(rules: self)
        try walk.collect(old, new)
        return walk.out
    }
}

extension Value {
    /// Whether the value is `true` or `false`.
    fileprivate var isBoolean: Bool { if case .bool = self { return true } else { return false } }
}

/// A keyed list inside a record whose elements cannot be matched: an element without a
/// usable key, or two with the same one. `inOld` says which version of the record holds it,
/// and `path` the element at fault (the second of two with one key), in the steps of
/// `FieldChange.keyedPath`: an element of a keyed list above it is named by its key.
package struct NestedKeyProblem: Error, Equatable {
    package var inOld: Bool
    package var message: String
    package var path: [Value]

    package init(inOld: Bool, message: String, path: [Value]) {
        self.inOld = inOld
        self.message = message
        self.path = path
    }
}

/// `FieldDiff.collect` with the rules and the array keys at each step. It is kept apart
/// from that walk, which the plain diff runs on every update, so that the plain diff pays
/// nothing for the rules (path segments, rule checks).
private struct FieldWalk {
    let rules: Comparison
    var out: [FieldChange] = []
    /// The path's segments: member names, and indexes as the list stands when the change
    /// applies.
    var path: [String] = []
    /// The same path as `FieldChange.keyedPath` writes it, kept while array keys are set.
    var keyed: [Value] = []
    /// How many steps of `keyed` name an element by its key.
    var keyedSteps = 0

    /// Whether keyed paths are kept: some list may be keyed.
    let tracksKeys: Bool

    init(rules: Comparison) {
        self.rules = rules
        tracksKeys = !rules.arrayKeysFree
    }

    var pointer: String { path.map { "/" + FieldPath.escape($0) }.joined() }

    mutating func push(_ segment: String, _ step: Value) {
        path.append(segment)
        if tracksKeys { keyed.append(step) }
        if case .object = step { keyedSteps += 1 }
    }

    mutating func pop() {
        path.removeLast()
        if tracksKeys, case .object = keyed.removeLast() { keyedSteps -= 1 }
    }

    /// Runs `body` one step down the path (`segment`, named `step` in keyed paths), unless
    /// the rules leave that place out.
    mutating func visit(
        _ segment: String, _ step: Value, _ body: (inout FieldWalk) throws(NestedKeyProblem) -> Void
    ) throws(NestedKeyProblem) {
        push(segment, step)
        defer { pop() }
        if !rules.isLeftOut(path) { try body(&self) }
    }

    mutating func note(old: Value?, new: Value?, added: [Value]? = nil, removed: [Value]? = nil, from: String? = nil) {
        out.append(
            FieldChange(
                path: pointer, old: old, new: new, added: added, removed: removed, from: from,
                keyedPath: keyedSteps > 0 ? keyed : nil))
    }

    mutating func collect(_ a: Value, _ b: Value) throws(NestedKeyProblem) {
        switch (a, b) {
        case let (.object(x), .object(y)) where !x.hasDuplicateKeys && !y.hasDuplicateKeys:
            var newMembers: [ScalarKey: Value] = [:]
            for m in y.members { newMembers[ScalarKey(m.key)] = m.value }
            var oldKeys = Set<ScalarKey>()
            for m in x.members {
                let k = ScalarKey(m.key)
                oldKeys.insert(k)
                try visit(m.key, .string(m.key)) { walk throws(NestedKeyProblem) in
                    if let nv = newMembers[k] { try walk.collect(m.value, nv) } else { walk.note(old: m.value, new: nil) }
                }
            }
            for m in y.members where !oldKeys.contains(ScalarKey(m.key)) {
                try visit(m.key, .string(m.key)) { $0.note(old: nil, new: m.value) }
            }
        case let (.array(x), .array(y)) where rules.arrayKey(path) != nil:
            // Under `--unordered-arrays` too: matched by key, but no element moves.
            try keyedList(x, y, rules.arrayKey(path)!.key, moves: !rules.isUnorderedArray(path))
        case let (.array(x), .array(y)) where rules.isUnorderedArray(path):
            // A multiset: elements as the rules see them, counted.
            var counts: [Hash128: (count: Int, value: Value)] = [:]
            func element(_ index: Int, _ item: Value) -> Hash128? {
                path.append(String(index))
                defer { path.removeLast() }
                if rules.isLeftOut(path) { return nil }
                return CanonicalHash.of(rules.project(item, &path))
            }
            var removed: [Value] = [], added: [Value] = []
            for (index, item) in x.enumerated() {
                guard let h = element(index, item) else { continue }
                counts[h, default: (0, item)].count += 1
            }
            for (index, item) in y.enumerated() {
                guard let h = element(index, item) else { continue }
                if let entry = counts[h], entry.count > 0 { counts[h]!.count -= 1 } else { added.append(item) }
            }
            for (index, item) in x.enumerated() {
                guard let h = element(index, item), let entry = counts[h], entry.count > 0 else { continue }
                counts[h]!.count -= 1
                removed.append(item)
            }
            if !added.isEmpty || !removed.isEmpty { note(old: a, new: b, added: added, removed: removed) }
        case let (.array(x), .array(y)):
            if rules.automaticArrayKeys, let key = Comparison.automaticKey(x, y) {
                try keyedList(x, y, key, moves: true)
                return
            }
            for i in 0..<min(x.count, y.count) {
                try visit(String(i), .number(Number(exactly: i))) { walk throws(NestedKeyProblem) in try walk.collect(x[i], y[i]) }
            }
            if x.count > y.count {
                for i in (y.count..<x.count).reversed() {
                    try visit(String(i), .number(Number(exactly: i))) { $0.note(old: x[i], new: nil) }
                }
            } else if y.count > x.count {
                for i in x.count..<y.count {
                    try visit(String(i), .number(Number(exactly: i))) { $0.note(old: nil, new: y[i]) }
                }
            }
        case let (.string(s), .string(t)):
            if !rules.normalized(s, path).scalarEquals(rules.normalized(t, path)) { note(old: a, new: b) }
        case let (.number(m), .number(n)):
            let equal: Bool
            if let (absolute, relative) = rules.tolerance(path) {
                equal = DecimalTolerance.within(m, n, absolute: absolute, relative: relative)
            } else {
                equal = m == n
            }
            if !equal { note(old: a, new: b) }
        default:
            if a != b { note(old: a, new: b) }
        }
    }

    /// A list whose elements are matched by `key`: the changes inside each element that
    /// both versions hold (at its old index), then the elements removed, added and moved,
    /// as `ListEdits` orders them. Moves are the fewest that give the new order (the
    /// elements off a longest increasing run of new positions), as at the top level;
    /// without `moves` (an unordered list) none is noted.
    mutating func keyedList(_ x: [Value], _ y: [Value], _ key: IdentityKey, moves: Bool) throws(NestedKeyProblem) {
        func keys(_ items: [Value], inOld: Bool) throws(NestedKeyProblem) -> [(written: Value, id: RecordID)] {
            var seen: [RecordID: Int] = [:]
            var out: [(written: Value, id: RecordID)] = []
            out.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                switch key.identify(item) {
                case .success(let identity):
                    if let first = seen.updateValue(index, forKey: identity.id) {
                        throw NestedKeyProblem(
                            inOld: inOld,
                            message:
                                "the list at \(pointer) holds the key \(KeyFormatter(key).format(identity.written, selfKeyed: item.isScalar)) twice (elements \(first) and \(index))",
                            path: keyed + [.number(Number(exactly: index))])
                    }
                    out.append(identity)
                case .failure(let failure):
                    throw NestedKeyProblem(
                        inOld: inOld, message: failure.message(place: "element \(index) of the list at \(pointer)"),
                        path: keyed + [.number(Number(exactly: index))])
                }
            }
            return out
        }
        let oldKeys = try keys(x, inOld: true), newKeys = try keys(y, inOld: false)
        var newIndex: [RecordID: Int] = [:]
        for (j, k) in newKeys.enumerated() { newIndex[k.id] = j }
        var oldToNew = [Int?](repeating: nil, count: x.count)
        var matchedNew = [Bool](repeating: false, count: y.count)
        for (i, k) in oldKeys.enumerated() {
            if let j = newIndex[k.id] {
                oldToNew[i] = j
                matchedNew[j] = true
            }
        }
        // Inside the elements both hold, at their old indexes.
        for (i, j) in oldToNew.enumerated() {
            guard let j else { continue }
            try visit(String(i), key.step(oldKeys[i].written)) { walk throws(NestedKeyProblem) in try walk.collect(x[i], y[j]) }
        }
        // The fewest moves: matched elements off a longest increasing run of new positions.
        let matched = oldToNew.indices.filter { oldToNew[$0] != nil }
        var stays = [Bool](repeating: false, count: x.count)
        visitLongestIncreasingSubsequence(count: matched.count, value: { oldToNew[matched[$0]]! }) { stays[matched[$0]] = true }
        var movedTo: [Int: Int] = [:]
        for i in matched where !stays[i] { movedTo[oldToNew[i]!] = i }
        let deleted = oldToNew.indices.filter { oldToNew[$0] == nil }
        let inserted = Set(y.indices.filter { !matchedNew[$0] })
        for edit in ListEdits.steps(oldCount: x.count, newCount: y.count, deleted: deleted, movedTo: movedTo, inserted: inserted) {
            switch edit {
            case .remove(let i):
                try visit(String(i), key.step(oldKeys[i].written)) { $0.note(old: x[i], new: nil) }
            case .add(let at, let j):
                try visit(String(at), key.step(newKeys[j].written)) { $0.note(old: nil, new: y[j]) }
            case .move(let from, let to, let j):
                // Where it was: the list's pointer and the index it stood at.
                let source = pointer + "/\(from)"
                if moves { try visit(String(to), key.step(newKeys[j].written)) { $0.note(old: nil, new: nil, from: source) } }
            }
        }
    }
}

extension Comparison {
    /// For `automaticArrayKeys`: the conventional field that keys both versions of a list
    /// of objects, best first (`FieldPath.keyCandidates`): present, scalar and unique in
    /// each, with at least one key found in both. Nil when there is none.
    static func automaticKey(_ x: [Value], _ y: [Value]) -> IdentityKey? {
        func isObject(_ v: Value) -> Bool { if case .object = v { return true } else { return false } }
        guard let first = x.first, !y.isEmpty, x.allSatisfy(isObject), y.allSatisfy(isObject) else { return nil }
        candidates: for spelling in FieldPath.keyCandidates(of: first, conventionalOnly: true) {
            // Only the names key discovery prefers (`id`, `key`, `name`, ...), not any name
            // that ends like one (`valid`, `paid`).
            guard FieldPath.isKeyName(FieldPath.lastName(spelling)), let field = try? FieldPath(spelling) else { continue }
            let key = IdentityKey([field])
            var ids = Set<RecordID>()
            for item in x {
                // A boolean keys two elements at most: never a key.
                guard case .success(let identity) = key.identify(item), !identity.written.isBoolean,
                    ids.insert(identity.id).inserted
                else { continue candidates }
            }
            var seen = Set<RecordID>(), shared = false
            for item in y {
                guard case .success(let identity) = key.identify(item), seen.insert(identity.id).inserted else { continue candidates }
                shared = shared || ids.contains(identity.id)
            }
            if shared { return key }
        }
        return nil
    }
}
