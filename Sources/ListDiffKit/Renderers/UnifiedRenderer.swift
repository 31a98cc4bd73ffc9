/// A line diff written as a unified diff (`diff -u`): the `---` and `+++` lines, then each
/// hunk under its `@@ -start,count +start,count @@` line. Each line's text is escaped as
/// all quoted input is (a tab stays a tab), so that no file can act on the terminal; a
/// last line without a line break is followed by `\ No newline at end of file`.
package struct UnifiedRenderer {
    package var context: RenderContext
    package var style: TextStyle

    package init(context: RenderContext, style: TextStyle = .plain) {
        self.context = context
        self.style = style
    }

    /// Writes the diff; nothing when the texts are the same.
    package func render(_ diff: LineDiff, to out: inout some TextOutputStream) {
        let hunks = diff.hunks()
        guard !hunks.isEmpty else { return }
        out.write(style.paint("--- \(SafeText.escape(context.oldName))", .bold) + "\n")
        out.write(style.paint("+++ \(SafeText.escape(context.newName))", .bold) + "\n")
        func range(_ start: Int, _ count: Int) -> String {
            // diff -u's spelling: 1-based, the line before for an empty range, ",1" left out.
            let first = count == 0 ? start : start + 1
            return count == 1 ? "\(first)" : "\(first),\(count)"
        }
        for hunk in hunks {
            out.write(
                style.paint("@@ -\(range(hunk.oldStart, hunk.oldCount)) +\(range(hunk.newStart, hunk.newCount)) @@", .cyan) + "\n")
            for line in hunk.lines {
                let text = line.old ? diff.old[line.index] : diff.new[line.index]
                let ended = text.last == UInt8(ascii: "\n")
                let body = String(decoding: ended ? text.dropLast() : text, as: UTF8.self)
                let safe = body.split(separator: "\t", omittingEmptySubsequences: false).map { SafeText.escape(String($0)) }
                    .joined(separator: "\t")
                let marked = String(UnicodeScalar(line.mark)) + safe
                switch line.mark {
                case UInt8(ascii: "-"): out.write(style.paint(marked, .red) + "\n")
                case UInt8(ascii: "+"): out.write(style.paint(marked, .green) + "\n")
                default: out.write(marked + "\n")
                }
                if !ended { out.write("\\ No newline at end of file\n") }
            }
        }
    }
}
