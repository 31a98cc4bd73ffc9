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
        case red = "31", green = "32", yellow = "33", magenta = "35", cyan = "36", bold = "1", dim = "2", reverse = "7"
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
    /// `close`. Nothing is marked when no letter or digit is left unchanged (`"a"` for `"b"`,
    /// `1` for `2`): all of it changed, and the colour says so already.
    package func marked(
        _ text: String, _ changed: [Range<String.Index>], _ color: Color, open: String = "", close: String = ""
    ) -> [(text: String, colors: [Color])] {
        var runs: [(text: String, changed: Bool)] = []
        var at = text.startIndex
        for part in changed where !part.isEmpty {
            if at < part.lowerBound { runs.append((String(text[at..<part.lowerBound]), false)) }
            runs.append((String(text[part]), true))
            at = part.upperBound
        }
        if at < text.endIndex { runs.append((String(text[at...]), false)) }
        let kept = runs.contains { !$0.changed && $0.text.contains { $0.isLetter || $0.isNumber } }
        guard kept, runs.contains(where: \.changed) else { return [(text, [color])] }
        return runs.map { run in
            guard run.changed else { return (run.text, [color]) }
            return colored ? (run.text, [color, .reverse]) : (open + run.text + close, [color])
        }
    }
}
