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
/// - Complexity: O(n log n) time, O(n) space; O(n) when the values mostly increase (a value
///   above the longest run's tail extends it without a search).
public func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
    let n = values.count
    if n == 0 { return [] }
    // tails[k]: position of the smallest tail of an increasing run of length k + 1, and
    // tailValues[k] its value (kept beside it, so that the search reads one array).
    var tails = [Int](repeating: 0, count: n)
    var tailValues = [Int](repeating: 0, count: n)
    var previous = [Int](repeating: -1, count: n)
    var length = 0
    values.withUnsafeBufferPointer { values in
        tails.withUnsafeMutableBufferPointer { tails in
            tailValues.withUnsafeMutableBufferPointer { tailValues in
                previous.withUnsafeMutableBufferPointer { previous in
                    for position in 0..<n {
                        let value = values[position]
                        var low: Int
                        if length > 0, tailValues[length - 1] < value {
                            low = length
                        } else {
                            low = 0
                            var high = length
                            while low < high {
                                let mid = (low + high) >> 1
                                if tailValues[mid] < value { low = mid + 1 } else { high = mid }
                            }
                        }
                        if low > 0 { previous[position] = tails[low - 1] }
                        tails[low] = position
                        tailValues[low] = value
                        if low == length { length += 1 }
                    }
                }
            }
        }
    }
    var result = [Int](repeating: 0, count: length)
    var position = tails[length - 1]
    for k in stride(from: length - 1, through: 0, by: -1) {
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
