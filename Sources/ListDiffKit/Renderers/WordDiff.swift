/// Where two strings differ, word by word, as git's `--word-diff` shows it: the ranges of
/// OLD and of NEW that changed. Everything outside the ranges is the same text on both sides,
/// in the same order.
///
/// The strings are cut into tokens: runs of letters, digits and `_`, runs of whitespace, and
/// every other character on its own. The tokens are paired by Myers's algorithm. Where one
/// token replaced one token, the change is narrowed inside it: to the changed characters for
/// short tokens (when they have most of their characters in common), or to the part between
/// their common start and end for long ones.
///
/// The work is bounded: the common start and end are skipped first, and the token search gives
/// up after a number of steps proportional to the tokens between them. Then the whole middle is
/// marked (`isExact` is false). So two strings of any size cost time linear in their length.
package struct WordDiff: Sendable {
    /// The changed parts of OLD, in order, neither empty nor touching.
    package let old: [Range<String.Index>]
    /// The changed parts of NEW, in order, neither empty nor touching.
    package let new: [Range<String.Index>]
    /// False when the strings differed too much to pair their tokens within the bound, and
    /// the whole part between their common start and end was marked.
    package let isExact: Bool

    /// Tokens at most this long are compared character by character when one replaced another.
    static let shortToken = 32
    /// Steps the token search may take: this many for any pair, plus `stepsPerToken` per token.
    static let baseSteps = 16_384
    static let stepsPerToken = 64

    /// Compares `old` with `new`; the ranges index into those strings.
    package init(old: String, new: String) {
        var marks = Marks()
        isExact = Self.compare(old, new, into: &marks)
        self.old = marks.old
        self.new = marks.new
    }

    /// The parts of `text`, each with whether it lies in one of `marked` (ranges of `text` in
    /// order, as `old` or `new` holds them).
    package static func segments(of text: String, marked: [Range<String.Index>]) -> [(text: Substring, changed: Bool)] {
        var parts: [(text: Substring, changed: Bool)] = []
        var at = text.startIndex
        for range in marked {
            if at < range.lowerBound { parts.append((text[at..<range.lowerBound], false)) }
            parts.append((text[range], true))
            at = range.upperBound
        }
        if at < text.endIndex { parts.append((text[at...], false)) }
        return parts
    }

    /// The ranges found so far, merged where they touch.
    struct Marks {
        var old: [Range<String.Index>] = []
        var new: [Range<String.Index>] = []

        mutating func add(old range: Range<String.Index>) { Self.append(range, to: &old) }
        mutating func add(new range: Range<String.Index>) { Self.append(range, to: &new) }

        static func append(_ range: Range<String.Index>, to list: inout [Range<String.Index>]) {
            guard !range.isEmpty else { return }
            if let last = list.last, last.upperBound == range.lowerBound {
                list[list.count - 1] = last.lowerBound..<range.upperBound
            } else {
                list.append(range)
            }
        }
    }

    /// The kind of a character, for cutting tokens.
    enum Kind { case word, space, other }

    static func kind(_ c: Character) -> Kind {
        if let ascii = c.asciiValue {
            switch ascii {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"):
                return .word
            case UInt8(ascii: " "), 0x09...0x0D: return .space
            default: return .other
            }
        }
        if c.isLetter || c.isNumber || c == "_" { return .word }
        if c.isWhitespace { return .space }
        return .other
    }

    /// Whether a token ends between `index`'s character and the one before it.
    static func isBoundary(_ s: String, _ index: String.Index) -> Bool {
        guard index > s.startIndex, index < s.endIndex else { return true }
        let before = kind(s[s.index(before: index)])
        return before == .other || before != kind(s[index])
    }

    /// The tokens of `s[range]`.
    static func tokens(_ s: String, _ range: Range<String.Index>) -> [Range<String.Index>] {
        var tokens: [Range<String.Index>] = []
        var start = range.lowerBound
        var previous: Kind? = nil
        var i = range.lowerBound
        while i < range.upperBound {
            let k = kind(s[i])
            if let p = previous, p == .other || p != k {
                tokens.append(start..<i)
                start = i
            }
            previous = k
            i = s.index(after: i)
        }
        if start < range.upperBound { tokens.append(start..<range.upperBound) }
        return tokens
    }

    /// The parts of `a[r]` and `b[s]` left between their common start and their common end.
    static func middles(
        _ a: String, _ r: Range<String.Index>, _ b: String, _ s: Range<String.Index>
    ) -> (Range<String.Index>, Range<String.Index>) {
        var (i, j) = (r.lowerBound, s.lowerBound)
        while i < r.upperBound, j < s.upperBound, a[i] == b[j] {
            i = a.index(after: i)
            j = b.index(after: j)
        }
        var (x, y) = (r.upperBound, s.upperBound)
        while x > i, y > j {
            let (px, py) = (a.index(before: x), b.index(before: y))
            guard a[px] == b[py] else { break }
            (x, y) = (px, py)
        }
        return (i..<x, j..<y)
    }

    /// Marks what differs between `a` and `b`; false when it fell back to marking the middle.
    static func compare(_ a: String, _ b: String, into marks: inout Marks) -> Bool {
        // The common start and end, moved out to token boundaries on both sides.
        let (oldMiddle, newMiddle) = middles(a, a.startIndex..<a.endIndex, b, b.startIndex..<b.endIndex)
        var (i, j) = (oldMiddle.lowerBound, newMiddle.lowerBound)
        while i > a.startIndex, !(isBoundary(a, i) && isBoundary(b, j)) {
            i = a.index(before: i)
            j = b.index(before: j)
        }
        var (x, y) = (oldMiddle.upperBound, newMiddle.upperBound)
        while x < a.endIndex, !(isBoundary(a, x) && isBoundary(b, y)) {
            x = a.index(after: x)
            y = b.index(after: y)
        }
        if i == x || j == y {
            marks.add(old: i..<x)
            marks.add(new: j..<y)
            return true
        }
        let oldTokens = tokens(a, i..<x), newTokens = tokens(b, j..<y)
        var symbols: [Substring: Int] = [:]
        func symbol(_ text: Substring) -> Int {
            if let known = symbols[text] { return known }
            symbols[text] = symbols.count
            return symbols.count - 1
        }
        let oldSymbols = oldTokens.map { symbol(a[$0]) }, newSymbols = newTokens.map { symbol(b[$0]) }
        let limit = baseSteps + stepsPerToken * (oldTokens.count + newTokens.count)
        guard let pairs = try? MyersDiff(costLimit: limit).pairs(old: oldSymbols, new: newSymbols, symbolCount: symbols.count) else {
            marks.add(old: i..<x)
            marks.add(new: j..<y)
            return false
        }
        // Walk the pairs: between two paired tokens, the old ones left out were removed and the
        // new ones skipped were added.
        var (p, q) = (0, 0)
        while p < oldTokens.count || q < newTokens.count {
            var nextP = p
            while nextP < oldTokens.count, pairs[nextP] == nil { nextP += 1 }
            let nextQ = nextP < oldTokens.count ? pairs[nextP]! : newTokens.count
            if nextP > p || nextQ > q {
                markRun(a, oldTokens[p..<nextP], b, newTokens[q..<nextQ], into: &marks)
            }
            (p, q) = (nextP + 1, nextQ + 1)
        }
        return true
    }

    /// Marks a run of removed tokens against the run of added ones that took its place.
    static func markRun(
        _ a: String, _ removed: ArraySlice<Range<String.Index>>, _ b: String, _ added: ArraySlice<Range<String.Index>>,
        into marks: inout Marks
    ) {
        guard removed.count == 1, added.count == 1, let r = removed.first, let s = added.first else {
            if let first = removed.first, let last = removed.last { marks.add(old: first.lowerBound..<last.upperBound) }
            if let first = added.first, let last = added.last { marks.add(new: first.lowerBound..<last.upperBound) }
            return
        }
        if a[r].dropFirst(shortToken).isEmpty, b[s].dropFirst(shortToken).isEmpty {
            if !markCharacters(a, r, b, s, into: &marks) {
                marks.add(old: r)
                marks.add(new: s)
            }
            return
        }
        // One long token for another: mark between their common start and end.
        let (oldPart, newPart) = middles(a, r, b, s)
        marks.add(old: oldPart)
        marks.add(new: newPart)
    }

    /// Marks the changed characters of two short tokens, when they share at least half of the
    /// longer one's characters; returns false (marking nothing) when they do not.
    static func markCharacters(
        _ a: String, _ r: Range<String.Index>, _ b: String, _ s: Range<String.Index>, into marks: inout Marks
    ) -> Bool {
        var symbols: [Character: Int] = [:]
        func symbol(_ c: Character) -> Int {
            if let known = symbols[c] { return known }
            symbols[c] = symbols.count
            return symbols.count - 1
        }
        let oldSymbols = a[r].map(symbol), newSymbols = b[s].map(symbol)
        guard let pairs = try? MyersDiff().pairs(old: oldSymbols, new: newSymbols, symbolCount: symbols.count) else { return false }
        var pairedNew = [Bool](repeating: false, count: newSymbols.count)
        var common = 0
        for case let q? in pairs {
            pairedNew[q] = true
            common += 1
        }
        guard common * 2 >= max(oldSymbols.count, newSymbols.count) else { return false }
        var index = r.lowerBound
        for pair in pairs {
            let next = a.index(after: index)
            if pair == nil { marks.add(old: index..<next) }
            index = next
        }
        index = s.lowerBound
        for paired in pairedNew {
            let next = b.index(after: index)
            if !paired { marks.add(new: index..<next) }
            index = next
        }
        return true
    }
}
