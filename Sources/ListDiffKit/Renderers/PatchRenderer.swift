/// The human-readable patch. Every change line starts with its mark and names its
/// record's key, so `grep 'id=42'` finds everything that happened to record 42:
///
///     --- old.json
///     +++ new.json
///     - id=4 #3 {"id":4,"name":"Dave"}
///     + id=9 #5 {"id":9,"name":"Ida"}
///     > id=2 #1 → #4
///     ~ id=3 /name: "Carol" → "Caroline"
///     ~ id=3 /email: (none) → "c@example.com"
///     ~ id=5 (member order)
///     % id=7 → id=8 #6 → #6
///     % id=8 /email: "g@example.com" → "g@example.org"
///     1 inserted, 1 deleted, 1 moved, 1 updated, 10 unchanged, 1 renamed
///
/// A changed field's values are cut around where they differ (`valueCut`), and in colour
/// the words that changed are in reverse video.
///
/// A renamed record (`--renames`) is `%`: its old key → its new key and positions, then
/// the fields that changed besides the key, under the new key.
///
/// `#n` is a 0-based index (old for `-`, new for `+`, old → new for `>` and `%`). Nothing is
/// written when the lists are the same, as with diff(1). Everything quoted from the
/// inputs goes through `SafeText`, so no record can act on the terminal.
public struct PatchRenderer: ChangesetRenderer {
    /// The inputs' names, in the `---` and `+++` lines.
    public let context: RenderContext
    /// Colour, or none.
    public let style: TextStyle
    /// How long values of changed fields are cut (`ValueCut`); records are written whole.
    public var valueCut = ValueCut()

    /// A renderer of the human-readable patch.
    public init(context: RenderContext, style: TextStyle = .plain) {
        self.context = context
        self.style = style
    }

