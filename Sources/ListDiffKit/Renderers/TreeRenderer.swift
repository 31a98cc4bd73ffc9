/// Writes the diff of two folders (`TreeChangeset`) for people: each path that differs in
/// walk order, then a total.
///
/// - `patch` (the default, and `--stat`): as `diff -r` does, a `diff -r OLD/p NEW/p` header
///   before each pair of record files that differ, then that pair as the changeset
///   renderer writes it (the patch, or the stat table); `Files OLD/p and NEW/p differ` for
///   files compared as bytes; `Only in NEW/dir: name (3 records)` for a file one side
///   holds; then the total.
/// - `brief` (`--brief`, as `diff -rq`): only `Files … differ` and `Only in …` lines.
/// - `markdown`: a table of the paths that differ, then each pair's report.
/// - `github`: each pair's annotations, and one annotation for each other path that differs.
///
/// Names come from the folders and are escaped as all quoted input is.
package struct TreeRenderer {
    package enum Style: Sendable { case patch, brief, markdown, github }

    package var style: Style
    /// The renderer of one pair of record files, named as the context says.
    package var records: (TreeChangeset.File, RenderContext) -> any ChangesetRenderer
    /// The annotation level, for `github`.
    package var level: GitHubRenderer.Level = .notice

    package init(style: Style, records: @escaping (TreeChangeset.File, RenderContext) -> any ChangesetRenderer) {
        self.style = style
        self.records = records
    }

    /// The pair's names: each root joined with the path.
    package static func context(_ tree: TreeChangeset, _ file: TreeChangeset.File) -> RenderContext {
        RenderContext(oldName: FolderWalk.join(tree.oldRoot, file.path), newName: FolderWalk.join(tree.newRoot, file.path))
    }

    package func render(_ tree: TreeChangeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        switch style {
        case .patch, .brief: try renderText(tree, to: &out)
        case .markdown: try renderMarkdown(tree, to: &out)
        case .github: try renderGitHub(tree, to: &out)
        }
    }

    /// The line for a path that differs other than by records, as `diff -r` words it; nil
    /// for a pair of record files (and for a path that does not differ).
    static func line(_ tree: TreeChangeset, _ file: TreeChangeset.File, counts: Bool) -> String? {
        let names = context(tree, file)
        let a = SafeText.escape(names.oldName), b = SafeText.escape(names.newName)
        func only(_ root: String, _ side: TreeChangeset.Side) -> String {
            let slash = file.path.lastIndex(of: "/")
            let folder = FolderWalk.join(root, slash.map { String(file.path[..<$0]) } ?? "")
            let name = slash.map { String(file.path[file.path.index(after: $0)...]) } ?? file.path
            return "Only in \(SafeText.escape(folder)): \(SafeText.escape(name))" + (counts ? " (\(side.description))" : "")
        }
        guard file.differs else { return nil }
        switch file.outcome {
        case .records: return counts ? nil : "Files \(a) and \(b) differ"
        case .bytes: return "Files \(a) and \(b) differ"
        case .links(let x, let y):
            return "Symbolic links \(a) and \(b) differ"
                + (counts ? " (\(SafeText.escape(x)) → \(SafeText.escape(y)))" : "")
        case .added(let side): return only(tree.newRoot, side)
        case .removed(let side): return only(tree.oldRoot, side)
        case .replaced(let x, let y): return "File \(a) is \(x.description) while file \(b) is \(y.description)"
        case .failed: return nil
        }
    }

    /// The total: paths by what became of them, and the records of the pairs diffed.
    package static func total(_ tree: TreeChangeset) -> String {
        let s = tree.summary
        var text = "\(s.changed) changed, \(s.added) added, \(s.removed) removed, \(s.unchanged) unchanged files"
        if s.failed > 0 { text += ", \(s.failed) not diffed (errors)" }
        return text + "; records: " + PatchRenderer.summaryLine(tree.recordSummary)
    }

    func renderText(_ tree: TreeChangeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        let brief = style == .brief
        for file in tree.files {
            if let line = Self.line(tree, file, counts: !brief) {
                out.write(line + "\n")
            } else if case .records(let changeset) = file.outcome, file.differs {
                let names = Self.context(tree, file)
                out.write("diff -r \(SafeText.escape(names.oldName)) \(SafeText.escape(names.newName))\n")
                try records(file, names).render(changeset, to: &out)
            }
        }
        // (Under --show a pair may print nothing, but its changes still count in the total.)
        let r = tree.recordSummary
        if !brief, tree.differs || !tree.errors.isEmpty || r.inserted + r.deleted + r.moved + r.updated + r.renamed > 0 {
            out.write(Self.total(tree) + "\n")
        }
    }

    func renderMarkdown(_ tree: TreeChangeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        let cell = MarkdownRenderer.cell
        out.write("## listdiff: \(cell(tree.oldRoot)) → \(cell(tree.newRoot))\n\n")
        let s = tree.summary
        out.write("| changed | added | removed | unchanged | not diffed |\n| ---: | ---: | ---: | ---: | ---: |\n")
        out.write("| \(s.changed) | \(s.added) | \(s.removed) | \(s.unchanged) | \(s.failed) |\n")
        let differing = tree.files.filter { $0.differs || { if case .failed = $0.outcome { true } else { false } }($0) }
        if differing.isEmpty {
            out.write("\nNo differences.\n")
            return
        }
        out.write("\n| file | change |\n| --- | --- |\n")
        for file in differing {
            let what: String
            switch file.outcome {
            case .records(let c):
                let r = c.summary
                what =
                    "\(r.inserted) inserted, \(r.deleted) deleted, \(r.moved) moved, \(r.updated) updated"
                    + (r.renamed > 0 ? ", \(r.renamed) renamed" : "")
            case .bytes: what = "bytes differ"
            case .links(let x, let y): what = "link \(x) → \(y)"
            case .added(let side): what = "added (\(side.description))"
            case .removed(let side): what = "removed (\(side.description))"
            case .replaced(let x, let y): what = "\(x.description) → \(y.description)"
            case .failed(let error): what = "not diffed: " + error.description
            }
            out.write("| \(cell(file.path)) | \(cell(what)) |\n")
        }
        for file in differing {
            guard case .records(let changeset) = file.outcome else { continue }
            out.write("\n")
            try records(file, Self.context(tree, file)).render(changeset, to: &out)
        }
    }

    func renderGitHub(_ tree: TreeChangeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        for file in tree.files where file.differs {
            let names = Self.context(tree, file)
            if case .records(let changeset) = file.outcome {
                try records(file, names).render(changeset, to: &out)
                continue
            }
            guard let line = Self.line(tree, file, counts: true) else { continue }
            let removed = { if case .removed = file.outcome { true } else { false } }()
            let at = GitHubRenderer.property(SafeText.escape(removed ? names.oldName : names.newName))
            out.write(
                "::\(level.rawValue) file=\(at),title=\(GitHubRenderer.property("listdiff: file"))::\(GitHubRenderer.message(line))\n")
        }
    }
}
