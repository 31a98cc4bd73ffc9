/// Follows a YAML text line by line, as far as a cut between records needs: whether a line
/// that starts at the left margin starts there in block context, outside every quoted
/// scalar, flow collection, block scalar and plain scalar.
///
/// A quoted scalar or a flow collection may go on at the margin, where a line can look like
/// the start of a record (`- a"` or `b: 1]`). The tracker mirrors libyaml's scanner on the
/// points that decide it: which character starts a token, where a plain scalar, a quoted
/// scalar, a flow collection and a block scalar end, and the columns of the open block
/// collections, which say how far a plain or block scalar goes. It checks nothing else;
/// the reader of each chunk does.
struct YAMLLineTracker {
    /// The columns of the open block collections, innermost last (libyaml's indents).
    private var indents: [Int] = []
    /// The quote of a quoted scalar that goes on to the next line.
    private var quote: UInt8? = nil
    /// How deep the text is in flow collections.
    private var flowDepth = 0
    /// In a flow collection: whether a plain scalar is being read (a quote in it is text).
    private var flowPlain = false
    /// A plain scalar in block context that may go on: the column of the collection that
    /// holds it, which its next lines must pass.
    private var plainParent: Int? = nil
    /// A block scalar that goes on: the least column its lines can have, and (once its
    /// first line with text sets it) the column they have.
    private var blockLeast: Int? = nil
    private var blockIndent: Int? = nil

    /// Whether a line that starts with text at the left margin starts in block context,
    /// outside every scalar and collection. (Such a line ends a block scalar, and a plain
    /// scalar inside a collection.)
    var outsideAtMargin: Bool { outside(at: 0) }

    /// Whether a line whose text starts at `column` starts in block context, outside every
    /// scalar and collection.
    func outside(at column: Int) -> Bool {
        guard quote == nil, flowDepth == 0, (plainParent ?? column) >= column else { return false }
        if let least = blockLeast { return column < (blockIndent ?? least) }
        return true
    }

    /// Follows the text `b[start..<end]` of a line that ends with `\n` (or the text's end).
    /// libyaml breaks lines at a lone `\r`, U+0085, U+2028 and U+2029 too: each part is a
    /// line of its own.
    mutating func lines(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        var from = start
        var i = start
        while i < end {
            let length = LineBreaks.yaml.otherBreak(in: b, at: i, end: b.count)
            if length > 0 {
                line(b, from, i)
                from = i + length
                i = from
            } else {
                i += 1
            }
        }
        line(b, from, end)
    }

    /// Follows the line `b[start..<end]` (without its line break).
    private mutating func line(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        var i = start
        while i < end, b[i] == 0x20 { i += 1 }
        let indent = i - start
        var text = i
        while text < end, Self.isBlank(b[text]) { text += 1 }
        let blank = text == end
        if let least = blockLeast {
            // (A block scalar holds blank lines, and lines at its column or past it.)
            if blank { return }
            if let column = blockIndent {
                if indent >= column { return }
            } else if indent >= least {
                blockIndent = indent
                return
            }
            blockLeast = nil
            blockIndent = nil
        }
        if quote != nil || flowDepth > 0 {
            // (Inside a quoted scalar or a flow collection, indentation means nothing.)
            i = start
            if let open = quote {
                i = quoted(b, i, end, open)
                if quote != nil { return }
                if flowDepth == 0 {
                    block(b, start, i, end)
                    return
                }
            }
            i = flow(b, start, i, end)
            if flowDepth == 0 { block(b, start, i, end) }
            return
        }
        if let parent = plainParent {
            if blank { return }
            let marker = indent == 0 && Self.isMarker(b, i, end)
            if b[i] != UInt8(ascii: "#"), indent > parent, !marker {
                // The plain scalar goes on; a comment ends it.
                var j = i
                while j < end {
                    if b[j] == UInt8(ascii: "#"), Self.isBlank(b[j - 1]) {
                        plainParent = nil
                        return
                    }
                    j += 1
                }
                return
            }
            plainParent = nil
        }
        block(b, start, i, end)
    }

