/// Long values cut to the part that changed, so that no output repeats a huge value whole.
///
/// A value longer than `width` characters is shown around its differences with the other
/// side: `context` characters before and after the first difference, and before and after
/// the last when it is further on. Each part left out becomes a marker that counts it:
///
///     "…[+1,499,950 chars]…abcabcabc…abcXabc…abcabc…[+1,499,950 chars]…"
///
/// A value with no partner (a field added or removed, a record, a key) keeps its first
/// `width` characters. A value that fits is shown whole, and so is a part no longer than
/// its marker.
///
/// The text cut is the value as written (compact JSON), before any escaping: cuts fall
/// between characters (grapheme clusters), never inside one or inside a JSON escape such
/// as `\n` or `\u001b`, so what is left is valid UTF-8 and is escaped after as any text is.
/// The work is linear in the length of the values.
public struct ValueCut: Sendable, Equatable {
    /// Values longer than this many characters are cut; 0 never cuts.
    public var width: Int

    /// The width when none is given: about a screen line and a half.
    public static let defaultWidth = 200

    /// Values are never cut.
    public static let whole = ValueCut(width: 0)

    /// Values longer than `width` characters are cut (0: never).
    public init(width: Int = ValueCut.defaultWidth) {
        self.width = max(0, width)
    }

    /// Characters kept on each side of a difference: a quarter of the width, so that a
    /// value cut around two differences shows about `width` characters.
    package var context: Int { max(1, width / 4) }

    /// Both values' JSON text, cut where they differ; `none` for a value that is absent.
    package func values(_ old: Value?, _ new: Value?, none: String = "(none)") -> (old: String, new: String) {
        switch (old, new) {
        case (let a?, let b?):
            return pair(JSONWriter.compact(a), JSONWriter.compact(b))
        case (let a?, nil): return (single(JSONWriter.compact(a)), none)
        case (nil, let b?): return (none, single(JSONWriter.compact(b)))
        case (nil, nil): return (none, none)
        }
    }

    /// One value's JSON text, cut to its first `width` characters.
    package func value(_ value: Value) -> String { single(JSONWriter.compact(value)) }

    /// `text` cut to its first `width` characters, when it is longer.
    package func single(_ text: String) -> String {
        guard fits(text) == false else { return text }
        let keep = text.index(text.startIndex, offsetBy: width)
        return join(text, keeping: [text.startIndex..<keep])
    }

    /// Two texts, each cut around where they differ when it is longer than `width`.
    package func pair(_ old: String, _ new: String) -> (String, String) {
        let oldFits = fits(old), newFits = fits(new)
        if oldFits && newFits { return (old, new) }
        let (pa, pb) = Self.commonPrefix(old, new)
        let (sa, sb) = Self.commonSuffix(old, new, after: (pa, pb))
        return (oldFits ? old : cut(old, differing: pa..<sa), newFits ? new : cut(new, differing: pb..<sb))
    }

    /// Whether `text` is shown whole (its bytes first: a character is at least one byte).
    func fits(_ text: String) -> Bool {
        width == 0 || text.utf8.count <= width || text.count <= width
    }

    /// `text` shown around the part `differing` (which may be empty): `context` characters
    /// either side of its start, and of its end when that is further than two contexts on.
    func cut(_ text: String, differing: Range<String.Index>) -> String {
        let c = context
        func back(_ i: String.Index) -> String.Index { text.index(i, offsetBy: -c, limitedBy: text.startIndex) ?? text.startIndex }
        func on(_ i: String.Index, to limit: String.Index) -> String.Index { text.index(i, offsetBy: c, limitedBy: limit) ?? limit }
        let (start, end) = (differing.lowerBound, differing.upperBound)
        // Whether the differing part is longer than two contexts: then its middle goes.
        let long = text.index(start, offsetBy: 2 * c, limitedBy: end).map { $0 < end } ?? false
        if long {
            return join(text, keeping: [back(start)..<on(start, to: end), back(end)..<on(end, to: text.endIndex)])
        }
        return join(text, keeping: [back(start)..<on(end, to: text.endIndex)])
    }

    /// The parts of `text` in `keeping` (in order, not overlapping), each gap between them
    /// replaced by its marker, unless the gap is no longer than the marker. Each gap grows
    /// to a space within `slack` characters, so that the parts shown hold whole words, and
    /// to the whole of a JSON escape it would cut.
    func join(_ text: String, keeping: [Range<String.Index>]) -> String {
        let slack = min(10, context / 4)
        var out = ""
        var shown = text.startIndex
        for gap in Self.gaps(text, keeping) {
            var lower = gap.lowerBound, upper = gap.upperBound
            if lower > text.startIndex { lower = Self.afterSpace(text, from: lower, forward: false, within: slack) }
            if upper < text.endIndex { upper = Self.afterSpace(text, from: upper, forward: true, within: slack) }
            lower = Self.escape(in: text, containing: lower)?.lowerBound ?? lower
            upper = Self.escape(in: text, containing: upper)?.upperBound ?? upper
            guard lower >= shown, lower < upper else { continue }
            let count = text.distance(from: lower, to: upper)
            let mark = Self.marker(count)
            guard count > mark.count else { continue }
            out += text[shown..<lower]
            out += mark
            shown = upper
        }
        out += text[shown...]
        return out
    }