    /// Writes the patch; throws when a change's record can no longer be read (its file changed
    /// during the diff).
    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        try Self.outline(changeset) { part throws(ListDiffError) in
            switch part {
            case .names:
                out.write(style.paint("--- \(SafeText.escape(context.oldName))", .bold) + "\n")
                out.write(style.paint("+++ \(SafeText.escape(context.newName))", .bold) + "\n")
            case .note(let text): out.write(style.paint(text, .bold) + "\n")
            case .section(let op): out.write(line(op))
            case .change(let change): out.write(try line(change, changeset))
            case .summary(let text): out.write(text + "\n")
            }
        }
    }

    /// A part of the patch, in the order `outline` gives them.
    package enum Part {
        /// The names of both inputs.
        case names
        /// A line of its own, escaped: the rules compared under, the layout, a section's heading.
        case note(String)
        /// A change of a section itself.
        case section(SectionChange)
        /// A change of a record.
        case change(Change)
        /// A line of the counts at the end.
        case summary(String)
    }

    /// The parts of the patch in order, the same for every renderer that follows it: the
    /// names, the rules, then for a plain list its changes; for sections, the layout, the
    /// section changes, then record changes under the heading of the section they belong to
    /// (deletes: the old section; the rest: the new one). The counts last. Nothing when the
    /// lists are the same, as with diff(1).
    package static func outline(_ changeset: Changeset, _ body: (Part) throws(ListDiffError) -> Void) throws(ListDiffError) {
        guard changeset.differs else { return }
        try body(.names)
        if !changeset.comparison.isEmpty { try body(.note(SafeText.escape("# compared under \(changeset.comparison)"))) }
        if !changeset.layout.isSectioned {
            // A map says so: it was found by the shape of the document, not asked for.
            if changeset.layout.shape == .map { try body(.note(SafeText.escape("# \(changeset.layout)"))) }
            for change in changeset.changes { try body(.change(change)) }
            try body(.summary(summaryLine(changeset.summary, renames: changeset.countsRenames)))
            return
        }
        try body(.note(SafeText.escape("# \(changeset.layout)")))
        for op in changeset.sections { try body(.section(op)) }
        let homes = changeset.changesBySection
        let target = changeset.oldSectionTargets
        for (name, changes) in homes {
            try body(.note(SafeText.escape("@ \(JSONWriter.compact(name ?? .null))")))
            for change in changes { try body(.change(change)) }
        }
        try body(
            .summary(
                summaryLine(changeset.summary, renames: changeset.countsRenames) + "; sections: "
                    + sectionSummary(changeset.allSections ?? changeset.sections)))
        for (name, changes) in homes {
            try body(.summary("  \(SafeText.escape(JSONWriter.compact(name ?? .null))): \(groupSummary(changes, target: target))"))
        }
    }

    func line(_ change: Change, _ changeset: Changeset) throws(ListDiffError) -> String {
        let keys = KeyFormatter(changeset.key)
        let sectioned = changeset.layout.isSectioned
        func at(_ p: RecordPosition?) -> String { RecordPosition.spelling(p, sectioned: sectioned) }
        let key = SafeText.escape(keys.format(change.key, selfKeyed: change.keyedBySelf, occurrence: change.occurrence))
        // The record, for a delete or an insert. A scalar keyed by itself is all said by its key.
        func body() throws(ListDiffError) -> String {
            try change.keyedBySelf ? "" : " " + SafeText.escape(JSONWriter.compact(change.value() ?? .null))
        }
        switch change.operation {
        case .delete:
            return try style.paint("- \(key) #\(at(change.old))\(body())", .red) + "\n"
        case .insert:
            return try style.paint("+ \(key) #\(at(change.new))\(body())", .green) + "\n"
        case .move:
            var text = "> \(key) #\(at(change.old)) → #\(at(change.new))"
            if let section = changeset.sectionLeft(by: change) { text += " (from \(SafeText.escape(JSONWriter.compact(section))))" }
            return style.paint(text, .cyan) + "\n"
        case .update:
            return fieldLines(style.paint("~ \(key) ", .yellow), change.fields)
        case .rename:
            let was = SafeText.escape(keys.format(change.keyInOld, selfKeyed: change.keyedBySelf, occurrence: change.occurrence))
            let head = style.paint("% \(was) → \(key) #\(at(change.old)) → #\(at(change.new))", .magenta) + "\n"
            let fields = change.fieldsBesideKey(changeset.key)
            return fields.isEmpty ? head : head + fieldLines(style.paint("% \(key) ", .magenta), fields)
        }
    }

    func line(_ op: SectionChange) -> String {
        let name = SafeText.escape(JSONWriter.compact(op.name))
        switch op.operation {
        case .delete: return style.paint("-§ \(name) #\(op.old ?? 0)", .red) + "\n"
        case .insert:
            let header = op.value.map { " " + SafeText.escape(JSONWriter.compact($0)) } ?? ""
            return style.paint("+§ \(name) #\(op.new ?? 0)\(header)", .green) + "\n"
        case .move: return style.paint(">§ \(name) #\(op.old ?? 0) → #\(op.new ?? 0)", .cyan) + "\n"
        case .update: return fieldLines(style.paint("~§ \(name) ", .yellow), op.fields)
        case .rename: return ""  // (sections are never renamed)
        }
    }

    func fieldLines(_ lead: String, _ fields: [FieldChange]) -> String {
        // No field: only the order of members changed (under `--member-order significant`).
        if fields.isEmpty { return lead + "(member order)\n" }
        var text = ""
        for field in fields {
            text += lead
            text += (field.readablePath.isEmpty ? "(record)" : SafeText.escape(field.readablePath)) + ": "
            if let (a, b) = field.movedIndexes {
                text += style.paint("moved #\(a) → #\(b)", .cyan) + "\n"
                continue
            }
            if field.added != nil || field.removed != nil {
                // An array compared as a multiset: what it gained and lost, in any order.
                var parts: [String] = []
                if let added = field.added, !added.isEmpty {
                    parts.append(style.paint("added " + added.map { SafeText.escape(valueCut.value($0)) }.joined(separator: ", "), .green))
                }
                if let removed = field.removed, !removed.isEmpty {
                    parts.append(
                        style.paint("removed " + removed.map { SafeText.escape(valueCut.value($0)) }.joined(separator: ", "), .red))
                }
                text += parts.joined(separator: "; ") + "\n"
                continue
            }
            let (old, new) = valueCut.values(field.old, field.new)
            let (a, b) = (SafeText.escape(old), SafeText.escape(new))
            // On a terminal, the words that changed in reverse colour; without colour, as they are.
            let words = style.colored && field.old != nil && field.new != nil ? WordDiff(old: a, new: b) : nil
            func painted(_ text: String, _ changed: [Range<String.Index>]?, _ color: TextStyle.Color) -> String {
                style.marked(text, changed ?? [], color).map { style.paint($0.text, $0.colors) }.joined()
            }
            text += painted(a, words?.old, .red) + " → " + painted(b, words?.new, .green) + "\n"
        }
        return text
    }

    static func sectionSummary(_ ops: [SectionChange]) -> String {
        func count(_ op: Change.Operation) -> Int { ops.lazy.filter { $0.operation == op }.count }
        return "\(count(.insert)) inserted, \(count(.delete)) deleted, \(count(.move)) moved, \(count(.update)) updated"
    }

    /// Counts for one section's group: moves from another section are `moved in`.
    static func groupSummary(_ changes: [Change], target: [Int?]) -> String {
        var inserted = 0, deleted = 0, moved = 0, movedIn = 0, updated = 0, renamed = 0
        for change in changes {
            switch change.operation {
            case .rename: renamed += 1
            case .insert: inserted += 1
            case .delete: deleted += 1
            case .update: updated += 1
            case .move:
                if let o = change.old, o.section < target.count, target[o.section] == change.new?.section {
                    moved += 1
                } else {
                    movedIn += 1
                }
            }
        }
        return "\(inserted) inserted, \(deleted) deleted, \(moved) moved, \(movedIn) moved in, \(updated) updated"
            + (renamed > 0 ? ", \(renamed) renamed" : "")
    }

    /// The counts; renames when there are some, or when they were looked for (`renames`).
    package static func summaryLine(_ s: Changeset.Summary, renames: Bool = false) -> String {
        "\(s.inserted) inserted, \(s.deleted) deleted, \(s.moved) moved, \(s.updated) updated, \(s.unchanged) unchanged"
            + (s.renamed > 0 || renames ? ", \(s.renamed) renamed" : "")
    }
}

