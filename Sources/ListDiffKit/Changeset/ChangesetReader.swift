/// Reads a changeset written by `JSONChangesetRenderer` (schema versions 1 to 4) back into a
/// `Changeset`, refusing anything foreign with the exact reason and place.
package struct ChangesetReader: Sendable {
    /// The newest schema version this listdiff reads and writes (`JSONChangesetRenderer.schemaVersion`).
    /// It is kept here, below the renderers, so that the reader need not name them.
    /// Version 2 adds array keys (`arrayKeys` and `automaticArrayKeys` in `comparison`,
    /// `from` and `keyed_path` in fields) and `yaml_version` in `layout`. A changeset with
    /// none of them is written as version 1, which older readers read; a version 1 reader
    /// would show a moved element as a field with no values, or read a YAML 1.1 OLD as 1.2,
    /// so a changeset with them is version 2, which they refuse. (A version 2 reader from
    /// before `kubernetes` refuses that `yaml_version` by name.)
    ///
    /// `format` and `csv_types` in `layout` say how OLD was read. An older reader skips
    /// `format` and finds OLD's format as it always did (its name, its content or the option
    /// given), so `format` keeps the version. It would read every CSV cell as a string, so
    /// a changeset with `csv_types` is version 3, which it refuses.
    ///
    /// Version 4 adds renamed keys (`--renames`): the `rename` op, `renamed` in `summary`
    /// and `renames` at the top. A version 3 reader would refuse the op, so a changeset
    /// made with `--renames` is version 4.
    package static let schemaVersion = 4
    package static let versions = 1...schemaVersion

    /// The version a changeset is written as: the oldest that holds it.
    package static func version(of changeset: Changeset) -> Int {
        if changeset.countsRenames { return 4 }
        if changeset.layout.csvInfersTypes { return 3 }
        return changeset.comparison.arrayKeysFree && changeset.layout.yamlVersion == nil ? 1 : 2
    }

    /// How deep a changeset nests: the records' limit, plus the levels the changeset wraps a
    /// value in (the changeset, its changes, a change, its fields, a field), so that whatever
    /// diff accepted, apply reads.
    package var maxDepth = JSONReader().maxDepth + 8
    /// Whether a shard's changeset (its `shard` member, written by `--partition`) is read:
    /// only the join reads one; anything else refuses it, since it holds a part of a diff.
    package var acceptsShards = false

    package init() {}

    package func read(_ bytes: [UInt8], name: String) throws(ListDiffError) -> Changeset {
        try readWithRoot(bytes, name: name).changeset
    }

    /// The changeset, and the JSON value and cursor it was read from (for members the
    /// caller reads itself).
    package func readWithRoot(_ bytes: [UInt8], name: String) throws(ListDiffError) -> (
        changeset: Changeset, root: Value, cursor: ValueCursor
    ) {
        let (root, source) = try JSONReader(maxDepth: maxDepth).read(bytes, name: name)
        var cursor = Cursor(source: source, preorder: 0, kind: .changeset)
        return (try decode(root, at: &cursor), root, cursor)
    }

    /// The cursor of a changeset's values: its errors are of the `.changeset` kind.
    typealias Cursor = ValueCursor

    /// The changeset of `root`. With `offsets` (a quick read's), the changes and section
    /// changes start at those byte offsets, and errors are left unplaced: a quick read
    /// gives up on any error, and the whole read places it.
    func decode(_ root: Value, at cursor: inout Cursor, offsets: QuickRead.Offsets? = nil) throws(ListDiffError) -> Changeset {
        guard case .object(let object) = root else {
            throw cursor.error("a changeset is a JSON object (made by listdiff --format json); this is \(root.typeName.withArticle)")
        }
        let fields = cursor.fields(of: object)
        let (version, versionAt) = try fields.required("version")
        guard case .number(let v) = version, let n = Int(v.text), Self.versions.contains(n) else {
            throw versionAt.error(
                "unsupported changeset version \(JSONWriter.compact(version)); this listdiff reads versions \(Self.versions.lowerBound) to \(Self.schemaVersion)"
            )
        }
        let (key, duplicates) = try decodeKey(fields, at: cursor)
        var algorithm = "heckel"
        if let (value, _) = fields["algorithm"], case .string(let s) = value { algorithm = s }

        let (records, recordsAt) = try fields.required("records")
        let oldCount = try count(records, "old", at: recordsAt)
        let newCount = try count(records, "new", at: recordsAt)

        var fingerprints: Changeset.Fingerprints?
        if let (value, at) = fields["fingerprints"] {
            guard case .object(let o) = value, case .string(let old)? = o["old"], case .string(let new)? = o["new"],
                old.hasPrefix(Fingerprint.prefix), new.hasPrefix(Fingerprint.prefix)
            else {
                throw at.error("\"fingerprints\" must be {\"old\": \"\(Fingerprint.prefix)…\", \"new\": \"\(Fingerprint.prefix)…\"}")
            }
            fingerprints = Changeset.Fingerprints(old: old, new: new)
        }

        let layout = try decodeLayout(fields)
        if key.fields.isEmpty, !key.isWholeRecord, layout.shape != .map, let (_, keyAt) = fields["key"] {
            throw keyAt.error("\"key\" must be a non-empty array of field paths")
        }
        var sectionChanges: [SectionChange] = []
        var sectionLocations: [Int] = []
        if let (value, at) = fields["sections"] {
            guard case .array(let items) = value else { throw at.error("\"sections\" must be an array") }
            if let offsets {
                let at = Cursor(source: cursor.source, preorder: 0, kind: .changeset)
                for item in items { sectionChanges.append(try decodeSectionChange(item, at: at)) }
                sectionLocations = offsets.sections
            } else {
                for (item, c) in at.elements(of: items) {
                    sectionChanges.append(try decodeSectionChange(item, at: c))
                    sectionLocations.append(c.offset)
                }
            }
        }
        if !sectionChanges.isEmpty, !layout.isSectioned {
            throw cursor.error("the changeset has section changes but its layout is a plain list")
        }

        if !acceptsShards, let (_, at) = fields["shard"] {
            throw at.error("this is one shard of a diff (made with --partition); join the shards with 'listdiff join' first")
        }
        if let (_, at) = fields["shown"] {
            throw at.error("this changeset holds only some kinds of change (made with --show); apply needs the whole changeset")
        }
        if fields["changes"] == nil, let (_, at) = fields["fields"] {
            throw at.error("this is a summary (made with --stat); apply needs the changeset with its changes")
        }
        let (changesValue, changesAt) = try fields.required("changes")
        guard case .array(let items) = changesValue else { throw changesAt.error("\"changes\" must be an array") }
        var changes: [Change] = []
        changes.reserveCapacity(offsets?.parts.count ?? items.count)
        var locations: [Int] = []
        locations.reserveCapacity(offsets?.parts.count ?? items.count)
        var summary = Changeset.Summary()
        let map = layout.shape == .map
        func add(_ change: Change, at: Cursor) throws(ListDiffError) {
            if change.operation == .rename, n < 4 {
                throw at.error("a rename needs changeset version 4; this changeset says version \(n)")
            }
            switch change.operation {
            case .insert: summary.inserted += 1
            case .delete: summary.deleted += 1
            case .move: summary.moved += 1
            case .update: summary.updated += 1
            case .rename: summary.renamed += 1
            }
            changes.append(change)
        }
        if let offsets {
            // (The quick read's changes, as parts; its errors are not placed.)
            for parts in offsets.parts {
                if parts.op == .rename, parts.oldKey == nil { throw cursor.error("the rename has no \"old_key\"") }
                if map, !Self.isMemberName(parts.key) || !(parts.oldKey.map(Self.isMemberName) ?? true) {
                    throw cursor.error("in a map of records a key is a member name, a string")
                }
                if let problem = problem(parts, identity: key, map: map) { throw cursor.error(problem) }
                try add(change(parts, identity: key, map: map), at: cursor)
            }
            locations = offsets.changes
        } else {
            for (item, at) in changesAt.elements(of: items) {
                try add(try decodeChange(item, at: at, identity: key, map: map), at: at)
                locations.append(at.offset)
            }
        }
        // The records left as they were are not listed: their count comes from the summary.
        if let (value, _) = fields["summary"], case .object(let counts) = value, case .number(let n)? = counts["unchanged"],
            let unchanged = Int(n.text), unchanged >= 0
        {
            summary.unchanged = unchanged
        }
        var changeset = Changeset(
            algorithm: algorithm, key: key, oldCount: oldCount, newCount: newCount,
            changes: changes, summary: summary)
        changeset.duplicates = duplicates
        changeset.fingerprints = fingerprints
        changeset.comparison = try decodeComparison(fields)
        if let (value, at) = fields["renames"] {
            guard case .object(let o) = value, case .number(let n)? = o["threshold"], let threshold = Int(n.text),
                let rule = try? RenameRule(threshold: threshold)
            else { throw at.error("\"renames\" must be {\"threshold\": a percentage from 1 to 100}") }
            changeset.renames = rule
        }
        // How the diff was made, which apply needs not: read back as written, when it is.
        if case .string("significant")? = fields["member_order"]?.0 { changeset.memberOrderSignificant = true }
        if case .array(let files)? = fields["config"]?.0 {
            changeset.configurationFiles = files.compactMap { if case .string(let s) = $0 { s } else { nil } }
        }
        changeset.layout = layout
        changeset.sections = sectionChanges
        if layout.isSectioned {
            (changeset.oldSections, changeset.newSections) = try decodeSectionNames(fields, changeset)
        }
        changeset.origin = Changeset.Origin(source: cursor.source, changeOffsets: locations, sectionOffsets: sectionLocations)
        if case .string(let old)? = fields["old"]?.0, case .string(let new)? = fields["new"]?.0 { changeset.inputNames = (old, new) }
        return changeset
    }

    /// Both sides' sections, from `section_names`; without it (a changeset written before
    /// listdiff wrote them), as many unnamed sections as the changes name, so that the
    /// stages can still be worked out. Either way the outlines cover every section index the
    /// changes use, which the stages and the renderers rely on.
    func decodeSectionNames(_ fields: Cursor.Fields, _ changeset: Changeset) throws(ListDiffError) -> (
        SectionOutline, SectionOutline
    ) {
        // The section indexes the changes use; the names must cover them.
        var oldUsed = changeset.sections.compactMap(\.old).max() ?? -1
        var newUsed = changeset.sections.compactMap(\.new).max() ?? -1
        for change in changeset.changes {
            if let o = change.old { oldUsed = max(oldUsed, o.section) }
            if let n = change.new { newUsed = max(newUsed, n.section) }
        }
        guard let (value, at) = fields["section_names"] else {
            let inserted = changeset.sections.count { $0.operation == .insert }
            let deleted = changeset.sections.count { $0.operation == .delete }
            let old = max(oldUsed + 1, newUsed + 1 - inserted + deleted, 0)
            let new = max(old - deleted + inserted, newUsed + 1)
            return (
                SectionOutline(names: Array(repeating: nil, count: old), sizes: Array(repeating: 0, count: old)),
                SectionOutline(names: Array(repeating: nil, count: new), sizes: Array(repeating: 0, count: new))
            )
        }
        let bad = at.error("\"section_names\" must be {\"old\": [names], \"new\": [names]}, with a name for every section the changes name")
        guard case .object(let o) = value, case .array(let old)? = o["old"], case .array(let new)? = o["new"],
            old.count > oldUsed, new.count > newUsed, (old + new).allSatisfy(\.isScalar)
        else { throw bad }
        return (
            SectionOutline(names: old.map(Optional.some), sizes: Array(repeating: 0, count: old.count)),
            SectionOutline(names: new.map(Optional.some), sizes: Array(repeating: 0, count: new.count))
        )
    }

    /// The comparison rules of a changeset's top-level members (none when there is none).
    func decodeComparison(_ fields: Cursor.Fields) throws(ListDiffError) -> Comparison {
        guard let (value, at) = fields["comparison"] else { return Comparison() }
        do { return try Comparison(value: value) } catch { throw at.error(error.message) }
    }

    /// The key and duplicates policy of a changeset's top-level members.
    func decodeKey(_ fields: Cursor.Fields, at cursor: Cursor) throws(ListDiffError) -> (IdentityKey, DuplicatePolicy) {
        let (keyValue, keyAt) = try fields.required("key")
        // (Empty for a map of records, whose keys are member names: `decodeLayout` checks.)
        guard case .array(let keyItems) = keyValue else {
            throw keyAt.error("\"key\" must be a non-empty array of field paths")
        }
        if keyItems.isEmpty { return (IdentityKey([]), try duplicatesPolicy(fields)) }
        var keyPaths: [String] = []
        for item in keyItems {
            guard case .string(let s) = item else { throw keyAt.error("\"key\" must be a non-empty array of field paths") }
            keyPaths.append(s)
        }
        let key: IdentityKey
        do { key = try IdentityKey(parsing: keyPaths) } catch { throw keyAt.error(error.message) }
        return (key, try duplicatesPolicy(fields))
    }

    func duplicatesPolicy(_ fields: Cursor.Fields) throws(ListDiffError) -> DuplicatePolicy {
        guard let (value, at) = fields["duplicates"] else { return .error }
        guard case .string(let s) = value, let policy = DuplicatePolicy(rawValue: s) else {
            throw at.error("\"duplicates\" must be \"error\" or \"match\"")
        }
        return policy
    }

    /// The layout of a changeset's top-level members (a plain list when there is none).
    func decodeLayout(_ fields: Cursor.Fields) throws(ListDiffError) -> Layout {
        guard let (value, at) = fields["layout"] else { return Layout() }
        return try decodeLayout(value, at: at)
    }

    /// What scanning OLD needs of a changeset: its key, duplicates policy and layout, read
    /// from the members before `"changes"` (where listdiff writes them), without reading
    /// the changes. Nil when they are not all there, or anything is amiss: the changeset is
    /// then read whole, and its errors given.
    func header(_ bytes: [UInt8], name: String) -> (key: IdentityKey, duplicates: DuplicatePolicy, layout: Layout)? {
        // Where the "changes" member starts, found by the parser's own walk of the members.
        let cut: Int? = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, maxDepth: maxDepth)
            parser.recordsOffsets = false
            parser.skipByteOrderMark()
            parser.skipWhitespace()
            guard parser.index < buffer.count, buffer[parser.index] == UInt8(ascii: "{") else { return nil }
            do throws(JSONParseFailure) {
                guard try !parser.openIsEmpty(close: UInt8(ascii: "}")) else { return nil }
                repeat {
                    try parser.nameStart()
                    let start = parser.index
                    let member = try parser.parseString()
                    if member == "changes" { return start }
                    try parser.colon()
                    _ = try parser.parseValue()
                    parser.skipWhitespace()
                } while try parser.separator(close: UInt8(ascii: "}"), "object")
            } catch {
                return nil
            }
            return nil
        }
        guard let cut else { return nil }
        var prefix = Array(bytes[..<cut])
        while let last = prefix.last, last == 0x20 || last == 0x0A || last == 0x0D || last == 0x09 { prefix.removeLast() }
        guard prefix.last == UInt8(ascii: ",") else { return nil }
        prefix[prefix.count - 1] = UInt8(ascii: "}")
        guard let (root, source) = try? JSONReader(maxDepth: maxDepth).read(prefix, name: name), case .object(let object) = root else {
            return nil
        }
        let cursor = Cursor(source: source, preorder: 0, kind: .changeset)
        let fields = cursor.fields(of: object)
        guard let (key, duplicates) = try? decodeKey(fields, at: cursor), let layout = try? decodeLayout(fields) else { return nil }
        return (key, duplicates, layout)
    }

    func decodeLayout(_ value: Value, at: Cursor) throws(ListDiffError) -> Layout {
        let bad = at.error(
            "\"layout\" must be {\"path\": null or a pointer, \"shape\": \"list\", \"map\", \"object\", \"pattern\" or \"sections\" (with \"section_key\" and \"items\")}"
        )
        guard case .object(let o) = value, case .string(let shape)? = o["shape"] else { throw bad }
        var path: FieldPath?
        switch o["path"] {
        case nil, .null?: path = nil
        case .string(let p)?:
            do { path = try FieldPath(p) } catch { throw at.error(error.message) }
        default: throw bad
        }
        /// A member naming one of `T`'s cases, if there is one; anything else is refused with
        /// the names it may have.
        func named<T: RawRepresentable<String> & CaseIterable>(_ member: String) throws(ListDiffError) -> T? {
            guard let value = o[member] else { return nil }
            guard case .string(let s) = value, let named = T(rawValue: s) else {
                let names = T.allCases.map { "\"\($0.rawValue)\"" }
                throw at.error("\"\(member)\" must be \(names.dropLast().joined(separator: ", ")) or \(names.last!)")
            }
            return named
        }
        let yamlVersion: YAMLVersion? = try named("yaml_version")
        let format: InputFormat? = try named("format")
        var csvInfersTypes = false
        switch o["csv_types"] {
        case nil, .string("string")?: break
        case .string("infer")?: csvInfersTypes = true
        default: throw at.error("\"csv_types\" must be \"string\" or \"infer\"")
        }
        var layout: Layout
        switch shape {
        case "list": layout = Layout(path: path, shape: .list)
        case "map": layout = Layout(path: path, shape: .map)
        case "pattern":
            guard let path, path.isPattern else { throw at.error("a \"pattern\" layout needs a path with *") }
            layout = Layout(path: path, shape: .pattern)
        case "object": layout = Layout(path: path, shape: .objectOfLists)
        case "sections":
            guard case .string(let key)? = o["section_key"], case .string(let items)? = o["items"] else { throw bad }
            layout = Layout(path: path, shape: .sectionList(sectionKey: key, items: items))
        default: throw bad
        }
        layout.yamlVersion = yamlVersion
        layout.format = format
        layout.csvInfersTypes = csvInfersTypes
        return layout
    }

    func decodeSectionChange(_ value: Value, at: Cursor) throws(ListDiffError) -> SectionChange {
        guard case .object(let object) = value else {
            throw at.error("a section change must be an object; this is \(value.typeName.withArticle)")
        }
        let fields = at.fields(of: object)
        guard let (opValue, opAt) = fields["op"] else { throw at.error("the section change has no \"op\"") }
        guard case .string(let opName) = opValue, let op = Change.Operation(rawValue: opName), op != .rename else {
            throw opAt.error("unknown op \(JSONWriter.compact(opValue)); expected \"delete\", \"insert\", \"move\" or \"update\"")
        }
        guard let (name, _) = fields["name"], name.isScalar else { throw at.error("the section \(opName) has no scalar \"name\"") }
        func index(_ key: String) throws(ListDiffError) -> Int? {
            guard let (value, c) = fields[key] else { return nil }
            guard case .number(let n) = value, let i = Int(n.text), i >= 0 else { throw c.error("\"\(key)\" must be a section index ≥ 0") }
            return i
        }
        let old = try index("old"), new = try index("new")
        if op != .insert, old == nil { throw at.error("the section \(opName) has no \"old\" index") }
        if op != .delete, new == nil { throw at.error("the section \(opName) has no \"new\" index") }
        return SectionChange(op, name: name, old: old, new: new, value: fields["value"]?.0, fields: try decodeFields(fields))
    }

    func count(_ records: Value, _ side: String, at: Cursor) throws(ListDiffError) -> Int {
        guard case .object(let o) = records, case .number(let n)? = o[side], let count = Int(n.text), count >= 0 else {
            throw at.error("\"records\" must be {\"old\": count, \"new\": count}")
        }
        return count
    }

    func decodeChange(_ value: Value, at: Cursor, identity: IdentityKey, map: Bool = false) throws(ListDiffError) -> Change {
        guard case .object(let object) = value else { throw at.error("a change must be an object; this is \(value.typeName.withArticle)") }
        let fields = at.fields(of: object)
        guard let (opValue, opAt) = fields["op"] else { throw at.error("the change has no \"op\"") }
        guard case .string(let opName) = opValue, let op = Change.Operation(rawValue: opName) else {
            throw opAt.error(
                "unknown op \(JSONWriter.compact(opValue)); expected \"delete\", \"insert\", \"move\", \"update\" or \"rename\"")
        }
        guard let (key, keyAt) = fields["key"] else { throw at.error("the \(opName) has no \"key\"") }
        if map, !Self.isMemberName(key) { throw keyAt.error("in a map of records a key is a member name, a string") }
        var oldKey: Value?
        if op == .rename {
            guard let (value, c) = fields["old_key"] else { throw at.error("the rename has no \"old_key\"") }
            if map, !Self.isMemberName(value) { throw c.error("in a map of records a key is a member name, a string") }
            oldKey = value
        }
        func position(_ name: String) throws(ListDiffError) -> RecordPosition? {
            guard let (value, c) = fields[name] else { return nil }
            guard case .array(let parts) = value, parts.count == 2,
                case .number(let s) = parts[0], case .number(let i) = parts[1],
                let section = Int(s.text), let index = Int(i.text), section >= 0, index >= 0
            else {
                throw c.error("\"\(name)\" must be a position [section, index] of two whole numbers ≥ 0")
            }
            return RecordPosition(section: section, index: index)
        }
        var parts = ChangeParts(op: op, key: key, oldKey: oldKey, old: try position("old"), new: try position("new"))
        parts.record = fields["value"]?.0
        if let problem = problem(parts, identity: identity, map: map) { throw at.error(problem) }
        if let (value, c) = fields["occurrence"] {
            guard case .number(let n) = value, let k = Int(n.text), k >= 0 else {
                throw c.error("\"occurrence\" must be a whole number ≥ 0")
            }
            parts.occurrence = k
        }
        parts.fields = try decodeFields(fields)
        return change(parts, identity: identity, map: map)
    }

    /// A change's members as read.
    struct ChangeParts {
        var op: Change.Operation
        var key: Value
        var oldKey: Value?
        var old: RecordPosition?
        var new: RecordPosition?
        var record: Value? = nil
        var occurrence: Int? = nil
        var fields: [FieldChange] = []
    }

    /// Whether a key can stand in a map of records, as a member name.
    static func isMemberName(_ key: Value) -> Bool { key.typeName == "string" }

    /// What is wrong with a change's parts together, if anything: a position or a value
    /// its op needs and it lacks, or a record it brings that does not carry its key.
    func problem(_ parts: ChangeParts, identity: IdentityKey, map: Bool) -> String? {
        let op = parts.op, opName = op.rawValue, key = parts.key
        if op != .insert, parts.old == nil { return "the \(opName) has no \"old\" position" }
        if op != .delete, parts.new == nil { return "the \(opName) has no \"new\" position" }
        guard op == .insert || op == .update || op == .rename else { return nil }
        guard let record = parts.record else { return "the \(opName) has no \"value\"" }
        // The record an insert or update brings must carry the change's key, as the record a
        // delete, move or update names in OLD must (which apply checks against OLD).
        // (A map's record carries no key: its member name is the change's key.)
        if map { return nil }
        // (The key is spelled for a message only.)
        func spelled() -> String {
            KeyFormatter(identity).format(key, selfKeyed: identity.isWholeRecord || (key.isScalar && record.isScalar))
        }
        switch identity.identify(record) {
        case .success(let (written, _)) where written == key: return nil
        case .success(let (written, _)):
            let found = KeyFormatter(identity).format(written, selfKeyed: record.isScalar)
            return "the \(opName) of \(spelled()) brings a record keyed \(found): the changeset was edited or is inconsistent"
        case .failure(let failure):
            return "the \(opName) of \(spelled()) brings a record without a usable key (\(failure.message(place: "its value")))"
        }
    }

    /// The change of parts that have no `problem`.
    func change(_ parts: ChangeParts, identity: IdentityKey, map: Bool) -> Change {
        let key = parts.key, record = parts.record
        return Change(
            parts.op, key: key, keyedBySelf: !map && (identity.isWholeRecord || (key.isScalar && record?.isScalar == true)),
            old: parts.old, new: parts.new, fields: parts.fields, value: parts.op == .move ? nil : record,
            occurrence: parts.occurrence, oldKey: parts.oldKey)
    }

    /// The `fields` of an update, of a record or of a section (none when there is none).
    func decodeFields(_ fields: Cursor.Fields) throws(ListDiffError) -> [FieldChange] {
        guard let (value, c) = fields["fields"] else { return [] }
        guard case .array(let items) = value else { throw c.error("\"fields\" must be an array") }
        var changedFields: [FieldChange] = []
        for item in items {
            guard case .object(let f) = item, case .string(let path)? = f["path"] else {
                throw c.error("each of \"fields\" must be an object with a \"path\"")
            }
            var field = FieldChange(path: path, old: f["old"], new: f["new"])
            if case .string(let from)? = f["from"] { field.from = from }
            if case .array(let steps)? = f["keyed_path"] { field.keyedPath = steps }
            if case .array(let added)? = f["added"] { field.added = added }
            if case .array(let removed)? = f["removed"] { field.removed = removed }
            changedFields.append(field)
        }
        return changedFields
    }
}

extension Changeset {
    /// Reads a changeset from the JSON that `JSONChangesetRenderer` writes (schema version
    /// 1), such as `listdiff --format json` gives.
    ///
    /// - Parameters:
    ///   - bytes: the changeset's JSON text, in UTF-8.
    ///   - name: stands for the changeset in errors.
    /// - Throws: a `ListDiffError` of kind `syntax` or `changeset`, with the line and column
    ///   of the value at fault, for text that is not such a changeset.
    public init(json bytes: [UInt8], name: String = "changeset") throws(ListDiffError) {
        self = try ChangesetReader().read(bytes, name: name)
    }
}

extension ValueCursor.Fields {
    /// A member the changeset must have.
    func required(_ name: String) throws(ListDiffError) -> (Value, ValueCursor) {
        guard let field = self[name] else { throw cursor.error("the changeset has no \"\(name)\" member") }
        return field
    }
}
