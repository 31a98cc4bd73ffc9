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
}
