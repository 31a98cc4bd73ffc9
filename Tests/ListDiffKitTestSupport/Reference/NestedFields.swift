import ListDiffKit

/// The changed fields of two versions of a record whose inner lists are matched by key
/// (`--array-key`), worked out plainly: elements found by a linear search, the list rebuilt
/// one step at a time in a plain array. The engine's field walk is checked against it.
///
/// It shares with the library only the longest increasing run (as the rest of the
/// reference does), the key's formatting in messages, and RFC 6901 escaping.
package enum NestedFields {
    /// A keyed list: its pointer's steps (`*` for any) and its key's field paths.
    package struct ListKey {
        package var steps: [String]
        package var fields: [[String]]

        package init(steps: [String], fields: [[String]]) {
            self.steps = steps
            self.fields = fields
        }
    }

    /// The fields, in the order they apply; an error names the version (old or new) whose
    /// list cannot be matched.
    package static func changes(old: Value, new: Value, keys: [ListKey]) -> Result<[Changeset.FieldChange], Failure> {
        var walk = Walk(keys: keys)
        walk.compare(old, new)
        if let failure = walk.failure { return .failure(failure) }
        return .success(walk.out)
    }

    package struct Failure: Error, Equatable {
        package var inOld: Bool
        package var message: String
        /// The element at fault (the second of two with one key), as keyed paths name it.
        package var path: [Value]
    }

    struct Walk {
        let keys: [ListKey]
        var out: [Changeset.FieldChange] = []
        var path: [String] = []
        var named: [Value] = []
        var failure: Failure?

        init(keys: [ListKey]) { self.keys = keys }

        var pointer: String { path.map { "/" + FieldPath.escape($0) }.joined() }

        mutating func note(old: Value?, new: Value?, from: String? = nil) {
            let keyed = named.contains { if case .object = $0 { return true } else { return false } }
            out.append(Changeset.FieldChange(path: pointer, old: old, new: new, from: from, keyedPath: keyed ? named : nil))
        }

        func hasTwins(_ members: [Value.Object.Member]) -> Bool {
            var seen = Set<[Unicode.Scalar]>()
            return members.contains { !seen.insert(Array($0.key.unicodeScalars)).inserted }
        }

        mutating func compare(_ a: Value, _ b: Value) {
            guard failure == nil else { return }
            switch (a, b) {
            case (.object(let x), .object(let y)) where !hasTwins(x.members) && !hasTwins(y.members):
                func same(_ p: String, _ q: String) -> Bool { Array(p.unicodeScalars) == Array(q.unicodeScalars) }
                for m in x.members {
                    path.append(m.key)
                    named.append(.string(m.key))
                    if let n = y.members.first(where: { same($0.key, m.key) }) {
                        compare(m.value, n.value)
                    } else {
                        note(old: m.value, new: nil)
                    }
                    path.removeLast()
                    named.removeLast()
                }
                for n in y.members where !x.members.contains(where: { same($0.key, n.key) }) {
                    path.append(n.key)
                    named.append(.string(n.key))
                    note(old: nil, new: n.value)
                    path.removeLast()
                    named.removeLast()
                }
            case (.array(let x), .array(let y)):
                if let key = keys.last(where: { $0.steps.count == path.count && zip($0.steps, path).allSatisfy { $0 == "*" || $0 == $1 } })
                {
                    keyed(x, y, key)
                    return
                }
                for i in 0..<min(x.count, y.count) {
                    path.append(String(i))
                    named.append(.number(Value.Number(exactly: i)))
                    compare(x[i], y[i])
                    path.removeLast()
                    named.removeLast()
                }
                // Extra elements at the end: removed last first, or added in order.
                for i in (y.count..<max(x.count, y.count)).reversed() {
                    path.append(String(i))
                    named.append(.number(Value.Number(exactly: i)))
                    note(old: x[i], new: nil)
                    path.removeLast()
                    named.removeLast()
                }
                for i in x.count..<max(x.count, y.count) {
                    path.append(String(i))
                    named.append(.number(Value.Number(exactly: i)))
                    note(old: nil, new: y[i])
                    path.removeLast()
                    named.removeLast()
                }
            default:
                if a != b { note(old: a, new: b) }
            }
        }

        /// An element's key: its fields' values (absent ones null in a composite key), or the
        /// element itself when it is a scalar; nil when it has none to use.
        func key(of item: Value, _ key: ListKey) -> Value? {
            switch item {
            case .string, .number, .bool: return item
            case .object:
                func at(_ steps: [String]) -> Value? {
                    var here = item
                    for step in steps {
                        guard case .object(let o) = here, let next = o.members.first(where: { $0.key == step })?.value else { return nil }
                        here = next
                    }
                    return here
                }
                let parts = key.fields.map { at($0) }
                if key.fields.count == 1 {
                    guard let part = parts[0], part.isScalar else { return nil }
                    return part
                }
                guard parts.allSatisfy({ $0 == nil || $0!.isScalar || $0! == .null }), parts.contains(where: { $0?.isScalar == true })
                else { return nil }
                return .array(parts.map { $0 ?? .null })
            default: return nil
            }
        }

        mutating func keyed(_ x: [Value], _ y: [Value], _ listKey: ListKey) {
            // The key's fields as written in a dotted spec (`metadata.name`).
            let identity = IdentityKey(listKey.fields.map { try! FieldPath($0.joined(separator: ".")) })
            func keys(_ items: [Value], inOld: Bool) -> [Value]? {
                var out: [Value] = []
                for (index, item) in items.enumerated() {
                    let element = named + [.number(Value.Number(exactly: index))]
                    guard let k = key(of: item, listKey) else {
                        failure = Failure(inOld: inOld, message: "element \(index) of the list at \(pointer)", path: element)
                        return nil
                    }
                    if let first = out.firstIndex(of: k) {
                        failure = Failure(
                            inOld: inOld,
                            message:
                                "the list at \(pointer) holds the key \(KeyFormatter(identity).format(k, selfKeyed: item.isScalar)) twice (elements \(first) and \(index))",
                            path: element)
                        return nil
                    }
                    out.append(k)
                }
                return out
            }
            guard let oldKeys = keys(x, inOld: true), let newKeys = keys(y, inOld: false) else { return }
            func step(_ k: Value) -> Value {
                let parts: [Value]
                if case .array(let p) = k, listKey.fields.count > 1 { parts = p } else { parts = [k] }
                return .object(Value.Object(zip(identity.fields, parts).map { .init(key: $0.spelling, value: $1) }))
            }
            let target = oldKeys.map { k in newKeys.firstIndex(of: k) }
            for (i, j) in target.enumerated() {
                guard let j else { continue }
                path.append(String(i))
                named.append(step(oldKeys[i]))
                compare(x[i], y[j])
                path.removeLast()
                named.removeLast()
            }
            // The elements that stay: a longest run of matched elements whose new order is their old.
            let matched = target.indices.filter { target[$0] != nil }
            let run = Set(longestIncreasingSubsequence(matched.map { target[$0]! }).map { matched[$0] })
            // The list as it stands, each element by its new index (-1: to be removed).
            var current = target.map { $0 ?? -1 }
            var settled = target.indices.map { run.contains($0) }
            for i in target.indices.reversed() where target[i] == nil {
                path.append(String(i))
                named.append(step(oldKeys[i]))
                note(old: x[i], new: nil)
                path.removeLast()
                named.removeLast()
                current.remove(at: i)
                settled.remove(at: i)
            }
            for j in y.indices {
                let wasMatched = oldKeys.contains(newKeys[j])
                if wasMatched, let i = target.firstIndex(of: j), run.contains(i) { continue }
                var from: String? = nil
                if wasMatched {
                    let at = current.firstIndex(of: j)!
                    path.append(String(at))
                    from = pointer
                    path.removeLast()
                    current.remove(at: at)
                    settled.remove(at: at)
                }
                // Right after the last element already in its place that comes before it in NEW.
                let to = (current.indices.last { settled[$0] && current[$0] < j } ?? -1) + 1
                current.insert(j, at: to)
                settled.insert(true, at: to)
                path.append(String(to))
                named.append(step(newKeys[j]))
                if let from { note(old: nil, new: nil, from: from) } else { note(old: nil, new: y[j]) }
                path.removeLast()
                named.removeLast()
            }
        }
    }
}
