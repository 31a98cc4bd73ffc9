import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// The word diff inside strings: what it marks on known pairs, that the unmarked text is the
/// same on both sides for random pairs, and that huge strings cost linear time.
@Suite struct WordDiffTests {
    /// The marked parts of OLD and of NEW, as text.
    static func marked(_ old: String, _ new: String) -> (old: [String], new: [String], exact: Bool) {
        let diff = WordDiff(old: old, new: new)
        return (diff.old.map { String(old[$0]) }, diff.new.map { String(new[$0]) }, diff.isExact)
    }

    @Test(arguments: [
        ("same", "same", [String](), [String]()),
        ("", "", [], []),
        ("", "new text", [], ["new text"]),
        ("old text", "", ["old text"], []),
        ("the quick brown fox", "the slow brown fox", ["quick"], ["slow"]),
        ("the quick brown fox", "the quick fox", ["brown "], []),
        ("a b", "a x b", [], ["x "]),
        ("color", "colour", [], ["u"]),
        ("2024-01-05", "2024-01-06", ["5"], ["6"]),
        ("true", "false", ["true"], ["false"]),
        ("cat sat", "dog sat", ["cat"], ["dog"]),
        ("Hello, world!", "Hello; world?", [",", "!"], [";", "?"]),
        ("one two three four", "one 2 three 4", ["two", "four"], ["2", "4"]),
        ("naïve café", "naive café", ["ï"], ["i"]),
        ("👍🏽 ok", "👍🏿 ok", ["👍🏽"], ["👍🏿"]),
    ])
    func knownPairs(old: String, new: String, expectedOld: [String], expectedNew: [String]) {
        let result = Self.marked(old, new)
        #expect(result.old == expectedOld)
        #expect(result.new == expectedNew)
        #expect(result.exact)
    }

    /// One long token changed in one place: only that place is marked, not the whole token.
    @Test func longTokenNarrowedToItsChange() {
        let head = String(repeating: "x", count: 500), tail = String(repeating: "y", count: 500)
        let result = Self.marked(head + "A" + tail, head + "BC" + tail)
        #expect(result.old == ["A"])
        #expect(result.new == ["BC"])
    }

    /// Checks what every diff must keep: ranges in order, not empty, not touching, and the text
    /// outside them the same on both sides.
    static func checkInvariants(_ old: String, _ new: String, _ diff: WordDiff, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        func unmarked(_ text: String, _ ranges: [Range<String.Index>]) -> String {
            for (a, b) in zip(ranges, ranges.dropFirst()) {
                #expect(a.upperBound < b.lowerBound, sourceLocation: sourceLocation)
            }
            #expect(ranges.allSatisfy { !$0.isEmpty }, sourceLocation: sourceLocation)
            return WordDiff.segments(of: text, marked: ranges).filter { !$0.changed }.map { String($0.text) }.joined()
        }
        #expect(
            unmarked(old, diff.old) == unmarked(new, diff.new), "\(old.debugDescription) → \(new.debugDescription)",
            sourceLocation: sourceLocation)
        let segments = WordDiff.segments(of: old, marked: diff.old)
        #expect(segments.map { String($0.text) }.joined() == old, sourceLocation: sourceLocation)
    }

    @Test func randomPairsKeepTheUnmarkedTextEqual() {
        var rng = SplitMix64(seed: 34)
        let pieces = ["alpha", "beta", "b", "é", "e\u{301}", " ", "  ", "\n", ",", ".", "-", "42", "4", "👍🏽", "<", "_x"]
        func text() -> String { (0..<Int.random(in: 0...30, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined() }
        for _ in 0..<3000 {
            let old = text()
            var new = old
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: new = text()
            case 1:
                var words = old.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
                if !words.isEmpty { words[Int.random(in: 0..<words.count, using: &rng)] = pieces.randomElement(using: &rng)! }
                new = words.joined(separator: " ")
            default: new = old + pieces.randomElement(using: &rng)!
            }
            let diff = WordDiff(old: old, new: new)
            Self.checkInvariants(old, new, diff)
            if old == new { #expect(diff.old.isEmpty && diff.new.isEmpty) }
        }
    }

    /// A huge string changed in one word: found exactly, the rest unmarked.
    @Test func hugeStringWithOneChange() {
        let words = (0..<200_000).map { "w\($0)" }
        var changed = words
        changed[123_456] = "CHANGED"
        let old = words.joined(separator: " "), new = changed.joined(separator: " ")
        let result = Self.marked(old, new)
        #expect(result.old == ["w123456"])
        #expect(result.new == ["CHANGED"])
        #expect(result.exact)
    }

    /// Two huge strings with nothing in common past their ends: the search gives up within its
    /// bound and marks the middle whole, rather than taking quadratic time.
    @Test func hugeUnlikeStringsFallBackToTheMiddle() {
        let old = "start " + (0..<100_000).map { "a\($0)" }.joined(separator: " ") + " end"
        let new = "start " + (0..<100_000).map { "b\($0)" }.joined(separator: " ") + " end"
        let clock = ContinuousClock()
        var diff: WordDiff?
        let took = clock.measure { diff = WordDiff(old: old, new: new) }
        guard let diff else { return }
        #expect(!diff.isExact)
        #expect(diff.old.count == 1 && diff.new.count == 1)
        #expect(old[diff.old[0]].hasPrefix("a0 ") && new[diff.new[0]].hasPrefix("b0 "))
        Self.checkInvariants(old, new, diff)
        #expect(took < .seconds(20), "took \(took)")
    }

    /// The work grows linearly: ten times the tokens, about ten times the time, for strings
    /// that are partly alike (the search runs until its bound).
    @Test func boundGrowsLinearly() {
        func pair(_ n: Int) -> (String, String) {
            var rng = SplitMix64(seed: UInt64(n))
            let old = (0..<n).map { _ in "w\(Int.random(in: 0..<50, using: &rng))" }
            let new = old.map { Int.random(in: 0..<3, using: &rng) == 0 ? "x" : $0 }
            return (old.joined(separator: " "), new.joined(separator: " "))
        }
        let clock = ContinuousClock()
        func time(_ n: Int) -> Duration {
            let (old, new) = pair(n)
            return (0..<3).map { _ in clock.measure { _ = WordDiff(old: old, new: new) } }.min()!
        }
        let small = time(5_000), large = time(50_000)
        #expect(large < small * 40, "5k tokens: \(small), 50k tokens: \(large)")
    }
}
