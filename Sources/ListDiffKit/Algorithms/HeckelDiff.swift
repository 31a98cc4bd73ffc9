/// Paul Heckel's algorithm: P. Heckel, "A technique for isolating differences between
/// files", Communications of the ACM 21(4), 1978.
///
/// Symbols that occur exactly once on each side are paired first (pass 3); pairs then
/// spread to equal neighbours, forward (pass 4) and backward (pass 5), which pairs
/// repeated symbols that sit next to a unique pair. Records keyed by identity are unique,
/// so for listdiff's own use pass 3 pairs everything the two sides share.
///
/// - Complexity: O(n + m) time and space, for `n` old and `m` new elements.
/// - Trade-off: fastest of the three and exact for unique keys; with repeated symbols
///   that have no unique neighbour it pairs less than a longest common subsequence would,
///   and the left-over repeats are paired in order by `Differ` afterwards.
public struct HeckelDiff: DiffAlgorithm {
    /// Heckel's algorithm, with no options.
    public init() {}

    public var name: String { "heckel" }

    public func pairs(old: [Int], new: [Int], symbolCount: Int) -> [Int?] {
        var cost = 0
        return pairs(old: old, new: new, symbolCount: symbolCount, cost: &cost)
    }

    /// The same, counting element visits in `cost` (for the linear cost fence in the tests).
    func pairs(old: [Int], new: [Int], symbolCount: Int, cost: inout Int) -> [Int?] {
        // Pass 1 and 2: the symbol table. Counts saturate at 2 ("many").
        var newCount = [UInt8](repeating: 0, count: symbolCount)
        var oldCount = [UInt8](repeating: 0, count: symbolCount)
        var oldLine = [Int32](repeating: -1, count: symbolCount)
        var repeats = false
        for symbol in new {
            if newCount[symbol] == 0 { newCount[symbol] = 1 } else { newCount[symbol] = 2; repeats = true }
        }
        cost += new.count
        for (i, symbol) in old.enumerated() {
            cost += 1
            if oldCount[symbol] == 0 { oldCount[symbol] = 1 } else { oldCount[symbol] = 2; repeats = true }
            oldLine[symbol] = Int32(truncatingIfNeeded: i)
        }
        var na = [Int32](repeating: -1, count: new.count)  // new index -> old index
        var oa = [Int32](repeating: -1, count: old.count)  // old index -> new index
        // Pass 3: unique on both sides.
        cost += new.count
        for (j, symbol) in new.enumerated() where newCount[symbol] == 1 && oldCount[symbol] == 1 {
            let i = Int(oldLine[symbol])
            na[j] = Int32(truncatingIfNeeded: i)
            oa[i] = Int32(truncatingIfNeeded: j)
        }
        // Passes 4 and 5 pair repeated symbols next to a pair; with no repeats, pass 3 has
        // paired every symbol the two sides share, and they would find nothing.
        if repeats {
            // Pass 4: spread forward.
            var j = 0
            while j < new.count - 1 {
                cost += 1
                let i = Int(na[j])
                if i >= 0, i + 1 < old.count, na[j + 1] < 0, oa[i + 1] < 0, new[j + 1] == old[i + 1] {
                    na[j + 1] = Int32(truncatingIfNeeded: i + 1)
                    oa[i + 1] = Int32(truncatingIfNeeded: j + 1)
                }
                j += 1
            }
            // Pass 5: spread backward.
            j = new.count - 1
            while j > 0 {
                cost += 1
                let i = Int(na[j])
                if i > 0, na[j - 1] < 0, oa[i - 1] < 0, new[j - 1] == old[i - 1] {
                    na[j - 1] = Int32(truncatingIfNeeded: i - 1)
                    oa[i - 1] = Int32(truncatingIfNeeded: j - 1)
                }
                j -= 1
            }
        }
        return oa.map { $0 >= 0 ? Int($0) : nil }
    }
}
