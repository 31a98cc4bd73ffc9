import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Long values cut to where they differ (`ValueCut`), the cells text takes on a terminal
/// (`DisplayWidth`), and the side-by-side columns they make.
@Suite struct ValueCutTests {
    static let marker = try! NSRegularExpression(pattern: "…\\[\\+([0-9,]+) chars?\\]…")

    /// The parts a cut text shows and the counts of the gaps between them.
    static func parts(_ cut: String) -> (shown: [String], gaps: [Int]) {
        let ns = cut as NSString
        var shown: [String] = [], gaps: [Int] = []
        var at = 0
        for match in marker.matches(in: cut, range: NSRange(location: 0, length: ns.length)) {
            shown.append(ns.substring(with: NSRange(location: at, length: match.range.location - at)))
            gaps.append(Int(ns.substring(with: match.range(at: 1)).replacingOccurrences(of: ",", with: ""))!)
            at = match.range.location + match.range.length
        }
        shown.append(ns.substring(from: at))
        return (shown, gaps)
    }

    /// Checks that `cut` is `text` with gaps left out: each part shown is the text at that
    /// place, each gap counts the characters left out, and nothing else is missing. Returns
    /// the places each part starts and ends in `text`.
    static func expectCut(
        _ cut: String, of text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> [Range<String.Index>] {
        let (shown, gaps) = parts(cut)
        var at = text.startIndex
        var ranges: [Range<String.Index>] = []
        for (k, part) in shown.enumerated() {
            let end = text.index(at, offsetBy: part.count, limitedBy: text.endIndex)
            #expect(end.map { String(text[at..<$0]) == part } == true, "part \(k) of \(cut)", sourceLocation: sourceLocation)
            guard let end else { return ranges }
            ranges.append(at..<end)
            at = end
            if k < gaps.count {
                guard let next = text.index(at, offsetBy: gaps[k], limitedBy: text.endIndex) else {
                    Issue.record("gap \(k) runs past the end", sourceLocation: sourceLocation)
                    return ranges
                }
                at = next
            }
        }
        #expect(at == text.endIndex, "the parts and gaps of \(cut) do not add up", sourceLocation: sourceLocation)
        return ranges
    }

    @Test func shortValuesAreWholeAndZeroNeverCuts() {
        let cut = ValueCut(width: 20)
        #expect(cut.pair("\"Carol\"", "\"Caroline\"") == ("\"Carol\"", "\"Caroline\""))
        let long = String(repeating: "x", count: 500)
        #expect(ValueCut.whole.pair(long, long + "y") == (long, long + "y"))
        #expect(ValueCut.whole.single(long) == long)
        // A value that fits is whole even when its partner is cut.
        let (a, b) = cut.pair("\"short\"", "\"" + long + "\"")
        #expect(a == "\"short\"")
        #expect(b.contains("…[+") && b.count < 60)
    }

    @Test func oneCharacterChangedInMegabytes() {
        let old = "\"" + String(repeating: "abcdefghij", count: 300_000) + "\""
        var characters = Array(old)
        characters[1_500_001] = "X"
        let new = String(characters)
        let (a, b) = ValueCut().pair(old, new)
        #expect(a.count < 200 && b.count < 200)
        #expect(Self.parts(a).gaps == [1_499_951, 1_499_950])
        #expect(Self.parts(b).gaps == [1_499_951, 1_499_950])
        #expect(b.contains("jXb"))
        _ = Self.expectCut(a, of: old)
        _ = Self.expectCut(b, of: new)
    }

    /// Far apart differences: a window around each, the middle counted.
    @Test func twoDifferencesShowTwoWindows() {
        let text = String(repeating: "word ", count: 200)
        let old = "A" + text + "B", new = "a" + text + "b"
        let (a, b) = ValueCut(width: 40).pair(old, new)
        #expect(a.hasPrefix("A") && a.hasSuffix("B"))
        #expect(b.hasPrefix("a") && b.hasSuffix("b"))
        #expect(Self.parts(a).gaps.count == 1)
        _ = Self.expectCut(a, of: old)
        _ = Self.expectCut(b, of: new)
    }

    @Test func numbersAreGrouped() {
        #expect(ValueCut.marker(1) == "…[+1 char]…")
        #expect(ValueCut.marker(999) == "…[+999 chars]…")
        #expect(ValueCut.marker(1000) == "…[+1,000 chars]…")
        #expect(ValueCut.marker(2_000_000) == "…[+2,000,000 chars]…")
    }

    /// Random strings of clusters that are easy to split badly (combining marks, flags, a
    /// family emoji, CJK) and of characters JSON escapes, changed in a few places: every cut
    /// falls between characters and outside any escape, and the parts add up.
    @Test func cutsNeverSplitAClusterOrAnEscape() throws {
        let pieces = [
            "a", "b", " ", "e\u{301}", "🇫🇷", "👨‍👩‍👧", "東", "\n", "\"", "\\", "\u{1B}", "\u{2028}", "\t", "é", "\u{7F}",
        ]
        var random = SplitMix64(seed: 34)
        for round in 0..<300 {
            let length = Int.random(in: 50...400, using: &random)
            let text = (0..<length).map { _ in pieces.randomElement(using: &random)! }
            var changed = text
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                changed[Int.random(in: 0..<length, using: &random)] = pieces.randomElement(using: &random)!
            }
            let old = JSONWriter.compact(.string(text.joined())), new = JSONWriter.compact(.string(changed.joined()))
            let width = [8, 20, 40, 100][round % 4]
            let (a, b) = ValueCut(width: width).pair(old, new)
            for (cut, whole) in [(a, old), (b, new), (ValueCut(width: width).single(old), old)] {
                let ranges = Self.expectCut(cut, of: whole)
                // Each part read as the inside of a JSON string: an escape cut in two fails.
                for range in ranges {
                    var inside = whole[range]
                    if range.lowerBound == whole.startIndex { inside = inside.dropFirst() }
                    if range.upperBound == whole.endIndex { inside = inside.dropLast() }
                    let parsed = try? JSONReader().value(Array(("\"" + inside + "\"").utf8))
                    #expect(parsed != nil, "\(String(reflecting: String(inside))) from \(String(reflecting: cut))")
                }
            }
        }
    }

