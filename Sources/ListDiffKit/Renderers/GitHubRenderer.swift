/// GitHub Actions workflow commands, one per change (`--format github`):
///
///     ::notice file=new.json,line=12,col=14,title=listdiff%3A updated id=3::/email: "a" → "b"
///
/// Inserts and moves point at the record's line in NEW; deletes at its line in OLD. An update
/// points at the changed fields in NEW, one annotation per line that holds some, at the first
/// of them on the line: a field at its value, a field NEW no longer holds at the nearest value
/// above it that NEW holds. GitHub shows each as an annotation on that line of the pull
/// request's files. A long value is cut around where it changed (`valueCut`), so that no
/// message repeats a huge value whole.
///
/// Escaping follows GitHub's own toolkit: in the message, `%`, CR and LF become `%25`,
/// `%0D` and `%0A`; in a property, `:` and `,` become `%3A` and `%2C` too. Text quoted
/// from the inputs first goes through `SafeText`, so that the log shows no control
/// characters, and the only line breaks in a message are listdiff's own (one per field).
public struct GitHubRenderer: ChangesetRenderer {
    /// The annotation level every change is reported at.
    public enum Level: String, Sendable, CaseIterable {
        case notice, warning, error
    }

    /// The inputs' names: annotations point at NEW, or at OLD for deletes.
    public let context: RenderContext
    /// The annotation level.
    public var level: Level
    /// How long values in a message are cut (`ValueCut`).
    public var valueCut = ValueCut()
    /// Where places in records are (a record, or the value a path leads to in it): the line
    /// and column of each, in NEW when `new`, else in OLD.
    package var locate: ([RecordPlace], _ new: Bool) -> [SourceLocation?]

    /// A renderer whose annotations name the file but no line.
    public init(context: RenderContext, level: Level = .notice) {
        self.init(context: context, level: level) { p, _ in p.map { _ in nil } }
    }

    /// A renderer whose annotations point at the lines `locate` finds.
    package init(
        context: RenderContext, level: Level = .notice,
        locate: @escaping ([RecordPlace], _ new: Bool) -> [SourceLocation?]
    ) {
        self.context = context
        self.level = level
        self.locate = locate
    }

    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) {
        let changes = changeset.changes
        // What to find: each change's record, or each changed field of an update, in NEW
        // (in OLD for a delete), all at once.
        var inNew: [RecordPlace] = [], inOld: [RecordPlace] = []
        let nowhere = RecordPosition(index: -1)
        for change in changes {
            switch change.operation {
            case .delete: inOld.append(RecordPlace(change.old ?? nowhere))
            case .update where !change.fields.isEmpty: inNew += change.fields.map { RecordPlace(change.new ?? nowhere, path: $0.steps) }
            default: inNew.append(RecordPlace(change.new ?? nowhere))
            }
        }
        var newPlaces = locate(inNew, true)[...], oldPlaces = locate(inOld, false)[...]
        let keys = KeyFormatter(changeset.key)
        let sectioned = changeset.layout.isSectioned
        func at(_ p: RecordPosition?) -> String { RecordPosition.spelling(p, sectioned: sectioned) }
        for change in changes {
            let key = SafeText.escape(keys.format(change.key, selfKeyed: change.keyedBySelf, occurrence: change.occurrence))
            let title = "\(change.operation.past) \(key)"
            let message: String
            switch change.operation {
            case .insert: message = "inserted \(key) at #\(at(change.new))"
            case .delete: message = "deleted \(key) from #\(at(change.old))"
            case .move: message = "moved \(key) from #\(at(change.old)) to #\(at(change.new))"
            case .rename:
                let was = SafeText.escape(keys.format(change.keyInOld, selfKeyed: change.keyedBySelf, occurrence: change.occurrence))
                let fields = change.fieldsBesideKey(changeset.key).map { field in
                    field.line(escape: SafeText.escape) { old, new in
                        let (a, b) = valueCut.values(old, new)
                        return (SafeText.escape(a), SafeText.escape(b))
                    }
                }
                message = (["renamed \(was) to \(key), #\(at(change.old)) → #\(at(change.new))"] + fields).joined(separator: "\n")
            case .update where change.fields.isEmpty: message = "\(key): member order"
            case .update:
                let places = newPlaces.prefix(change.fields.count)
                newPlaces.removeFirst(places.count)
                for (place, fields) in Self.byLine(Array(places)) {
                    let lines = fields.map { f in
                        change.fields[f].line(escape: SafeText.escape) { old, new in
                            let (a, b) = valueCut.values(old, new)
                            return (SafeText.escape(a), SafeText.escape(b))
                        }
                    }
                    out.write(annotation(.update, place, title: title, lines.joined(separator: "\n")))
                }
                continue
            }
            let place = change.operation == .delete ? oldPlaces.popFirst() : newPlaces.popFirst()
            out.write(annotation(change.operation, place ?? nil, title: title, message))
        }
        for op in changeset.sections {
            let name = SafeText.escape(JSONWriter.compact(op.name))
            out.write(annotation(op.operation, nil, title: "section \(op.operation.past) \(name)", "section \(name) \(op.operation.past)"))
        }
    }

    /// The fields of one update grouped by the line their places are on (those with no place
    /// in one group), in the order of each line's first field; each group at the first column
    /// of its fields. GitHub shows each annotation on its line, so a field several lines into
    /// a record is shown where it is, and fields on one line share one annotation.
    static func byLine(_ places: [SourceLocation?]) -> [(place: SourceLocation?, fields: [Int])] {
        var groups: [(place: SourceLocation?, fields: [Int])] = []
        var onLine: [Int?: Int] = [:]
        for (f, place) in places.enumerated() {
            if let g = onLine[place?.line] {
                groups[g].fields.append(f)
                if let place, place.column < groups[g].place!.column { groups[g].place = place }
            } else {
                onLine[place?.line] = groups.count
                groups.append((place, [f]))
            }
        }
        return groups
    }

    /// One workflow command: at NEW (at OLD for a delete), on the line `place` names when there is one.
    func annotation(_ operation: Change.Operation, _ place: SourceLocation?, title: String, _ message: String) -> String {
        let file = Self.property(SafeText.escape(operation == .delete ? context.oldName : context.newName))
        let line = place.map { ",line=\($0.line),col=\($0.column)" } ?? ""
        return "::\(level.rawValue) file=\(file)\(line),title=\(Self.property("listdiff: " + title))::\(Self.message(message))\n"
    }

    /// A message, escaped as GitHub's toolkit escapes command data.
    package static func message(_ text: String) -> String { escape(text, property: false) }

    /// A property value, escaped as GitHub's toolkit escapes them.
    package static func property(_ text: String) -> String { escape(text, property: true) }

    static func escape(_ text: String, property: Bool) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            case ":" where property: out += "%3A"
            case "," where property: out += "%2C"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