extension Changeset {
    /// For a move from one section to another, the name of the section the record left
    /// (null when it has none); nil for a move within a section and any other change.
    package func sectionLeft(by change: Change) -> Value? {
        guard change.operation == .move, layout.isSectioned, let o = change.old, let n = change.new,
            o.section < oldSections.names.count, n.section < newSections.names.count,
            oldSections.names[o.section] != newSections.names[n.section]
        else { return nil }
        return oldSections.names[o.section] ?? .null
    }

    /// The record changes grouped under the section they belong to (deletes: their old
    /// section's place in NEW; the rest: their new section), NEW's sections in order, then
    /// the sections that are gone. Sections without changes are left out.
    package var changesBySection: [(name: Value?, changes: [Change])] {
        let oldNames = oldSections.names, newNames = newSections.names
        let target = oldSectionTargets
        var groups: [[Change]] = Array(repeating: [], count: newNames.count)
        var gone: [Int: [Change]] = [:]
        for change in changes {
            if change.operation == .delete, let o = change.old {
                if o.section < target.count, let t = target[o.section] {
                    groups[t].append(change)
                } else {
                    gone[o.section, default: []].append(change)
                }
            } else if let n = change.new, n.section < groups.count {
                groups[n.section].append(change)
            }
        }
        let homes =
            groups.enumerated().map { (name: newNames[$0.offset], changes: $0.element) }
            + gone.keys.sorted().map { (name: $0 < oldNames.count ? oldNames[$0] : nil, changes: gone[$0]!) }
        return homes.filter { !$0.changes.isEmpty }
    }
}