    /// Follows the tokens of a line in block context, from `i`.
    private mutating func block(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ from: Int, _ end: Int) {
        var i = from
        // The column of the first token of a key (its anchor or tag, if any), which a
        // mapping's `:` opens a collection at.
        var keyColumn: Int? = nil
        while true {
            while i < end, Self.isBlank(b[i]) { i += 1 }
            guard i < end else { return }
            let column = i - start
            unroll(to: column)
            let c = b[i]
            let spaced = i + 1 == end || Self.isBlank(b[i + 1])
            switch c {
            case UInt8(ascii: "#"):
                return
            case UInt8(ascii: "-") where column == 0 && Self.isMarker(b, i, end):
                // `---` starts a document; `...` ends one (only a comment may follow).
                indents = []
                i += 3
            case UInt8(ascii: ".") where column == 0 && Self.isMarker(b, i, end):
                indents = []
                return
            case UInt8(ascii: "%") where column == 0:
                return
            case UInt8(ascii: "-") where spaced, UInt8(ascii: "?") where spaced:
                roll(to: column)
                keyColumn = nil
                i += 1
            case UInt8(ascii: ":") where spaced:
                roll(to: keyColumn ?? column)
                keyColumn = nil
                i += 1
            case UInt8(ascii: "&"), UInt8(ascii: "!"), UInt8(ascii: "*"):
                if keyColumn == nil { keyColumn = column }
                while i < end, !Self.isBlank(b[i]) { i += 1 }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                if keyColumn == nil { keyColumn = column }
                quote = c
                i = quoted(b, i + 1, end, c)
                if quote != nil { return }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if keyColumn == nil { keyColumn = column }
                flowDepth = 1
                flowPlain = false
                i = flow(b, start, i + 1, end)
                if flowDepth > 0 { return }
            case UInt8(ascii: "|"), UInt8(ascii: ">"):
                // A block scalar: its lines follow this one. An indentation indicator sets
                // their column; else the first line with text does, past the collection's.
                let parent = indents.last ?? -1
                var j = i + 1
                var explicit: Int? = nil
                while j < end, !Self.isBlank(b[j]) {
                    if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(b[j]) { explicit = Int(b[j] - UInt8(ascii: "0")) }
                    j += 1
                }
                if let explicit {
                    blockLeast = max(parent, 0) + explicit
                    blockIndent = blockLeast
                } else {
                    blockLeast = max(parent + 1, 1)
                    blockIndent = nil
                }
                return
            default:
                // A plain scalar: a key when `:` and a space follow it on the line; else a
                // value, which a comment ends, and which may go on to the next lines.
                if keyColumn == nil { keyColumn = column }
                var j = i + 1
                while j < end {
                    if b[j] == UInt8(ascii: ":"), j + 1 == end || Self.isBlank(b[j + 1]) { break }
                    if b[j] == UInt8(ascii: "#"), Self.isBlank(b[j - 1]) { return }
                    j += 1
                }
                if j == end {
                    plainParent = indents.last ?? -1
                    return
                }
                i = j
            }
        }
    }

    /// Follows a flow collection from `i` to where it closes (or the line's end).
    private mutating func flow(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ from: Int, _ end: Int) -> Int {
        var i = from
        while i < end {
            if let open = quote {
                i = quoted(b, i, end, open)
                if quote != nil { return end }
                flowPlain = false
                continue
            }
            let c = b[i]
            let next = i + 1 < end ? b[i + 1] : 0x0A
            let ends = Self.isBlank(next) || Self.isFlowIndicator(next)
            switch c {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                flowDepth += 1
                flowPlain = false
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                flowDepth -= 1
                flowPlain = false
                if flowDepth == 0 { return i + 1 }
            case UInt8(ascii: ","):
                flowPlain = false
            case 0x20, 0x09, 0x0D:
                break
            case UInt8(ascii: "#") where !flowPlain || i == start || Self.isBlank(b[i - 1]):
                // (At a token's start, or after a space: a comment.)
                flowPlain = false
                return end
            case UInt8(ascii: "\"") where !flowPlain, UInt8(ascii: "'") where !flowPlain:
                quote = c
            case UInt8(ascii: ":") where !flowPlain || ends, UInt8(ascii: "?") where !flowPlain,
                UInt8(ascii: "-") where !flowPlain && ends:
                flowPlain = false
            case UInt8(ascii: "&") where !flowPlain, UInt8(ascii: "!") where !flowPlain, UInt8(ascii: "*") where !flowPlain:
                // (An anchor, a tag or an alias ends at a space or a flow indicator.)
                while i + 1 < end, !Self.isBlank(b[i + 1]), !Self.isFlowIndicator(b[i + 1]) { i += 1 }
            default:
                flowPlain = true
            }
            i += 1
        }
        return end
    }

    /// Follows a quoted scalar from `i` (past its opening quote) to its closing quote, and
    /// returns where it ends, or the line's end when it goes on.
    private mutating func quoted(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ end: Int, _ q: UInt8) -> Int {
        var i = from
        while i < end {
            let c = b[i]
            if q == UInt8(ascii: "'"), c == q {
                // (Two single quotes are one quote in the text.)
                if i + 1 < end, b[i + 1] == q {
                    i += 2
                    continue
                }
                quote = nil
                return i + 1
            }
            if q == UInt8(ascii: "\"") {
                if c == UInt8(ascii: "\\") {
                    i += 2
                    continue
                }
                if c == q {
                    quote = nil
                    return i + 1
                }
            }
            i += 1
        }
        return end
    }

    /// Closes the block collections that a token at `column` is outside.
    private mutating func unroll(to column: Int) {
        guard flowDepth == 0 else { return }
        while let last = indents.last, last > column { indents.removeLast() }
    }

    /// Opens a block collection at `column`, unless one is open there.
    private mutating func roll(to column: Int) {
        if (indents.last ?? -1) < column { indents.append(column) }
    }

    private static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }

    private static func isFlowIndicator(_ c: UInt8) -> Bool {
        c == UInt8(ascii: ",") || c == UInt8(ascii: "[") || c == UInt8(ascii: "]") || c == UInt8(ascii: "{")
            || c == UInt8(ascii: "}")
    }

    /// Whether `b[i..<end]` starts with `---` or `...` and a space or the line's end.
    private static func isMarker(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> Bool {
        guard i + 3 <= end, b[i] == b[i + 1], b[i] == b[i + 2], b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: ".")
        else { return false }
        return i + 3 == end || isBlank(b[i + 3])
    }
}
