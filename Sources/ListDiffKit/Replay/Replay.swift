/// The frames of an animated replay of a changeset, the way a table view animates a batch
/// update: the old list; updated rows flash yellow with their changed fields; deleted rows
/// flash red and close up; sections go, come and move; moved rows travel to their new
/// place; inserted rows open up in green; the last frame is the new list.
///
/// Pure: a changeset and the two documents in, frames out, for a given screen size. Timing
/// and terminal control belong to the player in the executable. The number of frames and
/// their timing do not depend on the size, so that a player can re-render on resize.
public struct Replay: Sendable {
    public struct Options: Sendable {
        /// Screen width and height in cells; the last line is the caption.
        public var width: Int
        public var height: Int
        /// Above this many changes, no animation: one frame, the result, saying so.
        public var limit: Int
        /// Unchanged rows kept around a changed one before the rest of a run folds.
        public var context: Int

        public init(width: Int = 80, height: Int = 24, limit: Int = 300, context: Int = 2) {
            self.width = width
            self.height = height
            self.limit = limit
            self.context = context
        }
    }

    /// One screen: its lines (at most `height`, each at most `width` cells, styled), and how
    /// long it stays at speed 1.
    public struct Frame: Sendable, Equatable {
        public var lines: [String]
        public var seconds: Double
    }

    enum Mark { case none, deleted, inserted, updated, moved }

    /// A line of the list being animated: a section header or a record.
    struct Line {
        var id: String  // "s:<name>" for a header, "r:<key>" for a record
        var text: String
        var mark: Mark = .none
        var isHeader: Bool { id.hasPrefix("s:") }
    }

    /// A list state between stages: sections (a single unnamed one for a plain list).
    struct State {
        var sections: [(name: Value?, rows: [String])]
    }

    /// A scene: the lines to draw and the caption; `seconds` is its hold at speed 1.
    struct Scene {
        var lines: [Line]
        var caption: String
        var seconds: Double
    }

    let scenes: [Scene]
    let interesting: Set<String>
    public let changeCount: Int
    public let animated: Bool

