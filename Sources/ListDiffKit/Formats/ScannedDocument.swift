/// How the records of a document are laid out, as a scan finds it before it reads them.
enum ContainerShape: Equatable, Sendable {
    /// A list of records.
    case list
    /// An object whose members are records, each keyed by its member name.
    case map
    /// An object whose members are lists of records.
    case objectOfLists
    /// A list of section objects, each holding its records in the member `items`.
    case sectionList(items: String)
    /// The lists a path with `*` names, each a section named by its JSON Pointer.
    case pattern
}

extension ContainerShape {
    /// The records of `container` laid out in this shape, in order: the elements of a list
    /// (a lone mapping is one record), of each list of an object of lists, or of each
    /// section object's records list. The scan has checked the layout already.
    func records(in container: Value) -> [Value] {
        switch (self, container) {
        case (.list, .array(let records)): return records
        case (.list, .object): return [container]
        case (.map, .object(let object)): return object.members.map(\.value)
        case (.pattern, _): return []  // (see `records(in:path:)`)
        case (.objectOfLists, .object(let object)):
            return object.members.flatMap { member -> [Value] in
                if case .array(let records) = member.value { return records }
                return []
            }
        case (.sectionList(let items), .array(let sections)):
            return sections.flatMap { section -> [Value] in
                if case .object(let object) = section, case .array(let records)? = object[items] { return records }
                return []
            }
        default: return []
        }
    }
}

/// The state of a section object's records member, as a scan found it.
enum ItemsState: Sendable {
    case absent
    case list
    /// The member is there but is not a list: its type name and where its value starts.
    case notList(typeName: String, offset: Int)
}

/// One section as a scan finds it. A plain list is one section.
struct ScannedSection: Sendable {
    /// In an object of lists: the member's name.
    var memberName: String?
    /// Where the section starts: the list (object of lists), the section object (list of
    /// section objects), or the list itself (a plain list).
    var offset: Int
    /// In a list of section objects: the object's members, its records list emptied in place.
    var members: [Object.Member] = []
    var items: ItemsState = .absent
    /// In a list of section objects: nil for an object, else the element's type name.
    var notAnObject: String? = nil
    var recordCount = 0
    /// Whether the section's records list has ended, and its hash (when the part that
    /// holds the section read all of it).
    var closed = false
    var listHash: Hash128? = nil
    /// Whether the section began in the part of the scan that holds it (false: it goes on
    /// from the part before, whose last section it is).
    var began = true

    init(memberName: String? = nil, offset: Int) {
        self.memberName = memberName
        self.offset = offset
    }
}

/// A problem with the layout found while scanning (a `--path` that leads nowhere, a value
/// that holds no records); reported only when the whole input is otherwise well formed,
/// as the reader reports it after parsing.
struct LayoutProblem: Sendable, Error {
    var offset: Int
    var message: String
    var hint: ListDiffError.Hint? = nil
    /// For an object of lists: the pointer to it (`""` at the top level).
    var wrapper: String? = nil
    /// A problem of a list of section objects: one found from them all (which fields they
    /// share), or the first section that breaks it.
    var ofSectionObjects = false

    /// What was looked for where the records should be.
    static let expected = "expected a list of records, a map of records, an object of lists, or a list of section objects"

    /// The value where the records should be holds none: `what` ("the top level") is of
    /// type `typeName`. With section options given, only a list of section objects will do.
    static func noRecords(_ what: String, _ typeName: String, sectionOptions: Bool, at offset: Int) -> LayoutProblem {
        LayoutProblem(
            offset: offset,
            message: sectionOptions
                ? "\(what) is \(typeName.withArticle); --section-key and --items need a list of section objects"
                : "\(what) is \(typeName.withArticle); \(expected)")
    }

    /// An object of lists whose member `member` is not a list.
    /// `path`: where the object is (nil: the top level).
    static func memberNotAList(_ what: String, member: String, _ typeName: String, at offset: Int, under path: FieldPath?)
        -> LayoutProblem
    {
        LayoutProblem(
            offset: offset,
            message: "\(what) is an object whose member \"\(member)\" is \(typeName.withArticle), not a list; \(expected)",
            hint: .path, wrapper: path?.pointer ?? "")
    }

    /// A value that a path with `*` names, at `pointer`, that is not a list.
    static func notAList(_ pointer: String, _ typeName: String, pattern: FieldPath, at offset: Int) -> LayoutProblem {
        LayoutProblem(
            offset: offset, message: "the value at \(pointer) is \(typeName.withArticle); \(pattern.spelling) must lead to lists of records"
        )
    }

