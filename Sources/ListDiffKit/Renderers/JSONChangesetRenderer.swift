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
        head += ",\n  \"layout\": "
        Self.write(changeset.layout, to: &head)
        head += ",\n  \"sections\": ["
        for (n, op) in changeset.sections.enumerated() {
            head += n == 0 ? "\n    " : ",\n    "
            Self.write(op, to: &head)
        }
        head += changeset.sections.isEmpty ? "]" : "\n  ]"
        head += ",\n  \"changes\": ["
        out.write(head)
        Self.writeLines(changeset.changes, indent: "  ", to: &out)
        out.write(",\n  \"stages\": [")
        for (k, stage) in changeset.stages.enumerated() {
            var line = k == 0 ? "\n    " : ",\n    "
            line += "{\"stage\": \"\(stage.kind.rawValue)\", \"sections\": ["
            for (n, op) in stage.sections.enumerated() {
                if n > 0 { line += ", " }
                Self.write(op, to: &line)
            }
            line += "], \"changes\": ["
            out.write(line)
            Self.writeLines(stage.changes, indent: "    ", to: &out)
            out.write("}")
        }
        out.write("\n  ]\n}\n")
    }

    /// The changes one per line, one level in from `indent`, and the closing bracket.
    static func writeLines(_ changes: [Change], indent: String, to out: inout some TextOutputStream) {
        var line = ""
        for (n, change) in changes.enumerated() {
            line.removeAll(keepingCapacity: true)
            line += (n == 0 ? "\n" : ",\n") + indent + "  "
            write(change, to: &line)
            out.write(line)
        }
        out.write(changes.isEmpty ? "]" : "\n" + indent + "]")
    }

    static func write(_ layout: Layout, to out: inout String) {
        out += "{\"path\": "
        if let path = layout.path { JSONWriter.writeString(path.spelling, to: &out) } else { out += "null" }
        switch layout.shape {
        case .list: out += ", \"shape\": \"list\"}"
        case .objectOfLists: out += ", \"shape\": \"object\"}"
        case .sectionList(let key, let items):
            out += ", \"shape\": \"sections\", \"section_key\": "
            JSONWriter.writeString(key, to: &out)
            out += ", \"items\": "
            JSONWriter.writeString(items, to: &out)
            out += "}"
        }
    }

    static func write(_ op: SectionChange, to out: inout String) {
        out += "{\"op\": \"\(op.operation.rawValue)\", \"name\": "
        JSONWriter.write(op.name, to: &out)
        if let old = op.old { out += ", \"old\": \(old)" }
        if let new = op.new { out += ", \"new\": \(new)" }
        if op.operation == .update { writeFields(op.fields, to: &out) }
        if let value = op.value {
            out += ", \"value\": "
            JSONWriter.write(value, to: &out)
        }
        out += "}"
    }

    static func writeFields(_ fields: [FieldChange], to out: inout String) {
        out += ", \"fields\": ["
        for (k, field) in fields.enumerated() {
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

    static func write(_ change: Change, to out: inout String) {
        out += "{\"op\": \"\(change.operation.rawValue)\", \"key\": "
        JSONWriter.write(change.key, to: &out)
        if let occurrence = change.occurrence { out += ", \"occurrence\": \(occurrence)" }
        if let old = change.old { out += ", \"old\": [\(old.section), \(old.index)]" }
        if let new = change.new { out += ", \"new\": [\(new.section), \(new.index)]" }
        if change.operation == .update, change.value != nil { writeFields(change.fields, to: &out) }
        if let value = change.value {
            out += ", \"value\": "
            JSONWriter.write(value, to: &out)
        }
        out += "}"
    }
}
