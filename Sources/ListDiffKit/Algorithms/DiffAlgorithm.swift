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
/// not pair every symbol the two sides share: for keyed records `Differ` pairs what is left
/// over in order.
/// It may refuse (for instance above a cost it cannot afford) by throwing.
///
/// For keyed records, listdiff hands an algorithm unique symbols (keys are unique, or
/// numbered by occurrence under `--duplicates match`), so every algorithm's changeset is
/// the same. For a list diffed as a sequence (`--key .`) the symbols repeat, and the
/// algorithm's own pairs, checked but not completed, make the changeset: there each
/// algorithm gives its own result.
public protocol DiffAlgorithm: Sendable {
    /// The name used on the command line and in the JSON changeset.
    var name: String { get }

    /// Pairs elements of `old` with equal elements of `new`.
    ///
    /// - Parameters:
    ///   - old: OLD's records as symbols.
    ///   - new: NEW's records as symbols.
    ///   - symbolCount: every symbol is less than this.
    /// - Returns: for each index of `old`, the index in `new` it is paired with, or nil.
    /// - Throws: when the algorithm refuses the input, such as above its cost limit.
    func pairs(old: [Int], new: [Int], symbolCount: Int) throws(ListDiffError) -> [Int?]
}

/// Visits the positions of one longest strictly increasing subsequence of the values at
/// positions `0..<n` that are not negative (the negative ones are left out), last first,
/// by patience sorting, without building the sequence to run it on (a matching's new
/// indexes, in old order, with -1 for the unmatched).
///
/// - Complexity: O(n log n) time, O(n) space; O(n) when the values mostly increase (a value
///   above the longest run's tail extends it without a search).
@inline(__always)
func visitLongestIncreasingSubsequence(count n: Int, value: (Int) -> Int, visit: (Int) -> Void) {
    guard n > 0 else { return }
    precondition(n < Int32.max, "too many elements")
    // tails[k]: position of the smallest tail of an increasing run of length k + 1, and
    // tailValues[k] its value (kept beside it, so that the search reads one array);
    // previous[p]: the position before p on its run, + 1 (0: none).
    let tails = PageBuffer<Int32>(zeroed: n), tailValues = PageBuffer<Int>(zeroed: n), previous = PageBuffer<Int32>(zeroed: n)
    let t = tails.buffer, tv = tailValues.buffer, prev = previous.buffer
    var length = 0
    for position in 0..<n {
        let v = value(position)
        if v < 0 { continue }
        var low: Int
        if length > 0, tv[length - 1] < v {
            low = length
        } else {
            low = 0
            var high = length
            while low < high {
                let mid = (low + high) >> 1
                if tv[mid] < v { low = mid + 1 } else { high = mid }
            }
        }
        if low > 0 { prev[position] = t[low - 1] + 1 }
        t[low] = Int32(truncatingIfNeeded: position)
        tv[low] = v
        if low == length { length += 1 }
    }
    guard length > 0 else { return }
    var position = Int(t[length - 1])
    while true {
        visit(position)
        let before = Int(prev[position])
        if before == 0 { break }
        position = before - 1
    }
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
