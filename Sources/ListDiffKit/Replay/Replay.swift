/// The frames of an animated replay of a changeset, the way a table view animates a batch
/// update: the old list; updated rows flash yellow with their changed fields; deleted rows
/// flash red and close up; sections go, come and move; moved rows travel to their new
/// place; inserted rows open up in green; the last frame is the new list.
///
/// Pure: a changeset and the two documents in, frames out, for a given screen size. Timing
/// and terminal control belong to the player in the executable. The number of frames and
/// their timing do not depend on the size, so that a player can re-render on resize.
package struct Replay: Sendable {
    package struct Options: Sendable {
        /// Screen width and height in cells; the last line is the caption.
        package var width: Int
        package var height: Int
        /// Above this many changes, no animation: one frame, the result, saying so.
        package var limit: Int
        /// Unchanged rows kept around a changed one before the rest of a run folds.
        package var context: Int

        package init(width: Int = 80, height: Int = 24, limit: Int = 300, context: Int = 2) {
            self.width = width
            self.height = height
            self.limit = limit
            self.context = context
        }
    }

    /// One screen: its lines (at most `height`, each at most `width` cells, styled), and how
    /// long it stays at speed 1.
    package struct Frame: Sendable, Equatable {
        package var lines: [String]
        package var seconds: Double
    }

    enum Mark { case none, deleted, inserted, updated, moved }

    /// OLD's records as the replay reads them: only those a frame shows are read.
    package struct Records: Sendable {
        /// Record `r` (counted across sections) and, under `--duplicates match`, its
        /// occurrence of its key.
        let record: @Sendable (Int) -> (value: Value, occurrence: Int)?

        package init(_ record: @escaping @Sendable (Int) -> (value: Value, occurrence: Int)?) {
            self.record = record
        }
    }

    /// A line of the list being animated: a section header (`id` below 0) or a record (OLD's
    /// number, or past OLD's count for an inserted record), and how it shows.
    struct Line {
        var id: Int
        var mark: Mark = .none
        /// Whether an updated record shows its new content.
        var updated = false
        var isHeader: Bool { id < 0 }
    }

    /// A list state between stages: sections (a single unnamed one for a plain list), each
    /// a list of row ids.
    struct State {
        var sections: [(name: Value?, rows: [Int])]
    }

    /// A scene: the lines to draw (made when a frame is drawn, so that a long list is not
    /// held once per scene) and the caption; `seconds` is its hold at speed 1.
    struct Scene {
        enum Content {
            case state(State, marks: [Int: Mark], notes: [Int: String], updated: Bool)
            case travel(start: State, end: State, moved: Set<Int>, fraction: Double, updated: Bool)
        }
        var content: Content
        var caption: String
        var seconds: Double

        /// A scene that holds one state.
        static func still(
            _ state: State, marks: [Int: Mark] = [:], notes: [Int: String] = [:], updated: Bool = true, _ caption: String,
            seconds: Double
        ) -> Scene {
            Scene(content: .state(state, marks: marks, notes: notes, updated: updated), caption: caption, seconds: seconds)
        }
    }

    let scenes: [Scene]
    /// Whether a change touches a row, by row id.
    let interesting: [Bool]
    let sectioned: Bool
    /// The section names, by the ids of their header lines (-1 - k).
    let sectionNames: [Value?]
    let headerIDs: [String: Int]
    /// What a record line reads: by row id, and whether it shows its new content.
    let text: @Sendable (Int, Bool) -> String
    let changeCount: Int
    package let animated: Bool

    /// The replay of a changeset, OLD's records read as frames show them: the changeset's
    /// positions say where every record goes, and its values what changed records read.
    /// Throws when a change's record cannot be read.
    package init(
        changeset: Changeset, oldName: String, newName: String, limit: Int = 300, old records: Records
    ) throws(ListDiffError) {
        let keys = KeyFormatter(changeset.key)
        let key = changeset.key
        let numbered = changeset.duplicates == .match
        let oldCount = changeset.oldCount
        @Sendable func spell(_ key: Value, _ value: Value, _ occurrence: Int?) -> String {
            let spelled = keys.format(key, selfKeyed: value.isScalar, occurrence: numbered ? occurrence : nil)
            return value.isScalar ? spelled : spelled + " " + JSONWriter.compact(value)
        }
        // Where each old section's records start, in OLD's count.
        var starts: [Int] = []
        var total = 0
        for size in changeset.oldSections.sizes {
            starts.append(total)
            total += size
        }
        func global(_ p: RecordPosition) -> Int { (p.section < starts.count ? starts[p.section] : 0) + p.index }

        // Row ids: OLD's records by number; inserted records after them, by change.
        var insertedText: [Int: String] = [:], updatedText: [Int: String] = [:]
        var newRow: [RecordPosition: Int] = [:]
        // OLD's records that do not fill NEW's places in order: deleted, moved, or placed by
        // a change.
        var skipped = [Bool](repeating: false, count: oldCount)
        func skip(_ id: Int) { if id >= 0, id < oldCount { skipped[id] = true } }
        var touched = Set<Int>()
        for (n, change) in changeset.changes.enumerated() {
            switch change.operation {
            case .insert, .rename:
                // (A rename leaves its old row, as a delete, and comes in a row of its own.)
                if change.operation == .rename, let p = change.old { skip(global(p)); touched.insert(global(p)) }
                let id = oldCount + n
                if let value = try change.value() { insertedText[id] = spell(change.key, value, change.occurrence) }
                if let p = change.new { newRow[p] = id }
                touched.insert(id)
            case .delete:
                if let p = change.old { skip(global(p)); touched.insert(global(p)) }
            case .move, .update:
                guard let o = change.old else { continue }
                let id = global(o)
                touched.insert(id)
                if let p = change.new {
                    newRow[p] = id
                    skip(id)
                }
                if change.operation == .update, let value = try change.value() {
                    updatedText[id] = spell(change.key, value, change.occurrence)
                }
            }
        }
        let insertedTexts = insertedText, updatedTexts = updatedText
        self.text = { id, updated in
            if id >= oldCount { return insertedTexts[id] ?? "" }
            if updated, let text = updatedTexts[id] { return text }
            guard let (value, occurrence) = records.record(id) else { return "" }
            return spell(key.written(in: value) ?? .null, value, occurrence)
        }

        // Section header ids, by name.
        var names: [Value?] = []
        var headerIDs: [String: Int] = [:]
        func header(_ name: Value?) -> Int {
            let spelled = JSONWriter.compact(name ?? .null)
            if let id = headerIDs[spelled] { return id }
            names.append(name)
            headerIDs[spelled] = -names.count
            return -names.count
        }
        let oldState = State(
            sections: changeset.oldSections.names.enumerated().map { s, name in
                _ = header(name)
                return (name, Array(starts[s]..<starts[s] + changeset.oldSections.sizes[s]))
            })
        // NEW: the changes' records at their places, and the others, in order, into the rest
        // of their section's new places.
        let targets = changeset.oldSectionTargets
        var sources = [Int?](repeating: nil, count: changeset.newSections.sizes.count)
        for (s, t) in targets.enumerated() { if let t, t < sources.count { sources[t] = s } }
        var placements = [[(index: Int, id: Int)]](repeating: [], count: changeset.newSections.sizes.count)
        for (p, id) in newRow where p.section < placements.count { placements[p.section].append((p.index, id)) }
        for t in placements.indices { placements[t].sort { $0.index < $1.index } }
        let newState = State(
            sections: changeset.newSections.names.enumerated().map { t, name in
                _ = header(name)
                var rows: [Int] = []
                rows.reserveCapacity(changeset.newSections.sizes[t])
                var next = sources[t].map { starts[$0] } ?? 0
                let end = sources[t].map { starts[$0] + changeset.oldSections.sizes[$0] } ?? 0
                var k = 0
                for j in 0..<changeset.newSections.sizes[t] {
                    if k < placements[t].count, placements[t][k].index == j {
                        rows.append(placements[t][k].id)
                        k += 1
                        continue
                    }
                    while next < end, skipped[next] { next += 1 }
                    rows.append(next < end ? next : -1)
                    next += 1
                }
                return (name, rows)
            })
        sectioned = changeset.layout.isSectioned

        changeCount = changeset.changes.count + changeset.sections.count
        for op in changeset.sections { touched.insert(header(op.name)) }
        for op in changeset.stages.flatMap(\.sections) { _ = header(op.name) }
        sectionNames = names
        self.headerIDs = headerIDs
        var interesting = [Bool](repeating: false, count: oldCount + changeset.changes.count)
        for id in touched where id >= 0 && id < interesting.count { interesting[id] = true }
        self.interesting = interesting
        let summary = PatchRenderer.summaryLine(changeset.summary, renames: changeset.countsRenames)

        guard changeCount <= limit else {
            animated = false
            scenes = [
                .still(
                    newState, "\(changeCount) changes, more than \(limit): the result, not animated (--animate-limit) · \(summary)",
                    seconds: 0)
            ]
            return
        }
        animated = true
        var scenes: [Scene] = [.still(oldState, updated: false, "old: \(oldName)", seconds: 1.0)]
        let stages = changeset.stages
        var current = oldState

        // 1. Updates flash yellow with their fields, then show the new content.
        let updates = changeset.changes.filter { $0.operation == .update }
        if !updates.isEmpty || !stages[0].sections.isEmpty {
            var marks: [Int: Mark] = [:], notes: [Int: String] = [:]
            for change in updates {
                guard let o = change.old else { continue }
                let id = global(o)
                marks[id] = .updated
                notes[id] =
                    "  ← "
                    + change.fields.map { f in f.line(escape: { $0 }) { ValueCut.whole.values($0, $1) } }
                    .joined(separator: ", ")
                if change.fields.isEmpty { notes[id] = "  ← (member order)" }
            }
            for op in stages[0].sections { marks[header(op.name)] = .updated }
            let count = updates.count + stages[0].sections.count
            scenes.append(.still(current, marks: marks, notes: notes, updated: false, "updating \(count)", seconds: 1.0))
            scenes.append(.still(current, marks: marks, "updated \(count)", seconds: 0.4))
        }
        // 2. Deletes flash red, then close up.
        let deletes = stages[1].changes
        if !deletes.isEmpty {
            var marks: [Int: Mark] = [:]
            for change in deletes { if let o = change.old { marks[current.sections[o.section].rows[o.index]] = .deleted } }
            scenes.append(.still(current, marks: marks, "deleting \(deletes.count)", seconds: 0.8))
            for s in current.sections.indices { current.sections[s].rows.removeAll { marks[$0] != nil } }
            scenes.append(.still(current, "deleted \(deletes.count)", seconds: 0.3))
        }
        // 3. Sections: deleted ones flash red, moved ones cyan; then the new order, inserted ones green.
        let sectionOps = stages[2].sections
        if !sectionOps.isEmpty {
            var marks: [Int: Mark] = [:]
            for op in sectionOps where op.operation != .insert {
                marks[header(op.name)] = op.operation == .delete ? .deleted : .moved
                if op.operation == .delete, let s = op.old {
                    for row in current.sections[s].rows { marks[row] = .deleted }
                }
            }
            scenes.append(.still(current, marks: marks, "sections: \(PatchRenderer.sectionSummary(sectionOps))", seconds: 0.8))
            // The new order: surviving sections where the changeset sends them, inserted ones empty.
            var placed: [Int: (name: Value?, rows: [Int])] = [:]
            var after: [Int: Mark] = [:]
            for (s, target) in targets.enumerated() { if let t = target { placed[t] = current.sections[s] } }
            for op in sectionOps where op.operation != .delete {
                after[header(op.name)] = op.operation == .insert ? .inserted : .moved
                if op.operation == .insert, let t = op.new { placed[t] = (op.name, []) }
            }
            current.sections = (0..<placed.count).map { placed[$0]! }
            scenes.append(.still(current, marks: after, "sections placed", seconds: 0.6))
        }
        // 4. Moves travel; inserts open up in green; then the new list.
        var inserted = Set<Int>(), moved = Set<Int>()
        for change in stages[3].changes {
            guard let p = change.new else { continue }
            let id = newState.sections[p.section].rows[p.index]
            if change.operation == .insert { inserted.insert(id) } else { moved.insert(id) }
        }
        if !moved.isEmpty {
            var end = newState
            for t in end.sections.indices { end.sections[t].rows.removeAll { inserted.contains($0) } }
            let steps = 6
            for k in 1...steps {
                scenes.append(
                    Scene(
                        content: .travel(
                            start: current, end: end, moved: moved, fraction: Double(k) / Double(steps),
                            updated: true),
                        caption: "moving \(moved.count)", seconds: k == steps ? 0.5 : 0.12))
            }
        }
        if !inserted.isEmpty {
            var marks: [Int: Mark] = [:]
            for id in inserted { marks[id] = .inserted }
            for id in moved { marks[id] = .moved }
            scenes.append(.still(newState, marks: marks, "inserting \(inserted.count)", seconds: 0.8))
        }
        scenes.append(.still(newState, "new: \(newName) · \(summary)", seconds: 0))
        self.scenes = scenes
    }

    /// A scene's lines: a header per section (when sectioned), then its rows.
    func lines(_ scene: Scene) -> [Line] {
        switch scene.content {
        case .state(let state, let marks, _, let updated):
            return lines(state, marks: marks, updated: updated)
        case .travel(let start, let end, let moved, let fraction, let updated):
            var frame = Self.travel(
                start: lines(start, marks: [:], updated: updated), end: lines(end, marks: [:], updated: updated),
                moved: moved, fraction: fraction)
            for i in frame.indices where moved.contains(frame[i].id) { frame[i].mark = .moved }
            return frame
        }
    }

    func lines(_ state: State, marks: [Int: Mark], updated: Bool) -> [Line] {
        var out: [Line] = []
        out.reserveCapacity(state.sections.reduce(state.sections.count) { $0 + $1.rows.count })
        // Rows are checked against the marks by a table, not by hashing each one.
        var marked = [Bool](repeating: false, count: marks.isEmpty ? 0 : interesting.count)
        for id in marks.keys where id >= 0 && id < marked.count { marked[id] = true }
        for section in state.sections {
            if sectioned {
                let id = headerIDs[JSONWriter.compact(section.name ?? .null)] ?? -1
                out.append(Line(id: id, mark: marks[id] ?? .none, updated: updated))
            }
            if marks.isEmpty {
                for row in section.rows { out.append(Line(id: row, updated: updated)) }
            } else {
                for row in section.rows {
                    let mark = row >= 0 && row < marked.count && marked[row] ? marks[row] ?? .none : .none
                    out.append(Line(id: row, mark: mark, updated: updated))
                }
            }
        }
        return out
    }

    /// What a line reads: a section's label, or a record's key and content, with the note a
    /// scene gives it.
    func text(_ line: Line, in scene: Scene) -> String {
        if line.isHeader {
            let k = -1 - line.id
            return "§ " + Self.sectionLabel(k < sectionNames.count ? sectionNames[k] : nil)
        }
        var out = text(line.id, line.updated)
        if case .state(_, _, let notes, _) = scene.content, let note = notes[line.id] { out += note }
        return out
    }

    /// Moved lines part of the way from their place in `start` to their place in `end`; the
    /// other lines, in the same order in both, fill the rest.
    static func travel(start: [Line], end: [Line], moved: Set<Int>, fraction: Double) -> [Line] {
        var from: [Int: Int] = [:]
        for (i, line) in start.enumerated() where moved.contains(line.id) { from[line.id] = i }
        var slots = [Line?](repeating: nil, count: end.count)
        let travellers = end.enumerated().filter { moved.contains($0.element.id) }
        for (j, line) in travellers {
            let i = from[line.id] ?? j
            var target = min(end.count - 1, max(0, Int((Double(i) + Double(j - i) * fraction).rounded())))
            // The nearest free slot.
            var d = 0
            while slots[target] != nil {
                d += 1
                if target + d < end.count, slots[target + d] == nil { target += d; break }
                if target - d >= 0, slots[target - d] == nil { target -= d; break }
            }
            slots[target] = line
        }
        var others = end.filter { !moved.contains($0.id) }.makeIterator()
        return slots.map { $0 ?? others.next()! }
    }

    static func sectionLabel(_ name: Value?) -> String {
        guard let name else { return "" }
        if case .string(let s) = name { return s }
        return JSONWriter.compact(name)
    }

    /// The number of frames, whatever the size.
    package var frameCount: Int { scenes.count }

    /// How long the whole replay lasts at speed 1, whatever the size.
    package var seconds: Double { scenes.reduce(0) { $0 + $1.seconds } }

    /// Frame `index` for a screen of the given size: long runs of unchanged rows folded,
    /// a viewport that follows the marked rows, rows cut to the width, the caption last.
    package func frame(_ index: Int, options: Options, style: TextStyle) -> Frame {
        let scene = scenes[index]
        let height = max(1, options.height - 1)
        let lines = lines(scene)
        let shown = shown(lines, fits: lines.count <= height, options: options)
        var top = 0
        if shown.count > height {
            let focus = shown.firstIndex { $0.line?.mark != Mark.none } ?? focusBefore(index, options: options)
            top = min(max(0, focus - height / 2), shown.count - height)
        }
        var out = shown[top..<min(shown.count, top + height)].map { draw($0, in: scene, options: options, style: style) }
        // The caption sits on the bottom line.
        while out.count < height { out.append("") }
        let position = "[\(index + 1)/\(scenes.count)] "
        out.append(style.paint(Self.cut(position + scene.caption, options.width), .bold))
        return Frame(lines: out, seconds: scene.seconds)
    }

    /// The whole last frame, folded but not cut to a height: what stays after the replay.
    package func finalLines(options: Options, style: TextStyle) -> [String] {
        let scene = scenes[scenes.count - 1]
        let lines = lines(scene)
        var out = shown(lines, fits: lines.count < options.height, options: options).map {
            draw($0, in: scene, options: options, style: style)
        }
        out.append(style.paint(Self.cut(scene.caption, options.width), .bold))
        return out
    }

    func focusBefore(_ index: Int, options: Options) -> Int {
        // Keep the view where the last marked frame had it.
        var k = index - 1
        while k >= 0 {
            let lines = lines(scenes[k])
            let shown = shown(lines, fits: lines.count <= options.height - 1, options: options)
            if let i = shown.firstIndex(where: { $0.line?.mark != Mark.none }) { return i }
            k -= 1
        }
        return 0
    }

    enum Shown {
        case line(Line)
        case folded(Int)
        var line: Line? { if case .line(let l) = self { return l } else { return nil } }
    }

    /// The lines as a frame shows them: each one when they `fit`, else folded.
    func shown(_ lines: [Line], fits: Bool, options: Options) -> [Shown] {
        fits ? lines.map(Shown.line) : fold(lines, context: options.context)
    }

    /// What a shown entry draws: its line cut to the width, in its mark's colour, or the
    /// fold's count.
    func draw(_ entry: Shown, in scene: Scene, options: Options, style: TextStyle) -> String {
        switch entry {
        case .line(let line): return Self.paint(Self.cut(text(line, in: scene), options.width - 2), line.mark, header: line.isHeader, style)
        case .folded(let n): return style.paint(Self.cut("  … \(n) unchanged …", options.width), .dim)
        }
    }

    /// Runs of rows no change touches fold into one line, but for `context` rows each side
    /// of a touched row; section headers always show.
    func fold(_ lines: [Line], context: Int) -> [Shown] {
        var keep = [Bool](repeating: false, count: lines.count)
        for (i, line) in lines.enumerated()
        where line.isHeader || line.mark != .none || (line.id < interesting.count && interesting[line.id]) {
            for k in max(0, i - context)...min(lines.count - 1, i + context) { keep[k] = true }
            keep[i] = true
        }
        var out: [Shown] = []
        var i = 0
        while i < lines.count {
            if keep[i] {
                out.append(.line(lines[i]))
                i += 1
                continue
            }
            var j = i
            while j < lines.count, !keep[j] { j += 1 }
            if j - i == 1 { out.append(.line(lines[i])) } else { out.append(.folded(j - i)) }
            i = j
        }
        return out
    }

    /// Cut to `width` terminal cells, with an ellipsis where the text was cut.
    static func cut(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        // Everything on screen passes here: what the inputs hold is escaped first.
        let text = SafeText.escape(text)
        // (Measured in the terminal's cells: a CJK character or an emoji takes two.)
        if DisplayWidth.of(text) <= width { return text }
        return String(DisplayWidth.prefix(text, cells: width - 1)) + "…"
    }

    /// A row with its mark in a two-cell gutter (`-` deleted, `+` inserted, `~` updated,
    /// `>` moved), so that the replay reads without colour too, and coloured on a terminal.
    static func paint(_ text: String, _ mark: Mark, header: Bool, _ style: TextStyle) -> String {
        switch mark {
        case .none: return header ? style.paint("  " + text, .bold) : "  " + text
        case .deleted: return style.paint("- " + text, .red)
        case .inserted: return style.paint("+ " + text, .green)
        case .updated: return style.paint("~ " + text, .yellow)
        case .moved: return style.paint("> " + text, .cyan)
        }
    }
}
