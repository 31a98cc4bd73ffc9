/// The changeset as an RFC 6902 JSON Patch: operations that, applied in order to the old
/// document, give the new one. Paths are RFC 6901 JSON Pointers.
///
/// The order: first the field-level `replace`/`add`/`remove` of updated records, at their old
/// positions; then `remove` of deleted records, from the last to the first; then, in order
/// of their new positions, `add` of inserted records and one `move` per moved record. A moved
/// record is never written as remove plus add. In a map of records, each record is named
/// by its member name, and its operations are `remove`, `add` and the field operations.
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
        let prefix = changeset.layout.path?.pointer ?? ""
        // A record's place: its index, or in a map its member name.
        let map = changeset.layout.shape == .map
        func place(_ change: Changeset.Change, _ index: Int, old: Bool = false) -> String {
            guard map, case .string(let name) = old ? change.keyInOld : change.key else { return prefix + "/\(index)" }
            return prefix + "/" + FieldPath.escape(name)
        }
        // 1. Updates, in place: old positions are still valid.
        for change in changeset.changes where change.operation == .update {
            guard let i = change.old?.index else { continue }
            for field in change.fields {
                let path = place(change, i) + field.path
                if let from = field.from {
                    ops.append(Operation(op: "move", path: path, from: place(change, i) + from))
                    continue
                }
                switch (field.old, field.new) {
                case (nil, let new?): ops.append(Operation(op: "add", path: path, value: new))
                case (_?, nil): ops.append(Operation(op: "remove", path: path))
                case (_, let new?): ops.append(Operation(op: "replace", path: path, value: new))
                case (nil, nil): break
                }
            }
        }
        if map {
            // Members have no order: each deleted one goes, each inserted one comes.
            // (A renamed member goes under its old name and comes under its new one.)
            for change in changeset.changes where change.operation == .delete || change.operation == .rename {
                ops.append(Operation(op: "remove", path: place(change, 0, old: true)))
            }
            for change in changeset.changes where change.operation == .insert || change.operation == .rename {
                ops.append(Operation(op: "add", path: place(change, 0), value: try change.value() ?? .null))
            }
            return ops
        }
        // 2. Deletes, last first; 3. inserts and moves, in order of their new positions.
        var deleted: [Int] = []
        var movedTo: [Int: Int] = [:]  // new index -> old index
        var inserted: [Int: Value] = [:]
        for change in changeset.changes {
            switch change.operation {
            case .move:
                if let i = change.old?.index, let j = change.new?.index { movedTo[j] = i }
            case .insert:
                if let j = change.new?.index { inserted[j] = try change.value() ?? .null }
            case .delete:
                if let i = change.old?.index { deleted.append(i) }
            case .rename:
                // A record whose key changed: removed where it was, added where it goes.
                if let i = change.old?.index { deleted.append(i) }
                if let j = change.new?.index { inserted[j] = try change.value() ?? .null }
            case .update:
                break
            }
        }
        let steps = ListEdits.steps(
            oldCount: changeset.oldCount, newCount: changeset.newCount, deleted: deleted, movedTo: movedTo,
            inserted: Set(inserted.keys))
        for step in steps {
            switch step {
            case .remove(let i): ops.append(Operation(op: "remove", path: prefix + "/\(i)"))
            case .add(let at, let j): ops.append(Operation(op: "add", path: prefix + "/\(at)", value: inserted[j]))
            case .move(let from, let to, _): ops.append(Operation(op: "move", path: prefix + "/\(to)", from: prefix + "/\(from)"))
            }
        }
        return ops
    }
}
