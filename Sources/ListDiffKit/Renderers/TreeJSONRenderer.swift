/// The diff of two folders as one JSON document (`-f json` over folders), tree schema
/// version 1, documented in README.md ("The JSON tree changeset"):
///
///     {"version": 1, "generator": …, "old": …, "new": …, "type": "listdiff-tree",
///      "summary": {…}, "records": {…}, "files": [{"path": …, "status": …, …}, …]}
///
/// Each pair of record files carries its changeset, the one a diff of that pair writes. A
/// file added, or compared as bytes and changed, carries NEW's content (`text`, or `base64`
/// when it is not UTF-8), so that `listdiff apply` can write NEW's folder from OLD's.
package struct TreeJSONRenderer {
    /// The version of the tree document; a reader refuses one it does not know.
    package static let version = 1

    /// Counts only (`--stat`): each changeset without its changes, and no content.
    package var statOnly = false

    package init(statOnly: Bool = false) {
        self.statOnly = statOnly
    }

    /// Writes the document, in blocks, to `out`. Throws when a changed record, or an added
    /// file's content, can no longer be read.
    package func render(_ tree: TreeChangeset, bytes out: (UnsafeRawBufferPointer) -> Void) throws(ListDiffError) {
        var buffer = JSONBytes(capacity: 1 << 16)
        func flush() {
            out(UnsafeRawBufferPointer(buffer.bytes))
            buffer.removeAll()
        }
        JSONChangesetRenderer.writeTop(
            version: Self.version, RenderContext(oldName: tree.oldRoot, newName: tree.newRoot), to: &buffer)
        buffer.append(",\n  \"type\": \"listdiff-tree\"")
        // Each count as `"name": n`, in one object.
        func counts(_ member: StaticString, _ pairs: [(StaticString, Int)]) {
            buffer.append(",\n  \"")
            buffer.append(member)
            buffer.append("\": {")
            for (i, (name, n)) in pairs.enumerated() {
                buffer.append(i == 0 ? "\"" : ", \"")
                buffer.append(name)
                buffer.append("\": ")
                buffer.append(int: n)
            }
            buffer.append("}")
        }
        let s = tree.summary, r = tree.recordSummary
        counts(
            "summary",
            [("changed", s.changed), ("added", s.added), ("removed", s.removed), ("unchanged", s.unchanged), ("failed", s.failed)])
        counts(
            "records",
            [("inserted", r.inserted), ("deleted", r.deleted), ("moved", r.moved), ("updated", r.updated), ("unchanged", r.unchanged)]
                + (r.renamed > 0 ? [("renamed" as StaticString, r.renamed)] : []))
        buffer.append(",\n  \"files\": [")
        for (i, file) in tree.files.enumerated() {
            buffer.append(i == 0 ? "\n    {\"path\": " : ",\n    {\"path\": ")
            buffer.append(string: file.path)
            let names = TreeRenderer.context(tree, file)
            func status(_ text: StaticString) {
                buffer.append(", \"status\": \"")
                buffer.append(text)
                buffer.append("\"")
            }
            func side(_ side: TreeChangeset.Side, prefix: StaticString) {
                buffer.append(", \"")
                buffer.append(prefix)
                switch side {
                case .records(let n):
                    buffer.append("kind\": \"records\", \"")
                    buffer.append(prefix)
                    buffer.append("records\": ")
                    buffer.append(int: n)
                case .bytes(let n):
                    buffer.append("kind\": \"bytes\", \"")
                    buffer.append(prefix)
                    buffer.append("bytes\": ")
                    buffer.append(int: n)
                case .link(let target):
                    buffer.append("kind\": \"link\", \"")
                    buffer.append(prefix)
                    buffer.append("target\": ")
                    buffer.append(string: target)
                }
            }
            func content() throws(ListDiffError) {
                guard !statOnly else { return }
                let bytes = try InputFile.read(names.newName, text: false)
                if let text = String(validating: bytes, as: UTF8.self) {
                    buffer.append(", \"text\": ")
                    buffer.append(string: text)
                } else {
                    buffer.append(", \"base64\": ")
                    buffer.append(string: Base64.encode(bytes))
                }
            }
            switch file.outcome {
            case .records(let changeset):
                status(file.differs ? "changed" : "unchanged")
                buffer.append(", \"kind\": \"records\", \"changeset\": ")
                flush()
                try JSONChangesetRenderer(context: names, statOnly: statOnly).render(changeset, bytes: out)
                // An empty side (kubectl's absent object) is no document to apply to, or to
                // write: NEW's content goes too, and is written as it is.
                if file.differs, [names.oldName, names.newName].contains(where: { SystemCalls.status(ofPath: $0)?.size == 0 }) {
                    try content()
                }
            case .bytes(let same):
                status(same ? "unchanged" : "changed")
                buffer.append(", \"kind\": \"bytes\"")
                if !same { try content() }
            case .links(let old, let new):
                status(old == new ? "unchanged" : "changed")
                buffer.append(", \"kind\": \"link\", \"old_target\": ")
                buffer.append(string: old)
                buffer.append(", \"target\": ")
                buffer.append(string: new)
            case .added(let s):
                status("added")
                side(s, prefix: "")
                if case .link = s {} else { try content() }
            case .removed(let s):
                status("removed")
                side(s, prefix: "")
            case .replaced(let old, let new):
                status("replaced")
                side(old, prefix: "old_")
                side(new, prefix: "")
                if case .link = new {} else { try content() }
            case .failed(let error):
                status("error")
                buffer.append(", \"error\": ")
                buffer.append(string: error.description)
            }
            buffer.append("}")
            if buffer.count >= 1 << 16 { flush() }
        }
        buffer.append(tree.files.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
        flush()
    }
}
