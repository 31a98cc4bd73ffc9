// Diff kernels on identity arrays: listdiff's three algorithms (pairing plus minimal moves,
// as `listdiff` runs them) against Swift's own CollectionDifference (`difference(from:)`
// plus `inferringMoves()`), on the same arrays, in the same run.
//
//     cd Benchmarks && swift run -c release listdiff-kernels [--sizes 10000,100000,1000000]
@_spi(Benchmarks) import ListDiffKit

struct Generator {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

/// 1% each of deletes, inserts and moves, or a full shuffle.
func workload(_ n: Int, shuffle: Bool) -> (old: [Int], new: [Int]) {
    var g = Generator(state: UInt64(n) &* 31 &+ (shuffle ? 1 : 0))
    let old = Array(0..<n)
    var new = old
    if shuffle {
        for i in stride(from: new.count - 1, to: 0, by: -1) { new.swapAt(i, g.next(i + 1)) }
        return (old, new)
    }
    let k = max(1, n / 100)
    for _ in 0..<k { new.remove(at: g.next(new.count)) }
    for m in 0..<k { new.insert(n + m, at: g.next(new.count + 1)) }
    for _ in 0..<k { let x = new.remove(at: g.next(new.count)); new.insert(x, at: g.next(new.count + 1)) }
    return (old, new)
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let d = start.duration(to: clock.now)
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// Seconds with three decimals.
func format(_ t: Double) -> String {
    let ms = Int((t * 1000).rounded())
    let frac = String(ms % 1000)
    return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac + " s"
}

var sizes = [10_000, 100_000, 1_000_000]
if let i = CommandLine.arguments.firstIndex(of: "--sizes"), i + 1 < CommandLine.arguments.count {
    sizes = CommandLine.arguments[i + 1].split(separator: ",").compactMap { Int($0) }
}

let algorithms: [any DiffAlgorithm] = [HeckelDiff(), MyersDiff(), LCSDiff()]
print("| records | changes | heckel | myers | lcs | CollectionDifference | CollectionDifference / heckel |")
print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
for n in sizes {
    for shuffle in [false, true] {
        let (old, new) = workload(n, shuffle: shuffle)
        let symbols = n + n / 100 + 1
        var cells: [String] = []
        var heckelTime = 0.0
        var moves: [Int] = []
        for algorithm in algorithms {
            do {
                var result: (pairs: [Int?], stays: [Bool]) = ([], [])
                let t = try seconds { result = try Differ(algorithm: algorithm).matching(old: old, new: new, symbolCount: symbols) }
                if algorithm.name == "heckel" { heckelTime = t }
                moves.append(zip(result.pairs, result.stays).filter { $0 != nil && !$1 }.count)
                cells.append(format(t))
            } catch {
                cells.append("refused (cost limit)")
            }
        }
        precondition(Set(moves).count <= 1, "algorithms disagree on the number of moves: \(moves)")
        // CollectionDifference is Myers's greedy search without the linear-space refinement:
        // O((N+M)·D) time and O(D²) memory. Skipped where that is out of reach.
        let d = shuffle ? 2 * n : 4 * max(1, n / 100)
        var swiftCell = "skipped (D = \(d))"
        var ratio = "-"
        if Double(n) * Double(d) <= 5e9 && Double(d) * Double(d) <= 4e8 {
            var diff: CollectionDifference<Int>? = nil
            let t = seconds { diff = new.difference(from: old).inferringMoves() }
            precondition(diff != nil)
            swiftCell = format(t)
            ratio = "\(Int((t / max(heckelTime, 1e-9)).rounded()))×"
        }
        print("| \(n) | \(shuffle ? "full shuffle" : "1% each") | \(cells.joined(separator: " | ")) | \(swiftCell) | \(ratio) |")
    }
}
