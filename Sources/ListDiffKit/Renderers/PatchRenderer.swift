/// The human-readable patch. Every change line starts with its mark and names its
/// record's key, so `grep 'id=42'` finds everything that happened to record 42:
///
///     --- old.json
///     +++ new.json
///     - id=4 #3 {"id":4,"name":"Dave"}
///     + id=9 #5 {"id":9,"name":"Ida"}
///     > id=2 #1 → #4
///     ~ id=3 /name: "Carol" → "Caroline"
///     ~ id=3 /email: (none) → "c@example.com"
///     ~ id=5 (member order)
///     1 inserted, 1 deleted, 1 moved, 1 updated, 10 unchanged
///
/// `#n` is a 0-based index (old for `-`, new for `+`, old → new for `>`). Nothing is
/// written when the lists are the same, as with diff(1).
public struct PatchRenderer: ChangesetRenderer {
    public let context: RenderContext
    public let style: TextStyle

    public init(context: RenderContext, style: TextStyle = .plain) {
        self.context = context
        self.style = style
    }

    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) {
        guard !changeset.isEmpty else { return }
        let keys = KeyFormatter(changeset.key)
        out.write(style.paint("--- \(context.oldName)", .bold) + "\n")
        out.write(style.paint("+++ \(context.newName)", .bold) + "\n")
        var line = ""
        for change in changeset.changes {
            line.removeAll(keepingCapacity: true)
            let key = keys.format(change.key, selfKeyed: change.keyedBySelf, occurrence: change.occurrence)
            // A scalar keyed by itself is all said by its key.
            let body = change.keyedBySelf ? "" : " " + JSONWriter.compact(change.value ?? .null)
            switch change.operation {
            case .delete:
                line = style.paint("- \(key) #\(change.old.map(Self.position) ?? "?")\(body)", .red) + "\n"
            case .insert:
                line = style.paint("+ \(key) #\(change.new.map(Self.position) ?? "?")\(body)", .green) + "\n"
            case .move:
                line = style.paint("> \(key) #\(change.old.map(Self.position) ?? "?") → #\(change.new.map(Self.position) ?? "?")", .cyan) + "\n"
            case .update:
                if change.fields.isEmpty {
                    // Only the order of members changed (under `--member-order significant`).
                    line += style.paint("~ \(key) ", .yellow) + "(member order)\n"
                }
                for field in change.fields {
                    line += style.paint("~ \(key) ", .yellow)
                    line += (field.path.isEmpty ? "(record)" : field.path) + ": "
                    line += style.paint(field.old.map(JSONWriter.compact) ?? "(none)", .red)
                    line += " → "
                    line += style.paint(field.new.map(JSONWriter.compact) ?? "(none)", .green)
                    line += "\n"
                }
            }
            out.write(line)
        }
        out.write(Self.summaryLine(changeset.summary) + "\n")
    }

    static func position(_ p: RecordPosition) -> String {
        p.section == 0 ? "\(p.index)" : "\(p.section).\(p.index)"
    }

    public static func summaryLine(_ s: Changeset.Summary) -> String {
        "\(s.inserted) inserted, \(s.deleted) deleted, \(s.moved) moved, \(s.updated) updated, \(s.unchanged) unchanged"
    }
}
