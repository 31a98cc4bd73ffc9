/// The patch in two columns, OLD on the left and NEW on the right, fitted to a terminal's
/// width (`--format side`), as `diff -y` and delta's side-by-side view show files:
///
///     --- old.json                          | +++ new.json
///     - id=4 #3 {"id":4,"name":"Dave"}      <
///                                           > + id=9 #5 {"id":9,"name":"Ida"}
///     > id=2 #1                             | > id=2 #4
///     ~ id=3 #2                             | ~ id=3 #2
///       /name: "Carol"                      |   /name: "Carol{+ine+}"
///                                           >   /email: "c@example.com"
///     1 inserted, 1 deleted, 1 moved, 1 updated, 10 unchanged
///
/// The parts come in the patch's order (`PatchRenderer.outline`) with the patch's marks. An
/// updated field is one row, old beside new, with the words that changed marked: in
/// reverse colour on a terminal, else between `[-` `-]` (gone) and `{+` `+}` (come), as
/// git's `--word-diff` marks them. Between the columns, `|` marks a row with both sides,
/// `<` one with OLD's only and `>` one with NEW's only.
///
/// A row longer than its column wraps, its further lines indented. Values are cut first by
/// `valueCut`: a changed field around where it changed, a record to its first characters.
/// Columns are measured in terminal cells (`DisplayWidth`), so wide characters keep them
/// aligned. Below `minimumWidth` the sides are written one under the other, OLD's lines
/// marked `<` and NEW's `>`. Everything quoted from the inputs goes through `SafeText`.
public struct SideBySideRenderer: ChangesetRenderer {
    /// The inputs' names, at the head of each column.
    public let context: RenderContext
    /// Colour, or none.
    public let style: TextStyle
    /// The width of the terminal, in cells.
    public var width: Int
    /// How long values are cut before they are wrapped (`ValueCut`).
    public var valueCut = ValueCut()

    /// The narrowest width that holds two columns; below it the sides are stacked.
    public static let minimumWidth = 40

    /// A renderer of two columns in `width` cells.
    public init(context: RenderContext, style: TextStyle = .plain, width: Int = 80) {
        self.context = context
        self.style = style
        self.width = width
    }

