/// A report in one self-contained HTML file (`--format html`): a header with both names, the
/// key, the rules and the counts; filters by kind and section, a search over keys and values;
/// then each change as a card named by its key, drawn a page at a time by the page's script.
///
/// The changes are embedded as JSON data, ready to show: every key, path and value is written
/// as the other outputs write it (`SafeText` over compact JSON), and each pair of changed
/// strings carries the ranges `WordDiff` marks, in UTF-16 offsets as the script counts them.
/// In the data `<`, `>`, `&`, U+2028 and U+2029 are written as JSON `\u` escapes, so no value
/// can end the data block or start markup; the script inserts every value as text.
///
/// Its data is written as it is made, in blocks rendered on every core (as the JSON
/// changeset's), so memory holds a wave of changes, not the report.
public struct HTMLRenderer: ChangesetRenderer {
    /// The inputs' names, in the header and the title.
    public let context: RenderContext

    /// A renderer of the HTML report.
    public init(context: RenderContext) {
        self.context = context
    }

    /// Writes the report; throws when a change's record can no longer be read (its file changed
    /// during the diff).
    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        try render(changeset) { out.write(String(decoding: $0, as: UTF8.self)) }
    }

    /// Renders the report as UTF-8 bytes, handed to `out` in blocks, without making a `String`
    /// of it; throws when a change's record cannot be read.
    package func render(_ changeset: Changeset, bytes out: (UnsafeRawBufferPointer) -> Void) throws(ListDiffError) {
        func raw(_ text: String) {
            var text = text
            text.withUTF8 { out(UnsafeRawBufferPointer($0)) }
        }
        var escaped: [UInt8] = []
        // Data is flushed between whole items, so no character is cut between two blocks.
        func flush(_ buffer: inout JSONBytes) {
            Self.escapeForScript(buffer.bytes, into: &escaped)
            escaped.withUnsafeBytes { out($0) }
            buffer.removeAll()
        }
        let sectioned = changeset.layout.isSectioned
        // In sections, the changes come grouped under their section, as the patch shows them.
        let groups: [(name: Value?, changes: [Change])] = sectioned ? changeset.changesBySection : [(nil, changeset.changes)]
        var group: [Int] = []
        group.reserveCapacity(changeset.changes.count)
        for (n, g) in groups.enumerated() { group += repeatElement(n, count: g.changes.count) }
        let changes = groups.count == 1 ? groups[0].changes : groups.flatMap(\.changes)

        raw(HTMLReportPage.top)
        var data = JSONBytes(capacity: 1 << 16 + 4096)
        raw("<script type=\"application/json\" id=\"listdiff-report\">")
        writeHeader(changeset, groups: groups.map(\.name), to: &data)
        flush(&data)
        raw("</script>\n<script type=\"application/json\" id=\"listdiff-changes\">[")
        let keys = KeyFormatter(changeset.key)
        let groupOf = group
        try JSONChangesetRenderer.writeLines(count: changes.count, indent: "", to: &data, flush) { n, bytes throws(ListDiffError) in
            try Self.write(changes[n], group: groupOf[n], keys: keys, sectioned: sectioned, to: &bytes)
        }
        flush(&data)
        raw("</script>\n")
        raw(HTMLReportPage.bottom)
    }

    /// The header's data: names, key, rules, counts, and the sections.
    func writeHeader(_ changeset: Changeset, groups: [Value?], to out: inout JSONBytes) {
        let sectioned = changeset.layout.isSectioned
        out.append("{\"old\": ")
        out.append(string: SafeText.escape(context.oldName))
        out.append(", \"new\": ")
        out.append(string: SafeText.escape(context.newName))
        out.append(", \"generator\": ")
        out.append(string: ListDiffVersion.generator)
        out.append(", \"key\": ")
        out.append(string: SafeText.escape(changeset.key.description))
        out.append(", \"algorithm\": ")
        out.append(string: changeset.algorithm)
        out.append(", \"rules\": ")
        if changeset.comparison.isEmpty { out.append("null") } else { out.append(string: SafeText.escape("\(changeset.comparison)")) }
        out.append(", \"layout\": ")
        if sectioned || changeset.layout.shape == .map {
            out.append(string: SafeText.escape("\(changeset.layout)"))
        } else {
            out.append("null")
        }
        out.append(", \"records\": [")
        out.append(int: changeset.oldCount)
        out.append(", ")
        out.append(int: changeset.newCount)
        let s = changeset.summary
        out.append("], \"summary\": [")
        // (Renames are counted when the diff looked for them.)
        let renames = changeset.countsRenames ? [s.renamed] : []
        for (n, count) in ([s.inserted, s.deleted, s.moved, s.updated, s.unchanged] + renames).enumerated() {
            if n > 0 { out.append(", ") }
            out.append(int: count)
        }
        out.append("], \"shown\": ")
        if let shown = changeset.shown { out.append(string: shown.names.joined(separator: ", ")) } else { out.append("null") }
        out.append(", \"sectioned\": ")
        out.append(sectioned ? "true" : "false")
        out.append(", \"groups\": [")
        for (n, name) in groups.enumerated() {
            if n > 0 { out.append(", ") }
            out.append(string: name.map(Self.name) ?? "(none)")
        }
        out.append("], \"sectionChanges\": [")
        for (n, op) in changeset.sections.enumerated() {
            out.append(n == 0 ? "\n" : ",\n")
            out.append("[")
            out.append(string: Self.letter(op.operation))
            out.append(", ")
            out.append(string: Self.name(op.name))
            out.append(", ")
            if let old = op.old { out.append(string: "#\(old)") } else { out.append("null") }
            out.append(", ")
            if let new = op.new { out.append(string: "#\(new)") } else { out.append("null") }
            out.append(", ")
            Self.write(op.fields, to: &out)
            out.append("]")
        }
        out.append("]}")
    }

    /// One change: `[op, group, key, old place, new place, body]`; the body is the record's
    /// text for an insert or a delete (none for a scalar keyed by itself), the fields for an
    /// update, none for a move, and for a rename the old key and the fields besides the key.
    static func write(_ change: Change, group: Int, keys: KeyFormatter, sectioned: Bool, to out: inout JSONBytes) throws(ListDiffError) {
        out.append("[")
        out.append(string: letter(change.operation))
        out.append(", ")
        out.append(int: group)
        out.append(", ")
        out.append(string: SafeText.escape(keys.format(change.key, selfKeyed: change.keyedBySelf, occurrence: change.occurrence)))
        for position in [change.old, change.new] {
            out.append(", ")
            if let position {
                out.append(string: "#" + RecordPosition.spelling(position, sectioned: sectioned))
            } else {
                out.append("null")
            }
        }
        switch change.operation {
        case .insert, .delete:
            guard !change.keyedBySelf else { break }
            out.append(", ")
            if let reference = change.reference, reference.source is JSONRecords {
                // A record of a JSON input: its text, written anew, without building its value.
                var text = JSONBytes(capacity: 256)
                reference.withBytes { text.append(compactJSON: $0) }
                out.append(string: SafeText.escape(text.string))
            } else {
                out.append(string: SafeText.escape(JSONWriter.compact(try change.value() ?? .null)))
            }
        case .update:
            out.append(", ")
            write(change.fields, to: &out)
        case .rename:
            // The old key, then the fields that changed besides the key.
            out.append(", ")
            out.append(string: SafeText.escape(keys.format(change.keyInOld, selfKeyed: change.keyedBySelf, occurrence: change.occurrence)))
            out.append(", ")
            write(change.fieldsBesideKey(keys.key), to: &out)
        case .move: break
        }
        out.append("]")
    }

    /// Fields: `[path, old, new]`, with `[old marks, new marks]` after them when both are
    /// strings; `{"path", "from", "to"}` for an element of a keyed list that moved.
    static func write(_ fields: [FieldChange], to out: inout JSONBytes) {
        out.append("[")
        for (n, field) in fields.enumerated() {
            if n > 0 { out.append(", ") }
            let path = field.readablePath.isEmpty ? "(record)" : SafeText.escape(field.readablePath)
            if let (from, to) = field.movedIndexes {
                out.append("{\"path\": ")
                out.append(string: path)
                out.append(", \"from\": ")
                out.append(string: SafeText.escape(from))
                out.append(", \"to\": ")
                out.append(string: SafeText.escape(to))
                out.append("}")
                continue
            }
            out.append("[")
            out.append(string: path)
            let old = field.old.map(show), new = field.new.map(show)
            for text in [old, new] {
                out.append(", ")
                if let text { out.append(string: text) } else { out.append("null") }
            }
            if case .string = field.old, case .string = field.new, let old, let new {
                let diff = WordDiff(old: old, new: new)
                out.append(", ")
                writeOffsets(diff.old, in: old, to: &out)
                out.append(", ")
                writeOffsets(diff.new, in: new, to: &out)
            }
            out.append("]")
        }
        out.append("]")
    }

    /// A value as every output shows it: compact JSON, made safe.
    static func show(_ value: Value) -> String { SafeText.escape(JSONWriter.compact(value)) }

    /// A section's name: a string as it is, anything else as JSON, made safe.
    static func name(_ value: Value) -> String {
        if case .string(let s) = value { return SafeText.escape(s) }
        return show(value)
    }

    static func letter(_ operation: Change.Operation) -> String {
        switch operation {
        case .insert: "i"
        case .delete: "d"
        case .move: "m"
        case .update: "u"
        case .rename: "r"
        }
    }

    /// Ranges of `text` as UTF-16 offsets, start and end in turn: what JavaScript's strings count.
    static func writeOffsets(_ ranges: [Range<String.Index>], in text: String, to out: inout JSONBytes) {
        out.append("[")
        var index = text.startIndex, offset = 0
        for (n, range) in ranges.enumerated() {
            for (k, bound) in [range.lowerBound, range.upperBound].enumerated() {
                offset += text.utf16.distance(from: index, to: bound)
                index = bound
                if n > 0 || k > 0 { out.append(",") }
                out.append(int: offset)
            }
        }
        out.append("]")
    }

    /// JSON text made safe inside a `<script>` element: `<`, `>` and `&` (which JSON holds only
    /// inside strings) and U+2028, U+2029 written as `\u` escapes, so nothing in it can close
    /// the element or open a comment. `into` is cleared first.
    static func escapeForScript(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(bytes.count + 64)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "<"): out.append(contentsOf: #"\u003c"#.utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: #"\u003e"#.utf8)
            case UInt8(ascii: "&"): out.append(contentsOf: #"\u0026"#.utf8)
            case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                out.append(contentsOf: (bytes[i + 2] == 0xA8 ? #"\u2028"# : #"\u2029"#).utf8)
                i += 2
            default: out.append(byte)
            }
            i += 1
        }
    }
}
