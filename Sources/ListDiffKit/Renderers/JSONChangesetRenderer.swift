/// The machine-readable changeset, schema version 1 (documented in README.md).
///
/// The top level is indented; each change is one compact line, so the output reads
/// well, diffs well and streams into `jq`.
public struct JSONChangesetRenderer: ChangesetRenderer {
    public static let schemaVersion = 1

    public let context: RenderContext

    public init(context: RenderContext) {
        self.context = context
    }

    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) {
        var head = "{\n  \"version\": \(Self.schemaVersion),\n  \"old\": "
        JSONWriter.writeString(context.oldName, to: &head)
        head += ",\n  \"new\": "
        JSONWriter.writeString(context.newName, to: &head)
        head += ",\n  \"key\": "
        JSONWriter.write(.array(changeset.key.fields.map { .string($0.spelling) }), to: &head)
        head += ",\n  \"algorithm\": "
        JSONWriter.writeString(changeset.algorithm, to: &head)
        head += ",\n  \"duplicates\": \"\(changeset.duplicates.rawValue)\""
        let s = changeset.summary
        head += ",\n  \"records\": {\"old\": \(changeset.oldCount), \"new\": \(changeset.newCount)}"
        if let f = changeset.fingerprints {
            head += ",\n  \"fingerprints\": {\"old\": \"\(f.old)\", \"new\": \"\(f.new)\"}"
        }
        head += ",\n  \"summary\": {\"inserted\": \(s.inserted), \"deleted\": \(s.deleted), \"moved\": \(s.moved), "
        head += "\"updated\": \(s.updated), \"unchanged\": \(s.unchanged)}"
        head += ",\n  \"changes\": ["
        out.write(head)
        var line = ""
        for (n, change) in changeset.changes.enumerated() {
            line.removeAll(keepingCapacity: true)
            line += n == 0 ? "\n    " : ",\n    "
            Self.write(change, to: &line)
            out.write(line)
        }
        out.write(changeset.changes.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
    }

    static func write(_ change: Change, to out: inout String) {
        out += "{\"op\": \"\(change.operation.rawValue)\", \"key\": "
        JSONWriter.write(change.key, to: &out)
        if let occurrence = change.occurrence { out += ", \"occurrence\": \(occurrence)" }
        if let old = change.old { out += ", \"old\": [\(old.section), \(old.index)]" }
        if let new = change.new { out += ", \"new\": [\(new.section), \(new.index)]" }
        if change.operation == .update {
            out += ", \"fields\": ["
            for (k, field) in change.fields.enumerated() {
                if k > 0 { out += ", " }
                out += "{\"path\": "
                JSONWriter.writeString(field.path, to: &out)
                if let old = field.old {
                    out += ", \"old\": "
                    JSONWriter.write(old, to: &out)
                }
                if let new = field.new {
                    out += ", \"new\": "
                    JSONWriter.write(new, to: &out)
                }
                out += "}"
            }
            out += "]"
        }
        if let value = change.value {
            out += ", \"value\": "
            JSONWriter.write(value, to: &out)
        }
        out += "}"
    }
}
