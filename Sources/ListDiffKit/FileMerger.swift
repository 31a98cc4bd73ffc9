/// A three-way merge of keyed records: BASE diffed to OURS and to THEIRS with one key, one
/// set of rules and one reading, and the two changesets combined record by record.
///
/// - A record changed on one side only takes that side's change; changed on both, its
///   values are merged member by member, so that changes to different fields both apply
///   and the same change made on both sides is one.
/// - Order: records neither side moved keep BASE's order; each side's moved and inserted
///   records go after the record they follow on that side that neither side moved, in that
///   side's order (OURS's first where both put records at one place).
/// - Nothing is dropped silently. A conflict is reported, never guessed: a field changed to
///   different values, a field one side removed and the other changed, a list (by index)
///   changed differently, a record deleted on one side and changed on the other, one key
///   inserted on both sides with different records, and a record both sides moved to
///   different places. A `Preference` resolves conflicts, all one way or each kind its own.
///
/// The result is a changeset from BASE, which `FileApplier` applies to BASE's file, so
/// that BASE's untouched records are written as they are.
package struct FileMerger: Sendable {
    /// How the three inputs are read and compared: format, key, layout, rules.
    package var files: FileDiffer
    /// Which side each kind of conflict goes to; a kind with none is reported.
    package var preference: Preference

    package enum Side: String, Sendable, CaseIterable {
        case ours, theirs
    }

    /// A merge that resolves every conflict with `prefer`'s change, or reports them all.
    package init(files: FileDiffer, prefer: Side? = nil) {
        self.init(files: files, preference: prefer.map(Preference.init) ?? Preference())
    }

    package init(files: FileDiffer, preference: Preference) {
        self.files = files
        // A merge matches records by key: a renamed key is a delete and an insert to it.
        self.files.differ.renames = nil
        self.preference = preference
    }

    /// How conflicts are resolved, kind by kind: a side, or for a record deleted on one side
    /// and changed on the other, the deleting side (`delete`) or the changing one (`keep`).
    /// Inside a record (a field, an element of a keyed list) every clash is of kind `field`.
    package struct Preference: Sendable, Equatable {
        package enum Choice: String, Sendable, CaseIterable {
            case ours, theirs, delete, keep
        }

        package var choices: [Conflict.Kind: Choice] = [:]

        /// None: every conflict is reported.
        package init() {}

        /// Every conflict to `side`.
        package init(_ side: Side) {
            for kind in Conflict.Kind.allCases { choices[kind] = side == .ours ? .ours : .theirs }
        }

        /// `ours` or `theirs` for every conflict, or a comma list of KIND=CHOICE, each kind
        /// once: `field`, `delete/modify` (or `delete`), `insert/insert` (or `insert`) and
        /// `order`, each `ours` or `theirs`; `delete/modify` may also be `delete` or `keep`.
        ///
        /// - Throws: a `.usage` error naming what it does not know.
        package init(parsing text: String) throws(ListDiffError) {
            if let side = Side(rawValue: text) {
                self.init(side)
                return
            }
            self.init()
            let kinds = "field, delete/modify, insert/insert or order"
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard pair.count == 2 else {
                    throw ListDiffError(
                        .usage, "a preference is ours, theirs, or KIND=SIDE pairs, as field=theirs,delete=keep; not \"\(part)\"")
                }
                let aliases = ["delete": "delete/modify", "insert": "insert/insert"]
                guard let kind = Conflict.Kind(rawValue: aliases[pair[0]] ?? pair[0]) else {
                    throw ListDiffError(.usage, "\"\(pair[0])\" is not a kind of conflict: \(kinds)")
                }
                guard let choice = Choice(rawValue: pair[1]) else {
                    throw ListDiffError(
                        .usage,
                        "\"\(pair[1])\" is not a choice for \(kind.rawValue): ours or theirs\(kind == .deleteModify ? ", delete or keep" : "")"
                    )
                }
                if kind != .deleteModify, choice == .delete || choice == .keep {
                    throw ListDiffError(.usage, "\(choice.rawValue) chooses for delete/modify only; \(kind.rawValue) takes ours or theirs")
                }
                guard choices.updateValue(choice, forKey: kind) == nil else {
                    throw ListDiffError(.usage, "the preference names \(kind.rawValue) twice")
                }
            }
        }

        /// The side a conflict of `kind` goes to (`oursDeleted`: OURS deleted the record), or
        /// nil when it is reported.
        package func side(for kind: Conflict.Kind, oursDeleted: Bool = false) -> Side? {
            switch choices[kind] {
            case .ours?: .ours
            case .theirs?: .theirs
            case .delete?: oursDeleted ? .ours : .theirs
            case .keep?: oursDeleted ? .theirs : .ours
            case nil: nil
            }
        }
    }

    /// What a merge gives: the changes from BASE, the conflicts, and which side each change
    /// came from.
    package struct Result: Sendable {
        /// BASE to the merged document. An unresolved conflict's record is `Conflict.marker`
        /// at its place, for the writer to replace with both sides.
        package var changeset: Changeset
        package var conflicts: [Conflict]
        /// How many records took each side's change (both: the same change on both sides).
        package var fromOurs = 0, fromTheirs = 0, fromBoth = 0, resolved = 0
        /// The two diffs: BASE as they scanned it, so that writing need not scan it again;
        /// kept with the result too, so that a command can exit without first freeing their
        /// tables one by one.
        var inputs: [FileDiffer.Result] = []
    }

    /// A change both sides made to one record that cannot both hold.
    package struct Conflict: Sendable {
        package enum Kind: String, Sendable, CaseIterable {
            /// A field changed on both sides to different values, or removed on one side and
            /// changed on the other.
            case field
            /// The record deleted on one side and changed on the other.
            case deleteModify = "delete/modify"
            /// One key inserted on both sides with different records.
            case insertInsert = "insert/insert"
            /// The record moved by both sides to different places.
            case order
        }

        package var kind: Kind
        package var key: Value
        package var occurrence: Int?
        /// The fields at odds (JSON Pointers in the record), for `field`.
        package var paths: [String] = []
        /// The record in each input (nil where it is not there).
        package var base: Value?, ours: Value?, theirs: Value?
        /// The side that won, when a preference resolved it.
        package var resolvedBy: Side?

        /// The text of the string that stands for conflict `n` in the merged document until
        /// the writer replaces it with both sides.
        package static func marker(_ n: Int) -> String { markerHead + "\(n)>>" }
        /// What every marker starts with, up to its number.
        static let markerHead = "<<listdiff conflict 7d1e5f0a "

        /// The number of the conflict whose marker `text` is, or nil.
        static func number(ofMarker text: String) -> Int? {
            guard text.hasPrefix(markerHead), text.hasSuffix(">>") else { return nil }
            return Int(text.dropFirst(markerHead.count).dropLast(2))
        }
    }

    /// Git's conflict markers, `size` characters each: before OURS, between the sides, and
    /// after THEIRS.
    static func gitMarkers(_ size: Int) -> (ours: String, between: String, theirs: String) {
        (String(repeating: "<", count: size), String(repeating: "=", count: size), String(repeating: ">", count: size))
    }

    // MARK: - Writing

    /// The merged document, written from BASE's file in `format` (BASE's when nil), each
    /// unresolved conflict's record between git's markers (`size` characters long): OURS's
    /// record, then THEIRS's, each as the format writes it (none where that side deleted
    /// it). Such a file does not read until a person chooses; every other record is merged.
    ///
    /// - Throws: what applying to BASE throws.
    package func write(
        _ result: Result, base path: String, format: InputFormat? = nil, markerSize size: Int = 7,
        labels: (ours: String, theirs: String) = ("ours", "theirs"), to out: (UnsafeRawBufferPointer) -> Void
    ) throws(ListDiffError) {
        // As BASE is written, where the format allows (JSON, NDJSON, YAML): what git then shows
        // of the merge is the records that changed, not a file written anew.
        if format == nil, try spliced(result, base: path, markerSize: size, labels: labels, to: out) { return }
        let applier = try FileApplier(changeset: result.changeset, old: path, reader: files.reader, force: true)
        let format = format ?? applier.format
        let open = result.conflicts.indices.filter { result.conflicts[$0].resolvedBy == nil && result.conflicts[$0].kind != .order }
        guard !open.isEmpty else { return try applier.write(format, bytes: out) }
        if format == .csv || format == .tsv {
            return try writeCSV(result, open: open, base: path, format: format, markerSize: size, labels: labels, to: out)
        }
        var text: [UInt8] = []
        try applier.write(format, bytes: { text.append(contentsOf: $0) })
        let map = result.changeset.layout.shape == .map
        let written = try Self.replacingMarkerLines(in: text, open: Set(open)) { (n, bytes) throws(ListDiffError) -> [String] in
            let line = String(decoding: bytes, as: UTF8.self)
            let token = Conflict.marker(n)
            let conflict = result.conflicts[n]
            // The line as written is a prefix (indentation, a member name or `- `), the
            // record and a suffix (a comma): each side's record is written in its place.
            guard let found = line.firstRange(of: token) else { return [line] }
            // (With its quotes, where the writer quoted it.)
            var quoted = found
            if quoted.lowerBound > line.startIndex, quoted.upperBound < line.endIndex,
                case let q = line[line.index(before: quoted.lowerBound)], q == "\"" || q == "'", line[quoted.upperBound] == q
            {
                quoted = line.index(before: quoted.lowerBound)..<line.index(after: quoted.upperBound)
            }
            let prefix = String(line[..<quoted.lowerBound]), suffix = String(line[quoted.upperBound...])
            let indent = String(line.prefix { $0 == " " })
            func side(_ value: Value?) throws(ListDiffError) -> [String] {
                guard let value else { return [] }
                switch format {
                case .yaml:
                    // The record as a one-record list or map, indented to the line's place.
                    var name: String? = nil
                    if map, case .string(let member) = conflict.key { name = member }
                    let container: Value = name.map { .object(Object([.init(key: $0, value: value)])) } ?? .array([value])
                    let document = try YAMLWriter.document(container)
                    return document.split(separator: "\n").map { indent + $0 }
                case .ndjson:
                    return [prefix + JSONWriter.compact(value) + suffix]
                default:
                    var pretty = ""
                    JSONWriter.writePretty(value, to: &pretty, level: indent.count / 2)
                    return (prefix + pretty + suffix).split(separator: "\n").map(String.init)
                }
            }
            let marks = Self.gitMarkers(size)
            return ["\(marks.0) \(labels.ours)"] + (try side(conflict.ours)) + [marks.1] + (try side(conflict.theirs))
                + ["\(marks.2) \(labels.theirs)"]
        }
        written.withUnsafeBytes(out)
    }

    /// `text` with each line that holds the token of an open conflict replaced by the lines
    /// `replace` gives for it, each ended as the text ends its lines (CRLF or LF); in one
    /// pass, whatever the number of conflicts.
    static func replacingMarkerLines(
        in text: [UInt8], open: Set<Int>, _ replace: (Int, ArraySlice<UInt8>) throws(ListDiffError) -> [String]
    ) throws(ListDiffError) -> [UInt8] {
        let token = Array(Conflict.markerHead.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var k = 0
        while k < text.count {
            let lineEnd = text[k...].firstIndex(of: 0x0A) ?? text.count
            // The line without its ending: CRLF's CR stays with the ending.
            let contentEnd = lineEnd > k && text[lineEnd - 1] == 0x0D ? lineEnd - 1 : lineEnd
            let line = text[k..<contentEnd]
            if let found = line.firstRange(of: token) {
                let digits = text[found.upperBound..<contentEnd].prefix { $0 >= 0x30 && $0 <= 0x39 }
                if let n = Int(String(decoding: digits, as: UTF8.self)), open.contains(n) {
                    let ending = Array(text[contentEnd..<min(lineEnd + 1, text.count)])
                    let newline = ending.isEmpty ? [UInt8(0x0A)] : ending
                    let lines = try replace(n, line)
                    for (m, written) in lines.enumerated() {
                        out += Array(written.utf8)
                        out += m == lines.count - 1 ? ending : newline
                    }
                    k = lineEnd + 1
                    continue
                }
            }
            out += text[k..<min(lineEnd + 1, text.count)]
            k = lineEnd + 1
        }
        return out
    }

    /// CSV or TSV with conflicts. A row cannot hold a marker in place of a record, so each
    /// conflicting record stands in as a row whose every cell is its conflict's token (its
    /// fields those of both sides, so that the header holds them). That row is then replaced
    /// by both sides' rows, under the header as written, between git's markers.
    func writeCSV(
        _ result: Result, open: [Int], base path: String, format: InputFormat, markerSize size: Int,
        labels: (ours: String, theirs: String), to out: (UnsafeRawBufferPointer) -> Void
    ) throws(ListDiffError) {
        var tokens: [String: Int] = [:]
        for n in open { tokens[Conflict.marker(n)] = n }
        var changeset = result.changeset
        for (k, change) in changeset.changes.enumerated() where change.reference == nil && change.operation != .delete {
            guard case .string(let token)? = try change.value(), let n = tokens[token] else { continue }
            var names: [String] = []
            for case .object(let object)? in [result.conflicts[n].ours, result.conflicts[n].theirs] {
                for member in object.members where !names.contains(member.key) { names.append(member.key) }
            }
            changeset.changes[k] = Change(
                change.operation, key: change.key, keyedBySelf: change.keyedBySelf, old: change.old, new: change.new,
                fields: change.fields, value: .object(Object(names.map { .init(key: $0, value: .string(token)) })),
                occurrence: change.occurrence)
        }
        var text: [UInt8] = []
        try FileApplier(changeset: changeset, old: path, reader: files.reader, force: true).write(format) { text.append(contentsOf: $0) }
        // The header as written, read back by the CSV reader; the rows end as it ends its own.
        guard case .array(let rows) = try files.reader.root(text, format, name: path).0, case .object(let first)? = rows.first else {
            return text.withUnsafeBytes(out)
        }
        let header = first.members.map(\.key)
        let separator = format == .tsv ? UInt8(0x09) : UInt8(ascii: ",")
        // Each side's row, its line ending the marker line's (`replacingMarkerLines`).
        func row(_ value: Value?) -> String? {
            guard case .object(let object)? = value else { return nil }
            var bytes: [UInt8] = []
            FileApplier.csvRow(FileApplier.csvCells(of: object, header: header), separator: separator, newline: [], into: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        let written = try Self.replacingMarkerLines(in: text, open: Set(open)) { (n, _) throws(ListDiffError) -> [String] in
            let conflict = result.conflicts[n]
            let marks = Self.gitMarkers(size)
            return [marks.ours + " " + labels.ours] + [row(conflict.ours)].compactMap { $0 } + [marks.between]
                + [row(conflict.theirs)].compactMap { $0 } + [marks.theirs + " " + labels.theirs]
        }
        written.withUnsafeBytes(out)
    }

    /// The conflicts as data: `{"version": 1, "conflicts": [...]}`, each with its `kind`,
    /// `key` (and `occurrence` when numbered), `paths` (for a field conflict), the `base`,
    /// `ours` and `theirs` records (null where absent) and `resolved` (the side a
    /// preference chose, or null).
    package static func writeConflicts(_ result: Result, to out: inout String) throws(ListDiffError) {
        out += "{\"version\": 1, \"conflicts\": ["
        for (n, c) in result.conflicts.enumerated() {
            out += n == 0 ? "\n  " : ",\n  "
            var members: [Object.Member] = [.init(key: "kind", value: .string(c.kind.rawValue)), .init(key: "key", value: c.key)]
            if let occurrence = c.occurrence { members.append(.init(key: "occurrence", value: .number(Number(exactly: occurrence)))) }
            if c.kind == .field { members.append(.init(key: "paths", value: .array(c.paths.map { .string($0) }))) }
            members += [
                .init(key: "base", value: c.base ?? .null), .init(key: "ours", value: c.ours ?? .null),
                .init(key: "theirs", value: c.theirs ?? .null),
                .init(key: "resolved", value: c.resolvedBy.map { .string($0.rawValue) } ?? .null),
            ]
            out += JSONWriter.compact(.object(Object(members)))
        }
        out += result.conflicts.isEmpty ? "]}\n" : "\n]}\n"
    }

    /// The merge for people: where the changes came from, then one line per conflict (`!`),
    /// everything quoted from the inputs escaped.
    package static func writeSummary(_ result: Result, name: String, to out: inout String) throws(ListDiffError) {
        let keys = KeyFormatter(result.changeset.key)
        let open = result.conflicts.filter { $0.resolvedBy == nil }.count
        out += SafeText.escape(name) + ": merged \(result.fromOurs) from ours, \(result.fromTheirs) from theirs, \(result.fromBoth) on both"
        out += open == 0 ? "" : "; \(open) conflict\(open == 1 ? "" : "s")"
        out += result.resolved == 0 ? "" : "; \(result.resolved) resolved by --prefer"
        out += "\n"
        for c in result.conflicts {
            let key = SafeText.escape(keys.format(c.key, occurrence: c.occurrence))
            var line = "! \(c.kind.rawValue) \(key)"
            switch c.kind {
            case .field: line += " " + SafeText.escape(c.paths.joined(separator: ", "))
            case .deleteModify: line += c.ours == nil ? ": deleted by ours, changed by theirs" : ": changed by ours, deleted by theirs"
            case .insertInsert: line += ": inserted by both, differently"
            case .order: line += ": moved by both, to different places"
            }
            if let side = c.resolvedBy { line += " (took \(side.rawValue))" }
            out += line + "\n"
        }
    }

    /// The merged document as BASE is written, handed to `write`: BASE's text around the
    /// records and between them, each JSON record as the file it comes from wrote it, and a
    /// record written anew in BASE's style (JSON on one line or indented; YAML in flow
    /// style on one line or in block style at the record's column). False, with nothing
    /// written, where that cannot be done: CSV, sections, records in BASE that do not stand
    /// one after another on lines of their own, a YAML map or one record, YAML records that
    /// use one another's anchors, or comments between BASE's first two records.
    func spliced(
        _ result: Result, base path: String, markerSize size: Int, labels: (ours: String, theirs: String),
        to write: (UnsafeRawBufferPointer) -> Void
    ) throws(ListDiffError) -> Bool {
        // (A result without BASE's scan is written by the applier.)
        guard let (side, format) = result.inputs.first?.old else { return false }
        let records = side.records
        let yaml = format == .yaml
        // (A merge that keeps no record is written by the applier, which writes an empty list.)
        guard format == .json || format == .ndjson || yaml, !side.layout.isSectioned, side.count >= 1, result.changeset.newCount > 0
        else { return false }
        // YAML: a list (a block sequence, or a stream of documents) of two records or more,
        // each of which reads alone (no alias to an anchor in another record).
        if yaml {
            guard side.layout.shape == .list, side.count >= 2, let scanned = records as? YAMLRecords,
                (0..<side.count).allSatisfy({ scanned.details.standalone[$0] })
            else { return false }
        }
        let bytes = side.file.bytes
        let map = side.layout.shape == .map
        func start(_ r: Int) -> Int { map ? records.names!.starts[r] : records.starts[r] }
        // (A YAML block record's text runs on to the next record's indentation: it ends
        // after its last line break, the line breaks a kept block scalar ends with
        // included.)
        func end(_ r: Int) -> Int {
            let end = records.starts[r] + Int(records.lengths[r])
            guard yaml else { return end }
            var k = end
            while k > records.starts[r], bytes[k - 1] == 0x20 || bytes[k - 1] == 0x09 { k -= 1 }
            return k
        }
        func text(_ range: Range<Int>) -> [UInt8] { Array(bytes[range]) }
        // BASE's line ending (CRLF or LF), for the lines written here.
        let newline: [UInt8] = bytes.firstIndex(of: 0x0A).map { $0 > 0 && bytes[$0 - 1] == 0x0D } == true ? [0x0D, 0x0A] : [0x0A]
        // Whether a YAML record's text ends with its own line break (block records), which
        // then every record's does, so that records can stand in any order.
        let ownBreak = yaml && bytes[end(0) - 1] == 0x0A
        if yaml, !(0..<side.count).allSatisfy({ (bytes[end($0) - 1] == 0x0A) == ownBreak }) { return false }
        // The separator between records, and the indentation a record starts at. In YAML,
        // the first two records' with its comment lines left out: it goes before new records.
        var separator: [UInt8]
        if side.count >= 2 {
            separator = text(end(0)..<start(1))
        } else {
            let before = text(0..<start(0)).reversed().prefix { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            separator = (format == .ndjson ? [] : [UInt8(ascii: ",")]) + before.reversed()
        }
        if yaml {
            let lines = separator.split(separator: 0x0A, omittingEmptySubsequences: false)
            separator = Array(lines.filter { $0.first { $0 != 0x20 } != UInt8(ascii: "#") }.joined(separator: [0x0A]))
            // (Only line breaks, spaces and the `- ` or `---` that start a record.)
            guard separator.allSatisfy({ $0 == 0x0A || $0 == 0x0D || $0 == 0x20 || $0 == UInt8(ascii: "-") }) else { return false }
        }
        guard let lastBreak = separator.lastIndex(of: 0x0A) ?? (ownBreak ? -1 : nil) else { return false }
        // (In YAML, what starts the record's line: its indentation and `- `.)
        let indent = Array(separator[(lastBreak + 1)...])
        // The text before BASE's record `i` when another comes before it: in YAML, BASE's own
        // (its comments and blank lines kept); else the separator.
        func gap(_ i: Int) -> [UInt8] { yaml && i > 0 ? text(end(i - 1)..<start(i)) : separator }
        // The comment and blank lines a YAML block record's text ends with (about what comes
        // next): kept when the record is written anew.
        func tail(_ i: Int) -> [UInt8] {
            guard ownBreak else { return [] }
            var k = end(i)
            while k > start(i) {
                let lineStart = (bytes[start(i)..<(k - 1)].lastIndex(of: 0x0A) ?? (start(i) - 1)) + 1
                let line = bytes[lineStart..<k].drop { $0 == 0x20 || $0 == 0x09 }
                guard line.first == UInt8(ascii: "#") || line.allSatisfy({ $0 == 0x0A || $0 == 0x0D }) else { break }
                k = lineStart
            }
            return text(k..<end(i))
        }
        let comma = format == .json
        // A map member's name and what stands between it and the record (`": "`).
        var nameGap: [UInt8] = []
        if map {
            var parser = JSONParser(bytes: bytes, maxDepth: 1)
            parser.index = start(0)
            do throws(JSONParseFailure) { _ = try parser.scanString() } catch { return false }
            nameGap = text(parser.index..<records.starts[0])
        }
        var first = text(records.starts[0]..<end(0))
        while first.last == 0x0A || first.last == 0x0D { first.removeLast() }
        let multiline = first.contains(0x0A), spaced = first.count > 2 && first.contains(0x20)
        func written(_ value: Value) throws(ListDiffError) -> [UInt8] {
            // YAML records on one line each: a new one too, in flow style (JSON is YAML), unless
            // it holds a number JSON cannot spell.
            if yaml, !multiline, value.firstNonFiniteNumber == nil { return Array(Self.spaced(value).utf8) }
            if yaml {
                // Block style, each line after the first at the record's column.
                var text = Array(try YAMLWriter.document(value).utf8)
                while text.last == 0x0A { text.removeLast() }
                if text.starts(with: Array("--- ".utf8)) { text.removeFirst(4) }
                var out: [UInt8] = []
                for b in text {
                    if b == 0x0A {
                        out += newline + [UInt8](repeating: 0x20, count: indent.count)
                    } else {
                        out.append(b)
                    }
                }
                return ownBreak ? out + newline : out
            }
            if multiline {
                var pretty = ""
                JSONWriter.writePretty(value, to: &pretty, level: indent.count / 2)
                return Array(pretty.utf8)
            }
            return Array((spaced ? Self.spaced(value) : JSONWriter.compact(value)).utf8)
        }
        func member(_ key: Value, _ record: [UInt8]) -> [UInt8] {
            guard map, case .string(let name) = key else { return record }
            return Array(JSONWriter.compact(.string(name)).utf8) + nameGap + record
        }
        // What stands at each place of the merged list; BASE's records that go, or that a
        // change puts in a place of its own.
        let changes = result.changeset.changes
        let count = result.changeset.newCount
        var placed = [Int32](repeating: -1, count: count)
        var taken = [Bool](repeating: false, count: side.count)
        for (k, change) in changes.enumerated() {
            if change.operation != .delete, let j = change.new?.index, j < count { placed[j] = Int32(k) }
            if change.operation != .insert, let i = change.old?.index, i < side.count { taken[i] = true }
        }
        // BASE's runs go straight to `write`; what is written anew waits in `out` before them.
        var out: [UInt8] = []
        // BASE's text from `run.lowerBound` on is written as it is, up to where a record
        // that does not follow in BASE comes (so that most of it is copied in long runs).
        var run = 0..<start(0)
        var lastBase = -2
        var next = 0
        var afterConflict = false
        let markers = Self.gitMarkers(size)
        func flush() {
            out.withUnsafeBytes(write)
            out.removeAll(keepingCapacity: true)
            write(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[run])))
            run = run.upperBound..<run.upperBound
        }
        for j in 0..<count {
            let last = j == count - 1
            if placed[j] < 0 {
                while next < side.count, taken[next] { next += 1 }
                let i = next
                next += 1
                if i == lastBase + 1, !afterConflict {
                    // The record after the one before, in BASE: its separator and itself.
                    run = run.lowerBound..<end(i)
                } else {
                    flush()
                    if j > 0 { out += afterConflict && comma ? Array(separator.dropFirst()) : gap(i) }
                    run = start(i)..<end(i)
                }
                lastBase = i
                afterConflict = false
                continue
            }
            lastBase = -2
            let change = changes[Int(placed[j])]
            // (A record taken whole from a side, as its text, is no conflict's marker: JSON
            // copies the text, unread.)
            let copied = yaml ? nil : change.reference?.withBytes { Array($0) }
            let value = copied == nil ? try change.value() : nil
            var conflict: Conflict? = nil
            if case .string(let s)? = value, let n = Conflict.number(ofMarker: s), n < result.conflicts.count {
                conflict = result.conflicts[n]
            }
            // (The first record's conflict keeps BASE's text before it unwritten, to take
            // its indentation off.)
            if j > 0 || conflict == nil { flush() }
            // (A record of BASE's, moved or changed, keeps the text before it.)
            let own = change.operation == .insert ? nil : change.old?.index
            if j > 0 { out += afterConflict && comma ? Array(separator.dropFirst()) : own.map(gap) ?? separator }
            afterConflict = false
            guard let conflict else {
                // (A YAML record's text holds its column: it is written anew, at BASE's.)
                if let copied {
                    out += member(change.key, copied)
                } else if change.operation == .move, let i = change.old?.index {
                    run = start(i)..<end(i)
                } else {
                    out += member(change.key, try written(value ?? .null)) + (own.map(tail) ?? [])
                }
                continue
            }
            // Both sides, between git's markers, each on lines of its own: the indentation
            // written before the record is taken off where a line break comes before it, and
            // a line break is written where none does.
            if j > 0 {
                let atLineStart = out.count == indent.count || (out.count > indent.count && out[out.count - indent.count - 1] == 0x0A)
                if out.count >= indent.count, out.suffix(indent.count).elementsEqual(indent), atLineStart {
                    out.removeLast(indent.count)
                } else {
                    out += newline
                }
            } else {
                let cut = run.upperBound - indent.count
                if cut >= run.lowerBound, bytes[cut..<run.upperBound].elementsEqual(indent), cut == 0 || bytes[cut - 1] == 0x0A {
                    run = run.lowerBound..<cut
                    flush()
                } else {
                    flush()
                    out += newline
                }
            }
            func lines(_ value: Value?) throws(ListDiffError) -> [UInt8] {
                guard let value else { return [] }
                return indent + member(conflict.key, try written(value)) + (comma && !last ? [UInt8(ascii: ",")] : [])
                    + (ownBreak ? [] : newline)
            }
            out += Array("\(markers.0) \(labels.ours)".utf8) + newline + (try lines(conflict.ours)) + Array(markers.1.utf8) + newline
            out += (try lines(conflict.theirs)) + Array("\(markers.2) \(labels.theirs)".utf8) + (ownBreak ? newline : [])
            afterConflict = true
        }
        flush()
        run = end(side.count - 1)..<bytes.count
        // (After a conflict, what follows the records starts on a line of its own.)
        if afterConflict, !ownBreak, run.isEmpty || (bytes[run.lowerBound] != 0x0A && bytes[run.lowerBound] != 0x0D) { out += newline }
        flush()
        return true
    }

    /// A value on one line with a space after each `:` and `,`, as people write JSON.
    static func spaced(_ value: Value) -> String {
        switch value {
        case .array(let items): return "[" + items.map(spaced).joined(separator: ", ") + "]"
        case .object(let object):
            return "{" + object.members.map { JSONWriter.compact(.string($0.key)) + ": " + spaced($0.value) }.joined(separator: ", ") + "}"
        default: return JSONWriter.compact(value)
        }
    }

    // MARK: - Merging

    /// Merges OURS and THEIRS, each a changed BASE, into one document's changes from BASE.
    ///
    /// - Throws: what diffing either pair throws; a `.usage` error for inputs in sections,
    ///   which this merge does not handle yet.
    package func merge(base: String, ours: String, theirs: String) throws(ListDiffError) -> Result {
        let diffs = try files.diffs(old: base, news: [ours, theirs])
        let a = diffs[0], b = diffs[1]
        guard !a.changeset.layout.isSectioned, !b.changeset.layout.isSectioned else {
            throw ListDiffError(.usage, "merge handles a plain list or a map of records; records in sections are not merged yet")
        }
        let read = a.oldRecords
        defer { files.progress?.lap("combine") }
        var result = try combine(
            a.changeset, b.changeset,
            base: { (r: Int) throws(ListDiffError) -> Value in
                guard let (value, _) = read?.record(r) else {
                    throw ListDiffError(.io, file: base, "the file changed while it was being read")
                }
                return value
            })
        result.inputs = diffs
        return result
    }

    /// One side's changes by BASE record, and its order of records.
    struct SideChanges {
        var deleted: [Bool]
        var moved: [Bool]
        /// Each updated BASE record's change.
        var updated: [Int: Change] = [:]
        /// Each inserted record's change, by the number its identity has in both sides.
        var inserted: [Int: Change] = [:]
        /// The BASE records this side deleted or updated.
        var touched: [Int] = []
        /// Each deleted BASE record's change (which holds the record).
        var deletions: [Int: Change] = [:]
        /// The side's records, in order.
        var order: [Ref] = []

        /// A list's order and which of BASE's elements it moved (a keyed list inside a record).
        init(order: [Ref], moved: [Bool]) {
            deleted = []
            self.moved = moved
            self.order = order
        }

        /// The changes of `changeset`. Inserted records are numbered in the changeset's order
        /// (`renumber` numbers them as the other side does).
        init(_ changeset: Changeset) {
            var numbers: [Hash128: Int] = [:]
            let n = changeset.oldCount, count = changeset.newCount
            var deleted = [Bool](repeating: false, count: n), moved = [Bool](repeating: false, count: n)
            // What each place of the side holds: BASE's record i (i), a record inserted with
            // identity number k (-2 - k), or a record no change names (-1).
            var slots = [Int](repeating: -1, count: count)
            var placed = [Bool](repeating: false, count: n)
            updated.reserveCapacity(changeset.summary.updated)
            deletions.reserveCapacity(changeset.summary.deleted)
            for k in changeset.changes.indices {
                let operation = changeset.changes[k].operation
                let old = changeset.changes[k].old?.index, new = changeset.changes[k].new?.index
                switch operation {
                case .delete:
                    guard let i = old else { continue }
                    deleted[i] = true
                    deletions[i] = changeset.changes[k]
                    touched.append(i)
                case .insert:
                    let id = FileMerger.identity(changeset.changes[k])
                    let number = numbers[id] ?? numbers.count
                    numbers[id] = number
                    inserted[number] = changeset.changes[k]
                    if let j = new, j < count { slots[j] = -2 - number }
                case .rename:
                    // Never here: a merge pairs no renames (`init` clears them).
                    continue
                case .move, .update:
                    guard let i = old else { continue }
                    if operation == .move {
                        moved[i] = true
                    } else {
                        updated[i] = changeset.changes[k]
                        touched.append(i)
                    }
                    if let j = new, j < count {
                        slots[j] = i
                        placed[i] = true
                    }
                }
            }
            // The places no change names hold the records that stayed, in BASE's order.
            var next = 0
            let order = [Ref](unsafeUninitializedCapacity: count) { buffer, initialized in
                for (j, slot) in slots.enumerated() {
                    if slot >= 0 {
                        buffer.initializeElement(at: j, to: .base(slot))
                    } else if slot < -1 {
                        buffer.initializeElement(at: j, to: .inserted(-2 - slot))
                    } else {
                        while next < n, deleted[next] || placed[next] { next += 1 }
                        buffer.initializeElement(at: j, to: .base(next))
                        next += 1
                    }
                }
                initialized = count
            }
            self.deleted = deleted
            self.moved = moved
            self.order = order
            identities = numbers
        }

        /// Each inserted record's identity, by its number on this side (`inserted`'s keys).
        var identities: [Hash128: Int] = [:]

        /// This side's inserted records numbered as `other` numbers them: an identity both
        /// inserted takes `other`'s number, the others numbers after `other`'s. The count of
        /// numbers in use on both sides.
        mutating func renumber(after other: SideChanges) -> Int {
            var next = other.identities.count
            var map: [Int: Int] = [:]
            for (id, k) in identities.sorted(by: { $0.value < $1.value }) {
                if let shared = other.identities[id] {
                    map[k] = shared
                } else {
                    map[k] = next
                    next += 1
                }
            }
            guard map.contains(where: { $0.key != $0.value }) else { return next }
            inserted = Dictionary(uniqueKeysWithValues: inserted.map { (map[$0.key]!, $0.value) })
            identities = identities.mapValues { map[$0]! }
            for j in order.indices {
                if let k = order[j].inserted { order[j] = .inserted(map[k]!) }
            }
            return next
        }
    }

    /// A record of a merged list: BASE's record `i`, or the record a side inserted with
    /// identity number `k`.
    enum Ref: Hashable {
        // (32-bit numbers, as the engine's tables hold record numbers: 8 bytes a record.)
        case baseRecord(Int32)
        case insertedRecord(Int32)

        static func base(_ i: Int) -> Ref { .baseRecord(Int32(truncatingIfNeeded: i)) }
        static func inserted(_ k: Int) -> Ref { .insertedRecord(Int32(truncatingIfNeeded: k)) }
        /// BASE's record number, or nil.
        var base: Int? { if case .baseRecord(let i) = self { Int(i) } else { nil } }
        /// The inserted record's identity number, or nil.
        var inserted: Int? { if case .insertedRecord(let k) = self { Int(k) } else { nil } }
    }

    /// A record's identity across the inputs: its key and, when numbered, its occurrence.
    static func identity(_ change: Change) -> Hash128 {
        CanonicalHash.of(.array([change.key, .number(Number(exactly: change.occurrence ?? 0))]))
    }

    /// The changes of both sides, combined into changes from BASE. The work grows with the
    /// changes, beside a few passes over BASE's record numbers.
    func combine(_ a: Changeset, _ b: Changeset, base: (Int) throws(ListDiffError) -> Value) throws(ListDiffError) -> Result {
        // Each side's changes, on a core of its own; then one numbering of inserted records.
        let (mine, yours) = Concurrently.both({ SideChanges(a) }, { SideChanges(b) })
        let ours = mine
        var theirs = yours
        let insertedCount = theirs.renumber(after: ours)
        let n = a.oldCount
        var result = Result(changeset: a, conflicts: [])
        // What each changed record becomes (a record not here is kept as BASE has it): gone,
        // a side's record taken whole (read only when asked for, and written as that side
        // wrote it), or a value made here.
        enum Outcome {
            case deleted
            case taken(Change)
            case value(Value)

            func value() throws(ListDiffError) -> Value? {
                switch self {
                case .deleted: nil
                case .taken(let change): try change.value() ?? .null
                case .value(let value): value
                }
            }
        }
        var outcome: [Int: Outcome] = [:]
        outcome.reserveCapacity(ours.touched.count + theirs.touched.count)
        var gone = [Bool](repeating: false, count: n)
        func settle(_ i: Int, _ value: Value?) {
            outcome[i] = value.map { .value($0) } ?? .deleted
            gone[i] = value == nil
        }
        /// A change to a merged record, holding the side's record text where it was taken whole.
        func change(
            _ operation: Change.Operation, key: Value, keyedBySelf: Bool = false, old: Int?, new: Int?, occurrence: Int?, _ outcome: Outcome
        ) throws(ListDiffError) -> Change {
            let taken: Change? = if case .taken(let change) = outcome { change } else { nil }
            return Change(
                operation, key: key, keyedBySelf: keyedBySelf, old: old.map { RecordPosition(index: $0) },
                new: new.map { RecordPosition(index: $0) },
                value: taken?.reference == nil ? try outcome.value() : nil, reference: taken?.reference, occurrence: occurrence)
        }
        /// A BASE record's key (and occurrence), from whichever side changed or moved it.
        var keys: [Int: (key: Value, occurrence: Int?)] = [:]
        keys.reserveCapacity(a.changes.count + b.changes.count)
        var named = [Bool](repeating: false, count: n)
        for changeset in [a, b] {
            for k in changeset.changes.indices where changeset.changes[k].operation != .insert {
                guard let i = changeset.changes[k].old?.index, !named[i] else { continue }
                keys[i] = (changeset.changes[k].key, changeset.changes[k].occurrence)
                named[i] = true
            }
        }
        let comparison = files.differ.comparison
        func conflict(
            _ kind: Conflict.Kind, key: Value, occurrence: Int?, paths: [String] = [], base: Value?, ours: Value?, theirs: Value?
        )
            -> Value?
        {
            var c = Conflict(kind: kind, key: key, occurrence: occurrence, paths: paths, base: base, ours: ours, theirs: theirs)
            if let side = preference.side(for: kind, oursDeleted: ours == nil) {
                c.resolvedBy = side
                result.resolved += 1
                result.conflicts.append(c)
                return side == .ours ? ours : theirs
            }
            result.conflicts.append(c)
            return .string(Conflict.marker(result.conflicts.count - 1))
        }

        // Records BASE holds that a side deleted or updated, in BASE's order.
        for i in Set(ours.touched + theirs.touched).sorted() {
            let changedA = ours.deleted[i] || ours.updated[i] != nil, changedB = theirs.deleted[i] || theirs.updated[i] != nil
            let (key, occurrence) = keys[i] ?? (.null, nil)
            switch (changedA, changedB) {
            case (true, false):
                outcome[i] = ours.updated[i].map { .taken($0) } ?? .deleted
                gone[i] = ours.deleted[i]
                result.fromOurs += 1
            case (false, true):
                outcome[i] = theirs.updated[i].map { .taken($0) } ?? .deleted
                gone[i] = theirs.deleted[i]
                result.fromTheirs += 1
            default:
                if ours.deleted[i] && theirs.deleted[i] {
                    settle(i, nil)
                    result.fromBoth += 1
                } else if ours.deleted[i] || theirs.deleted[i] {
                    let mine = try ours.updated[i]?.value(), yours = try theirs.updated[i]?.value()
                    settle(i, conflict(.deleteModify, key: key, occurrence: occurrence, base: try base(i), ours: mine, theirs: yours))
                } else {
                    let mine = try ours.updated[i]!.value() ?? .null, yours = try theirs.updated[i]!.value() ?? .null
                    if comparison.same(mine, yours) {
                        outcome[i] = .taken(ours.updated[i]!)
                        result.fromBoth += 1
                        continue
                    }
                    var clashes: [String] = []
                    let merged = Self.merge(try base(i), mine, yours, at: [], comparison: comparison, clashes: &clashes)
                    if clashes.isEmpty {
                        settle(i, merged ?? .null)
                        result.fromBoth += 1
                    } else {
                        // (An element's content and its place may clash at one path.)
                        var seen = Set<String>()
                        clashes.removeAll { !seen.insert($0).inserted }
                        let chosen = conflict(
                            .field, key: key, occurrence: occurrence, paths: clashes, base: try base(i), ours: mine, theirs: yours)
                        // (Resolved: the preferred side's value where they clash, both elsewhere.)
                        if let side = preference.side(for: .field), chosen != nil {
                            var unused: [String] = []
                            settle(
                                i,
                                Self.merge(try base(i), mine, yours, at: [], comparison: comparison, clashes: &unused, prefer: side)
                                    ?? .null)
                        } else {
                            settle(i, chosen ?? .null)
                        }
                    }
                }
            }
        }

        // Records only the sides hold, in the order their identities were numbered.
        var inserted: [Int: Outcome] = [:]
        inserted.reserveCapacity(insertedCount)
        for k in 0..<insertedCount {
            switch (ours.inserted[k], theirs.inserted[k]) {
            case (let change?, let other?):
                let mine = try change.value() ?? .null, yours = try other.value() ?? .null
                if comparison.same(mine, yours) {
                    inserted[k] = .taken(change)
                    result.fromBoth += 1
                } else {
                    inserted[k] = .value(
                        conflict(.insertInsert, key: change.key, occurrence: change.occurrence, base: nil, ours: mine, theirs: yours)
                            ?? mine)
                }
            case (let change?, nil):
                inserted[k] = .taken(change)
                result.fromOurs += 1
            case (nil, let change?):
                inserted[k] = .taken(change)
                result.fromTheirs += 1
            case (nil, nil):
                continue
            }
        }

        // The order.
        let order = try Self.mergedOrder(ours, theirs, n: n, prefer: preference.side(for: .order), gone: gone) {
            ref throws(ListDiffError) in
            // A record both sides moved, or inserted, to different places.
            let (key, occurrence): (Value, Int?)
            let value: Value?
            switch ref {
            case .baseRecord(let r):
                let i = Int(r)
                (key, occurrence) = keys[i] ?? (.null, nil)
                if let merged = outcome[i] { value = try merged.value() } else { value = try base(i) }
            case .insertedRecord(let r):
                let k = Int(r)
                let change = ours.inserted[k] ?? theirs.inserted[k]!
                (key, occurrence) = (change.key, change.occurrence)
                value = try inserted[k]?.value()
            }
            _ = conflict(.order, key: key, occurrence: occurrence, base: nil, ours: value, theirs: value)
        }

        // The changes from BASE that make the merged document.
        var changes: [Change] = []
        changes.reserveCapacity(a.changes.count + b.changes.count)
        var summary = Changeset.Summary()
        var newIndex = [Int](repeating: -1, count: n)
        for (j, ref) in order.enumerated() { if let i = ref.base { newIndex[i] = j } }
        for i in 0..<n where newIndex[i] < 0 {
            let (key, occurrence) = keys[i] ?? (.null, nil)
            // (The record as the side that deleted it holds it, read when it is written.)
            if let deletion = ours.deletions[i] ?? theirs.deletions[i] {
                changes.append(try change(.delete, key: key, old: i, new: nil, occurrence: occurrence, .taken(deletion)))
            } else {
                changes.append(Change(.delete, key: key, old: RecordPosition(index: i), value: try base(i), occurrence: occurrence))
            }
            summary.deleted += 1
        }
        for (j, ref) in order.enumerated() {
            switch ref {
            case .insertedRecord(let r):
                let k = Int(r)
                let side = ours.inserted[k] ?? theirs.inserted[k]!
                changes.append(
                    try change(
                        .insert, key: side.key, keyedBySelf: side.keyedBySelf, old: nil, new: j, occurrence: side.occurrence,
                        inserted[k] ?? .taken(side)))
                summary.inserted += 1
            case .baseRecord(let r):
                let i = Int(r)
                // (A record no side changed or moved stays as it is.)
                guard named[i], let (key, occurrence) = keys[i] else {
                    summary.unchanged += 1
                    continue
                }
                // The records neither side moved stay, in BASE's order; the others move.
                let stays = !ours.moved[i] && !theirs.moved[i]
                if !stays {
                    changes.append(
                        Change(.move, key: key, old: RecordPosition(index: i), new: RecordPosition(index: j), occurrence: occurrence))
                    summary.moved += 1
                }
                if let merged = outcome[i], !gone[i] {
                    changes.append(try change(.update, key: key, old: i, new: j, occurrence: occurrence, merged))
                    summary.updated += 1
                } else if stays {
                    summary.unchanged += 1
                }
            }
        }
        var changeset = Changeset(
            algorithm: "merge", key: a.key, oldCount: n, newCount: order.count, changes: changes, summary: summary)
        changeset.layout = a.layout
        changeset.duplicates = a.duplicates
        changeset.comparison = a.comparison
        result.changeset = changeset
        return result
    }

    /// The merged order: the records neither side moved, in BASE's order; then each side's
    /// moved and inserted records after the record they follow on that side among those
    /// (OURS's first at one place). `clash` is told of a record both sides put at
    /// different places, which then goes where OURS put it (or the preferred side).
    static func mergedOrder<E: Error>(
        _ ours: SideChanges, _ theirs: SideChanges, n: Int, prefer: Side?, gone: [Bool],
        clash: (Ref) throws(E) -> Void
    ) throws(E) -> [Ref] {
        // (Worked out once per record, not once per look.)
        var stableAt = [Bool](repeating: false, count: n)
        for i in 0..<n { stableAt[i] = !gone[i] && !ours.moved[i] && !theirs.moved[i] }
        func stable(_ ref: Ref) -> Bool {
            guard let i = ref.base else { return false }
            return stableAt[i]
        }
        func kept(_ ref: Ref) -> Bool {
            guard let i = ref.base else { return true }
            return !gone[i]
        }
        /// Each record a side places (moved or inserted), with the stable record it follows
        /// (-1: the start), in the side's order.
        func placements(_ side: SideChanges) -> [(ref: Ref, after: Int)] {
            var anchor = -1
            var out: [(ref: Ref, after: Int)] = []
            for ref in side.order {
                if stable(ref), let i = ref.base {
                    anchor = i
                } else if kept(ref), !stable(ref) {
                    // (A record the other side moved, but this side did not, follows the
                    // other side: it is not placed here.)
                    if let i = ref.base, !(side.moved[i]) { continue }
                    out.append((ref, anchor))
                }
            }
            return out
        }
        let mine = placements(ours), yours = placements(theirs)
        // Each placed record's stable record (its anchor), its side's group (OURS's first)
        // and its rank in that side's order. A record both sides placed goes where OURS put
        // it, unless the two differ and THEIRS is preferred.
        var placed: [Ref: (anchor: Int, group: Int, rank: Int)] = [:]
        for (rank, (ref, anchor)) in mine.enumerated() { placed[ref] = (anchor, 0, rank) }
        for (rank, (ref, anchor)) in yours.enumerated() {
            if let earlier = placed[ref] {
                if earlier.anchor != anchor {
                    try clash(ref)
                    if prefer == .theirs { placed[ref] = (anchor, 1, rank) }
                }
                continue
            }
            placed[ref] = (anchor, 1, rank)
        }
        // After each stable record (and at the start), in that order.
        let sorted = placed.sorted { ($0.value.anchor, $0.value.group, $0.value.rank) < ($1.value.anchor, $1.value.group, $1.value.rank) }
        var order: [Ref] = []
        order.reserveCapacity(n + sorted.count)
        var k = 0
        while k < sorted.count, sorted[k].value.anchor < 0 {
            order.append(sorted[k].key)
            k += 1
        }
        for i in 0..<n where stableAt[i] {
            order.append(.base(i))
            while k < sorted.count, sorted[k].value.anchor == i {
                order.append(sorted[k].key)
                k += 1
            }
        }
        return order
    }

    /// The merge of a value changed on both sides: members merged one by one, the rest
    /// taken from the side that changed it. A keyed list (`--array-key`) merges element by
    /// element, matched by key, in an order that keeps what each side moved
    /// (`keyedList`). Where both changed a value differently (another list counts as one
    /// value), its path (`steps`, written as `readablePath` writes it) joins `clashes`
    /// and OURS's value stands in (or the preferred side's). Paths the comparison leaves
    /// out take OURS's value.
    static func merge(
        _ base: Value?, _ ours: Value?, _ theirs: Value?, at path: [String], steps: [Value] = [], comparison: Comparison,
        clashes: inout [String], prefer: Side? = nil
    ) -> Value? {
        func same(_ x: Value?, _ y: Value?) -> Bool {
            switch (x, y) {
            case (nil, nil): return true
            case (let x?, let y?): return comparison.same(x, y)
            default: return false
            }
        }
        if same(ours, theirs) || comparison.isLeftOut(path) { return ours }
        if same(base, ours) { return theirs }
        if same(base, theirs) { return ours }
        switch (base, ours, theirs) {
        case (.object(let b)?, .object(let o)?, .object(let t)?):
            var merged = Object()
            // The preferred side's members in its order (OURS's when none is), then the
            // other side's others, then those only BASE has.
            let (first, second) = prefer == .theirs ? (t, o) : (o, t)
            var names: [String] = first.members.map(\.key)
            for member in second.members where first[member.key] == nil { names.append(member.key) }
            for member in b.members where o[member.key] == nil && t[member.key] == nil { names.append(member.key) }
            for name in names {
                if let value = merge(
                    b[name], o[name], t[name], at: path + [name], steps: steps + [.string(name)], comparison: comparison,
                    clashes: &clashes, prefer: prefer)
                {
                    merged.members.append(.init(key: name, value: value))
                }
            }
            return .object(merged)
        case (.array(let b)?, .array(let o)?, .array(let t)?):
            let key = comparison.arrayKey(path)?.key ?? (comparison.automaticArrayKeys ? Comparison.automaticKey(o, t) : nil)
            if let key,
                let merged = keyedList(
                    b, o, t, key: key, at: path, steps: steps, comparison: comparison, clashes: &clashes, prefer: prefer)
            {
                return .array(merged)
            }
        default: break
        }
        clashes.append(Changeset.FieldChange.readable(steps))
        return prefer == .theirs ? theirs : ours
    }

    /// The merge of a keyed list that both sides changed: each element merged as a value
    /// (matched by `key`: one side's insert, delete or change taken, both sides' changes
    /// to one element merged), in the order `mergedOrder` gives records. An element both
    /// sides moved to different places is a clash at its path. Nil when an element of
    /// any version lacks the key or repeats it: the list is then one value.
    static func keyedList(
        _ base: [Value], _ ours: [Value], _ theirs: [Value], key: IdentityKey, at path: [String], steps: [Value],
        comparison: Comparison, clashes: inout [String], prefer: Side?
    ) -> [Value]? {
        // Each element's identity, BASE's numbered by index and the others by name.
        var baseIndex: [RecordID: Int] = [:], numbers: [RecordID: Int] = [:], written: [RecordID: Value] = [:]
        var insertedIDs: [RecordID] = []
        func identities(_ items: [Value]) -> [RecordID]? {
            var seen = Set<RecordID>()
            var out: [RecordID] = []
            for item in items {
                guard case .success(let identity) = key.identify(item), seen.insert(identity.id).inserted else { return nil }
                written[identity.id] = identity.written
                out.append(identity.id)
            }
            return out
        }
        guard let b = identities(base), let o = identities(ours), let t = identities(theirs) else { return nil }
        for (i, id) in b.enumerated() { baseIndex[id] = i }
        func ref(_ id: RecordID) -> Ref {
            if let i = baseIndex[id] { return .base(i) }
            if let k = numbers[id] { return .inserted(k) }
            numbers[id] = insertedIDs.count
            insertedIDs.append(id)
            return .inserted(insertedIDs.count - 1)
        }
        // A side's order, and the BASE elements it moved: those off a longest increasing
        // run of BASE indexes, as the diff finds moves (none in an unordered list).
        let moves = !comparison.isUnorderedArray(path)
        func side(_ ids: [RecordID]) -> SideChanges {
            let order = ids.map(ref)
            var moved = [Bool](repeating: false, count: base.count)
            let kept = order.compactMap(\.base)
            if moves {
                var stays = [Bool](repeating: false, count: base.count)
                visitLongestIncreasingSubsequence(count: kept.count, value: { kept[$0] }) { stays[kept[$0]] = true }
                for i in kept where !stays[i] { moved[i] = true }
            }
            return SideChanges(order: order, moved: moved)
        }
        let mine = side(o), yours = side(t)

        // Each element's merged value: nil when it is gone.
        var byID: [RecordID: (ours: Value?, theirs: Value?)] = [:]
        for (id, item) in zip(o, ours) { byID[id, default: (nil, nil)].ours = item }
        for (id, item) in zip(t, theirs) { byID[id, default: (nil, nil)].theirs = item }
        func step(_ id: RecordID) -> Value { key.step(written[id]!) }
        var merged = [Value?](repeating: nil, count: base.count)
        for (i, id) in b.enumerated() {
            let sides = byID[id] ?? (nil, nil)
            merged[i] = merge(
                base[i], sides.ours, sides.theirs, at: path + [String(i)], steps: steps + [step(id)], comparison: comparison,
                clashes: &clashes, prefer: prefer)
        }
        var inserted: [Int: Value] = [:]
        // (In OURS's order, then THEIRS's, each at its index on the side that has it.)
        for (index, id) in Array(o.enumerated()) + Array(t.enumerated()) where baseIndex[id] == nil {
            let k = numbers[id]!
            guard inserted[k] == nil, let sides = byID[id] else { continue }
            inserted[k] = merge(
                nil, sides.ours, sides.theirs, at: path + [String(index)], steps: steps + [step(id)], comparison: comparison,
                clashes: &clashes, prefer: prefer)
        }
        let order = Self.mergedOrder(mine, yours, n: base.count, prefer: prefer, gone: merged.map { $0 == nil }) { (ref: Ref) in
            let id =
                switch ref {
                case .baseRecord(let r): b[Int(r)]
                case .insertedRecord(let r): insertedIDs[Int(r)]
                }
            clashes.append(Changeset.FieldChange.readable(steps + [step(id)]))
        }
        return order.compactMap { ref in
            switch ref {
            case .baseRecord(let r): merged[Int(r)]
            case .insertedRecord(let r): inserted[Int(r)]
            }
        }
    }
}