    @Test func displayWidths() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("東京") == 4)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("\u{301}") == 0)
        #expect(DisplayWidth.of("🎉") == 2)
        #expect(DisplayWidth.of("🇫🇷") == 2)
        #expect(DisplayWidth.of("👨‍👩‍👧") == 2)
        #expect(DisplayWidth.of("❤️") == 2)
        #expect(DisplayWidth.of("❤") == 1)
        #expect(DisplayWidth.of("ｆｕｌｌ") == 8)
        #expect(DisplayWidth.of("한국어") == 6)
        #expect(DisplayWidth.of("a\u{200B}b") == 2)
    }

    /// Wide characters and long values in narrow columns: every line fits, and the mark
    /// between the columns stands in one column on every line of two-column rows.
    @Test func sideColumnsStayAligned() throws {
        let old = try json(#"[{"id":"東京","v":"日本語のテキストがここにあります 🎉 and more words to wrap around the column","w":1}]"#)
        let new = try json(#"[{"id":"東京","v":"日本語のテキストはここにありました 🎊 and more words to wrap around the column","w":2}]"#)
        let changeset = try Differ().diff(old: old, new: new, key: try IdentityKey(parsing: ["id"]))
        for width in [40, 41, 57, 80] {
            for style in [TextStyle.plain, .ansi] {
                let renderer = SideBySideRenderer(context: RenderContext(oldName: "old", newName: "new"), style: style, width: width)
                let text = try RendererTests.render(renderer, changeset)
                let plain = text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
                let lines = plain.split(separator: "\n")
                #expect(lines.count > 4)
                let gutter = (width - 3) / 2 + 1
                // Every line above the counts, which run across the page.
                for line in lines.prefix(while: { $0.first?.isNumber != true }) {
                    #expect(DisplayWidth.of(line) <= width, "\(line)")
                    let mark = line.indices.first { DisplayWidth.of(line[..<$0]) == gutter }.map { line[$0] }
                    #expect(["|", "<", ">"].contains(mark), "\(width): \(line)")
                }
            }
        }
        // Below the minimum, one side under the other.
        let narrow = try RendererTests.render(
            SideBySideRenderer(context: RenderContext(oldName: "old", newName: "new"), width: 30), changeset)
        #expect(narrow.hasPrefix("< --- old\n> +++ new\n< ~ id=\"東京\" #0\n> ~ id=\"東京\" #0\n"))
    }
}
