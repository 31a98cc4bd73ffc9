/// Writes a changeset somewhere. Renderers never decide about terminals: colour comes in as a `TextStyle`.
public protocol ChangesetRenderer {
    /// Writes `changeset` to `out`.
    ///
    /// - Throws: when a change's record cannot be read. A change from a file may hold only
    ///   its record's text, read when the change is written (the file may have changed since).
    func render(_ changeset: Changeset, to out: inout some TextOutputStream) throws(ListDiffError)
}

/// What a renderer needs to know about the inputs beyond the changeset itself.
public struct RenderContext: Sendable {
    /// Display names of the inputs (`-` for standard input).
    public var oldName: String
    /// How NEW is named in the output.
    public var newName: String

    /// The names of both inputs.
    public init(oldName: String, newName: String) {
        self.oldName = oldName
        self.newName = newName
    }
}

/// Colours for human output: ANSI escapes, or nothing.
public struct TextStyle: Sendable {
    package enum Color: String, Sendable {
        case red = "31", green = "32", yellow = "33", cyan = "36", bold = "1", dim = "2", reverse = "7"
    }

    /// Whether the output is coloured with ANSI escapes.
    public let colored: Bool

    /// No colour.
    public static let plain = TextStyle(colored: false)
    /// ANSI colours, for a terminal.
    public static let ansi = TextStyle(colored: true)

    /// Colour, or none.
    public init(colored: Bool) {
        self.colored = colored
    }

    package func paint(_ text: String, _ color: Color) -> String {
        colored ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// `text` in all of `colors` at once (none: as it is).
    package func paint(_ text: String, _ colors: [Color]) -> String {
        guard colored, !colors.isEmpty else { return text }
        return "\u{1B}[\(colors.map(\.rawValue).joined(separator: ";"))m\(text)\u{1B}[0m"
    }

    /// `text` in `color` as runs of text and their colours, the `changed` parts (ranges of
    /// `text` in order) in reverse too; without colour, each changed part between `open` and
    /// `close`. Nothing is marked when all of it changed: the colour says so already.
    package func marked(
        _ text: String, _ changed: [Range<String.Index>], _ color: Color, open: String = "", close: String = ""
    ) -> [(text: String, colors: [Color])] {
        if changed.isEmpty || changed == [text.startIndex..<text.endIndex] { return [(text, [color])] }
        var runs: [(text: String, colors: [Color])] = []
        var at = text.startIndex
        for part in changed where !part.isEmpty {
            if at < part.lowerBound { runs.append((String(text[at..<part.lowerBound]), [color])) }
            runs.append(colored ? (String(text[part]), [color, .reverse]) : (open + text[part] + close, [color]))
            at = part.upperBound
        }
        if at < text.endIndex { runs.append((String(text[at...]), [color])) }
        return runs
    }
}
