/// GitHub Actions workflow commands, one per change (`--format github`):
///
///     ::notice file=new.json,line=12,col=3,title=listdiff%3A updated id=3::/email: "a" → "b"
///
/// Inserts, updates and moves point at the record's line in NEW; deletes at its line in
/// OLD. GitHub shows each as an annotation on that line of the pull request's files.
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
    /// Where records are: the line and column of each position, in NEW when `new`, else in OLD.
    package var locate: ([RecordPosition], _ new: Bool) -> [SourceLocation?]

    /// A renderer whose annotations name the file but no line.
    public init(context: RenderContext, level: Level = .notice) {
        self.init(context: context, level: level) { p, _ in p.map { _ in nil } }
    }

    /// A renderer whose annotations point at the lines `locate` finds.
    package init(
        context: RenderContext, level: Level = .notice,
        locate: @escaping ([RecordPosition], _ new: Bool) -> [SourceLocation?]
    ) {
        self.context = context
        self.level = level
        self.locate = locate
    }

    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) {
        let changes = changeset.changes
        let inNew = changes.indices.filter { changes[$0].operation != .delete }
        let inOld = changes.indices.filter { changes[$0].operation == .delete }
        var places = [SourceLocation?](repeating: nil, count: changes.count)
        for (i, place) in zip(inNew, locate(inNew.map { changes[$0].new ?? RecordPosition(index: -1) }, true)) { places[i] = place }
        for (i, place) in zip(inOld, locate(inOld.map { changes[$0].old ?? RecordPosition(index: -1) }, false)) { places[i] = place }
        let keys = KeyFormatter(changeset.key)
        let sectioned = changeset.layout.isSectioned
        func at(_ p: RecordPosition?) -> String { RecordPosition.spelling(p, sectioned: sectioned) }
        for (change, place) in zip(changes, places) {
            let key = SafeText.escape(keys.format(change.key, selfKeyed: change.keyedBySelf, occurrence: change.occurrence))
            let message: String
            switch change.operation {
            case .insert: message = "inserted \(key) at #\(at(change.new))"
            case .delete: message = "deleted \(key) from #\(at(change.old))"
            case .move: message = "moved \(key) from #\(at(change.old)) to #\(at(change.new))"
            case .update:
                message =
                    change.fields.isEmpty
                    ? "\(key): member order"
                    : change.fields.map { field in
                        field.line(escape: SafeText.escape) { $0.map { SafeText.escape(JSONWriter.compact($0)) } ?? "(none)" }
                    }.joined(separator: "\n")
            }
            out.write(annotation(change.operation, place, title: "\(change.operation.past) \(key)", message))
        }
        for op in changeset.sections {
            let name = SafeText.escape(JSONWriter.compact(op.name))
            out.write(annotation(op.operation, nil, title: "section \(op.operation.past) \(name)", "section \(name) \(op.operation.past)"))
        }
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
