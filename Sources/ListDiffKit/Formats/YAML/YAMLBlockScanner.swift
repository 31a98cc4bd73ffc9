/// Where the YAML walk (`YAMLScanState`) takes its events from.
enum YAMLParsing: Sendable {
    /// listdiff's own scanner first; libyaml, from the start, if the input is outside it.
    case auto
    /// listdiff's own scanner alone: any input outside its subset is an error.
    case own
    /// libyaml alone.
    case libyaml
}

/// What takes the events of a YAML stream, one at a time.
protocol YAMLEventSink {
    /// Takes one event; true when no more are wanted.
    mutating func take(_ event: YAMLRawEvent) throws(ListDiffError) -> Bool

    /// A node begins at byte `offset`, at `column`, as an element of a block sequence: the
    /// length of the bytes the sink takes whole as that node (a record found again, byte for
    /// byte), whose events are then not sent; or nil, and the node is read.
    mutating func copied(at offset: Int, column: Int) -> Int?
}

extension YAMLEventSink {
    mutating func copied(at offset: Int, column: Int) -> Int? { nil }
}

/// listdiff's own scanner of block-style YAML, as dumpers and Kubernetes tools write it. It
/// gives the events libyaml gives for the same bytes, with the same marks (character index,
/// line, column), so that the one walk of events (`YAMLScanState`) reads them alike.
///
/// It reads block mappings and sequences (the `- ` entries of a list may stand at the column
/// of their parent's key), plain scalars (a key on one line, a value over several), single-
/// and double-quoted scalars on one line, literal and folded block scalars, flow collections
/// on one line as values, comments, and `---` and `...` markers. Anything else (anchors,
/// aliases, tags, directives, flow collections or quoted scalars over several lines, tabs,
/// carriage returns, complex keys, and every error) is outside: it throws `outside`, and
/// the caller reads the whole input with libyaml instead.
struct YAMLBlockScanner {
    typealias Mark = (index: Int, line: Int, column: Int)

    /// The error that sends an input to libyaml; never shown.
    static let outside = ListDiffError(.syntax, "outside the block-style subset of listdiff's own YAML scanner")

    /// `outside`, naming where the scanner stopped (for debugging the scanner).
    func outside(_ at: Int = #line) -> ListDiffError {
        ListDiffError(.syntax, "outside the block-style subset of listdiff's own YAML scanner (byte \(pos), scanner line \(at))")
    }

    enum Kind { case mapping, sequence, indentless }

    /// An open block collection: a mapping at the column of its keys, a sequence at the column
    /// of its `-`, or an indentless sequence at the column of its parent mapping's keys.
    struct Context {
        var kind: Kind
        var indent: Int
    }

    /// A scalar as it was found.
    struct Scalar {
        var start: Mark
        var end: Mark
        /// Where its text is: in the input, or (`decoded`) in `scratch`.
        var from: Int
        var count: Int
        var decoded: Bool
        var plain: Bool
    }

    let base: UnsafePointer<UInt8>
    let n: Int
    /// Whether every byte is ASCII: then a character index is a byte offset.
    let ascii: Bool
    var pos = 0
    /// The 0-based line of `pos`, where that line starts, and its character index.
    var line = 0
    var lineStart = 0
    var lineStartIndex = 0
    /// Continuation bytes before `counted` (for inputs that are not all ASCII).
    var counted = 0
    var continuations = 0
    var stack: [Context] = []
    var finished = false
    /// Decoded text of a quoted scalar with escapes.
    var scratch: [UInt8] = []

    /// A scanner of `bytes`; throws `outside` for bytes libyaml refuses or reads otherwise
    /// (control characters, tabs, carriage returns, invalid UTF-8, line breaks and byte order
    /// marks outside ASCII).
    /// `ascii`: what `validate` found for these bytes, when the caller checked them already.
    init(bytes: UnsafeBufferPointer<UInt8>, ascii: Bool? = nil) throws(ListDiffError) {
        base = bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!
        n = bytes.count
        if let ascii {
            self.ascii = ascii
        } else {
            self.ascii = try Self.validate(base, n)
        }
    }

    // MARK: - Bytes

    /// `validate` in two halves at once when `parts` is more than one, split at the start
    /// of a character.
    static func validate(_ base: UnsafePointer<UInt8>, _ n: Int, parts: Int) throws(ListDiffError) -> Bool {
        guard parts > 1, n >= 2 else { return try validate(base, n) }
        var half = n / 2
        while half < n, base[half] & 0xC0 == 0x80 { half += 1 }
        nonisolated(unsafe) let start = base
        let middle = half
        let (a, b) = Concurrently.both(
            { () throws(ListDiffError) -> Bool in try validate(start, middle) },
            { () throws(ListDiffError) -> Bool in try validate(start + middle, n - middle) })
        let first = try a.get()
        let second = try b.get()
        return first && second
    }