    public init(old: Document, new: Document, changeset: Changeset, limit: Int = 300) {
        let keys = KeyFormatter(changeset.key)
        func rowID(_ key: Value, _ occurrence: Int?) -> String { "r:" + JSONWriter.compact(key) + "#\(occurrence ?? 0)" }
        func text(_ record: Record, _ numbered: Bool) -> String {
            let key = keys.format(record.key, selfKeyed: record.value.isScalar, occurrence: numbered ? record.occurrence : nil)
            return record.value.isScalar ? key : key + " " + JSONWriter.compact(record.value)
        }
        let numbered = changeset.duplicates == .match
        var content: [String: String] = [:]  // row id -> text drawn
        func state(_ document: Document) -> State {
            State(sections: document.sections.map { section in
                (section.name, document.records[section.records].map { record in
                    let id = rowID(record.key, numbered ? record.occurrence : nil)
                    return id
                })
            })
        }
        for record in old.records { content[rowID(record.key, numbered ? record.occurrence : nil)] = text(record, numbered) }
        var newContent: [String: String] = [:]
        for record in new.records { newContent[rowID(record.key, numbered ? record.occurrence : nil)] = text(record, numbered) }

        let sectioned = changeset.layout.isSectioned
        func lines(_ state: State, marks: [String: Mark] = [:], annotations: [String: String] = [:]) -> [Line] {
            var out: [Line] = []
            for section in state.sections {
                if sectioned {
                    let id = "s:" + JSONWriter.compact(section.name ?? .null)
                    out.append(Line(id: id, text: "§ " + Self.sectionLabel(section.name), mark: marks[id] ?? .none))
                }
                for row in section.rows {
                    out.append(Line(id: row, text: (content[row] ?? row) + (annotations[row] ?? ""), mark: marks[row] ?? .none))
                }
            }
            return out
        }

        changeCount = changeset.changes.count + changeset.sections.count
        var touched = Set<String>()
        for change in changeset.changes { touched.insert(rowID(change.key, change.occurrence)) }
        for op in changeset.sections { touched.insert("s:" + JSONWriter.compact(op.name)) }
        interesting = touched
        let oldState = state(old), newState = state(new)
        let summary = PatchRenderer.summaryLine(changeset.summary)

        guard changeCount <= limit else {
            content = newContent
            animated = false
            scenes = [Scene(lines: lines(newState), caption: "\(changeCount) changes, more than \(limit): the result, not animated (--animate-limit) · \(summary)", seconds: 0)]
            return
        }
        animated = true
        var scenes: [Scene] = [Scene(lines: lines(oldState), caption: "old: \(old.source.name)", seconds: 1.0)]
        let stages = changeset.stages
        var current = oldState

        // 1. Updates flash yellow with their fields, then show the new content.
        let updates = changeset.changes.filter { $0.operation == .update }
        if !updates.isEmpty || !stages[0].sections.isEmpty {
            var marks: [String: Mark] = [:], notes: [String: String] = [:]
            for change in updates {
                let id = rowID(change.key, change.occurrence)
                marks[id] = .updated
                notes[id] = "  ← " + change.fields.map { f in
                    "\(f.path.isEmpty ? "(record)" : f.path): \(f.old.map(JSONWriter.compact) ?? "(none)") → \(f.new.map(JSONWriter.compact) ?? "(none)")"
                }.joined(separator: ", ")
                if change.fields.isEmpty { notes[id] = "  ← (member order)" }
            }
            for op in stages[0].sections { marks["s:" + JSONWriter.compact(op.name)] = .updated }
            let count = updates.count + stages[0].sections.count
            scenes.append(Scene(lines: lines(current, marks: marks, annotations: notes), caption: "updating \(count)", seconds: 1.0))
            for change in updates { let id = rowID(change.key, change.occurrence); content[id] = newContent[id] }
            scenes.append(Scene(lines: lines(current, marks: marks), caption: "updated \(count)", seconds: 0.4))
        }
        // 2. Deletes flash red, then close up.
        let deletes = stages[1].changes
        if !deletes.isEmpty {
            var marks: [String: Mark] = [:]
            for change in deletes { marks[rowID(change.key, change.occurrence)] = .deleted }
            scenes.append(Scene(lines: lines(current, marks: marks), caption: "deleting \(deletes.count)", seconds: 0.8))
            let gone = Set(marks.keys)
            for s in current.sections.indices { current.sections[s].rows.removeAll { gone.contains($0) } }
            scenes.append(Scene(lines: lines(current), caption: "deleted \(deletes.count)", seconds: 0.3))
        }
        // 3. Sections: deleted ones flash red, moved ones cyan; then the new order, inserted ones green.
        let sectionOps = stages[2].sections
        if !sectionOps.isEmpty {
            var marks: [String: Mark] = [:]
            for op in sectionOps where op.operation != .insert {
                marks["s:" + JSONWriter.compact(op.name)] = op.operation == .delete ? .deleted : .moved
                if op.operation == .delete, let s = op.old {
                    for row in current.sections[s].rows { marks[row] = .deleted }
                }
            }
            scenes.append(Scene(lines: lines(current, marks: marks), caption: "sections: \(PatchRenderer.sectionSummary(sectionOps))", seconds: 0.8))
            // The new order: surviving sections where the changeset sends them, inserted ones empty.
            var placed: [Int: (name: Value?, rows: [String])] = [:]
            var after: [String: Mark] = [:]
            for (s, target) in changeset.oldSectionTargets.enumerated() { if let t = target { placed[t] = current.sections[s] } }
            for op in sectionOps where op.operation != .delete {
                after["s:" + JSONWriter.compact(op.name)] = op.operation == .insert ? .inserted : .moved
                if op.operation == .insert, let t = op.new { placed[t] = (op.name, []) }
            }
            current.sections = (0..<placed.count).map { placed[$0]! }
            scenes.append(Scene(lines: lines(current, marks: after), caption: "sections placed", seconds: 0.6))
        }
        // 4. Moves travel; inserts open up in green; then the new list.
        let final = lines(newState)
        let inserted = Set(stages[3].changes.filter { $0.operation == .insert }.map { rowID($0.key, $0.occurrence) })
        let moved = Set(stages[3].changes.filter { $0.operation == .move }.map { rowID($0.key, $0.occurrence) })
        if !moved.isEmpty {
            let start = lines(current)
            let end = final.filter { !inserted.contains($0.id) }
            let steps = 6
            for k in 1...steps {
                var frame = Self.travel(start: start, end: end, moved: moved, fraction: Double(k) / Double(steps))
                for i in frame.indices where moved.contains(frame[i].id) { frame[i].mark = .moved }
                scenes.append(Scene(lines: frame, caption: "moving \(moved.count)", seconds: 0.12))
            }
            scenes[scenes.count - 1].seconds = 0.5
        }
        content = newContent
        if !inserted.isEmpty {
            var marks: [String: Mark] = [:]
            for id in inserted { marks[id] = .inserted }
            for id in moved { marks[id] = .moved }
            scenes.append(Scene(lines: lines(newState, marks: marks), caption: "inserting \(inserted.count)", seconds: 0.8))
        }
        scenes.append(Scene(lines: lines(newState), caption: "new: \(new.source.name) · \(summary)", seconds: 0))
        self.scenes = scenes
    }

