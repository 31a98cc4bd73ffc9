/// A pluggable diff adaptor.
///
/// An algorithm sees only identities: each record is replaced by a small integer, equal for
/// equal keys, in `0 ..< symbolCount`. It pairs elements of `old` with equal elements of
/// `new`; everything else (updates, the choice of which matched records count as moved,
/// inserts and deletes) is derived from that pairing by `Differ`, the same way for every
/// algorithm, so that every algorithm yields the same kind of changeset with the same contract.
///
/// A conforming type must return, for each index of `old`, the index in `new` it is paired
/// with, or `nil`; a pair must join equal symbols, and no index may be used twice. It need
/// not pair every symbol the two sides share: `Differ` pairs what is left over in order.
/// It may refuse (for instance above a cost it cannot afford) by throwing.
///
/// listdiff always hands an algorithm unique symbols (keys are unique, or numbered by
/// occurrence under `--duplicates match`), so that every algorithm's changeset is the same;
/// the algorithms themselves are general and are tested on sequences with repeats too.
public protocol DiffAlgorithm: Sendable {
    /// The name used on the command line and in the JSON changeset.
    var name: String { get }

    func pairs(old: [Int], new: [Int], symbolCount: Int) throws(ListDiffError) -> [Int?]
}

/// The longest strictly increasing subsequence, by patience sorting.
///
/// - Returns: the positions in `values` of one longest strictly increasing subsequence, ascending.
/// - Complexity: O(n log n) time, O(n) space.
public func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
    if values.isEmpty { return [] }
    var tails: [Int] = []  // tails[k]: position of the smallest tail of an increasing run of length k + 1
    tails.reserveCapacity(64)
    var previous = [Int](repeating: -1, count: values.count)
    for (position, value) in values.enumerated() {
        var low = 0
        var high = tails.count
        while low < high {
            let mid = (low + high) / 2
            if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
        }
        if low > 0 { previous[position] = tails[low - 1] }
        if low == tails.count { tails.append(position) } else { tails[low] = position }
    }
    var result = [Int](repeating: 0, count: tails.count)
    var position = tails[tails.count - 1]
    for k in stride(from: tails.count - 1, through: 0, by: -1) {
        result[k] = position
        position = previous[position]
    }
    return result
}

/// A sub-rectangle of the edit graph: old indexes `left ..< right`, new indexes `top ..< bottom`.
struct EditBox {
    var left, top, right, bottom: Int

    var isEmpty: Bool { left == right || top == bottom }

    /// Pairs the equal elements at the start and at the end of the box and shrinks it
    /// to what lies between; returns how many pairs it made.
    @discardableResult
    mutating func pairCommonEnds(_ a: [Int], _ b: [Int], into pairs: inout [Int?]) -> Int {
        var made = 0
        while left < right, top < bottom, a[left] == b[top] {
            pairs[left] = top
            left += 1
            top += 1
            made += 1
        }
        while left < right, top < bottom, a[right - 1] == b[bottom - 1] {
            pairs[right - 1] = bottom - 1
            right -= 1
            bottom -= 1
            made += 1
        }
        return made
    }
}
