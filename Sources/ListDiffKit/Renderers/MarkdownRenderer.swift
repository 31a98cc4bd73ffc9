/// A report in GitHub-flavoured Markdown, for pull-request comments and
/// `$GITHUB_STEP_SUMMARY` (`--format markdown`): a heading naming both files, a table of
/// counts, then the changes grouped by kind, each update with a table of its fields.
///
/// A group of more than `limit` changes is folded in `<details>`, shows its first `limit`
/// and says how many were left out, so that a big diff still fits in a comment.
///
/// Everything quoted from the inputs is escaped (`cell(_:)`): it can neither end a table
/// cell, nor start emphasis, a link or HTML, nor hold a line break or a control character.
/// Unlike the patch, the report is written when the lists are the same too (it says so).
public struct MarkdownRenderer: ChangesetRenderer {
    /// The inputs' names, in the heading.
    public let context: RenderContext
    /// How many records each kind of change shows before it says how many more there are.
    public var limit: Int
    /// How long quoted text is cut (`ValueCut`): a changed field's values around where they
    /// differ, anything else (records, keys, paths) to its first characters.
    public var valueCut = ValueCut()

    /// A renderer of a Markdown report, for pull-request comments and job summaries.
    public init(context: RenderContext, limit: Int = 50) {
        self.context = context
        self.limit = limit
    }

    /// Writes the report; throws when a change's record can no longer be read (its file changed
    /// during the diff).
    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        out.write("### listdiff: \(Self.cell(context.oldName)) → \(Self.cell(context.newName))\n\n")
        let s = changeset.summary
        if changeset.countsRenames {
            out.write("| inserted | deleted | moved | updated | unchanged | renamed |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n")
            out.write("| \(s.inserted) | \(s.deleted) | \(s.moved) | \(s.updated) | \(s.unchanged) | \(s.renamed) |\n")
        } else {
            out.write("| inserted | deleted | moved | updated | unchanged |\n| ---: | ---: | ---: | ---: | ---: |\n")
            out.write("| \(s.inserted) | \(s.deleted) | \(s.moved) | \(s.updated) | \(s.unchanged) |\n")
        }
        if !changeset.differs {
            out.write("\nNo differences.\n")
            return
        }
        if let shown = changeset.shown {
            out.write("\nShown: \(shown.names.joined(separator: ", ")) (--show).\n")
        }
        let keys = KeyFormatter(changeset.key)
        let sectioned = changeset.layout.isSectioned
        func at(_ p: RecordPosition?) -> String { RecordPosition.spelling(p, sectioned: sectioned, none: "") }
        func key(_ change: Change) -> String {
            cell(keys.format(change.key, selfKeyed: change.keyedBySelf, occurrence: change.occurrence))
        }
        func value(_ v: Value?) -> String { v.map { cell(JSONWriter.compact($0)) } ?? "*(none)*" }

        if sectioned, !changeset.sections.isEmpty {
            out.write("\n#### Sections (\(changeset.sections.count))\n\n| change | section | from | to |\n| --- | --- | ---: | ---: |\n")
            for op in changeset.sections {
                out.write(
                    "| \(op.operation.past) | \(value(op.name)) | \(op.old.map(String.init) ?? "") | \(op.new.map(String.init) ?? "") |\n")
            }
        }
        var groups: [Change.Operation: [Change]] = [:]
        for change in changeset.changes { groups[change.operation, default: []].append(change) }
        for operation in [Change.Operation.insert, .delete, .move, .update, .rename] {
            guard let changes = groups[operation], !changes.isEmpty else { continue }
            let title = operation.past.prefix(1).uppercased() + operation.past.dropFirst()
            out.write("\n#### \(title) (\(changes.count))\n\n")
            let folded = changes.count > limit
            if folded { out.write("<details><summary>The first \(limit) of \(changes.count)</summary>\n\n") }
            let shown = changes.prefix(max(0, limit))
            switch operation {
            case .insert, .delete:
                out.write("| key | at | record |\n| --- | ---: | --- |\n")
                for change in shown {
                    let record = try change.keyedBySelf ? "" : value(change.value())
                    out.write("| \(key(change)) | \(at(operation == .insert ? change.new : change.old)) | \(record) |\n")
                }
            case .move:
                out.write("| key | from | to |\n| --- | ---: | ---: |\n")
                for change in shown { out.write("| \(key(change)) | \(at(change.old)) | \(at(change.new)) |\n") }
            case .update, .rename:
                for (n, change) in shown.enumerated() {
                    out.write(n == 0 ? "" : "\n")
                    let fields = operation == .rename ? change.fieldsBesideKey(changeset.key) : change.fields
                    if operation == .rename {
                        let was = cell(keys.format(change.keyInOld, selfKeyed: change.keyedBySelf, occurrence: change.occurrence))
                        out.write("**\(was)** → **\(key(change))** (at \(at(change.old)) → \(at(change.new)))\n\n")
                        if fields.isEmpty {
                            out.write("No other field changed.\n")
                            continue
                        }
                        out.write("| field | old | new |\n| --- | --- | --- |\n")
                    } else {
                        out.write("**\(key(change))** (at \(at(change.old)))\n\n| field | old | new |\n| --- | --- | --- |\n")
                    }
                    if fields.isEmpty { out.write("| *(member order)* | | |\n") }
                    for field in fields {
                        let place = field.readablePath.isEmpty ? "*(record)*" : cell(field.readablePath)
                        if let (a, b) = field.movedIndexes {
                            out.write("| \(place) | moved from #\(a) | to #\(b) |\n")
                        } else {
                            // Cut together, around where they differ; then escaped.
                            let (old, new) = valueCut.values(field.old, field.new)
                            let shown = [(field.old, old), (field.new, new)].map { $0.0 == nil ? "*(none)*" : Self.cell($0.1) }
                            out.write("| \(place) | \(shown[0]) | \(shown[1]) |\n")
                        }
                    }
                }
            }
            if folded {
                out.write("\n\(changes.count - shown.count) more \(operation.past) left out (--limit \(limit)).\n\n</details>\n")
            }
        }
    }

    func cell(_ text: String) -> String { Self.cell(valueCut.single(text)) }

    /// Text as a table cell or inline text: control characters escaped (`SafeText`), then a
    /// backslash before each character Markdown could read as syntax, so that it all shows
    /// as written: the backslash, the backtick, `*`, `_`, `[`, `]`, `<`, `>`, `|`, `&`, `~`, `!`, `#`, `$` (math on GitHub).
    package static func cell(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for c in SafeText.escape(text) {
            switch c {
            case "\\", "`", "*", "_", "[", "]", "<", ">", "|", "&", "~", "!", "#", "$": out.append("\\")
            default: break
            }
            out.append(c)
        }
        return out
    }
}