    /// The place just after a space found within `within` characters of `i`, going back from
    /// it or on; `i` when there is none.
    static func afterSpace(_ text: String, from i: String.Index, forward: Bool, within: Int) -> String.Index {
        var j = i
        for _ in 0..<within {
            if forward {
                guard j < text.endIndex else { return i }
                if text[j] == " " { return text.index(after: j) }
                j = text.index(after: j)
            } else {
                guard j > text.startIndex else { return i }
                let before = text.index(before: j)
                if text[before] == " " { return j }
                j = before
            }
        }
        return i
    }

    /// The parts of `text` outside `keeping`.
    static func gaps(_ text: String, _ keeping: [Range<String.Index>]) -> [Range<String.Index>] {
        var gaps: [Range<String.Index>] = []
        var at = text.startIndex
        for part in keeping {
            if part.lowerBound > at { gaps.append(at..<part.lowerBound) }
            at = max(at, part.upperBound)
        }
        if at < text.endIndex { gaps.append(at..<text.endIndex) }
        return gaps
    }

    /// What stands for `count` characters left out.
    static func marker(_ count: Int) -> String {
        "…[+\(grouped(count)) \(count == 1 ? "char" : "chars")]…"
    }

    /// `n` with a comma between each group of three digits (2,000,000).
    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    /// The JSON escape (`\n`, `\"`, `\u001b`, ...) that `i` falls strictly inside, if any.
    /// Only the start of an escape is a backslash, so the nearest backslash within five
    /// characters before `i` is the one to look at; it starts an escape when an even number
    /// of backslashes come right before it.
    static func escape(in text: String, containing i: String.Index) -> Range<String.Index>? {
        var j = i
        for k in 1...5 {
            guard j > text.startIndex else { return nil }
            j = text.index(before: j)
            guard text[j] == "\\" else { continue }
            var before = 0
            var b = j
            while b > text.startIndex, text[text.index(before: b)] == "\\" {
                b = text.index(before: b)
                before += 1
            }
            guard before % 2 == 0 else { return nil }
            let next = text.index(after: j)
            let length = next < text.endIndex && text[next] == "u" ? 6 : 2
            guard k < length else { return nil }
            return j..<(text.index(j, offsetBy: length, limitedBy: text.endIndex) ?? text.endIndex)
        }
        return nil
    }

    /// Where the common prefix of `a` and `b` ends in each: the same number of bytes into
    /// both, on a character boundary in both.
    static func commonPrefix(_ a: String, _ b: String) -> (String.Index, String.Index) {
        var n = bytesInCommon(a, b, fromEnd: false, limit: Int.max)
        while true {
            let ia = roundDown(a, a.utf8.index(a.startIndex, offsetBy: n))
            let ib = roundDown(b, b.utf8.index(b.startIndex, offsetBy: n))
            let m = min(a.utf8.distance(from: a.startIndex, to: ia), b.utf8.distance(from: b.startIndex, to: ib))
            if m == n { return (ia, ib) }
            n = m
        }
    }

    /// Where the common suffix of `a` and `b` starts in each, not before `after`: the same
    /// number of bytes from the end of both, on a character boundary in both.
    static func commonSuffix(_ a: String, _ b: String, after: (String.Index, String.Index)) -> (String.Index, String.Index) {
        let limit = min(a.utf8.distance(from: after.0, to: a.endIndex), b.utf8.distance(from: after.1, to: b.endIndex))
        var n = bytesInCommon(a, b, fromEnd: true, limit: limit)
        while true {
            let ia = roundUp(a, a.utf8.index(a.endIndex, offsetBy: -n))
            let ib = roundUp(b, b.utf8.index(b.endIndex, offsetBy: -n))
            let m = min(a.utf8.distance(from: ia, to: a.endIndex), b.utf8.distance(from: ib, to: b.endIndex))
            if m == n { return (ia, ib) }
            n = m
        }
    }

    /// How many bytes `a` and `b` share at their start (or end), at most `limit`.
    static func bytesInCommon(_ a: String, _ b: String, fromEnd: Bool, limit: Int) -> Int {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let n = min(x.count, y.count, limit)
                var i = 0
                if fromEnd {
                    while i < n, x[x.count - 1 - i] == y[y.count - 1 - i] { i += 1 }
                } else {
                    while i < n, x[i] == y[i] { i += 1 }
                }
                return i
            }
        }
    }

    /// The character boundary at or before `i`.
    static func roundDown(_ text: String, _ i: String.Index) -> String.Index {
        guard i < text.endIndex else { return text.endIndex }
        return text.index(before: text.index(after: i))
    }

    /// The character boundary at or after `i`.
    static func roundUp(_ text: String, _ i: String.Index) -> String.Index {
        let down = roundDown(text, i)
        return down == i ? i : text.index(after: down)
    }
}
