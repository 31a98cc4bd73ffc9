/// The changeset as an RFC 6902 JSON Patch: operations that, applied in order to the old
/// document, give the new one. Paths are RFC 6901 JSON Pointers.
///
/// The order: first the field-level `replace`/`add`/`remove` of updated records, at their old
/// positions; then `remove` of deleted records, from the last to the first; then, in order
/// of their new positions, `add` of inserted records and one `move` per moved record. A moved
/// record is never written as remove plus add.
///
/// - Complexity: O((n + k) log n) for n records and k changes.
public struct JSONPatchRenderer: ChangesetRenderer {
    /// A renderer of RFC 6902 JSON Patch operations (plain lists only).
    public init() {}

    /// One operation, as data (also what the renderer writes).
    package struct Operation: Sendable, Equatable {
        package var op: String
        package var path: String
        package var from: String?
        package var value: Value?
    }

    /// Writes the operations; throws when a change's record can no longer be read (its file changed
    /// during the diff).
    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        let ops = try Self.operations(changeset)
        if ops.isEmpty {
            out.write("[]\n")
            return
        }
        out.write("[\n")
        var line = ""
        for (n, op) in ops.enumerated() {
            line.removeAll(keepingCapacity: true)
            line += "  {\"op\": \"\(op.op)\""
            if let from = op.from {
                line += ", \"from\": "
                JSONWriter.writeString(from, to: &line)
            }
            line += ", \"path\": "
            JSONWriter.writeString(op.path, to: &line)
            if let value = op.value {
                line += ", \"value\": "
                JSONWriter.write(value, to: &line)
            }
            line += n + 1 < ops.count ? "},\n" : "}\n"
            out.write(line)
        }
        out.write("]\n")
    }

    package static func operations(_ changeset: Changeset) throws(ListDiffError) -> [Operation] {
        var ops: [Operation] = []
        // Under `--path`, the list sits inside the document.
        let prefix = changeset.layout.path.map { $0.components.map { "/" + FieldPath.escape($0) }.joined() } ?? ""
        // 1. Updates, in place: old positions are still valid.
        for change in changeset.changes where change.operation == .update {
            guard let i = change.old?.index else { continue }
            for field in change.fields {
                let path = prefix + "/\(i)" + field.path
                switch (field.old, field.new) {
                case (nil, let new?): ops.append(Operation(op: "add", path: path, value: new))
                case (_?, nil): ops.append(Operation(op: "remove", path: path))
                case (_, let new?): ops.append(Operation(op: "replace", path: path, value: new))
                case (nil, nil): break
                }
            }
        }
        // 2. Deletes, last first, so that each index is still the old one.
        let deletes = changeset.changes.filter { $0.operation == .delete }.compactMap { $0.old?.index }.sorted(by: >)
        for i in deletes { ops.append(Operation(op: "remove", path: prefix + "/\(i)")) }

        // 3. Inserts and moves, in order of their new positions.
        let oldCount = changeset.oldCount
        let newCount = changeset.newCount
        var movedTo: [Int: Int] = [:]  // new index -> old index
        var inserted: [Int: Value] = [:]
        var leaves = [Bool](repeating: false, count: oldCount)  // deleted or moved
        for change in changeset.changes {
            switch change.operation {
            case .move:
                if let i = change.old?.index, let j = change.new?.index {
                    movedTo[j] = i
                    leaves[i] = true
                }
            case .insert:
                if let j = change.new?.index { inserted[j] = try change.value() ?? .null }
            case .delete:
                if let i = change.old?.index { leaves[i] = true }
            case .update:
                break
            }
        }
        if movedTo.isEmpty && inserted.isEmpty { return ops }
        // Records that stay, in order; the others fall in the gaps between them.
        // Gap g holds what lies before the g-th staying record (gap `stays` is the tail).
        var gapOfOld = [Int](repeating: 0, count: oldCount)
        var gap = 0
        for i in 0..<oldCount {
            gapOfOld[i] = gap
            if !leaves[i] { gap += 1 }
        }
        // New positions: staying records fill the new positions not taken by moves and inserts.
        var gapOfNew = [Int](repeating: 0, count: newCount)
        gap = 0
        for j in 0..<newCount {
            gapOfNew[j] = gap
            if movedTo[j] == nil && inserted[j] == nil { gap += 1 }
        }
        // The slot order: per gap, final slots (by new index), then original slots of moved
        // records (by old index), then the staying record that closes the gap.
        let staying = gap  // every new position not moved or inserted holds a staying record
        let gaps = staying + 1
        var finals = [[Int]](repeating: [], count: gaps)
        var originals = [[Int]](repeating: [], count: gaps)
        for j in 0..<newCount where movedTo[j] != nil || inserted[j] != nil { finals[gapOfNew[j]].append(j) }
        for i in movedTo.values.sorted() { originals[gapOfOld[i]].append(i) }
        var finalSlot = [Int: Int]()
        var originalSlot = [Int: Int]()
        var slots = 0
        var occupied: [Int] = []  // initial occupancy per slot
        for g in 0..<gaps {
            for j in finals[g] { finalSlot[j] = slots; slots += 1; occupied.append(0) }
            for i in originals[g] { originalSlot[i] = slots; slots += 1; occupied.append(1) }
            if g < staying { slots += 1; occupied.append(1) }
        }
        var tree = FenwickTree(occupied)
        for j in (0..<newCount) where movedTo[j] != nil || inserted[j] != nil {
            let target = finalSlot[j]!
            if let i = movedTo[j] {
                let from = tree.prefixSum(originalSlot[i]!)
                tree.add(originalSlot[i]!, -1)
                let to = tree.prefixSum(target)
                tree.add(target, 1)
                // One move per moved record, even where it lands where it stood (a valid no-op).
                ops.append(Operation(op: "move", path: prefix + "/\(to)", from: prefix + "/\(from)"))
            } else {
                let to = tree.prefixSum(target)
                tree.add(target, 1)
                ops.append(Operation(op: "add", path: prefix + "/\(to)", value: inserted[j]))
            }
        }
        return ops
    }
}

/// Counts over slots with O(log n) updates and prefix sums.
struct FenwickTree {
    var tree: [Int]

    init(_ values: [Int]) {
        tree = [0] + values
        for i in 1..<max(tree.count, 1) {
            let parent = i + (i & -i)
            if parent < tree.count { tree[parent] += tree[i] }
        }
    }

    mutating func add(_ index: Int, _ delta: Int) {
        var i = index + 1
        while i < tree.count {
            tree[i] += delta
            i += i & -i
        }
    }

    /// The sum of the values before `index`.
    func prefixSum(_ index: Int) -> Int {
        var i = index
        var sum = 0
        while i > 0 {
            sum += tree[i]
            i -= i & -i
        }
        return sum
    }
}