    /// Writes the columns; throws when a change's record can no longer be read (its file
    /// changed during the diff).
    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        let page = Page(width: width, style: style)
        try PatchRenderer.outline(changeset) { part throws(ListDiffError) in
            switch part {
            case .names:
                page.write(
                    .sides(
                        [Span("--- " + SafeText.escape(context.oldName), .bold)], [Span("+++ " + SafeText.escape(context.newName), .bold)]),
                    to: &out)
            case .note(let text): page.write(.full([Span(text, .bold)]), to: &out)
            case .section(let op): for row in rows(op) { page.write(row, to: &out) }
            case .change(let change): for row in try rows(change, changeset) { page.write(row, to: &out) }
            case .summary(let text): page.write(.full([Span(text)]), to: &out)
            }
        }
    }

    /// The rows of one record's change.
    func rows(_ change: Change, _ changeset: Changeset) throws(ListDiffError) -> [Row] {
        let sectioned = changeset.layout.isSectioned
        func at(_ p: RecordPosition?) -> String { "#" + RecordPosition.spelling(p, sectioned: sectioned) }
        let key = SafeText.escape(
            valueCut.single(KeyFormatter(changeset.key).format(change.key, selfKeyed: change.keyedBySelf, occurrence: change.occurrence)))
        // The record, for a delete or an insert. A scalar keyed by itself is all said by its key.
        func body() throws(ListDiffError) -> String {
            try change.keyedBySelf ? "" : " " + SafeText.escape(valueCut.value(change.value() ?? .null))
        }
        switch change.operation {
        case .delete: return [.sides([Span("- \(key) \(at(change.old))\(try body())", .red)], nil)]
        case .insert: return [.sides(nil, [Span("+ \(key) \(at(change.new))\(try body())", .green)])]
        case .move:
            let from = changeset.sectionLeft(by: change).map { " (from \(SafeText.escape(valueCut.value($0))))" } ?? ""
            return [.sides([Span("> \(key) \(at(change.old))", .cyan)], [Span("> \(key) \(at(change.new))\(from)", .cyan)])]
        case .update:
            return fieldRows(old: "~ \(key) \(at(change.old))", new: "~ \(key) \(at(change.new))", change.fields)
        case .rename:
            let was = SafeText.escape(
                valueCut.single(
                    KeyFormatter(changeset.key).format(change.keyInOld, selfKeyed: change.keyedBySelf, occurrence: change.occurrence)))
            let old = "% \(was) \(at(change.old))", new = "% \(key) \(at(change.new))"
            let fields = change.fieldsBesideKey(changeset.key)
            if fields.isEmpty { return [.sides([Span(old, .magenta)], [Span(new, .magenta)])] }
            return fieldRows(old: old, new: new, fields)
        }
    }

    /// The rows of a section's own change.
    func rows(_ op: SectionChange) -> [Row] {
        let name = SafeText.escape(valueCut.value(op.name))
        switch op.operation {
        case .delete: return [.sides([Span("-§ \(name) #\(op.old ?? 0)", .red)], nil)]
        case .insert:
            let header = op.value.map { " " + SafeText.escape(valueCut.value($0)) } ?? ""
            return [.sides(nil, [Span("+§ \(name) #\(op.new ?? 0)\(header)", .green)])]
        case .move: return [.sides([Span(">§ \(name) #\(op.old ?? 0)", .cyan)], [Span(">§ \(name) #\(op.new ?? 0)", .cyan)])]
        case .update: return fieldRows(old: "~§ \(name) #\(op.old ?? 0)", new: "~§ \(name) #\(op.new ?? 0)", op.fields)
        case .rename: return []  // (sections are never renamed)
        }
    }

    /// An update: a heading row, then one row per field.
    func fieldRows(old: String, new: String, _ fields: [FieldChange]) -> [Row] {
        // No field: only the order of members changed (under `--member-order significant`).
        if fields.isEmpty { return [.sides([Span(old + " (member order)", .yellow)], [Span(new + " (member order)", .yellow)])] }
        var rows: [Row] = [.sides([Span(old, .yellow)], [Span(new, .yellow)])]
        for field in fields {
            let place = "  " + (field.readablePath.isEmpty ? "(record)" : SafeText.escape(field.readablePath)) + ": "
            if let (a, b) = field.movedIndexes {
                rows.append(.sides([Span(place), Span("moved from #\(a)", .cyan)], [Span(place), Span("moved to #\(b)", .cyan)]))
                continue
            }
            if field.added != nil || field.removed != nil {
                // An array compared as a multiset: what it lost on the left, what it gained on the right.
                func list(_ values: [Value]?, _ word: String, _ color: TextStyle.Color) -> [Span]? {
                    guard let values, !values.isEmpty else { return nil }
                    return [Span(place), Span(word + values.map { SafeText.escape(valueCut.value($0)) }.joined(separator: ", "), color)]
                }
                rows.append(.sides(list(field.removed, "removed ", .red), list(field.added, "added ", .green)))
                continue
            }
            let (a, b) = valueCut.values(field.old, field.new)
            let (old, new) = (SafeText.escape(a), SafeText.escape(b))
            switch (field.old, field.new) {
            case (nil, _): rows.append(.sides(nil, [Span(place), Span(new, .green)]))
            case (_, nil): rows.append(.sides([Span(place), Span(old, .red)], nil))
            default:
                // The words that changed, found in the values as shown (cut and escaped).
                let words = WordDiff(old: old, new: new)
                let gone = style.marked(old, words.old, .red, open: "[-", close: "-]").map { Span($0.text, $0.colors) }
                let come = style.marked(new, words.new, .green, open: "{+", close: "+}").map { Span($0.text, $0.colors) }
                rows.append(.sides([Span(place)] + gone, [Span(place)] + come))
            }
        }
        return rows
    }

    /// A run of text in one style.
    struct Span {
        var text: String
        var colors: [TextStyle.Color]

        init(_ text: String, _ colors: [TextStyle.Color] = []) {
            self.text = text
            self.colors = colors
        }

        init(_ text: String, _ color: TextStyle.Color) { self.init(text, [color]) }
    }

    /// A line of output before it is fitted: across the page, or OLD's side and NEW's (nil:
    /// nothing on that side).
    enum Row {
        case full([Span])
        case sides([Span]?, [Span]?)
    }

    /// The page: its width, its columns, and how rows are wrapped and painted on it.
    struct Page {
        /// The page's width, at least 20 cells.
        let width: Int
        let style: TextStyle
        /// Whether the sides stand in two columns (or one under the other).
        let twoColumns: Bool
        /// The widths of the two columns, around the three cells of ` | `.
        let left: Int, right: Int
        /// How far the further lines of a wrapped row are indented.
        static let indent = 4

        init(width: Int, style: TextStyle) {
            self.width = max(width, 20)
            self.style = style
            twoColumns = width >= SideBySideRenderer.minimumWidth
            left = (self.width - 3) / 2
            right = self.width - 3 - left
        }

        func write(_ row: Row, to out: inout some TextOutputStream) {
            switch row {
            case .full(let spans):
                for line in Self.wrap(spans, width: width) { out.write(paint(line.spans) + "\n") }
            case .sides(let old, let new):
                guard twoColumns else {
                    for line in old.map({ Self.wrap($0, width: width - 2) }) ?? [] { out.write("< " + paint(line.spans) + "\n") }
                    for line in new.map({ Self.wrap($0, width: width - 2) }) ?? [] { out.write("> " + paint(line.spans) + "\n") }
                    return
                }
                let gutter = old == nil ? ">" : new == nil ? "<" : "|"
                let a = old.map { Self.wrap($0, width: left) } ?? [], b = new.map { Self.wrap($0, width: right) } ?? []
                for i in 0..<max(a.count, b.count) {
                    var text = i < a.count ? paint(a[i].spans) : ""
                    text += String(repeating: " ", count: left - (i < a.count ? a[i].width : 0)) + " " + gutter
                    if i < b.count { text += " " + paint(b[i].spans) }
                    out.write(text + "\n")
                }
            }
        }

        func paint(_ spans: [Span]) -> String {
            var text = ""
            for span in spans { text += style.paint(span.text, span.colors) }
            return text
        }

        /// `spans` broken into lines of at most `width` cells, after a space when there is
        /// one in the last third of the line, else between characters; each further line
        /// indented. Each line comes with the cells it takes.
        static func wrap(_ spans: [Span], width: Int) -> [(spans: [Span], width: Int)] {
            var characters: [(character: Character, cells: Int, span: Int)] = []
            for (k, span) in spans.enumerated() {
                for character in span.text { characters.append((character, DisplayWidth.of(character), k)) }
            }
            var lines: [(spans: [Span], width: Int)] = []
            func line(_ part: ArraySlice<(character: Character, cells: Int, span: Int)>) {
                var line: (spans: [Span], width: Int) = lines.isEmpty ? ([], 0) : ([Span(String(repeating: " ", count: indent))], indent)
                for c in part {
                    if let last = line.spans.last, last.colors == spans[c.span].colors {
                        line.spans[line.spans.count - 1].text.append(c.character)
                    } else {
                        line.spans.append(Span(String(c.character), spans[c.span].colors))
                    }
                    line.width += c.cells
                }
                lines.append(line)
            }
            var start = 0, used = 0, i = 0
            // The last space on the line, and the cells the line takes up to it.
            var space: (at: Int, cells: Int)? = nil
            while i < characters.count {
                if used + characters[i].cells > width, i > start {
                    var end = i
                    if let space, used - space.cells <= width / 3 { end = space.at + 1 }
                    line(characters[start..<end])
                    start = end
                    used = indent + characters[start..<i].reduce(0) { $0 + $1.cells }
                    space = nil
                    continue
                }
                used += characters[i].cells
                if characters[i].character == " ", used > indent + 1 { space = (i, used) }
                i += 1
            }
            line(characters[start...])
            return lines
        }
    }
}
