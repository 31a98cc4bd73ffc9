/// Comparing under the rules: the changed fields, which are the changeset's own type, so
/// this part of `Comparison` sits in the changeset's layer, above the rules themselves.
extension Comparison {
    /// Whether two versions of a record are the same under the rules.
    package func same(_ a: Value, _ b: Value) -> Bool {
        if !comparesContent { return a == b }
        return changes(old: a, new: b).isEmpty
    }

    /// The fields that changed under the rules, as `FieldDiff` names them; an unordered
    /// array that changed is one change at its path, with the elements added and removed.
    package func changes(old: Value, new: Value) -> [FieldChange] {
        guard comparesContent else { return FieldDiff.changes(old: old, new: new) }
        var out: [FieldChange] = []
        var path: [String] = []
        collect(old, new, &path, into: &out)
        return out
    }

    private func pointer(_ path: [String]) -> String {
        path.map { "/" + FieldPath.escape($0) }.joined()
    }

    /// `FieldDiff.collect` with the rules at each step. It is kept apart from that walk,
    /// which the plain diff runs on every update, so that the plain diff pays nothing for
    /// the rules (path segments, rule checks).
    private func collect(_ a: Value, _ b: Value, _ path: inout [String], into out: inout [FieldChange]) {
        switch (a, b) {
        case let (.object(x), .object(y)) where !x.hasDuplicateKeys && !y.hasDuplicateKeys:
            var newMembers: [ScalarKey: Value] = [:]
            for m in y.members { newMembers[ScalarKey(m.key)] = m.value }
            var oldKeys = Set<ScalarKey>()
            for m in x.members {
                let k = ScalarKey(m.key)
                oldKeys.insert(k)
                path.append(m.key)
                defer { path.removeLast() }
                if isLeftOut(path) { continue }
                if let nv = newMembers[k] {
                    collect(m.value, nv, &path, into: &out)
                } else {
                    out.append(FieldChange(path: pointer(path), old: m.value, new: nil))
                }
            }
            for m in y.members where !oldKeys.contains(ScalarKey(m.key)) {
                path.append(m.key)
                if !isLeftOut(path) { out.append(FieldChange(path: pointer(path), old: nil, new: m.value)) }
                path.removeLast()
            }
        case let (.array(x), .array(y)) where isUnorderedArray(path):
            // A multiset: elements as the rules see them, counted.
            var counts: [Hash128: (count: Int, value: Value)] = [:]
            func element(_ index: Int, _ item: Value) -> Hash128? {
                path.append(String(index))
                defer { path.removeLast() }
                if isLeftOut(path) { return nil }
                return CanonicalHash.of(project(item, &path))
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
            if !added.isEmpty || !removed.isEmpty {
                out.append(FieldChange(path: pointer(path), old: a, new: b, added: added, removed: removed))
            }
        case let (.array(x), .array(y)):
            for i in 0..<min(x.count, y.count) {
                path.append(String(i))
                if !isLeftOut(path) { collect(x[i], y[i], &path, into: &out) }
                path.removeLast()
            }
            if x.count > y.count {
                for i in (y.count..<x.count).reversed() {
                    path.append(String(i))
                    if !isLeftOut(path) { out.append(FieldChange(path: pointer(path), old: x[i], new: nil)) }
                    path.removeLast()
                }
            } else if y.count > x.count {
                for i in x.count..<y.count {
                    path.append(String(i))
                    if !isLeftOut(path) { out.append(FieldChange(path: pointer(path), old: nil, new: y[i])) }
                    path.removeLast()
                }
            }
        case let (.string(s), .string(t)):
            if !normalized(s, path).scalarEquals(normalized(t, path)) { out.append(FieldChange(path: pointer(path), old: a, new: b)) }
        case let (.number(m), .number(n)):
            let equal: Bool
            if let (absolute, relative) = tolerance(path) {
                equal = DecimalTolerance.within(m, n, absolute: absolute, relative: relative)
            } else {
                equal = m == n
            }
            if !equal { out.append(FieldChange(path: pointer(path), old: a, new: b)) }
        default:
            if a != b { out.append(FieldChange(path: pointer(path), old: a, new: b)) }
        }
    }
}
