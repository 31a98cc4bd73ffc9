/// The steps that turn one list into another, one at a time, given which elements were
/// deleted, inserted and moved: what a JSON Patch writes for a list, at the top level of a
/// document and inside a keyed nested list alike.
///
/// First the deleted elements are removed, from the last to the first, so that each index
/// is still the old one. Then, in order of their new positions, each inserted element is
/// added and each moved element is moved, once. Elements that neither moved nor left keep
/// their order and need no step.
///
/// - Complexity: O((n + k) log n) for n elements and k changes.
enum ListEdits {
    enum Step: Equatable {
        /// Remove the element at this index.
        case remove(at: Int)
        /// Add the element of NEW's position `element` at this index.
        case add(at: Int, element: Int)
        /// Move the element at `from` to `to` (`to` counted after it is taken out): the
        /// element of NEW's position `element`.
        case move(from: Int, to: Int, element: Int)
    }

    /// - Parameters:
    ///   - deleted: old indexes of the elements that left.
    ///   - movedTo: for each moved element, its new index and its old one.
    ///   - inserted: new indexes of the elements that came.
    static func steps(oldCount: Int, newCount: Int, deleted: [Int], movedTo: [Int: Int], inserted: Set<Int>) -> [Step] {
        var steps = deleted.sorted(by: >).map { Step.remove(at: $0) }
        if movedTo.isEmpty && inserted.isEmpty { return steps }
        var leaves = [Bool](repeating: false, count: oldCount)  // deleted or moved
        for i in deleted { leaves[i] = true }
        for i in movedTo.values { leaves[i] = true }
        // Elements that stay, in order; the others fall in the gaps between them.
        // Gap g holds what lies before the g-th staying element (gap `staying` is the tail).
        var gapOfOld = [Int](repeating: 0, count: oldCount)
        var gap = 0
        for i in 0..<oldCount {
            gapOfOld[i] = gap
            if !leaves[i] { gap += 1 }
        }
        // New positions: staying elements fill the positions not taken by moves and inserts.
        var gapOfNew = [Int](repeating: 0, count: newCount)
        gap = 0
        for j in 0..<newCount {
            gapOfNew[j] = gap
            if movedTo[j] == nil && !inserted.contains(j) { gap += 1 }
        }
        // The slot order: per gap, final slots (by new index), then original slots of moved
        // elements (by old index), then the staying element that closes the gap.
        let staying = gap
        let gaps = staying + 1
        var finals = [[Int]](repeating: [], count: gaps)
        var originals = [[Int]](repeating: [], count: gaps)
        for j in 0..<newCount where movedTo[j] != nil || inserted.contains(j) { finals[gapOfNew[j]].append(j) }
        for i in movedTo.values.sorted() { originals[gapOfOld[i]].append(i) }
        var finalSlot = [Int: Int]()
        var originalSlot = [Int: Int]()
        var slots = 0
        var occupied: [Int] = []  // initial occupancy per slot
        for g in 0..<gaps {
            for j in finals[g] { finalSlot[j] = slots; slots += 1; occupied.append(0) }
            for i in originals[g] { originalSlot[i] = slots; slots += 1; occupied.append(1) }
            if g < staying { slots += 1; occupied.append(1) }
        }
        var tree = FenwickTree(occupied)
        for j in 0..<newCount where movedTo[j] != nil || inserted.contains(j) {
            let target = finalSlot[j]!
            if let i = movedTo[j] {
                let from = tree.prefixSum(originalSlot[i]!)
                tree.add(originalSlot[i]!, -1)
                let to = tree.prefixSum(target)
                tree.add(target, 1)
                // One move per moved element, even where it lands where it stood (a valid no-op).
                steps.append(.move(from: from, to: to, element: j))
            } else {
                let to = tree.prefixSum(target)
                tree.add(target, 1)
                steps.append(.add(at: to, element: j))
            }
        }
        return steps
    }
}

/// Counts over slots with O(log n) updates and prefix sums.
struct FenwickTree {
    var tree: [Int]

    init(_ values: [Int]) {
        tree = [0] + values
        for i in 1..<max(tree.count, 1) {
            let parent = i + (i & -i)
            if parent < tree.count { tree[parent] += tree[i] }
        }
    }

    mutating func add(_ index: Int, _ delta: Int) {
        var i = index + 1
        while i < tree.count {
            tree[i] += delta
            i += i & -i
        }
    }

    /// The sum of the values before `index`.
    func prefixSum(_ index: Int) -> Int {
        var i = index
        var sum = 0
        while i > 0 {
            sum += tree[i]
            i -= i & -i
        }
        return sum
    }
}
