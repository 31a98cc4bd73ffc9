/// The machine-readable changeset, schema versions 1 to 4 (documented in README.md).
///
/// The top level is indented; each change is one compact line, so the output reads
/// well, diffs well and streams into `jq`.
public struct JSONChangesetRenderer: ChangesetRenderer {
    /// The newest `version` a JSON changeset carries; it changes only when a reader written for
    /// the old one would misread the new. A changeset is written as the oldest version that
    /// holds it (2 with array keys or a YAML version, 3 with CSV types).
    public static let schemaVersion = ChangesetReader.schemaVersion

    /// The inputs' names, written as `old` and `new`.
    public let context: RenderContext
    /// Counts only (`--stat`): the header, the summary, the section changes and how often each
    /// field changed, without `changes` and `stages`.
    public var statOnly = false

    /// A renderer of the whole changeset, or (`statOnly`) of its counts only.
    public init(context: RenderContext, statOnly: Bool = false) {
        self.context = context
        self.statOnly = statOnly
    }

    /// Writes the changeset; throws when a change's record can no longer be read (its file changed
    /// during the diff).
    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        try render(changeset) { out.write(String(decoding: $0, as: UTF8.self)) }
    }

    /// Renders the changeset as UTF-8 bytes, handed to `out` in blocks of about 64 KiB,
    /// without making a `String` of them; throws when a change's record cannot be read.
    package func render(_ changeset: Changeset, bytes out: (UnsafeRawBufferPointer) -> Void) throws(ListDiffError) {
        var buffer = JSONBytes(capacity: 1 << 16 + 4096)
        func flush(_ buffer: inout JSONBytes) {
            out(UnsafeRawBufferPointer(buffer.bytes))
            buffer.removeAll()
        }
        Self.writeTop(version: ChangesetReader.version(of: changeset), context, to: &buffer)
        buffer.append(",\n  \"key\": ", value: .array(changeset.key.spellings.map { .string($0) }))
        buffer.append(",\n  \"algorithm\": ", string: changeset.algorithm)
        buffer.append(",\n  \"duplicates\": ", string: changeset.duplicates.rawValue)
        if !changeset.comparison.isEmpty {
            buffer.append(",\n  \"comparison\": ", value: changeset.comparison.value)
        }
        if let renames = changeset.renames {
            buffer.append(",\n  \"renames\": {\"threshold\": ", int: renames.threshold)
            buffer.append("}")
        }
        if changeset.memberOrderSignificant { buffer.append(",\n  \"member_order\": \"significant\"") }
        if !changeset.configurationFiles.isEmpty {
            buffer.append(",\n  \"config\": ", value: .array(changeset.configurationFiles.map { .string($0) }))
        }
        buffer.append(",\n  \"records\": {\"old\": ", int: changeset.oldCount)
        buffer.append(", \"new\": ", int: changeset.newCount)
        buffer.append("}")
        if let f = changeset.fingerprints {
            buffer.append(",\n  \"fingerprints\": {\"old\": ", string: f.old)
            buffer.append(", \"new\": ", string: f.new)
            buffer.append("}")
        }
        let s = changeset.summary
        buffer.append(",\n  \"summary\": {\"inserted\": ", int: s.inserted)
        buffer.append(", \"deleted\": ", int: s.deleted)
        buffer.append(", \"moved\": ", int: s.moved)
        buffer.append(", \"updated\": ", int: s.updated)
        buffer.append(", \"unchanged\": ", int: s.unchanged)
        if changeset.countsRenames { buffer.append(", \"renamed\": ", int: s.renamed) }
        buffer.append("}")
        buffer.append(",\n  \"layout\": ")
        Self.write(changeset.layout, to: &buffer)
        if changeset.layout.isSectioned {
            // Every section's name, in order, on both sides: the positions of the changes
            // and of the stages are section indexes, which these names make readable, and
            // from which a changeset read back renders as this one does.
            buffer.append(",\n  \"section_names\": {\"old\": ", value: .array(changeset.oldSections.names.map { $0 ?? .null }))
            buffer.append(", \"new\": ", value: .array(changeset.newSections.names.map { $0 ?? .null }))
            buffer.append("}")
        }
        buffer.append(",\n  \"sections\": [")
        for (n, op) in changeset.sections.enumerated() {
            buffer.append(n == 0 ? "\n    " : ",\n    ")
            Self.write(op, to: &buffer)
        }
        buffer.append(changeset.sections.isEmpty ? "]" : "\n  ]")
        if let shown = changeset.shown {
            buffer.append(",\n  \"shown\": ", value: .array(shown.names.map { .string($0) }))
        }
        if statOnly {
            let counts = changeset.fieldCounts
            buffer.append(",\n  \"fields\": [")
            for (n, field) in counts.enumerated() {
                buffer.append(n == 0 ? "\n    {\"path\": " : ",\n    {\"path\": ")
                buffer.append(string: field.path)
                buffer.append(", \"updated\": ", int: field.count)
                buffer.append("}")
            }
            buffer.append(counts.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
            flush(&buffer)
            return
        }
        // The changes, then the stages, in blocks rendered on every core at once, a wave at a
        // time, and written in order: the memory held is a wave's, whatever the changeset's size.
        buffer.append(",\n  \"changes\": [")
        let changes = changeset.changes
        try Self.writeLines(count: changes.count, indent: "  ", to: &buffer, flush) { n, bytes throws(ListDiffError) in
            try Self.write(changes[n], to: &bytes)
        }
        let plan = changeset.stagePlan
        buffer.append(",\n  \"stages\": [")
        for (k, entries) in plan.stages.enumerated() {
            buffer.append(k == 0 ? "\n    " : ",\n    ")
            buffer.append("{\"stage\": ", string: Stage.Kind.allCases[k].rawValue)
            buffer.append(", \"sections\": [")
            for (n, op) in plan.sections[k].enumerated() {
                if n > 0 { buffer.append(", ") }
                Self.write(op, to: &buffer)
            }
            buffer.append("], \"changes\": [")
            try Self.writeLines(count: entries.count, indent: "    ", to: &buffer, flush) { n, bytes in
                let entry = entries[n]
                let k = Int(entry.change)
                Self.writeHead(
                    entry.operation, key: entry.operation == .delete ? changes[k].keyInOld : changes[k].key,
                    occurrence: changes[k].occurrence, old: entry.old,
                    new: entry.new, to: &bytes)
                bytes.append("}")
            }
            buffer.append("}")
        }
        buffer.append("\n  ]\n}\n")
        flush(&buffer)
    }

    /// Holds one block's bytes while a wave is rendered, or the error that stopped it.
    private final class Block: @unchecked Sendable {
        var bytes = JSONBytes(capacity: 1 << 16)
        var error: ListDiffError?
    }

    /// `count` items one per line, one level in from `indent` (`"  "` or `"    "`), and the
    /// closing bracket. Blocks of items are rendered on every core at once. An item that
    /// throws stops the writing: the first block's error, in order, is thrown.
    static func writeLines(
        count: Int, indent: StaticString, to out: inout JSONBytes, _ flush: (inout JSONBytes) -> Void,
        _ item: @escaping @Sendable (Int, inout JSONBytes) throws(ListDiffError) -> Void
    ) throws(ListDiffError) {
        try Machine.inWaves(count: count, slot: Block.init) { block, range in
            // One access to the block's bytes for the whole loop (each access to a
            // class's property is checked for exclusivity at run time).
            func fill(_ bytes: inout JSONBytes) throws(ListDiffError) {
                bytes.removeAll()
                for n in range {
                    bytes.append(n == 0 ? "\n" : ",\n")
                    bytes.append(indent)
                    bytes.append("  ")
                    try item(n, &bytes)
                }
            }
            do throws(ListDiffError) {
                try fill(&block.bytes)
            } catch {
                block.error = error
            }
        } drain: { (block) throws(ListDiffError) in
            if let error = block.error { throw error }
            out.append(block.bytes.bytes)
            flush(&out)
        }
        if count == 0 {
            out.append("]")
        } else {
            out.append("\n")
            out.append(indent)
            out.append("]")
        }
    }

    static func write(_ layout: Layout, to out: inout JSONBytes) {
        out.append("{\"path\": ")
        if let path = layout.path { out.append(string: path.spelling) } else { out.append("null") }
        out.append(", \"format\": ", string: layout.format?.rawValue)
        if layout.csvInfersTypes { out.append(", \"csv_types\": \"infer\"") }
        out.append(", \"yaml_version\": ", string: layout.yamlVersion?.rawValue)
        switch layout.shape {
        case .list: out.append(", \"shape\": \"list\"}")
        case .map: out.append(", \"shape\": \"map\"}")
        case .pattern: out.append(", \"shape\": \"pattern\"}")
        case .objectOfLists: out.append(", \"shape\": \"object\"}")
        case .sectionList(let key, let items):
            out.append(", \"shape\": \"sections\", \"section_key\": ", string: key)
            out.append(", \"items\": ", string: items)
            out.append("}")
        }
    }

    static func write(_ op: SectionChange, to out: inout JSONBytes) {
        out.append("{\"op\": ", string: op.operation.rawValue)
        out.append(", \"name\": ", value: op.name)
        out.append(", \"old\": ", int: op.old)
        out.append(", \"new\": ", int: op.new)
        if op.operation == .update { writeFields(op.fields, to: &out) }
        out.append(", \"value\": ", value: op.value)
        out.append("}")
    }

    static func writeFields(_ fields: [FieldChange], to out: inout JSONBytes) {
        out.append(", \"fields\": [")
        for (k, field) in fields.enumerated() {
            if k > 0 { out.append(", ") }
            out.append("{\"path\": ", string: field.path)
            out.append(", \"from\": ", string: field.from)
            out.append(", \"keyed_path\": ", value: field.keyedPath.map(Value.array))
            out.append(", \"old\": ", value: field.old)
            out.append(", \"new\": ", value: field.new)
            out.append(", \"added\": ", value: field.added.map(Value.array))
            out.append(", \"removed\": ", value: field.removed.map(Value.array))
            out.append("}")
        }
        out.append("]")
    }

    static func write(_ position: RecordPosition, to out: inout JSONBytes) {
        out.append(byte: UInt8(ascii: "["))
        out.append(int: position.section)
        out.append(", ", int: position.index)
        out.append(byte: UInt8(ascii: "]"))
    }

    /// The members a changeset and a tree changeset open with: `version`, `generator`,
    /// `old` and `new`, after the opening brace.
    static func writeTop(version: Int, _ context: RenderContext, to buffer: inout JSONBytes) {
        buffer.append("{\n  \"version\": ", int: version)
        buffer.append(",\n  \"generator\": ", string: ListDiffVersion.generator)
        buffer.append(",\n  \"old\": ", string: context.oldName)
        buffer.append(",\n  \"new\": ", string: context.newName)
    }

    /// A change's operation, key and positions, the members every change has (all a stage's
    /// change has), without the closing brace.
    static func writeHead(
        _ operation: Change.Operation, key: Value, oldKey: Value? = nil, occurrence: Int?, old: RecordPosition?,
        new: RecordPosition?, to out: inout JSONBytes
    ) {
        out.append("{\"op\": ", string: operation.rawValue)
        out.append(", \"key\": ", value: key)
        out.append(", \"occurrence\": ", int: occurrence)
        if let oldKey { out.append(", \"old_key\": ", value: oldKey) }
        if let old {
            out.append(", \"old\": ")
            write(old, to: &out)
        }
        if let new {
            out.append(", \"new\": ")
            write(new, to: &out)
        }
    }

    static func write(_ change: Change, to out: inout JSONBytes) throws(ListDiffError) {
        writeHead(
            change.operation, key: change.key, oldKey: change.oldKey, occurrence: change.occurrence, old: change.old,
            new: change.new, to: &out)
        if change.operation == .update || change.operation == .rename, change.hasValue { writeFields(change.fields, to: &out) }
        if let reference = change.reference, reference.source is JSONRecords {
            // A record of a JSON input: its text, written anew, without building its value.
            out.append(", \"value\": ")
            reference.withBytes { out.append(compactJSON: $0) }
        } else {
            out.append(", \"value\": ", value: try change.value())
        }
        out.append("}")
    }
}
