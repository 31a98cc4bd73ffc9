import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

@Suite struct ReplayTests {
    static func documents(_ old: String, _ new: String) throws -> (Document, Document, Changeset) {
        let reader = DocumentReader(key: try IdentityKey(parsing: []))
        let examples = Paths.repository.appendingPathComponent("Examples")
        let o = try reader.parse(try bytes(examples.appendingPathComponent(old)), name: old)
        let n = try reader.parse(try bytes(examples.appendingPathComponent(new)), name: new)
        return (o, n, try Differ().diff(old: o, new: n, key: try IdentityKey(parsing: [])))
    }

    static func film(_ replay: Replay, _ options: Replay.Options) -> String {
        (0..<replay.frameCount).map { i in
            let frame = replay.frame(i, options: options, style: .plain)
            return "=== frame \(i + 1), \(frame.seconds) s\n" + frame.lines.joined(separator: "\n") + "\n"
        }.joined()
    }

    /// Every frame of two examples, as golden files: plain lists and sections.
    /// Rows are cut to the screen's cells, not its characters: CJK text and emoji take two
    /// cells each, so a row of them stops at half as many characters.
    @Test func rowsAreCutToTheScreensCells() {
        #expect(Replay.cut("abcdef", 4) == "abc…")
        #expect(Replay.cut("漢字テキスト", 7) == "漢字テ…")
        #expect(DisplayWidth.of(Replay.cut("漢字テキスト", 7)) <= 7)
        #expect(Replay.cut("漢字", 4) == "漢字")
        #expect(Replay.cut("🙂🙂🙂🙂", 5) == "🙂🙂…")
        #expect(Replay.cut("e\u{301}e\u{301}e\u{301}", 3) == "e\u{301}e\u{301}e\u{301}")
    }

    @Test func goldenFilms() throws {
        let (o, n, c) = try Self.documents("people-old.json", "people-new.json")
        try assertGolden(Self.film(Replay(old: o, new: n, changeset: c), Replay.Options(width: 72, height: 12)), "people.replay.txt")
        let (so, sn, sc) = try Self.documents("people-sections-old.yaml", "people-sections-new.yaml")
        try assertGolden(
            Self.film(Replay(old: so, new: sn, changeset: sc), Replay.Options(width: 60, height: 16)), "people-sections.replay.txt")
        let (to, tn, tc) = try Self.documents("teams-old.json", "teams-new.json")
        try assertGolden(Self.film(Replay(old: to, new: tn, changeset: tc), Replay.Options(width: 60, height: 16)), "teams.replay.txt")
    }

    /// Random pairs, sizes and shapes: frames fit the screen, their number does not depend on
    /// the size, and the last one is the new list.
    @Test func framesFitAndEndAtTheNewList() throws {
        var generator = RecordListGenerator(rng: SplitMix64(seed: 5))
        var rng = SplitMix64(seed: 6)
        for _ in 0..<300 {
            let (o, w) = generator.pair(maxCount: 30)
            let old = try document(o), new = try document(w)
            let changeset = try Differ().diff(old: old, new: new, key: ApplyTests.key)
            let replay = try Replay(old: old, new: new, changeset: changeset)
            let width = Int.random(in: 10...100, using: &rng), height = Int.random(in: 3...40, using: &rng)
            let options = Replay.Options(width: width, height: height, context: 1000)
            for i in 0..<replay.frameCount {
                let frame = replay.frame(i, options: options, style: .plain)
                #expect(frame.lines.count == height)
                #expect(frame.lines.allSatisfy { $0.count <= width })
            }
            // On a screen big enough and wide enough, the last frame is the new list.
            let big = replay.frame(replay.frameCount - 1, options: Replay.Options(width: 10_000, height: 100, context: 1000), style: .plain)
            let rows = big.lines.dropLast().filter { !$0.isEmpty }
            #expect(rows == new.records.map { "  id=\(JSONWriter.compact($0.key)) " + JSONWriter.compact($0.value) })
            #expect(big.lines.last!.contains("new: mem.json"))
        }
    }

    @Test func longListsFoldAndTheViewportFollows() throws {
        let values: [Value] = (0..<1000).map { .object(Object([.init(key: "id", value: .number(Number(exactly: $0)))])) }
        var edited = values
        edited.remove(at: 700)
        let old = try document(values), new = try document(edited)
        let replay = try Replay(old: old, new: new, changeset: try Differ().diff(old: old, new: new, key: ApplyTests.key))
        let options = Replay.Options(width: 40, height: 8)
        let deleting = replay.frame(1, options: options, style: .plain)
        #expect(deleting.lines.contains("- id=700 {\"id\":700}"))
        #expect(deleting.lines.contains("  … 698 unchanged …"))
        #expect(deleting.lines.contains("  … 297 unchanged …"))
        #expect(deleting.lines.last == "[2/4] deleting 1")
    }

    @Test func aboveTheLimitItCutsToTheResult() throws {
        let (o, n, c) = try Self.documents("people-old.json", "people-new.json")
        let replay = try Replay(old: o, new: n, changeset: c, limit: 3)
        #expect(replay.frameCount == 1 && !replay.animated)
        let frame = replay.frame(0, options: Replay.Options(width: 200, height: 12), style: .plain)
        #expect(
            frame.lines.last
                == "[1/1] 5 changes, more than 3: the result, not animated (--animate-limit) · 1 inserted, 1 deleted, 1 moved, 2 updated, 3 unchanged"
        )
    }
}