    /// A map of records whose member `member` is not an object. `path`: where the map is
    /// (nil: the top level).
    static func memberNotARecord(_ what: String, member: String, _ typeName: String, at offset: Int, under path: FieldPath?)
        -> LayoutProblem
    {
        LayoutProblem(
            offset: offset,
            message:
                "\(what) is a map of records whose member \"\(member)\" is \(typeName.withArticle), not a record (an object); \(expected)",
            hint: .path, wrapper: path?.pointer ?? "")
    }

    /// The problem of an object whose members are not all lists, when exactly one is (a
    /// list wrapped with a count or a page number): the hint names that list, which
    /// `--path` then points at.
    func pointing(toTheOnlyList lists: [String]) -> LayoutProblem {
        guard hint == .path, lists.count == 1, let under = wrapper else { return self }
        var problem = self
        problem.hint = .pathTo(under + "/" + FieldPath.escape(lists[0]))
        return problem
    }
}

/// What a scan of one input gives the engine: its records, sections and layout.
struct ScannedDocument: @unchecked Sendable {
    var table: RecordTable
    var shape: ContainerShape
    var sections: [ScannedSection]
    /// Where the container of the records starts (the list, the object of lists, ...).
    var containerOffset: Int
    /// The parser depth of the records' list (a record's value is one level below).
    var recordDepth: Int
    /// The first record whose key is unusable or missing, and how many records miss their key.
    var firstUnkeyed: Int?
    var missingKeys = 0
    var layoutProblem: LayoutProblem?
    /// A YAML input's record details (kind, whether it reads alike anywhere; anchors).
    var yaml: YAMLDetails?
    /// In a map of records: each record's member name.
    var names: MemberNames?
    /// A JSON object at the top level read as one record: a result of one record is
    /// written as that object again.
    var lone = false
}

/// The member names of a map's records, which are their keys: the hash of each name (as a
/// string), and where each name is written, to read it again.
final class MemberNames: @unchecked Sendable {
    let hashes: PageBuffer<Hash128>
    /// Where each name starts: JSON's opening quote, YAML's key (or its quote or tag).
    let starts: PageBuffer<Int>
    /// The names themselves, for a YAML input (whose key may be written many ways).
    var texts: [String] = []

    init(capacity: Int) {
        hashes = PageBuffer(capacity: capacity)
        starts = PageBuffer(capacity: capacity)
    }
}

/// What the layout analysis of a scan concludes.
enum LayoutVerdict {
    /// The layout and its sections.
    case found(Layout, [Section])
    /// A layout error, as the reader words it.
    case problem(LayoutProblem)
    /// The scan assumed the wrong shape: scan again with this one.
    case rescan(ContainerShape)
}

extension ScannedDocument {
    /// The one layout decision, on what the scan found (values held in memory are written
    /// as text and scanned too): whether a list of objects that all lack the key is a list of
    /// section objects, which member holds the records and which names a section; or the
    /// reason it is not.
    func layout(key: IdentityKey, options: LayoutOptions, path: FieldPath?) -> LayoutVerdict {
        if let layoutProblem { return .problem(layoutProblem) }
        let what = path.map { "the value at \($0.spelling)" } ?? "the top level"
        switch shape {
        case .map:
            if key.isWholeRecord {
                return .problem(
                    LayoutProblem(
                        offset: containerOffset,
                        message: "\(what) is a map of records, keyed by member name; a whole-record key does not apply"))
            }
            let section = Section(name: nil, header: nil, records: 0..<table.count, offset: containerOffset)
            return .found(Layout(path: path, shape: .map), [section])
        case .list:
            // Every element an object without the key: the reader would try sections.
            // (A YAML stream is always a plain list.)
            if options.sectionKey == nil, options.items == nil, table.count > 0, missingKeys == table.count, yaml?.stream != true {
                return .rescan(.sectionList(items: LayoutOptions.itemsCandidates[0]))
            }
            let section = Section(name: nil, header: nil, records: 0..<table.count, offset: containerOffset)
            return .found(Layout(path: path, shape: .list), [section])
        case .objectOfLists, .pattern:
            // (A pattern's lists are named by their paths, as an object's lists by their names.)
            var start = 0
            let found = sections.map { scanned in
                defer { start += scanned.recordCount }
                return Section(
                    name: .string(scanned.memberName ?? ""), header: nil, records: start..<start + scanned.recordCount,
                    offset: scanned.offset)
            }
            return .found(Layout(path: path, shape: shape == .pattern ? .pattern : .objectOfLists), found)
        case .sectionList(let items):
            let verdict = sectionLayout(items: items, key: key, options: options, path: path, what: what)
            guard case .problem(var problem) = verdict else { return verdict }
            problem.ofSectionObjects = true
            return .problem(problem)
        }
    }