    /// Moved lines part of the way from their place in `start` to their place in `end`; the
    /// other lines, in the same order in both, fill the rest.
    static func travel(start: [Line], end: [Line], moved: Set<String>, fraction: Double) -> [Line] {
        var from: [String: Int] = [:]
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
    public var frameCount: Int { scenes.count }

    /// How long the whole replay lasts at speed 1, whatever the size.
    public var seconds: Double { scenes.reduce(0) { $0 + $1.seconds } }

    /// Frame `index` for a screen of the given size: long runs of unchanged rows folded,
    /// a viewport that follows the marked rows, rows cut to the width, the caption last.
    public func frame(_ index: Int, options: Options, style: TextStyle) -> Frame {
        let scene = scenes[index]
        let height = max(1, options.height - 1)
        let shown = scene.lines.count <= height ? scene.lines.map(Shown.line) : fold(scene.lines, context: options.context)
        var top = 0
        if shown.count > height {
            let focus = shown.firstIndex { $0.line?.mark != Mark.none } ?? focusBefore(index, options: options)
            top = min(max(0, focus - height / 2), shown.count - height)
        }
        var out: [String] = []
        for entry in shown[top..<min(shown.count, top + height)] {
            switch entry {
            case .line(let line): out.append(Self.paint(Self.cut(line.text, options.width - 2), line.mark, header: line.isHeader, style))
            case .folded(let n): out.append(style.paint(Self.cut("  … \(n) unchanged …", options.width), .dim))
            }
        }
        // The caption sits on the bottom line.
        while out.count < height { out.append("") }
        let position = "[\(index + 1)/\(scenes.count)] "
        out.append(style.paint(Self.cut(position + scene.caption, options.width), .bold))
        return Frame(lines: out, seconds: scene.seconds)
    }

    /// The whole last frame, folded but not cut to a height: what stays after the replay.
    public func finalLines(options: Options, style: TextStyle) -> [String] {
        let scene = scenes[scenes.count - 1]
        let fits = scene.lines.count < options.height
        var out: [String] = (fits ? scene.lines.map(Shown.line) : fold(scene.lines, context: options.context)).map { entry in
            switch entry {
            case .line(let line): return Self.paint(Self.cut(line.text, options.width - 2), line.mark, header: line.isHeader, style)
            case .folded(let n): return style.paint(Self.cut("  … \(n) unchanged …", options.width), .dim)
            }
        }
        out.append(style.paint(Self.cut(scene.caption, options.width), .bold))
        return out
    }

    func focusBefore(_ index: Int, options: Options) -> Int {
        // Keep the view where the last marked frame had it.
        var k = index - 1
        while k >= 0 {
            let lines = scenes[k].lines
            let shown = lines.count <= options.height - 1 ? lines.map(Shown.line) : fold(lines, context: options.context)
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

    /// Runs of rows no change touches fold into one line, but for `context` rows each side
    /// of a touched row; section headers always show.
    func fold(_ lines: [Line], context: Int) -> [Shown] {
        var keep = [Bool](repeating: false, count: lines.count)
        for (i, line) in lines.enumerated() where line.isHeader || interesting.contains(line.id) || line.mark != .none {
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

    /// Cut to `width` characters, with an ellipsis where the text was cut.
    static func cut(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        if text.count <= width { return text }
        return String(text.prefix(width - 1)) + "…"
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
