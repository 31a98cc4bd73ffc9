import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// The line diff, proved by applying it: its hunks turn OLD's lines into NEW's.
@Suite struct LineDiffTests {
    /// Rebuilds NEW from OLD and the hunks, as `patch` would.
    static func apply(_ diff: LineDiff) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var next = 0
        for hunk in diff.hunks(context: 2) {
            while next < hunk.oldStart {
                out.append(diff.old[next])
                next += 1
            }
            for line in hunk.lines {
                switch line.mark {
                case UInt8(ascii: "-"): next += 1
                case UInt8(ascii: "+"): out.append(diff.new[line.index])
                default:
                    out.append(diff.old[line.index])
                    next += 1
                }
            }
        }
        while next < diff.old.count {
            out.append(diff.old[next])
            next += 1
        }
        return out
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 6, 7]) func hunksTurnOldIntoNew(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let old = (0..<Int(rng.next() % 60)).map { _ in "l\(rng.next() % 8)\n" }
        var new = old
        for _ in 0..<Int(rng.next() % 10) {
            let at = new.isEmpty ? 0 : Int(rng.next() % UInt64(new.count))
            if rng.next() % 2 == 0 || new.isEmpty { new.insert("n\(rng.next() % 5)\n", at: at) } else { new.remove(at: at) }
        }
        let a = Array(old.joined().utf8), b = Array((new.joined() + (seed % 2 == 0 ? "tail" : "")).utf8)
        // Myers between the anchors, and none at all (each gap left unpaired).
        for limit in [LineDiff.stepsPerLine, 0] {
            let diff = LineDiff(old: a, new: b, stepsPerLine: limit)
            #expect(Self.apply(diff).flatMap { $0 } == b, "seed \(seed), limit \(limit)")
            #expect(diff.isEmpty == (a == b))
        }
    }

    @Test func unifiedOutputIsDiffU() {
        let diff = LineDiff(old: Array("a\nb\nc\n".utf8), new: Array("a\nB\nc\nd".utf8))
        var out = ""
        UnifiedRenderer(context: RenderContext(oldName: "a/x", newName: "b/x")).render(diff, to: &out)
        #expect(out == "--- a/x\n+++ b/x\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n\\ No newline at end of file\n")
    }
}