    /// Checks every byte; true when all are ASCII.
    static func validate(_ base: UnsafePointer<UInt8>, _ n: Int) throws(ListDiffError) -> Bool {
        var i = 0
        var ascii = true
        let raw = UnsafeRawPointer(base)
        while i < n {
            if i + 8 <= n {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if w & 0x8080_8080_8080_8080 == 0 {
                    // High bits where a byte is below 0x20, is 0x7F, or is a line feed.
                    let low = ~(w &+ 0x6060_6060_6060_6060) & 0x8080_8080_8080_8080
                    let del = ~((w ^ 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) & 0x8080_8080_8080_8080
                    let feed = ~((w ^ 0x0A0A_0A0A_0A0A_0A0A) &+ 0x7F7F_7F7F_7F7F_7F7F) & 0x8080_8080_8080_8080
                    if (low & ~feed) | del == 0 {
                        i += 8
                        continue
                    }
                }
            }
            let b = base[i]
            if b < 0x80 {
                guard b >= 0x20 && b != 0x7F || b == 0x0A else { throw outside }
                i += 1
                continue
            }
            ascii = false
            i += try character(base, i, n)
        }
        return ascii
    }

    /// The length of the UTF-8 character at `i` (not ASCII), refusing what libyaml refuses or
    /// reads as a break or a byte order mark: code points below U+00A0, surrogates, U+2028,
    /// U+2029, U+FEFF, U+FFFE and U+FFFF.
    static func character(_ base: UnsafePointer<UInt8>, _ i: Int, _ n: Int) throws(ListDiffError) -> Int {
        let b = base[i]
        func next(_ k: Int) throws(ListDiffError) -> UInt32 {
            guard i + k < n, base[i + k] & 0xC0 == 0x80 else { throw outside }
            return UInt32(base[i + k] & 0x3F)
        }
        let length: Int
        var code: UInt32
        switch b {
        case 0xC2...0xDF:
            length = 2
            code = UInt32(b & 0x1F) << 6 | (try next(1))
            guard code >= 0xA0 else { throw outside }
        case 0xE0...0xEF:
            length = 3
            code = UInt32(b & 0x0F) << 12 | (try next(1)) << 6 | (try next(2))
            guard code >= 0x800, !(0xD800...0xDFFF).contains(code), code != 0x2028, code != 0x2029, code != 0xFEFF, code < 0xFFFE
            else { throw outside }
        case 0xF0...0xF4:
            length = 4
            code = UInt32(b & 0x07) << 18 | (try next(1)) << 12 | (try next(2)) << 6 | (try next(3))
            guard code >= 0x10000, code <= 0x10FFFF else { throw outside }
        default:
            throw outside
        }
        return length
    }

    /// The byte at `i`, or 0 past the end (the input has no NUL: `validate`).
    @inline(__always) func byte(_ i: Int) -> UInt8 { i < n ? base[i] : 0 }

    /// A space, a line feed or the end.
    @inline(__always) func blankOrEnd(_ i: Int) -> Bool {
        let b = byte(i)
        return b == 0x20 || b == 0x0A || b == 0
    }

    /// Whether `---` (`marker` `-`) or `...` stands at `i`, at the start of a line.
    @inline(__always) func isMarker(_ i: Int, _ marker: UInt8) -> Bool {
        i == lineStart && byte(i) == marker && byte(i + 1) == marker && byte(i + 2) == marker && blankOrEnd(i + 3)
    }

    /// A `- ` entry at `i`.
    @inline(__always) func isEntry(_ i: Int) -> Bool { byte(i) == UInt8(ascii: "-") && blankOrEnd(i + 1) }

    /// The end of the input, or a document marker: what ends every open collection.
    @inline(__always) func atDocumentEnd() -> Bool {
        pos >= n || isMarker(pos, UInt8(ascii: "-")) || isMarker(pos, UInt8(ascii: "."))
    }

    /// The character index of byte `p` (at or after the last asked).
    @inline(__always) mutating func index(_ p: Int) -> Int {
        if ascii { return p }
        while counted < p {
            if base[counted] & 0xC0 == 0x80 { continuations += 1 }
            counted += 1
        }
        return p - continuations
    }

    /// The mark of byte `p` on the current line.
    @inline(__always) mutating func mark(_ p: Int) -> Mark {
        let i = index(p)
        return (i, line, i - lineStartIndex)
    }

    /// The mark at the end of the input, as libyaml gives it: on a new line if the last one
    /// is not ended.
    mutating func endMark() -> Mark {
        var m = mark(n)
        if m.column != 0 {
            m.line += 1
            m.column = 0
        }
        return m
    }

    /// The mark at the end of the input where a collection at `indent` ends: libyaml ends
    /// those right of the last line's column there, and the rest on a new line.
    mutating func closingMark(_ indent: Int) -> Mark {
        let raw = mark(n)
        return indent > raw.column ? raw : endMark()
    }

    /// The mark of the next token: its byte, or the end.
    mutating func tokenMark() -> Mark { pos >= n ? endMark() : mark(pos) }

    /// Past the line feed at `p`.
    @inline(__always) mutating func newLine(after p: Int) {
        line += 1
        lineStart = p + 1
        lineStartIndex = index(p + 1)
    }

    /// The end of the line from `p`: its line feed, or the end of the input.
    @inline(__always) func endOfLine(_ p: Int) -> Int {
        guard p < n, let found = SystemCalls.find(0x0A, in: base + p, count: n - p) else { return n }
        return found - UnsafeRawPointer(base)
    }

    /// Past the bytes up to `end`, taken whole by the sink: their lines counted.
    mutating func skip(to end: Int) {
        var breaks = 0
        var last = -1
        var p = pos
        let raw = UnsafeRawPointer(base)
        while p + 8 <= end {
            // High bits where a byte is a line feed.
            let w = raw.loadUnaligned(fromByteOffset: p, as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A
            let feeds = ~(((w & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | w) & 0x8080_8080_8080_8080
            if feeds != 0 {
                breaks += feeds.nonzeroBitCount
                last = p + (63 - feeds.leadingZeroBitCount) / 8
            }
            p += 8
        }
        while p < end {
            if base[p] == 0x0A {
                breaks += 1
                last = p
            }
            p += 1
        }
        if breaks > 0 {
            line += breaks - 1
            newLine(after: last)
        }
        pos = end
    }

    /// Skips spaces, comments and line breaks to the next token.
    mutating func skipToToken() {
        while true {
            while byte(pos) == 0x20 { pos += 1 }
            let b = byte(pos)
            if b == UInt8(ascii: "#") {
                pos = endOfLine(pos)
            } else if b == 0x0A {
                newLine(after: pos)
                pos += 1
            } else {
                return
            }
        }
    }

    /// After a document marker: nothing more on its line but a comment.
    mutating func restOfMarkerLine() throws(ListDiffError) {
        let from = pos
        while byte(pos) == 0x20 { pos += 1 }
        if byte(pos) == UInt8(ascii: "#"), pos > from { pos = endOfLine(pos) }
        guard pos >= n || byte(pos) == 0x0A else { throw outside() }
        skipToToken()
    }

    // MARK: - Events

    mutating func emit<S: YAMLEventSink>(_ kind: YAMLRawEvent.Kind, _ start: Mark, _ end: Mark, into sink: inout S) throws(ListDiffError) {
        if finished { return }
        if try sink.take(YAMLRawEvent(kind: kind, start: start, end: end)) { finished = true }
    }

    mutating func emit<S: YAMLEventSink>(_ scalar: Scalar, into sink: inout S) throws(ListDiffError) {
        if finished { return }
        var event = YAMLRawEvent(kind: .scalar, start: scalar.start, end: scalar.end)
        event.plain = scalar.plain
        if scalar.decoded {
            let stop = try scratch.withUnsafeBufferPointer { (bytes: UnsafeBufferPointer<UInt8>) throws(ListDiffError) -> Bool in
                event.value = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[scalar.from..<scalar.from + scalar.count])
                return try sink.take(event)
            }
            if stop { finished = true }
        } else {
            event.value = UnsafeRawBufferPointer(start: base + scalar.from, count: scalar.count)
            if try sink.take(event) { finished = true }
        }
    }

    /// An empty plain scalar (null) at `at`.
    mutating func emitEmpty<S: YAMLEventSink>(_ at: Mark, into sink: inout S) throws(ListDiffError) {
        try emit(Scalar(start: at, end: at, from: 0, count: 0, decoded: false, plain: true), into: &sink)
    }

    // MARK: - The stream

    /// Reads the whole input into `sink`, or until it wants no more; throws `outside` at the
    /// first construct outside the subset, and whatever the sink throws.
    mutating func run<S: YAMLEventSink>(into sink: inout S) throws(ListDiffError) {
        let zero: Mark = (0, 0, 0)
        try emit(.streamStart, zero, zero, into: &sink)
        skipToToken()
        var first = true
        while !finished {
            if pos >= n {
                let end = endMark()
                try emit(.streamEnd, end, end, into: &sink)
                return
            }
            if pos == lineStart, byte(pos) == UInt8(ascii: "%") { throw outside() }
            var explicit = false
            if isMarker(pos, UInt8(ascii: "-")) {
                let start = mark(pos)
                pos += 3
                let end = mark(pos)
                try restOfMarkerLine()
                try emit(.documentStart, start, end, into: &sink)
                explicit = true
            } else if !first || isMarker(pos, UInt8(ascii: ".")) {
                // (libyaml wants `---` before a second document, and content before `...`.)
                throw outside()
            } else {
                let at = mark(pos)
                try emit(.documentStart, at, at, into: &sink)
            }
            first = false
            if explicit, atDocumentEnd() {
                try emitEmpty(tokenMark(), into: &sink)
            } else {
                try document(into: &sink)
            }
            if finished { return }
            guard atDocumentEnd() else { throw outside() }
            let start = tokenMark()
            var end = start
            if isMarker(pos, UInt8(ascii: ".")) {
                pos += 3
                end = mark(pos)
                try restOfMarkerLine()
                // libyaml's event ends at the first `...`: it skips any more before the next
                // document.
                while isMarker(pos, UInt8(ascii: ".")) {
                    pos += 3
                    try restOfMarkerLine()
                }
            }
            if pos == lineStart, byte(pos) == UInt8(ascii: "%") { throw outside() }
            try emit(.documentEnd, start, end, into: &sink)
        }
    }

    /// The indentation libyaml measures against: the innermost mapping's or sequence's
    /// column (an indentless sequence's is its mapping's), or -1.
    var indent: Int { stack.last?.indent ?? -1 }

    /// One document's root node, from its first token to the token after it.
    mutating func document<S: YAMLEventSink>(into sink: inout S) throws(ListDiffError) {
        var expectsNode = true
        empty = tokenMark()
        sameLine = false
        while !finished {
            if expectsNode {
                expectsNode = try node(into: &sink)
                continue
            }
            // After a node: the next token decides.
            guard let top = stack.last else { return }
            let c = pos - lineStart
            if atDocumentEnd() || c < top.indent {
                let at = pos >= n ? closingMark(top.indent) : mark(pos)
                try emit(top.kind == .mapping ? .mappingEnd : .sequenceEnd, at, at, into: &sink)
                stack.removeLast()
                continue
            }
            guard c == top.indent else { throw outside() }
            switch top.kind {
            case .mapping:
                guard !isEntry(pos), let key = try scalar(), key.isKey else { throw outside() }
                try emit(key.scalar, into: &sink)
                value()
            case .sequence, .indentless:
                if isEntry(pos) {
                    entry()
                } else if top.kind == .indentless {
                    // The parent mapping's next key ends the sequence.
                    let at = mark(pos)
                    try emit(.sequenceEnd, at, at, into: &sink)
                    stack.removeLast()
                    continue
                } else {
                    throw outside()
                }
            }
            expectsNode = true
        }
    }

    /// Where an empty node would stand, and whether the next token is on the line of the
    /// indicator before it (`- ` or `:`).
    var empty: Mark = (0, 0, 0)
    var sameLine = false

    /// Past a `- ` entry's `-`, to the token of its node.
    mutating func entry() {
        pos += 1
        empty = mark(pos)
        let line = self.line
        skipToToken()
        sameLine = line == self.line
    }

    /// Past a key's `:`, to the token of its value.
    mutating func value() {
        entry()
    }

    /// A node expected at the next token (after a `- `, a key's `:`, or a document's start):
    /// a scalar, or the first events of a collection; or an empty scalar at `empty`. True
    /// when a node is expected next (the first entry or value of a collection begun).
    mutating func node<S: YAMLEventSink>(into sink: inout S) throws(ListDiffError) -> Bool {
        let indent = self.indent
        let c = pos - lineStart
        let top = stack.last?.kind
        if atDocumentEnd() || !sameLine && c < indent {
            try emitEmpty(empty, into: &sink)
            return false
        }
        if pos == lineStart, byte(pos) == UInt8(ascii: "%") { throw outside() }
        if !sameLine, c == indent {
            // At the parent's column: only an indentless sequence begins here.
            if top == .mapping, isEntry(pos) {
                let start = mark(pos)
                let end = mark(pos + 1)
                try emit(.sequenceStart, start, end, into: &sink)
                stack.append(Context(kind: .indentless, indent: c))
                entry()
                return true
            }
            guard isEntry(pos) || top != .sequence else { throw outside() }
            try emitEmpty(empty, into: &sink)
            return false
        }
        if top == .sequence || top == .indentless, !finished, let length = sink.copied(at: pos, column: c) {
            skip(to: pos + length)
            return false
        }
        if isEntry(pos) {
            if sameLine, top == .mapping { throw outside() }
            let at = mark(pos)
            try emit(.sequenceStart, at, at, into: &sink)
            stack.append(Context(kind: .sequence, indent: c))
            entry()
            return true
        }
        let b = byte(pos)
        if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
            try flow(into: &sink)
            while byte(pos) == 0x20 { pos += 1 }
            if byte(pos) == UInt8(ascii: "#"), byte(pos - 1) == 0x20 { pos = endOfLine(pos) }
            guard pos >= n || byte(pos) == 0x0A else { throw outside() }
            skipToToken()
            return false
        }
        if b == UInt8(ascii: "|") || b == UInt8(ascii: ">") {
            try emit(try blockScalar(), into: &sink)
            skipToToken()
            return false
        }
        guard let found = try scalar() else { throw outside() }
        if found.isKey {
            if sameLine, top == .mapping { throw outside() }
            try emit(.mappingStart, found.scalar.start, found.scalar.start, into: &sink)
            stack.append(Context(kind: .mapping, indent: c))
            try emit(found.scalar, into: &sink)
            value()
            return true
        }
        var value = found.scalar
        try endOfValue(&value, indent: indent)
        try emit(value, into: &sink)
        skipToToken()
        return false
    }

    /// After a scalar that is a value: nothing more on its line. A plain scalar goes on
    /// past the line break, as libyaml reads it, unless the next line that is not blank
    /// starts with `#`, a document marker, or at or left of `indent`: the lines it goes on
    /// over are folded into `scratch` (one break a space, more breaks all but the first),
    /// and its end mark moves to the end of the last. `pos` is left at the end of its last
    /// line (past a comment there).
    mutating func endOfValue(_ scalar: inout Scalar, indent: Int) throws(ListDiffError) {
        if pos < n, byte(pos) != 0x0A { throw outside() }
        guard scalar.plain, !plainComment else { return }
        var folded = false
        while pos < n {
            var q = pos
            var breaks = 0
            var lineBegin = pos + 1
            while q < n, byte(q) == 0x20 || byte(q) == 0x0A {
                if byte(q) == 0x0A {
                    breaks += 1
                    lineBegin = q + 1
                }
                q += 1
            }
            guard q < n, byte(q) != UInt8(ascii: "#"), q - lineBegin > indent else { break }
            if q == lineBegin, byte(q) == UInt8(ascii: "-") || byte(q) == UInt8(ascii: "."), byte(q + 1) == byte(q),
                byte(q + 2) == byte(q), blankOrEnd(q + 3)
            {
                break
            }
            // A line that goes on with the scalar.
            while pos < q {
                if byte(pos) == 0x0A { newLine(after: pos) }
                pos += 1
            }
            if !folded {
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + scalar.from, count: scalar.count))
                folded = true
            }
            if breaks == 1 {
                scratch.append(0x20)
            } else {
                scratch.append(contentsOf: repeatElement(0x0A, count: breaks - 1))
            }
            var i = pos
            var chunkEnd = pos
            var comment = false
            while true {
                let chunkStart = i
                while true {
                    let c = byte(i)
                    if c == 0x20 || c == 0x0A || i >= n { break }
                    // (A key or a value after a scalar over several lines: libyaml refuses it.)
                    if c == UInt8(ascii: ":"), blankOrEnd(i + 1) { throw outside() }
                    i += 1
                }
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + chunkStart, count: i - chunkStart))
                chunkEnd = i
                var j = i
                while byte(j) == 0x20 { j += 1 }
                if j >= n || byte(j) == 0x0A {
                    i = j
                    break
                }
                if byte(j) == UInt8(ascii: "#") {
                    i = endOfLine(j)
                    comment = true
                    break
                }
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + i, count: j - i))
                i = j
            }
            scalar.end = mark(chunkEnd)
            pos = i
            if comment { break }
        }
        if folded {
            scalar.from = 0
            scalar.count = scratch.count
            scalar.decoded = true
        }
    }

    // MARK: - Scalars

    /// The scalar at `pos` (plain or quoted, on one line), and whether it is a key (a `:` and
    /// a space or break follow it on its line; `pos` is then at the `:`). Otherwise `pos` is
    /// past it and the spaces and comment after it, at the line's end. Nil if no scalar
    /// starts here.
    mutating func scalar() throws(ListDiffError) -> (scalar: Scalar, isKey: Bool)? {
        let b = byte(pos)
        let startPos = pos
        let start = mark(pos)
        var scalar: Scalar
        var end: Int
        switch b {
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            end = try quoted(b)
            scalar = Scalar(start: start, end: mark(end), from: 0, count: 0, decoded: false, plain: false)
            (scalar.from, scalar.count, scalar.decoded) = quotedText
            pos = end
            while byte(pos) == 0x20 { pos += 1 }
            if byte(pos) == UInt8(ascii: ":"), blankOrEnd(pos + 1) {
                guard pos - startPos <= 1024 else { throw outside() }
                return (scalar, true)
            }
            if byte(pos) == UInt8(ascii: "#"), pos > end { pos = endOfLine(pos) }
            return (scalar, false)
        default:
            guard
                Self.startsPlain(b) || (b == UInt8(ascii: "-") || b == UInt8(ascii: "?") || b == UInt8(ascii: ":")) && !blankOrEnd(pos + 1)
            else { return nil }
        }
        // A plain scalar: chunks of non-blank characters, with the spaces between them.
        plainComment = false
        var i = pos
        while true {
            while true {
                let c = byte(i)
                if c == 0x20 || c == 0x0A || i >= n { break }
                if c == UInt8(ascii: ":"), blankOrEnd(i + 1) { break }
                i += 1
            }
            end = i
            while byte(i) == 0x20 { i += 1 }
            let c = byte(i)
            if i >= n || c == 0x0A { break }
            if c == UInt8(ascii: "#"), i > end {
                i = endOfLine(i)
                plainComment = true
                break
            }
            if c == UInt8(ascii: ":"), blankOrEnd(i + 1) {
                scalar = Scalar(start: start, end: mark(end), from: startPos, count: end - startPos, decoded: false, plain: true)
                guard i - startPos <= 1024 else { throw outside() }
                pos = i
                return (scalar, true)
            }
        }
        scalar = Scalar(start: start, end: mark(end), from: startPos, count: end - startPos, decoded: false, plain: true)
        pos = i
        return (scalar, false)
    }

    /// A flow collection on one line at `pos` (its `[` or `{`): sequences of scalars and
    /// flow collections, mappings of scalar keys (each followed by `: `) to them. Anything
    /// more (a line break, an empty entry or value, a trailing comma, a pair in a sequence,
    /// `?`, `#`, a `:` inside a plain scalar) is outside. `pos` is left past its end.
    mutating func flow<S: YAMLEventSink>(into sink: inout S) throws(ListDiffError) {
        var open: [Bool] = []  // (true: a mapping)
        var expectsKey = false
        while true {
            // A node: a collection opens, or a scalar.
            let b = byte(pos)
            if b == UInt8(ascii: "[") || b == UInt8(ascii: "{") {
                guard !expectsKey else { throw outside() }
                let mapping = b == UInt8(ascii: "{")
                try emit(mapping ? .mappingStart : .sequenceStart, mark(pos), mark(pos + 1), into: &sink)
                open.append(mapping)
                pos += 1
                while byte(pos) == 0x20 { pos += 1 }
                if byte(pos) == (mapping ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    // Empty.
                } else {
                    expectsKey = mapping
                    continue
                }
            } else {
                let scalar = try flowScalar()
                try emit(scalar, into: &sink)
                while byte(pos) == 0x20 { pos += 1 }
                if expectsKey {
                    guard byte(pos) == UInt8(ascii: ":"), byte(pos + 1) == 0x20 else { throw outside() }
                    pos += 1
                    while byte(pos) == 0x20 { pos += 1 }
                    expectsKey = false
                    continue
                }
            }
            // After a node: a comma and the next entry, or the ends of collections.
            while true {
                guard let mapping = open.last else { return }
                let b = byte(pos)
                if b == UInt8(ascii: ",") {
                    pos += 1
                    while byte(pos) == 0x20 { pos += 1 }
                    let next = byte(pos)
                    if next == UInt8(ascii: "]") || next == UInt8(ascii: "}") || next == UInt8(ascii: ",") { throw outside() }
                    expectsKey = mapping
                    break
                }
                guard b == (mapping ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { throw outside() }
                try emit(mapping ? .mappingEnd : .sequenceEnd, mark(pos), mark(pos + 1), into: &sink)
                open.removeLast()
                pos += 1
                while byte(pos) == 0x20 { pos += 1 }
            }
        }
    }

    /// A scalar inside a flow collection on one line: quoted, or plain up to a flow
    /// indicator or `: `.
    mutating func flowScalar() throws(ListDiffError) -> Scalar {
        let b = byte(pos)
        let start = mark(pos)
        if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
            let end = try quoted(b)
            var scalar = Scalar(start: start, end: mark(end), from: 0, count: 0, decoded: false, plain: false)
            (scalar.from, scalar.count, scalar.decoded) = quotedText
            pos = end
            return scalar
        }
        func isWord(_ c: UInt8) -> Bool {
            c &- UInt8(ascii: "0") < 10 || (c | 0x20) &- UInt8(ascii: "a") < 26 || c == UInt8(ascii: ".")
        }
        guard Self.startsPlain(b) || b == UInt8(ascii: "-") && isWord(byte(pos + 1)) else { throw outside() }
        let from = pos
        var i = pos
        var end = pos
        while true {
            let c = byte(i)
            switch c {
            case 0, 0x0A, UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"):
                if i >= n || c != 0 {
                    pos = end
                    return Scalar(start: start, end: mark(end), from: from, count: end - from, decoded: false, plain: true)
                }
                throw outside()
            case 0x20:
                i += 1
            case UInt8(ascii: ":"):
                guard byte(i + 1) == 0x20, end > from else { throw outside() }
                pos = end
                return Scalar(start: start, end: mark(end), from: from, count: end - from, decoded: false, plain: true)
            case UInt8(ascii: "#"), UInt8(ascii: "?"):
                throw outside()
            default:
                i += 1
                end = i
            }
        }
    }

    /// A literal (`|`) or folded (`>`) block scalar at `pos`, read as libyaml reads it: its
    /// chomping and indentation indicators, its lines, folded or not, and its end mark at
    /// the start of the line after its last line (blank lines included). `pos` is left at
    /// the first character of the next line that is not an indentation space.
    mutating func blockScalar() throws(ListDiffError) -> Scalar {
        let literal = byte(pos) == UInt8(ascii: "|")
        let start = mark(pos)
        pos += 1
        var chomping = 0
        var increment = 0
        func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }
        for _ in 0..<2 {
            let b = byte(pos)
            if chomping == 0, b == UInt8(ascii: "+") || b == UInt8(ascii: "-") {
                chomping = b == UInt8(ascii: "+") ? 1 : -1
                pos += 1
            } else if increment == 0, isDigit(b) {
                guard b != UInt8(ascii: "0") else { throw outside() }
                increment = Int(b - UInt8(ascii: "0"))
                pos += 1
            }
        }
        let from = pos
        while byte(pos) == 0x20 { pos += 1 }
        if byte(pos) == UInt8(ascii: "#"), pos > from { pos = endOfLine(pos) }
        guard pos >= n || byte(pos) == 0x0A else { throw outside() }
        if pos < n {
            newLine(after: pos)
            pos += 1
        }
        var level = increment == 0 ? 0 : (indent >= 0 ? indent + increment : increment)
        var end = mark(pos)
        scratch.removeAll(keepingCapacity: true)
        var trailing = blockBreaks(&level, &end)
        var leadingBreak = false
        var leadingBlank = false
        while pos < n, pos - lineStart == level {
            let trailingBlank = byte(pos) == 0x20
            if !literal, leadingBreak, !leadingBlank, !trailingBlank {
                // Folded: two lines join with a space, or with the blank lines between.
                if trailing == 0 { scratch.append(0x20) }
            } else if leadingBreak {
                scratch.append(0x0A)
            }
            leadingBreak = false
            scratch.append(contentsOf: repeatElement(0x0A, count: trailing))
            leadingBlank = trailingBlank
            let eol = endOfLine(pos)
            scratch.append(contentsOf: UnsafeBufferPointer(start: base + pos, count: eol - pos))
            pos = eol
            if pos < n {
                newLine(after: pos)
                pos += 1
                leadingBreak = true
            }
            trailing = blockBreaks(&level, &end)
        }
        if chomping != -1, leadingBreak { scratch.append(0x0A) }
        if chomping == 1 { scratch.append(contentsOf: repeatElement(0x0A, count: trailing)) }
        return Scalar(start: start, end: end, from: 0, count: scratch.count, decoded: true, plain: false)
    }

    /// A block scalar's indentation and blank lines from the start of a line: the line
    /// breaks it passes, with `end` after the last. Sets `level` from the first line with
    /// text if it is not set (libyaml's rule: that line's column, at least one past the
    /// parent's indentation, and at least 1).
    mutating func blockBreaks(_ level: inout Int, _ end: inout Mark) -> Int {
        var deepest = 0
        var breaks = 0
        end = mark(pos)
        while true {
            while level == 0 || pos - lineStart < level, byte(pos) == 0x20 { pos += 1 }
            deepest = max(deepest, pos - lineStart)
            guard pos < n, byte(pos) == 0x0A else { break }
            newLine(after: pos)
            pos += 1
            breaks += 1
            end = mark(pos)
        }
        if level == 0 { level = max(deepest, indent + 1, 1) }
        return breaks
    }

    /// Whether the last plain scalar's line ended in a comment (which ends the scalar).
    var plainComment = false

    /// Whether `b` starts a plain scalar whatever follows it: not a space, break or indicator.
    static func startsPlain(_ b: UInt8) -> Bool {
        switch b {
        case 0, 0x20, 0x0A, UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "#"), UInt8(ascii: "&"), UInt8(ascii: "*"),
            UInt8(ascii: "!"), UInt8(ascii: "|"), UInt8(ascii: ">"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "%"),
            UInt8(ascii: "@"), UInt8(ascii: "`"):
            return false
        default:
            return true
        }
    }

    /// The text of the last quoted scalar: where it is, its length, and whether in `scratch`.
    var quotedText = (0, 0, false)

    /// A quoted scalar on one line, opened by `quote` at `pos`: the offset past its closing
    /// quote. Its text goes into `quotedText`.
    mutating func quoted(_ quote: UInt8) throws(ListDiffError) -> Int {
        var i = pos + 1
        let from = i
        // Without escapes, the text is the input's.
        while true {
            guard i < n else { throw outside() }
            let c = base[i]
            if c == 0x0A { throw outside() }
            if c == quote {
                if quote == UInt8(ascii: "'"), byte(i + 1) == quote { break }
                quotedText = (from, i - from, false)
                return i + 1
            }
            if c == UInt8(ascii: "\\"), quote == UInt8(ascii: "\"") { break }
            i += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: base + from, count: i - from))
        while true {
            guard i < n else { throw outside() }
            let c = base[i]
            if c == 0x0A { throw outside() }
            if c == quote {
                if quote == UInt8(ascii: "'"), byte(i + 1) == quote {
                    scratch.append(quote)
                    i += 2
                    continue
                }
                quotedText = (0, scratch.count, true)
                return i + 1
            }
            if c == UInt8(ascii: "\\"), quote == UInt8(ascii: "\"") {
                i = try escape(at: i + 1)
                continue
            }
            scratch.append(c)
            i += 1
        }
    }

    /// A double-quoted scalar's escape (the byte after its `\` at `i`), decoded into
    /// `scratch` as libyaml decodes it: the offset past it.
    mutating func escape(at i: Int) throws(ListDiffError) -> Int {
        let simple: [UInt8]
        switch byte(i) {
        case UInt8(ascii: "0"): simple = [0]
        case UInt8(ascii: "a"): simple = [0x07]
        case UInt8(ascii: "b"): simple = [0x08]
        case UInt8(ascii: "t"): simple = [0x09]
        case UInt8(ascii: "n"): simple = [0x0A]
        case UInt8(ascii: "v"): simple = [0x0B]
        case UInt8(ascii: "f"): simple = [0x0C]
        case UInt8(ascii: "r"): simple = [0x0D]
        case UInt8(ascii: "e"): simple = [0x1B]
        case UInt8(ascii: " "), UInt8(ascii: "\""), UInt8(ascii: "/"), UInt8(ascii: "\\"): simple = [byte(i)]
        case UInt8(ascii: "N"): simple = [0xC2, 0x85]
        case UInt8(ascii: "_"): simple = [0xC2, 0xA0]
        case UInt8(ascii: "L"): simple = [0xE2, 0x80, 0xA8]
        case UInt8(ascii: "P"): simple = [0xE2, 0x80, 0xA9]
        case UInt8(ascii: "x"): return try code(at: i + 1, digits: 2)
        case UInt8(ascii: "u"): return try code(at: i + 1, digits: 4)
        case UInt8(ascii: "U"): return try code(at: i + 1, digits: 8)
        default: throw outside()
        }
        scratch.append(contentsOf: simple)
        return i + 1
    }

    /// A code point in `digits` hexadecimal digits at `i`, into `scratch` in UTF-8.
    mutating func code(at i: Int, digits: Int) throws(ListDiffError) -> Int {
        var value: UInt32 = 0
        for k in 0..<digits {
            let c = byte(i + k)
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: throw outside()
            }
            value = value << 4 | UInt32(digit)
        }
        guard let scalar = Unicode.Scalar(value) else { throw outside() }
        scratch.append(contentsOf: Array(String(Character(scalar)).utf8))
        return i + digits
    }
}
