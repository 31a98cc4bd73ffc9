import ListDiffKit

// The reference under the names the tests used when it lived in the library.

extension Differ {
    /// The reference diff of two documents read in full (`ReferenceDiffer`), keyed by `key`.
    package func diff(old: Document, new: Document, key: IdentityKey) throws(ListDiffError) -> Changeset {
        try ReferenceDiffer(reader: DocumentReader(key: key), differ: self).diff(old: old, new: new)
    }
}

extension Fingerprint {
    /// The new fingerprint of a changeset made under comparison rules, on the reference.
    package static func ofResult(_ changeset: Changeset, old: Document) throws(ListDiffError) -> String {
        try ReferenceDiffer.fingerprint(of: changeset, appliedTo: old)
    }
}

extension Replay {
    /// The replay of a changeset of two documents read in full.
    package init(old: Document, new: Document, changeset: Changeset, limit: Int = 300) throws(ListDiffError) {
        let records = old.records
        try self.init(
            changeset: changeset, oldName: old.source.name, newName: new.source.name, limit: limit,
            old: Records { r in r < records.count ? (records[r].value, records[r].occurrence) : nil })
    }
}

extension SourceText {
    /// Values built in memory: no text, so errors name no line and column.
    package convenience init(inMemory name: String) {
        self.init(name: name, bytes: [], valueOffsets: [])
    }

    /// The line and column of `offset`, when there is one and a text to find it in.
    package func place(_ offset: Int?) -> SourceLocation? {
        guard let offset, !valueOffsets.isEmpty else { return nil }
        return location(ofOffset: offset)
    }
}

extension Layout {
    /// The part of a document that is diffed: the value at the path, or the whole.
    package func diffed(in root: Value) -> Value {
        guard case .pattern = shape, let path else { return self.path.flatMap { $0.value(in: root) } ?? root }
        // The lists a pattern names, as an object of lists named by their paths.
        var found: [Object.Member] = []
        func walk(_ value: Value, _ steps: ArraySlice<String>, _ pointer: String) {
            guard let step = steps.first else { return found.append(.init(key: pointer, value: value)) }
            if case .object(let object) = value {
                for member in object.members where step == "*" || member.key.scalarEquals(step) {
                    walk(member.value, steps.dropFirst(), pointer + "/" + FieldPath.escape(member.key))
                }
            } else if case .array(let items) = value {
                for (k, item) in items.enumerated() where step == "*" || "\(k)" == step { walk(item, steps.dropFirst(), pointer + "/\(k)") }
            }
        }
        walk(root, path.components[...], "")
        return .object(Object(found))
    }
}

/// The longest strictly increasing subsequence, the plain way: for each value, the longest
/// run that ends on it, found by a binary search over the smallest tail of each length.
/// The reference's own, so that it decides the fewest moves apart from the engine.
///
/// - Returns: the positions in `values` of one longest strictly increasing subsequence, ascending.
package func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
    // tails[k]: the position of the smallest last value of a run of length k + 1.
    var tails: [Int] = []
    var previous = [Int?](repeating: nil, count: values.count)
    for (position, value) in values.enumerated() {
        var low = 0, high = tails.count
        while low < high {
            let mid = (low + high) / 2
            if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
        }
        if low > 0 { previous[position] = tails[low - 1] }
        if low == tails.count { tails.append(position) } else { tails[low] = position }
    }
    var run: [Int] = []
    var position = tails.last
    while let p = position {
        run.append(p)
        position = previous[p]
    }
    return run.reversed()
}
