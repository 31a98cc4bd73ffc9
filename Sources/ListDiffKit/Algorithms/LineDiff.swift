/// A plain diff of two texts by lines, for files that cannot be read as records (git's
/// driver falls back to it, so that one such file never stops a `git diff`).
///
/// Lines are numbered by their text. `HeckelDiff` pairs them in linear time, and the
/// longest run of its pairs in order are the anchors (lines both texts hold once, and their
/// equal neighbours, as patience diff anchors on them). Between two anchors, `MyersDiff`
/// finds a shortest edit script (linear space), within a budget in proportion to the gap's
/// size: a gap it cannot afford (two long runs with little in common) stays unpaired, all
/// deleted and inserted. So the whole diff stays within linear time however the texts
/// differ.
package struct LineDiff: Sendable {
    /// Each text's lines, each with its line break (the last may have none).
    package let old: [ArraySlice<UInt8>]
    package let new: [ArraySlice<UInt8>]
    /// For each OLD line, the NEW line it is paired with, or nil; pairs only increase.
    package let pairs: [Int?]

    /// Myers's budget: this many steps per line of a gap between anchors, and per 64 lines
    /// more (so that a short gap may take a few thousand steps).
    package static let stepsPerLine = 64

    package init(old: [UInt8], new: [UInt8], stepsPerLine: Int = LineDiff.stepsPerLine) {
        self.old = Self.lines(old)
        self.new = Self.lines(new)
        // Equal lines get equal numbers: found by a 128-bit hash of their bytes, and checked
        // byte for byte against the first line given that number.
        var numbers: [Hash128: Int] = [:]
        numbers.reserveCapacity(self.old.count + self.new.count)
        var firsts: [ArraySlice<UInt8>] = []
        var collided: [ArraySlice<UInt8>: Int] = [:]
        func number(_ line: ArraySlice<UInt8>) -> Int {
            let hash = line.withUnsafeBytes { CanonicalHash.string($0) }
            if let n = numbers[hash] {
                if line.withUnsafeBytes({ x in firsts[n].withUnsafeBytes { y in x.elementsEqual(y) } }) { return n }
                // Two lines with one hash: numbered by their bytes.
                if let m = collided[line] { return m }
                collided[line] = firsts.count
            } else {
                numbers[hash] = firsts.count
            }
            firsts.append(line)
            return firsts.count - 1
        }
        let a = self.old.map(number), b = self.new.map(number)
        let symbolCount = firsts.count
        let loose = HeckelDiff().pairs(old: a, new: b, symbolCount: symbolCount)
        var pairs: [Int?] = Array(repeating: nil, count: a.count)
        visitLongestIncreasingSubsequence(count: a.count, value: { loose[$0] ?? -1 }) { pairs[$0] = loose[$0] }
        // Each gap between anchors (and before the first, after the last) by Myers.
        var oldStart = 0, newStart = 0
        for i in 0...a.count {
            guard i == a.count || pairs[i] != nil else { continue }
            let oldEnd = i, newEnd = i == a.count ? b.count : pairs[i]!
            if oldEnd > oldStart, newEnd > newStart {
                let gap = (oldEnd - oldStart) + (newEnd - newStart)
                let myers = MyersDiff(costLimit: stepsPerLine * (gap + 64))
                if let found = try? myers.pairs(
                    old: Array(a[oldStart..<oldEnd]), new: Array(b[newStart..<newEnd]), symbolCount: symbolCount)
                {
                    for (k, pair) in found.enumerated() { if let pair { pairs[oldStart + k] = newStart + pair } }
                }
            }
            oldStart = oldEnd + 1
            newStart = newEnd + 1
        }
        self.pairs = pairs
    }

    /// The lines of a text, each with its line break.
    static func lines(_ text: [UInt8]) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start = 0
        for (i, byte) in text.enumerated() where byte == UInt8(ascii: "\n") {
            out.append(text[start...i])
            start = i + 1
        }
        if start < text.count { out.append(text[start...]) }
        return out
    }

    /// Whether the texts are the same.
    package var isEmpty: Bool { old.count == new.count && pairs.allSatisfy { $0 != nil } }

    /// One hunk of a unified diff: its ranges (0-based starts, counts) and its lines, each
    /// marked ' ', '-' or '+', with the index of the line in its text.
    package struct Hunk: Sendable {
        package var oldStart: Int, oldCount: Int, newStart: Int, newCount: Int
        package var lines: [(mark: UInt8, old: Bool, index: Int)]
    }

    /// The hunks of the unified diff, with `context` lines of context around each change,
    /// hunks closer than twice that joined, as diff -u does.
    package func hunks(context: Int = 3) -> [Hunk] {
        // The script as a run of steps: both lines kept, an OLD line gone, a NEW line added.
        var steps: [(mark: UInt8, old: Int, new: Int)] = []
        var j = 0
        for (i, pair) in pairs.enumerated() {
            guard let p = pair else {
                steps.append((UInt8(ascii: "-"), i, j))
                continue
            }
            while j < p {
                steps.append((UInt8(ascii: "+"), i, j))
                j += 1
            }
            steps.append((UInt8(ascii: " "), i, j))
            j += 1
        }
        while j < new.count {
            steps.append((UInt8(ascii: "+"), old.count, j))
            j += 1
        }
        let changed = steps.indices.filter { steps[$0].mark != UInt8(ascii: " ") }
        var hunks: [Hunk] = []
        var k = 0
        while k < changed.count {
            let first = max(0, changed[k] - context)
            var last = changed[k]
            k += 1
            while k < changed.count, changed[k] - last <= 2 * context {
                last = changed[k]
                k += 1
            }
            let end = min(steps.count - 1, last + context)
            var hunk = Hunk(oldStart: steps[first].old, oldCount: 0, newStart: steps[first].new, newCount: 0, lines: [])
            for step in steps[first...end] {
                switch step.mark {
                case UInt8(ascii: "-"):
                    hunk.oldCount += 1
                    hunk.lines.append((step.mark, true, step.old))
                case UInt8(ascii: "+"):
                    hunk.newCount += 1
                    hunk.lines.append((step.mark, false, step.new))
                default:
                    hunk.oldCount += 1
                    hunk.newCount += 1
                    hunk.lines.append((step.mark, true, step.old))
                }
            }
            hunks.append(hunk)
        }
        return hunks
    }
}