    private func sectionLayout(items: String, key: IdentityKey, options: LayoutOptions, path: FieldPath?, what: String)
        -> LayoutVerdict
    {
        let explicit = options.items != nil || options.sectionKey != nil
        let objects = sections.map { Object($0.members) }
        // Not section objects after all: the elements are records (the reader then reports
        // the first one's missing key).
        let list = LayoutVerdict.rescan(.list)
        if let i = sections.firstIndex(where: { $0.notAnObject != nil }) {
            guard explicit else { return list }
            return .problem(
                LayoutProblem(
                    offset: sections[i].offset,
                    message: "section \(i) is \(sections[i].notAnObject!.withArticle); expected a section object"))
        }
        if !explicit {
            // A key path into the records list cannot be judged on the emptied list.
            if key.fields.contains(where: { $0.components.count > 1 && $0.components[0] == items }) { return list }
            let allMiss = objects.allSatisfy {
                if case .failure(let failure) = key.identify(.object($0)), failure.isMissing { return true }
                return false
            }
            if !allMiss { return list }
        }
        func isList(_ object: Object, _ name: String, _ section: ScannedSection) -> Bool {
            if name == items { if case .list = section.items { return true } else { return false } }
            if case .array? = object[name] { return true }
            return false
        }
        func everyone(_ name: String) -> Bool { zip(objects, sections).allSatisfy { isList($0, name, $1) } }
        // The records member is the first candidate that every section has as a list.
        let chosen = options.items ?? LayoutOptions.itemsCandidates.first(where: everyone)
        guard let chosen else {
            if !explicit { return list }
            return .problem(
                LayoutProblem(
                    offset: containerOffset,
                    message:
                        "the section objects share no list field (tried \(LayoutOptions.itemsCandidates.joined(separator: ", ")))",
                    hint: .items))
        }
        if chosen != items { return .rescan(.sectionList(items: chosen)) }
        let sectionKey =
            options.sectionKey
            ?? LayoutOptions.sectionKeyCandidates.first { name in
                name != items && objects.allSatisfy { $0[name]?.isScalar ?? false }
            }
        guard let sectionKey else {
            return .problem(
                LayoutProblem(
                    offset: containerOffset,
                    message:
                        "the section objects share no name field (tried \(LayoutOptions.sectionKeyCandidates.joined(separator: ", ")))",
                    hint: .sectionKey))
        }
        var found: [Section] = []
        var start = 0
        for (s, scanned) in sections.enumerated() {
            guard let name = objects[s][sectionKey], name.isScalar else {
                return .problem(LayoutProblem(offset: scanned.offset, message: "section \(s) has no scalar name field \"\(sectionKey)\""))
            }
            switch scanned.items {
            case .list: break
            case .notList(let typeName, let offset):
                return .problem(
                    LayoutProblem(
                        offset: offset,
                        message: "\"\(items)\" of section \(JSONWriter.compact(name)) is \(typeName.withArticle), not a list"))
            case .absent:
                return .problem(
                    LayoutProblem(offset: scanned.offset, message: "section \(JSONWriter.compact(name)) has no \"\(items)\" list"))
            }
            found.append(
                Section(name: name, header: .object(objects[s]), records: start..<start + scanned.recordCount, offset: scanned.offset))
            start += scanned.recordCount
        }
        return .found(Layout(path: path, shape: .sectionList(sectionKey: sectionKey, items: items)), found)
    }

    /// The fingerprint of the diffed part, as `CanonicalHash.of` gives it for its value: the
    /// list, the object of lists, or the list of section objects, from the sections' list hashes.
    /// `lists`: each section's list hash, in place of the scan's (under comparison rules).
    func fingerprint(_ layout: Layout, _ found: [Section], lists: [Hash128]? = nil) -> Hash128 {
        if case .list = layout.shape { return lists?.first ?? sections.first?.listHash ?? Self.emptyList }
        if case .map = layout.shape { return lists?.first ?? sections.first?.listHash ?? Self.emptyMap }
        let content: [SectionContent<Hash128>] = sections.indices.map { s in
            let list = lists.flatMap { $0.count == sections.count ? $0[s] : nil } ?? sections[s].listHash ?? Self.emptyList
            return (name: .string(sections[s].memberName ?? ""), header: .object(Object(sections[s].members)), records: [list])
        }
        return layout.hash(content) { $0[0] }
    }

    static let emptyList = CanonicalHash.ArrayHasher().finish()
    static let emptyMap = CanonicalHash.ObjectHasher().finish()
}
