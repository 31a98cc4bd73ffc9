import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// The contract every diff adaptor must keep, run over each of them.
@Suite struct AlgorithmContractTests {
    static let algorithms: [String: any DiffAlgorithm] = [
        "heckel": HeckelDiff(), "myers": MyersDiff(), "lcs": LCSDiff(),
    ]
    static let names = ["heckel", "myers", "lcs"]

    /// Lists of scalars with many repeats, for `--duplicates match`.
    static func scalarPair(_ rng: inout SplitMix64) -> ([Value], [Value]) {
        let alphabet = Int.random(in: 1...6, using: &rng)
        func list() -> [Value] {
            (0..<Int.random(in: 0...25, using: &rng)).map { _ in Value.number(Number(exactly: Int.random(in: 0..<alphabet, using: &rng))) }
        }
        let old = list()
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return (old, old.reversed())
        case 1: return (old, old.shuffled(using: &rng))
        default: return (old, list())
        }
    }

    @Test(arguments: names)
    func everyChangesetAppliesExactly(name: String) throws {
        let differ = Differ(algorithm: Self.algorithms[name]!)
        let key = try IdentityKey(parsing: [])
        var rng = SplitMix64(seed: 2024)
        var generator = RecordListGenerator(rng: SplitMix64(seed: 99))
        var fixed: [([Value], [Value])] = [
            ([], []), ([], [1]), ([1], []), ([1], [1]), ([1], [2]),
            ([1, 2, 3], [3, 2, 1]), ([1, 2, 3], [4, 5, 6]),
        ]
        for _ in 0..<1500 { fixed.append(generator.pair()) }
        for (oldValues, newValues) in fixed {
            let old = try document(oldValues), new = try document(newValues)
            #expect(try differ.diff(old: old, new: new, key: key).apply(to: old.values) == new.values)
        }
        var scalarPairs: [([Value], [Value])] = [([1, 1, 1], [1, 1]), ([1, 2, 1], [2, 1, 1]), ([], [3, 3])]
        for _ in 0..<1500 { scalarPairs.append(Self.scalarPair(&rng)) }
        for (oldValues, newValues) in scalarPairs {
            let old = try matched(oldValues), new = try matched(newValues)
            let changeset = try differ.diff(old: old, new: new, key: key)
            #expect(try changeset.apply(to: old.values) == new.values)
            #expect(changeset.changes.allSatisfy { $0.occurrence != nil })
        }
    }

    func matched(_ values: [Value]) throws -> Document {
        var text = ""
        JSONWriter.write(.array(values), to: &text)
        let (root, source) = try JSONReader().read(Array(text.utf8), name: "m.json")
        return try Document.keyed(root, source: source, key: IdentityKey(parsing: []), duplicates: .match)
    }

    /// With unique keys, all three give the same changeset, change for change.
    @Test func allAlgorithmsAgree() throws {
        var generator = RecordListGenerator(rng: SplitMix64(seed: 5))
        let key = try IdentityKey(parsing: [])
        for _ in 0..<1000 {
            let (o, n) = generator.pair(maxCount: 60)
            let old = try document(o), new = try document(n)
            let outputs = try Self.names.map { name -> String in
                var out = JSONBytes()
                for change in try Differ(algorithm: Self.algorithms[name]!).diff(old: old, new: new, key: key).changes {
                    try JSONChangesetRenderer.write(change, to: &out)
                }
                return out.string
            }
            #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2])
        }
    }

    /// Myers's pairs and LCS's are both longest common subsequences: equal lengths, valid.
    @Test func myersEditScriptsAreAsShortAsLCS() throws {
        var rng = SplitMix64(seed: 77)
        for round in 0..<3000 {
            let alphabet = Int.random(in: 1...4, using: &rng)
            let a = (0..<Int.random(in: 0...40, using: &rng)).map { _ in Int.random(in: 0..<alphabet, using: &rng) }
            let b = (0..<Int.random(in: 0...40, using: &rng)).map { _ in Int.random(in: 0..<alphabet, using: &rng) }
            let myers = try MyersDiff().pairs(old: a, new: b, symbolCount: alphabet)
            let lcs = try LCSDiff().pairs(old: a, new: b, symbolCount: alphabet)
            for pairs in [myers, lcs] {
                let matched = pairs.enumerated().compactMap { i, j in j.map { (i, $0) } }
                #expect(matched.allSatisfy { a[$0.0] == b[$0.1] })
                #expect(zip(matched, matched.dropFirst()).allSatisfy { $0.1 < $1.1 }, "a common subsequence keeps order")
            }
            let lengths = [myers, lcs].map { $0.compactMap { $0 }.count }
            #expect(lengths[0] == lengths[1], "round \(round): \(a) vs \(b)")
            if round < 300 { #expect(lengths[1] == Self.lcsLength(a, b)) }
        }
    }

    /// The full table, as the oracle's oracle.
    static func lcsLength(_ a: [Int], _ b: [Int]) -> Int {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in a.indices {
            for j in b.indices {
                table[i + 1][j + 1] = a[i] == b[j] ? table[i][j] + 1 : max(table[i][j + 1], table[i + 1][j])
            }
        }
        return table[a.count][b.count]
    }

    @Test func heckelPairsTheUniqueSymbolsOfRepeats() throws {
        // Heckel is exact for unique symbols; with repeats its pairs are valid, not maximal.
        // 0 and 2 occur once in each list and pair first; the pass forward from the pair of
        // 0s pairs the 1s that follow them; the 1 at old 2 has no partner left.
        let pairs = HeckelDiff().pairs(old: [0, 1, 1, 2], new: [1, 0, 1, 2], symbolCount: 3)
        #expect(pairs == [1, 2, nil, 3])
    }

    // MARK: Cost fences, by counting steps.

    @Test(arguments: [1_000, 10_000, 100_000])
    func heckelIsLinear(n: Int) {
        var rng = SplitMix64(seed: UInt64(n))
        let old = Array(0..<n)
        let new = old.shuffled(using: &rng)
        var cost = 0
        _ = HeckelDiff().pairs(old: old, new: new, symbolCount: n, cost: &cost)
        #expect(cost <= 5 * (2 * n), "cost \(cost) for n = \(n)")
    }

    @Test func myersIsWithinNTimesD() throws {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<300 {
            let n = Int.random(in: 0...300, using: &rng)
            var new = Array(0..<n)
            for _ in 0..<Int.random(in: 0...20, using: &rng) where !new.isEmpty {
                let x = new.remove(at: Int.random(in: 0..<new.count, using: &rng))
                new.insert(x, at: Int.random(in: 0...new.count, using: &rng))
            }
            if Bool.random(using: &rng) { new.append(contentsOf: n..<(n + Int.random(in: 0...10, using: &rng))) }
            var search = MyersSearch(a: Array(0..<n), b: new, limit: .max)
            try search.run()
            let common = search.pairs.compactMap { $0 }.count
            let d = n + new.count - 2 * common
            #expect(search.cost <= 4 * (n + new.count + 1) * (d + 1), "cost \(search.cost), N+M \(n + new.count), D \(d)")
        }
    }

    @Test func lcsIsWithinNTimesM() {
        var rng = SplitMix64(seed: 12)
        for _ in 0..<100 {
            let a = (0..<Int.random(in: 1...200, using: &rng)).map { _ in Int.random(in: 0..<5, using: &rng) }
            let b = (0..<Int.random(in: 1...200, using: &rng)).map { _ in Int.random(in: 0..<5, using: &rng) }
            var solver = Hirschberg(a: a, b: b)
            solver.solve(0, 0, a.count, b.count)
            #expect(solver.cost <= 2 * a.count * b.count + a.count + b.count)
        }
    }

    @Test func quadraticAlgorithmsRefuseAboveTheirLimitInsteadOfHanging() throws {
        let n = 5_000
        var rng = SplitMix64(seed: 3)
        let old = Array(0..<n), new = old.shuffled(using: &rng)
        #expect {
            _ = try LCSDiff(costLimit: 1_000_000).pairs(old: old, new: new, symbolCount: n)
        } throws: { error in
            "\(error)".contains("lcs: 4999 × 4999 records need") || "\(error)".contains("above the cost limit of 1000000 steps")
        }
        #expect {
            _ = try MyersDiff(costLimit: 1_000_000).pairs(old: old, new: new, symbolCount: n)
        } throws: { error in
            "\(error)".hasPrefix("error: myers: the lists differ by more than")
                && (error as? ListDiffError)?.hint == .algorithm("heckel (linear)")
        }
        // Alike lists stay cheap for Myers even when long.
        var alike = Array(0..<200_000)
        alike.swapAt(10, 150_000)
        #expect(
            try MyersDiff(costLimit: 10_000_000).pairs(old: Array(0..<200_000), new: alike, symbolCount: 200_000)
                .compactMap { $0 }.count == 199_998)
    }

    // MARK: The raw output, before `Differ` checks or completes it.

    /// What an algorithm must promise, and more for some:
    enum Promise {
        /// every pair valid (in range, equal symbols, no index of NEW twice);
        case valid
        /// and a common subsequence no shorter than any other: the fewest edits (Myers, LCS);
        case fewestEdits
        /// and every symbol that occurs once on each side paired (Heckel's pass 3).
        case uniqueSymbolsPaired
    }

    /// The ways `algorithm`'s own pairs break `promise` on random small sequences with
    /// repeats (and the fixed cases), each spelled with its inputs; none for a sound one.
    static func violations(of algorithm: any DiffAlgorithm, _ promise: Promise, rounds: Int = 1500) -> [String] {
        var rng = SplitMix64(seed: 31)
        var cases: [([Int], [Int])] = [([], []), ([0], []), ([], [0]), ([0], [0]), ([0, 1], [1, 0]), ([0, 1, 2], [2, 0, 1])]
        for _ in 0..<rounds {
            let alphabet = Int.random(in: 1...6, using: &rng)
            let a = (0..<Int.random(in: 0...8, using: &rng)).map { _ in Int.random(in: 0..<alphabet, using: &rng) }
            let b = (0..<Int.random(in: 0...8, using: &rng)).map { _ in Int.random(in: 0..<alphabet, using: &rng) }
            cases.append((a, b))
        }
        var found: [String] = []
        for (a, b) in cases {
            let symbolCount = (a + b).max().map { $0 + 1 } ?? 0
            let pairs: [Int?]
            do { pairs = try algorithm.pairs(old: a, new: b, symbolCount: symbolCount) } catch {
                found.append("\(a) → \(b): threw \(error)")
                continue
            }
            guard pairs.count == a.count else {
                found.append("\(a) → \(b): \(pairs.count) entries for \(a.count) old elements")
                continue
            }
            var used = Set<Int>()
            for (i, j) in pairs.enumerated() {
                guard let j else { continue }
                if !(0..<b.count).contains(j) { found.append("\(a) → \(b): old \(i) paired with \(j), out of range"); continue }
                if a[i] != b[j] { found.append("\(a) → \(b): old \(i) (\(a[i])) paired with new \(j) (\(b[j]))") }
                if !used.insert(j).inserted { found.append("\(a) → \(b): new \(j) paired twice") }
            }
            let matched = pairs.enumerated().compactMap { i, j in j.map { (i, $0) } }
            switch promise {
            case .valid:
                break
            case .fewestEdits:
                if !zip(matched, matched.dropFirst()).allSatisfy({ $0.1 < $1.1 }) {
                    found.append("\(a) → \(b): the pairs cross, so they are not a common subsequence")
                }
                let edits = a.count + b.count - 2 * matched.count
                let fewest = Self.fewestEdits(a[...], b[...])
                if edits != fewest { found.append("\(a) → \(b): \(edits) edits, where \(fewest) will do") }
            case .uniqueSymbolsPaired:
                for (i, symbol) in a.enumerated()
                where a.filter({ $0 == symbol }).count == 1 && b.filter({ $0 == symbol }).count == 1 {
                    if pairs[i] != b.firstIndex(of: symbol) { found.append("\(a) → \(b): \(symbol), once on each side, is not paired") }
                }
            }
        }
        return found
    }

    /// The fewest inserts and deletes that turn `a` into `b`, by trying every way: the
    /// brute-force reference (small inputs only).
    static func fewestEdits(_ a: ArraySlice<Int>, _ b: ArraySlice<Int>) -> Int {
        guard let x = a.first else { return b.count }
        guard let y = b.first else { return a.count }
        var best = 1 + min(fewestEdits(a.dropFirst(), b), fewestEdits(a, b.dropFirst()))
        if x == y { best = min(best, fewestEdits(a.dropFirst(), b.dropFirst())) }
        return best
    }

    @Test func eachAlgorithmsRawOutputKeepsItsPromise() {
        for (algorithm, promise) in [(HeckelDiff(), Promise.uniqueSymbolsPaired), (MyersDiff(), .fewestEdits), (LCSDiff(), .fewestEdits)]
            as [(any DiffAlgorithm, Promise)]
        {
            let found = Self.violations(of: algorithm, promise)
            #expect(found.isEmpty, "\(algorithm.name): \(found.prefix(5))")
        }
    }

    /// The checks above fail broken algorithms: one that pairs nothing, one that pairs
    /// by position, one that pairs a common subsequence that is not the longest.
    @Test func theRawContractFailsBrokenAlgorithms() {
        struct Broken: DiffAlgorithm {
            let name: String
            let pairing: @Sendable ([Int], [Int]) -> [Int?]
            func pairs(old: [Int], new: [Int], symbolCount: Int) -> [Int?] { pairing(old, new) }
        }
        let nothing = Broken(name: "nothing") { old, _ in [Int?](repeating: nil, count: old.count) }
        let byPosition = Broken(name: "by position") { old, new in old.indices.map { $0 < new.count ? $0 : nil } }
        // Pairs only the elements that sit at the same place with equal symbols.
        let sameSpot = Broken(name: "same spot") { old, new in old.indices.map { $0 < new.count && old[$0] == new[$0] ? $0 : nil } }
        #expect(!Self.violations(of: nothing, .fewestEdits, rounds: 200).isEmpty)
        #expect(!Self.violations(of: nothing, .uniqueSymbolsPaired, rounds: 200).isEmpty)
        #expect(!Self.violations(of: byPosition, .valid, rounds: 200).isEmpty)
        #expect(Self.violations(of: sameSpot, .valid, rounds: 200).isEmpty)
        #expect(!Self.violations(of: sameSpot, .fewestEdits, rounds: 200).isEmpty)
    }
}
