/// Eugene W. Myers, "An O(ND) difference algorithm and its variations", Algorithmica 1(2),
/// 1986: the greedy search for the furthest-reaching D-paths, with the paper's linear-space
/// refinement (section 4b): find the middle snake by searching forward and backward at once,
/// then solve the two halves on either side of it.
///
/// It pairs a longest common subsequence of the two sequences: a shortest edit script.
///
/// - Complexity: O((N + M) · D) time and O(N + M) space, for N old and M new elements and
///   an edit script of length D. Fast when the lists are alike, slow when they are not: a
///   full shuffle of n records has D ≈ 2n, so O(n²).
/// - Trade-off: exact shortest edit script, never more than linear memory; but quadratic on
///   very different lists, so it stops with an error once it has taken `costLimit` steps.
public struct MyersDiff: DiffAlgorithm {
    /// Steps (diagonal extensions and element comparisons) allowed before giving up.
    public var costLimit: Int

    /// Myers's algorithm; it refuses inputs whose search would take more than `costLimit`
    /// steps.
    public init(costLimit: Int = DiffCost.defaultLimit) {
        self.costLimit = costLimit
    }

    public var name: String { "myers" }

    public func pairs(old: [Int], new: [Int], symbolCount: Int) throws(ListDiffError) -> [Int?] {
        var search = MyersSearch(a: old, b: new, limit: costLimit)
        try search.run()
        return search.pairs
    }
}

/// Counts of basic steps, for the cost fences in the tests and the limits on the command line.
@usableFromInline package enum DiffCost {
    /// The default limit on an algorithm's basic steps: a billion, above which `myers` and `lcs`
    /// refuse and point at `heckel`. `--cost-limit` changes it.
    @usableFromInline package static let defaultLimit = 1_000_000_000

    static func exceeded(_ algorithm: String, limit: Int, _ detail: String) -> ListDiffError {
        let instead = algorithm == "lcs" ? "heckel (linear) or myers (fast on alike lists)" : "heckel (linear)"
        return ListDiffError(.limit, "\(algorithm): \(detail), above the cost limit of \(limit) steps", hint: .algorithm(instead))
    }
}

struct MyersSearch {
    let a: [Int]
    let b: [Int]
    let limit: Int
    var pairs: [Int?]
    /// Steps taken so far: one per diagonal visited and one per element comparison.
    var cost = 0
    var forward: [Int]
    var backward: [Int]
    let offset: Int

    init(a: [Int], b: [Int], limit: Int) {
        self.a = a
        self.b = b
        self.limit = limit
        pairs = [Int?](repeating: nil, count: a.count)
        let maxD = (a.count + b.count + 1) / 2 + 1
        offset = maxD + 1
        forward = [Int](repeating: 0, count: 2 * offset + 1)
        backward = [Int](repeating: 0, count: 2 * offset + 1)
    }

    mutating func run() throws(ListDiffError) {
        // Work on boxes with an explicit stack, so that deep splits cannot overflow the stack.
        var boxes = [EditBox(left: 0, top: 0, right: a.count, bottom: b.count)]
        while var box = boxes.popLast() {
            cost += box.pairCommonEnds(a, b, into: &pairs)
            if box.isEmpty { continue }
            let (left, top, right, bottom) = (box.left, box.top, box.right, box.bottom)
            let snake = try middleSnake(left: left, top: top, right: right, bottom: bottom)
            for step in 0..<snake.length {
                pairs[snake.diagonal.x + step] = snake.diagonal.y + step
            }
            let (start, finish) = (snake.start, snake.finish)
            boxes.append(EditBox(left: left, top: top, right: start.x, bottom: start.y))
            boxes.append(EditBox(left: finish.x, top: finish.y, right: right, bottom: bottom))
        }
    }

    struct Snake {
        /// Where the snake starts and ends: the two halves left to solve end and begin here.
        var start: (x: Int, y: Int)
        var finish: (x: Int, y: Int)
        /// Its run of equal elements (the one edit step, if any, is before or after it).
        var diagonal: (x: Int, y: Int)
        var length: Int
    }

    /// The middle snake of the box.
    mutating func middleSnake(left: Int, top: Int, right: Int, bottom: Int) throws(ListDiffError) -> Snake {
        let width = right - left
        let height = bottom - top
        let delta = width - height
        let odd = delta & 1 != 0
        let maxD = (width + height + 1) / 2
        forward[offset + 1] = left
        backward[offset + 1] = bottom
        for d in 0...maxD {
            cost += 2 * d + 2
            if cost > limit {
                throw DiffCost.exceeded("myers", limit: limit, "the lists differ by more than \(2 * d) edits")
            }
            // Forward: furthest-reaching paths on diagonals k = x - y (box-relative).
            var k = d
            while k >= -d {
                var x: Int
                let px: Int
                if k == -d || (k != d && forward[offset + k - 1] < forward[offset + k + 1]) {
                    px = forward[offset + k + 1]
                    x = px
                } else {
                    px = forward[offset + k - 1]
                    x = px + 1
                }
                var y = top + (x - left) - k
                let py = (d == 0 || x != px) ? y : y - 1
                let (sx, sy) = (x, y)
                while x < right, y < bottom, a[x] == b[y] {
                    x += 1
                    y += 1
                    cost += 1
                }
                forward[offset + k] = x
                let c = k - delta
                if odd, c >= -(d - 1), c <= d - 1, y >= backward[offset + c] {
                    return Snake(start: (px, py), finish: (x, y), diagonal: (sx, sy), length: x - sx)
                }
                k -= 2
            }
            // Backward: paths from the bottom-right corner on diagonals c = k - delta.
            var c = d
            while c >= -d {
                var y: Int
                let py: Int
                if c == -d || (c != d && backward[offset + c - 1] > backward[offset + c + 1]) {
                    py = backward[offset + c + 1]
                    y = py
                } else {
                    py = backward[offset + c - 1]
                    y = py - 1
                }
                let k = c + delta
                var x = left + (y - top) + k
                let px = (d == 0 || y != py) ? x : x + 1
                let ex = x
                while x > left, y > top, a[x - 1] == b[y - 1] {
                    x -= 1
                    y -= 1
                    cost += 1
                }
                backward[offset + c] = y
                if !odd, k >= -d, k <= d, x <= forward[offset + k] {
                    return Snake(start: (x, y), finish: (px, py), diagonal: (x, y), length: ex - x)
                }
                c -= 2
            }
        }
        // Unreachable: a middle snake exists within ceil((N + M) / 2) steps.
        return Snake(start: (left, top), finish: (right, bottom), diagonal: (left, top), length: 0)
    }
}
