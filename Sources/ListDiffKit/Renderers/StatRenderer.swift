/// Counts only, as `git diff --stat` gives them (`--stat`):
///
///     --- old.json
///     +++ new.json
///     inserted    1
///     deleted     1
///     moved       1
///     updated     2
///     unchanged   3
///     fields updated:
///       /email  1
///       /rank   1
///
/// Sectioned files add the section changes and each section's counts. The fields list the
/// `fieldLimit` most often changed, and say how many more there are. Nothing is written when
/// the lists are the same.
public struct StatRenderer: ChangesetRenderer {
    /// The inputs' names.
    public let context: RenderContext
    /// How many of the most often changed fields are listed.
    public var fieldLimit: Int

    /// A renderer of the counts of each kind of change, and of the fields updated most.
    public init(context: RenderContext, fieldLimit: Int = 10) {
        self.context = context
        self.fieldLimit = fieldLimit
    }

    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) {
        guard changeset.differs else { return }
        out.write("--- \(SafeText.escape(context.oldName))\n")
        out.write("+++ \(SafeText.escape(context.newName))\n")
        let s = changeset.summary
        for (name, count) in [
            ("inserted", s.inserted), ("deleted", s.deleted), ("moved", s.moved), ("updated", s.updated),
            ("unchanged", s.unchanged),
        ] + (changeset.countsRenames ? [("renamed", s.renamed)] : []) {
            out.write(name.padding(to: 12) + String(count) + "\n")
        }
        if changeset.layout.isSectioned {
            out.write("sections: " + PatchRenderer.sectionSummary(changeset.allSections ?? changeset.sections) + "\n")
            // Each section's counts, as the patch's summary gives them.
            let target = changeset.oldSectionTargets
            for (name, changes) in changeset.changesBySection {
                let summary = PatchRenderer.groupSummary(changes, target: target)
                out.write("  \(SafeText.escape(JSONWriter.compact(name ?? .null))): \(summary)\n")
            }
        }
        let fields = changeset.fieldCounts
        guard !fields.isEmpty else { return }
        out.write("fields updated:\n")
        let shown = fields.prefix(max(0, fieldLimit)).map { (SafeText.escape($0.path), $0.count) }
        let width = shown.map(\.0.count).max() ?? 0
        for (path, count) in shown { out.write("  " + path.padding(to: width + 2) + String(count) + "\n") }
        if fields.count > shown.count { out.write("  … \(fields.count - shown.count) more fields\n") }
    }
}

extension String {
    /// Padded with spaces to `width` characters (never cut).
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
