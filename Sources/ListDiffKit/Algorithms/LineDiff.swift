/// A plain diff of two texts by lines, for files that cannot be read as records (git's
/// driver falls back to it, so that one such file never stops a `git diff`).
///
/// Lines are numbered by their text, then paired by `MyersDiff` (linear space, a shortest
/// edit script). Above `costLimit` steps (two long texts with little in common) it pairs
/// them by `HeckelDiff` instead, in linear time, and keeps the longest run of those pairs
/// in order: a longer script, but never a quadratic one.
package struct LineDiff: Sendable {
    /// Each text's lines, each with its line break (the last may have none).
    package let old: [ArraySlice<UInt8>]
    package let new: [ArraySlice<UInt8>]
    /// For each OLD line, the NEW line it is paired with, or nil; pairs only increase.
    package let pairs: [Int?]

    /// The steps Myers may take before the Heckel pairing takes over.
    package static let costLimit = 50_000_000

    package init(old: [UInt8], new: [UInt8], costLimit: Int = LineDiff.costLimit) {
        self.old = Self.lines(old)
        self.new = Self.lines(new)
        var numbers: [ArraySlice<UInt8>: Int] = [:]
        func number(_ line: ArraySlice<UInt8>) -> Int {
            if let n = numbers[line] { return n }
            numbers[line] = numbers.count
            return numbers.count - 1
        }
        let a = self.old.map(number), b = self.new.map(number)
        if let exact = try? MyersDiff(costLimit: costLimit).pairs(old: a, new: b, symbolCount: numbers.count) {
            pairs = exact
            return
        }
        // (Heckel never refuses: it is linear.)
        let loose = (try? HeckelDiff().pairs(old: a, new: b, symbolCount: numbers.count)) ?? Array(repeating: nil, count: a.count)
        var kept: [Int?] = Array(repeating: nil, count: a.count)
        visitLongestIncreasingSubsequence(count: a.count, value: { loose[$0] ?? -1 }) { kept[$0] = loose[$0] }
        pairs = kept
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
