/// A tree changeset (`TreeJSONRenderer`'s document) applied to OLD's folder: for each
/// path, what NEW's folder holds there.
///
/// A pair that carries NEW's content (a file compared as bytes, or a pair of record files
/// one of which is empty) is written as that content.
///
/// Opening one reads the document and checks every path, and applies each pair's changeset
/// to its OLD file with `FileApplier` (its fingerprint and key checks), before anything is
/// written. A path that is absolute, empty, or holds a `.` or `..` step is refused: nothing
/// in a changeset may write outside the target folder.
package struct TreeApplier {
    /// What NEW's folder holds at one path.
    package enum Content {
        /// A record file: the applier's result, written in `format`.
        case records(FileApplier, format: InputFormat)
        /// These bytes (a file added, or changed as bytes).
        case bytes([UInt8])
        /// OLD's file as it is (unchanged).
        case copy(String)
        /// A symbolic link to this text.
        case link(String)
    }

    /// Each path NEW's folder holds, in the document's order, and its content.
    package var files: [(path: String, content: Content)] = []

    /// Reads the document `bytes` (named `name` in errors) and prepares each path against
    /// the folder `old`.
    ///
    /// - Throws: a `.changeset` error for a document that is malformed, of another version,
    ///   or holds a path that would leave the target folder, or an error at some path; the
    ///   errors `FileApplier` throws for a pair of record files.
    package init(
        document bytes: [UInt8], name: String, old: String, reader: DocumentReader, asked: ReadingRequest?, force: Bool
    ) throws(ListDiffError) {
        let (root, _) = try JSONReader().read(bytes, name: name)
        func bad(_ message: String) -> ListDiffError { ListDiffError(.changeset, file: name, message) }
        guard case .object(let top) = root, top["type"] == .string("listdiff-tree") else {
            throw bad("is not a tree changeset (no \"type\": \"listdiff-tree\")")
        }
        guard case .number(let version)? = top["version"], version.text == String(TreeJSONRenderer.version) else {
            throw bad("is a tree changeset of another version; this listdiff reads version \(TreeJSONRenderer.version)")
        }
        guard case .array(let entries)? = top["files"] else { throw bad("has no \"files\" list") }
        for (i, entry) in entries.enumerated() {
            guard case .object(let file) = entry, case .string(let path)? = file["path"], case .string(let status)? = file["status"]
            else { throw bad("files[\(i)] lacks its path or status") }
            try Self.check(path, at: i, name: name)
            func string(_ member: String) -> String? { if case .string(let s)? = file[member] { s } else { nil } }
            func content() throws(ListDiffError) -> Content {
                if string("kind") == "link" {
                    guard let target = string("target") else { throw bad("files[\(i)] is a link without its target") }
                    return .link(target)
                }
                if let text = string("text") { return .bytes(Array(text.utf8)) }
                if let coded = string("base64") {
                    guard let decoded = Base64.decode(coded) else { throw bad("files[\(i)] holds base64 that does not decode") }
                    return .bytes(decoded)
                }
                throw bad("files[\(i)] (\(SafeText.escape(path))) carries no content (a --stat document cannot be applied)")
            }
            let oldFile = FolderWalk.join(old, path)
            switch status {
            case "removed": continue
            case "added", "replaced": files.append((path, try content()))
            case "error": throw bad("files[\(i)] (\(SafeText.escape(path))) was not diffed: \(string("error") ?? "an error")")
            case "unchanged" where string("kind") == "link": files.append((path, try content()))
            case "unchanged": files.append((path, .copy(oldFile)))
            case "changed":
                if let changeset = file["changeset"], string("text") == nil, string("base64") == nil {
                    let text = Array(JSONWriter.compact(changeset).utf8)
                    let applier = try FileApplier.open(
                        changeset: text, name: "\(name) (files[\(i)])", old: oldFile, reader: reader, asked: asked, force: force)
                    files.append((path, .records(applier, format: applier.format)))
                } else {
                    files.append((path, try content()))
                }
            default: throw bad("files[\(i)] has the status \(SafeText.escape(status)), which is not one listdiff writes")
            }
        }
    }

    /// Refuses a path that could lead outside the target folder.
    static func check(_ path: String, at i: Int, name: String) throws(ListDiffError) {
        let steps = path.split(separator: "/", omittingEmptySubsequences: false)
        if path.isEmpty || path.hasPrefix("/") || steps.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
            || path.utf8.contains(0)
        {
            throw ListDiffError(
                .changeset, file: name,
                "files[\(i)] has the path \"\(SafeText.escape(path))\", which is not relative to the folder (no leading /, no empty, . or .. steps)"
            )
        }
    }

    /// Makes the folders that lead to `path` below `root`, refusing any step that is there
    /// but is not a folder (a symbolic link, which could lead outside).
    package static func makeFolders(for path: String, in root: String) throws(ListDiffError) {
        var folder = root
        for step in path.split(separator: "/").dropLast() {
            folder = FolderWalk.join(folder, String(step))
            if let status = SystemCalls.linkStatus(ofPath: folder) {
                guard status.kind == .directory else {
                    throw ListDiffError(.io, file: folder, "is in the way: it is not a folder (a link is never followed)")
                }
                continue
            }
            guard SystemCalls.makeFolder(folder) else {
                throw ListDiffError(.io, file: folder, "cannot make the folder: \(SystemCalls.describe(SystemCalls.errorNumber))")
            }
        }
    }
}
