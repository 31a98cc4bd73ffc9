/// The classic dynamic-programming longest common subsequence (R. A. Wagner and M. J. Fischer,
/// "The string-to-string correction problem", JACM 21(1), 1974), in D. S. Hirschberg's
/// linear-space form ("A linear space algorithm for computing maximal common subsequences",
/// CACM 18(6), 1975): split the old side in half, find where the new side splits with one
/// forward and one backward row of LCS lengths, and solve the halves.
///
/// - Complexity: O(N · M) time and O(N + M) space (after pairing the common prefix and suffix).
/// - Trade-off: the textbook oracle, simple and exact; its cost is the product of the lengths
///   whatever the lists hold, so it refuses, before starting, lists whose product is above
///   `costLimit` cells.
public struct LCSDiff: DiffAlgorithm {
    /// Table cells allowed (N · M after the common prefix and suffix).
    public var costLimit: Int

    /// The dynamic-programming LCS; it refuses inputs whose table would hold more than
    /// `costLimit` cells.
    public init(costLimit: Int = DiffCost.defaultLimit) {
        self.costLimit = costLimit
    }

    public var name: String { "lcs" }

    public func pairs(old: [Int], new: [Int], symbolCount: Int) throws(ListDiffError) -> [Int?] {
        var solver = Hirschberg(a: old, b: new)
        var box = EditBox(left: 0, top: 0, right: old.count, bottom: new.count)
        box.pairCommonEnds(old, new, into: &solver.pairs)
        let (n, m) = (box.right - box.left, box.bottom - box.top)
        let (product, overflow) = n.multipliedReportingOverflow(by: m)
        if overflow || product > costLimit {
            throw DiffCost.exceeded(
                "lcs", limit: costLimit, "\(n) × \(m) records need \(overflow ? "more than \(Int.max)" : "\(product)") table cells")
        }
        solver.solve(box.left, box.top, box.right, box.bottom)
        return solver.pairs
    }
}

struct Hirschberg {
    let a: [Int]
    let b: [Int]
    var pairs: [Int?]
    /// Table cells computed, for the cost fence.
    var cost = 0

    init(a: [Int], b: [Int]) {
        self.a = a
        self.b = b
        pairs = [Int?](repeating: nil, count: a.count)
    }

    mutating func solve(_ left: Int, _ top: Int, _ right: Int, _ bottom: Int) {
        // An explicit stack: the split depth is log N, but there is no reason to recurse.
        var boxes = [(left, top, right, bottom)]
        var forwardRow: [Int32] = []
        var backwardRow: [Int32] = []
        while let next = boxes.popLast() {
            var box = EditBox(left: next.0, top: next.1, right: next.2, bottom: next.3)
            box.pairCommonEnds(a, b, into: &pairs)
            if box.isEmpty { continue }
            let (l, t, r, bo) = (box.left, box.top, box.right, box.bottom)
            if r - l == 1 {
                if let j = (t..<bo).first(where: { b[$0] == a[l] }) { pairs[l] = j }
                cost += bo - t
                continue
            }
            let mid = (l + r) / 2
            lengths(forward: true, l, mid, t, bo, into: &forwardRow)
            lengths(forward: false, mid, r, t, bo, into: &backwardRow)
            cost += (r - l) * (bo - t)
            // Split the new side where the two halves' LCS lengths add up to the most.
            let m = bo - t
            var best = -1
            var split = 0
            for j in 0...m {
                let total = Int(forwardRow[j]) + Int(backwardRow[m - j])
                if total > best {
                    best = total
                    split = j
                }
            }
            boxes.append((l, t, mid, t + split))
            boxes.append((mid, t + split, r, bo))
        }
    }

    /// The last row of LCS lengths of a[rows] against every prefix (forward) or
    /// suffix (backward, indexed by suffix length) of b[t..<bo].
    func lengths(forward: Bool, _ l: Int, _ r: Int, _ t: Int, _ bo: Int, into row: inout [Int32]) {
        let m = bo - t
        row.removeAll(keepingCapacity: true)
        row.append(contentsOf: repeatElement(0, count: m + 1))
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                row.withUnsafeMutableBufferPointer { row in
                    for step in 0..<(r - l) {
                        let x = a[forward ? l + step : r - 1 - step]
                        var diagonal: Int32 = 0  // row[j - 1] of the previous line
                        for j in 1...m {
                            let y = b[forward ? t + j - 1 : bo - j]
                            let above = row[j]
                            row[j] = x == y ? diagonal + 1 : max(above, row[j - 1])
                            diagonal = above
                        }
                    }
                }
            }
        }
    }
}
