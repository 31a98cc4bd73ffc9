import Foundation
import ListDiffKitTestSupport
import Testing

@testable import ListDiffKit

/// The parts of invert and compose that the command tests reach only now and then.
@Suite struct AlgebraTests {
    /// The run compose falls back on: as long as the longest increasing run, and of those,
    /// one that keeps the most unnamed positions, checked against every subset of small
    /// random sequences.
    @Test func theFallbackRunIsLongestAndKeepsTheMostUnnamed() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let n = random.below(9), count = 8
            let targets = (0..<n).map { _ in random.below(3) == 0 ? Int32(-1) : Int32(random.below(count)) }
            let unnamed = (0..<n).map { _ in random.below(2) == 0 }
            let stays = Changeset.longestRunKeeping(targets, count: count, unnamed: { unnamed[$0] })
            // Every subset of positions with a target, increasing: the best length, and the
            // most unnamed positions among the longest.
            var best = (length: 0, kept: 0)
            for mask in 0..<(1 << n) {
                let picked = (0..<n).filter { mask & (1 << $0) != 0 }
                guard picked.allSatisfy({ targets[$0] >= 0 }),
                    zip(picked, picked.dropFirst()).allSatisfy({ targets[$0] < targets[$1] })
                else { continue }
                let score = (picked.count, picked.count { unnamed[$0] })
                if score > best { best = score }
            }
            let chosen = (0..<n).filter { stays[$0] }
            #expect(chosen.allSatisfy { targets[$0] >= 0 }, "\(targets)")
            #expect(zip(chosen, chosen.dropFirst()).allSatisfy { targets[$0] < targets[$1] }, "\(targets)")
            #expect(chosen.count == best.length, "\(targets)")
            #expect(chosen.count { unnamed[$0] } == best.kept, "\(targets) \(unnamed)")
        }
    }

    /// A record neither changeset names must move (3 stays in B and C while 1 and 2 move
    /// around it): without OLD, compose refuses with the hint `.oldDocument`; with it, the
    /// result renders as the direct diff's changeset; another document is refused.
    @Test func composeReadsTheMissingKeysFromOld() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("listdiff-algebra-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name + ".json").path }
        for (name, ids) in [("a", [1, 2, 3]), ("b", [2, 3, 1]), ("c", [3, 1, 2])] {
            try ("[" + ids.map { "{\"id\": \($0)}" }.joined(separator: ", ") + "]").write(
                toFile: path(name), atomically: true, encoding: .utf8)
        }
        let files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
        let first = try files.diff(oldPath: path("a"), newPath: path("b"))
        let second = try files.diff(oldPath: path("b"), newPath: path("c"))
        do throws(ListDiffError) {
            _ = try first.composed(with: second)
            Issue.record("composed without the keys it lacks")
        } catch {
            #expect(error.hint == .oldDocument)
        }
        func rendered(_ changeset: Changeset) throws -> String {
            var out = StringStream()
            try JSONChangesetRenderer(context: RenderContext(oldName: "a", newName: "c")).render(changeset, to: &out)
            return out.text
        }
        let composed = try first.composed(with: second, oldPath: path("a"))
        #expect(try rendered(composed) == rendered(try files.diff(oldPath: path("a"), newPath: path("c"))))
        do throws(ListDiffError) {
            _ = try first.composed(with: second, oldPath: path("b"))
            Issue.record("B was taken for A")
        } catch {
            #expect(error.kind == .changeset)
            #expect(error.message.hasPrefix("this is not the document the first changeset was made from"), "\(error.message)")
        }
    }
}
