import ListDiffKit

// The reference reader: a document read whole into values, its layout found on the values
// and its records keyed one by one. It is the oracle the engine's scan is tested against,
// so it decides everything again on its own, in the simplest way.

/// One element of a list, with its identity.
package struct Record: Sendable {
    /// The key as written in the file: the field's value, an array of values for a
    /// composite key, or the element itself in a list of scalars.
    package let key: Value
    /// The canonical identity used for matching.
    package let id: RecordID
    /// The whole record.
    package let value: Value
    /// Byte offset of the record in its source.
    package let offset: Int
    /// The record's pre-order index among the values of its source (`SourceText.valueOffsets`).
    package let preorder: Int
    /// Under `DuplicatePolicy.match`, how many earlier records of the same file share this
    /// key (0 for the first); always 0 otherwise.
    package let occurrence: Int
    /// The record's section and its index in it.
    package let position: RecordPosition
}

/// A list of keyed records read from one file, grouped in sections.
package struct Document: Sendable {
    package let source: SourceText
    /// The whole value read from the file.
    package let root: Value
    /// Where the list (or the sections) sits in `root`, and its shape.
    package let layout: Layout
    /// The sections in file order; a plain list is one section without a name.
    package let sections: [Section]
    /// Every record, section after section.
    package let records: [Record]
    package let duplicates: DuplicatePolicy
    /// A JSON document that is one object, read as a list of that one record.
    package var lone = false

    package init(
        source: SourceText, root: Value, layout: Layout = Layout(), sections: [Section]? = nil,
        records: [Record], duplicates: DuplicatePolicy = .error
    ) {
        self.source = source
        self.root = root
        self.layout = layout
        self.sections = sections ?? [Section(name: nil, header: nil, records: 0..<records.count, offset: 0)]
        self.records = records
        self.duplicates = duplicates
    }

    /// A document of values built in memory, its records found and keyed as a file's are:
    /// `root` is a list of records, a map of records, an object of lists, or a list of section objects
    /// (`options` says how to find them). Errors name `name` and the record, with no line.
    ///
    /// - Throws: as `keyed(_:source:key:duplicates:options:)` does.
    package init(
        _ root: Value, name: String = "memory", key: IdentityKey, duplicates: DuplicatePolicy = .error,
        options: LayoutOptions = LayoutOptions()
    ) throws(ListDiffError) {
        self = try Document.keyed(root, source: SourceText(inMemory: name), key: key, duplicates: duplicates, options: options)
    }

    /// Line and column of record `index`.
    package func location(ofRecord index: Int) -> SourceLocation {
        source.location(ofOffset: records[index].offset)
    }

    /// The records' values, in order.
    package var values: [Value] { records.map(\.value) }

    /// The part of the document that is diffed: the value at the layout's path.
    package var diffed: Value { layout.diffed(in: root) }

    /// Keys the records of `root`, found as `options` say (see `Layout`).
    ///
    /// - Throws: when the value at the path is not a list, an object of lists or a list of
    ///   section objects; when an element has no key or a key that is not a scalar; when two
    ///   sections share a name; and (under `DuplicatePolicy.error`) when two records share a
    ///   key anywhere in the document, naming both places.
    package static func keyed(
        _ root: Value, source: SourceText, key: IdentityKey, duplicates: DuplicatePolicy = .error,
        options: LayoutOptions = LayoutOptions()
    ) throws(ListDiffError) -> Document {
        func error(_ kind: ListDiffError.Kind, at offset: Int?, _ message: String) -> ListDiffError {
            ListDiffError(kind, file: source.name, location: source.place(offset), message)
        }
        // A record that is its own key repeats whenever it is written twice: always numbered.
        // A map's names never repeat: never numbered.
        let found = try Layout.find(in: root, source: source, key: key, options: options)
        let duplicates = found.layout.shape == .map ? .error : key.isWholeRecord ? .match : duplicates
        var records: [Record] = []
        var sections: [Section] = []
        // Under a path with `*`, each list keys its records on its own.
        struct Scoped: Hashable {
            var list: Int
            var id: RecordID
        }
        let scoped = found.layout.shape == .pattern
        var firstSeen: [Scoped: Int] = [:]
        var occurrences: [Scoped: Int] = [:]
        var sectionNames: [String: Int] = [:]
        if duplicates == .error { firstSeen.reserveCapacity(found.lists.reduce(0) { $0 + $1.elements.count }) }
        for (s, list) in found.lists.enumerated() {
            let start = records.count
            records.reserveCapacity(start + list.elements.count)
            if let name = list.name {
                if let earlier = sectionNames.updateValue(s, forKey: Fingerprint.of(name)) {
                    throw error(
                        .shape,
                        at: list.offset,
                        "two sections are named \(JSONWriter.compact(name)) (sections \(earlier) and \(s)); section names must be unique")
                }
            }
            var preorder = list.preorder + 1  // the list itself is value `list.preorder`
            for (index, element) in list.elements.enumerated() {
                let at = preorder
                let offset = source.offset(ofValueAt: at) ?? 0
                preorder += element.nodeCount
                let place = list.name == nil ? "record \(index)" : "record \(index) of section \(JSONWriter.compact(list.name!))"
                // A map's record is keyed by its member name, as a string is keyed by itself.
                switch key.identify(list.names.map { .string($0[index]) } ?? element) {
                case .failure(let failure):
                    var keyError = error(.key, at: offset, failure.message(place: place))
                    keyError.keyMissing = failure.isMissing
                    throw keyError
                case .success(let (written, id)):
                    switch duplicates {
                    case .error:
                        if let first = firstSeen.updateValue(records.count, forKey: Scoped(list: scoped ? s : 0, id: id)) {
                            let earlier = source.place(records[first].offset)
                            let firstPlace = records[first].position
                            let places =
                                sections.isEmpty && list.name == nil
                                ? "records \(firstPlace.index) and \(index)"
                                : "records \(firstPlace) and \(RecordPosition(section: s, index: index))"
                            throw error(
                                .key,
                                at: offset,
                                KeyFormatter(key).duplicate(written, selfKeyed: element.isScalar, places: places, first: earlier)
                            ).hinting(.matchDuplicates)
                        }
                        records.append(
                            Record(
                                key: written, id: id, value: element, offset: offset, preorder: at, occurrence: 0,
                                position: RecordPosition(section: s, index: index)))
                    case .match:
                        let occurrence = occurrences[Scoped(list: scoped ? s : 0, id: id), default: 0]
                        occurrences[Scoped(list: scoped ? s : 0, id: id)] = occurrence + 1
                        records.append(
                            Record(
                                key: written, id: id.numbered(occurrence), value: element, offset: offset, preorder: at,
                                occurrence: occurrence, position: RecordPosition(section: s, index: index)))
                    }
                }
            }
            sections.append(Section(name: list.name, header: list.header, records: start..<records.count, offset: list.offset))
        }
        return Document(
            source: source, root: root, layout: found.layout, sections: sections, records: records,
            duplicates: duplicates)
    }
}

extension Layout {
    /// One list of records found in a document, with what names it.
    package struct FoundList {
        package var name: Value?
        /// A section object with its records list emptied (for `.sectionList`).
        package var header: Value?
        package var elements: [Value]
        /// In a map of records: each record's member name, its key.
        package var names: [String]? = nil
        /// Pre-order index of the list value, and the source offset of its section.
        package var preorder: Int
        package var offset: Int
    }

    package static func find(in root: Value, source: SourceText, key: IdentityKey, options: LayoutOptions)
        throws(ListDiffError) -> (layout: Layout, lists: [FoundList])
    {
        func offset(_ preorder: Int) -> Int { source.offset(ofValueAt: preorder) ?? 0 }
        func error(_ preorder: Int?, _ message: String) -> ListDiffError {
            ListDiffError(.shape, file: source.name, location: source.place(preorder.map { offset($0) }), message)
        }
        if source.isStream, options.path != nil || options.items != nil || options.sectionKey != nil {
            throw ListDiffError(.shape, file: source.name, location: SourceLocation(line: 1, column: 1), Layout.streamOptions)
        }
        if let path = options.path, path.components.contains("*") {
            return try pattern(path, in: root, error: error, offset: offset)
        }
        // Walk to the path, counting pre-order indexes so that errors keep their places.
        var container = root
        var preorder = 0
        if let path = options.path {
            for step in path.components {
                switch container {
                case .object(let object):
                    var next = preorder + 1
                    var found: Value?
                    for member in object.members {
                        if member.key.scalarEquals(step) { found = member.value; break }
                        next += member.value.nodeCount
                    }
                    guard let found else { throw error(preorder, "there is no \(path.spelling) here: no member \"\(step)\"") }
                    container = found
                    preorder = next
                case .array(let items):
                    guard let i = Int(step), String(i) == step, items.indices.contains(i) else {
                        throw error(preorder, "there is no \(path.spelling) here: no index \(step) in a list of \(items.count)")
                    }
                    preorder += 1 + items[..<i].reduce(0) { $0 + $1.nodeCount }
                    container = items[i]
                default:
                    throw error(preorder, "there is no \(path.spelling) here: \(container.typeName.withArticle) has no member \"\(step)\"")
                }
            }
        }
        let what = options.path.map { "the value at \($0.spelling)" } ?? "the top level"
        let expected = "expected a list of records, a map of records, an object of lists, or a list of section objects"

        if options.sectionKey != nil || options.items != nil {
            guard case .array(let elements) = container else {
                throw error(
                    preorder, "\(what) is \(container.typeName.withArticle); --section-key and --items need a list of section objects")
            }
            guard let found = try sectionList(elements, preorder: preorder, options: options, error: error, offset: offset) else {
                throw error(preorder, "\(what) is not a list of section objects")
            }
            return found
        }
        switch container {
        case .array(let elements):
            let allMissKey =
                !source.isStream && !elements.isEmpty
                && elements.allSatisfy {
                    if case .object = $0, case .failure(let failure) = key.identify($0), failure.isMissing { return true }
                    return false
                }
            if allMissKey, let found = try sectionList(elements, preorder: preorder, options: options, error: error, offset: offset) {
                return found
            }
            let list = FoundList(name: nil, header: nil, elements: elements, preorder: preorder, offset: offset(preorder))
            return (Layout(path: options.path, shape: .list), [list])
        case .object(let object) where object.members.first?.value.typeName == "object":
            // A map of records: its first member an object, and so every member, each a
            // record keyed by its name.
            var next = preorder + 1
            for member in object.members {
                guard case .object = member.value else {
                    throw error(
                        next,
                        "\(what) is a map of records whose member \"\(member.key)\" is \(member.value.typeName.withArticle), not a record (an object); \(expected)"
                    ).hinting(.path)
                }
                next += member.value.nodeCount
            }
            if key.isWholeRecord {
                throw error(preorder, "\(what) is a map of records, keyed by member name; a whole-record key does not apply")
            }
            var map = FoundList(name: nil, header: nil, elements: object.members.map(\.value), preorder: preorder, offset: offset(preorder))
            map.names = object.members.map(\.key)
            return (Layout(path: options.path, shape: .map), [map])
        case .object(let object):
            var lists: [FoundList] = []
            var next = preorder + 1
            for member in object.members {
                guard case .array(let elements) = member.value else {
                    // With exactly one member that is a list, the hint names it.
                    let lists = object.members.filter {
                        if case .array = $0.value { return true }; return false
                    }
                    let here = (options.path?.components ?? []).map { "/" + FieldPath.escape($0) }.joined()
                    throw error(
                        next,
                        "\(what) is an object whose member \"\(member.key)\" is \(member.value.typeName.withArticle), not a list; \(expected)"
                    ).hinting(lists.count == 1 ? .pathTo(here + "/" + FieldPath.escape(lists[0].key)) : .path)
                }
                lists.append(FoundList(name: .string(member.key), header: nil, elements: elements, preorder: next, offset: offset(next)))
                next += member.value.nodeCount
            }
            return (Layout(path: options.path, shape: .objectOfLists), lists)
        default:
            throw error(preorder, "\(what) is \(container.typeName.withArticle); \(expected)")
        }
    }

    /// The lists a path with `*` names, in document order, a section each, named by its JSON
    /// Pointer: every place on the way is visited, counting pre-order indexes.
    static func pattern(
        _ path: FieldPath, in root: Value, error: (Int?, String) -> ListDiffError, offset: (Int) -> Int
    ) throws(ListDiffError) -> (layout: Layout, lists: [FoundList]) {
        var lists: [FoundList] = []
        func walk(_ value: Value, _ steps: ArraySlice<String>, _ pointer: String, _ preorder: Int) throws(ListDiffError) {
            guard let step = steps.first else {
                guard case .array(let elements) = value else {
                    throw error(
                        preorder, "the value at \(pointer) is \(value.typeName.withArticle); \(path.spelling) must lead to lists of records"
                    )
                }
                lists.append(
                    FoundList(name: .string(pointer), header: nil, elements: elements, preorder: preorder, offset: offset(preorder)))
                return
            }
            var next = preorder + 1
            switch value {
            case .object(let object):
                for member in object.members {
                    if step == "*" || member.key.scalarEquals(step) {
                        try walk(member.value, steps.dropFirst(), pointer + "/" + FieldPath.escape(member.key), next)
                    }
                    next += member.value.nodeCount
                }
            case .array(let items):
                for (k, item) in items.enumerated() {
                    if step == "*" || "\(k)" == step { try walk(item, steps.dropFirst(), pointer + "/\(k)", next) }
                    next += item.nodeCount
                }
            default:
                break
            }
        }
        try walk(root, path.components[...], "", 0)
        return (Layout(path: path, shape: .pattern), lists)
    }

    /// Reads `elements` as section objects, or returns nil when they are not (with no field given).
    static func sectionList(
        _ elements: [Value], preorder: Int, options: LayoutOptions,
        error: (Int?, String) -> ListDiffError, offset: (Int) -> Int
    )
        throws(ListDiffError) -> (layout: Layout, lists: [FoundList])?
    {
        let objects: [Object] = elements.compactMap { if case .object(let o) = $0 { return o } else { return nil } }
        let explicit = options.items != nil || options.sectionKey != nil
        guard objects.count == elements.count else {
            if !explicit { return nil }
            let i = elements.firstIndex { if case .object = $0 { return false } else { return true } }!
            var p = preorder + 1
            for e in elements[..<i] { p += e.nodeCount }
            throw error(p, "section \(i) is \(elements[i].typeName.withArticle); expected a section object")
        }
        func everyone(_ field: String, _ test: (Value) -> Bool) -> Bool {
            objects.allSatisfy { $0[field].map(test) ?? false }
        }
        let isList = { (v: Value) -> Bool in if case .array = v { return true } else { return false } }
        guard let items = options.items ?? LayoutOptions.itemsCandidates.first(where: { everyone($0, isList) }) else {
            if !explicit { return nil }
            throw error(
                preorder,
                "the section objects share no list field (tried \(LayoutOptions.itemsCandidates.joined(separator: ", ")))"
            ).hinting(.items)
        }
        let sectionKey = options.sectionKey ?? LayoutOptions.sectionKeyCandidates.first(where: { $0 != items && everyone($0, \.isScalar) })
        guard let sectionKey else {
            throw error(
                preorder,
                "the section objects share no name field (tried \(LayoutOptions.sectionKeyCandidates.joined(separator: ", ")))"
            ).hinting(.sectionKey)
        }
        var lists: [FoundList] = []
        var p = preorder + 1
        for (s, object) in objects.enumerated() {
            defer { p += elements[s].nodeCount }
            guard let name = object[sectionKey], name.isScalar else {
                throw error(p, "section \(s) has no scalar name field \"\(sectionKey)\"")
            }
            // The records list's own pre-order index inside the section object.
            var q = p + 1
            var list: [Value]?
            var header = Object()
            for member in object.members {
                if list == nil, member.key.scalarEquals(items) {
                    guard case .array(let elements) = member.value else {
                        throw error(
                            q, "\"\(items)\" of section \(JSONWriter.compact(name)) is \(member.value.typeName.withArticle), not a list")
                    }
                    list = elements
                    lists.append(FoundList(name: name, header: nil, elements: elements, preorder: q, offset: offset(p)))
                    // Kept in place, emptied, so that the section object keeps its member order.
                    header.members.append(.init(key: member.key, value: .array([])))
                } else {
                    header.members.append(member)
                    if list == nil { q += member.value.nodeCount }
                }
            }
            guard list != nil else { throw error(p, "section \(JSONWriter.compact(name)) has no \"\(items)\" list") }
            lists[lists.count - 1].header = .object(header)
        }
        return (Layout(path: options.path, shape: .sectionList(sectionKey: sectionKey, items: items)), lists)
    }
}

extension DocumentReader {
    /// Reads and parses `path` (`-` is standard input), then keys its records.
    package func read(_ path: String) throws(ListDiffError) -> Document {
        let bytes = try InputFile.read(path)
        return try parse(bytes, name: path)
    }

    package func parse(_ bytes: [UInt8], name: String) throws(ListDiffError) -> Document {
        let format = format(for: name, bytes: bytes)
        let (root, source) = try root(bytes, format, name: name)
        // One JSON object or YAML mapping that carries the key, and is not an object of
        // lists, is one record (whatever its members are): for YAML a stream of one
        // document, as a manifest file cut down to one object is. Without the key it is
        // what it is (a map of records, or an error).
        if format == .yaml || format == .json, !source.isStream, layout == LayoutOptions(), case .object(let object) = root,
            !object.members.allSatisfy({ $0.value.typeName == "array" }), !key.fields.isEmpty || key.isWholeRecord,
            case .success = key.identify(root)
        {
            let lone = SourceText(name: name, bytes: bytes, valueOffsets: [0] + source.valueOffsets, isStream: format == .yaml)
            var document = try Document.keyed(.array([root]), source: lone, key: key, duplicates: duplicates, options: layout)
            document.lone = format == .json
            return document
        }
        return try Document.keyed(root, source: source, key: key, duplicates: duplicates, options: layout)
    }
}

extension Changeset {
    /// Applies the changes to a document and gives the new document's root: the section
    /// operations, then the record operations, each level in UIKit batch-update semantics.
    /// Whatever lies outside the layout's path is kept as it is in `document`.
    ///
    /// Beyond `apply(to:)`, every change that names an old position must name the key of the
    /// record there, so that a changeset applied to the wrong file fails instead of
    /// scrambling it (the fingerprint check is the caller's, and can be forced; this one cannot).
    package func apply(to document: Document) throws(ListDiffError) -> Value {
        // An empty object is an empty map, for a changeset made from a map.
        let document = layout.shape == .map ? document.asEmptyMap() : document
        guard document.layout.placement == layout.placement else {
            throw ListDiffError(
                .changeset, file: document.source.name, "this holds \(document.layout); the changeset was made from \(layout)")
        }
        // A map's records are its members: each given with its name, as `rebuild` takes them.
        let map = layout.shape == .map
        func entry(_ value: Value, _ key: Value) -> Value {
            guard map, case .string(let name) = key else { return value }
            return .object(Object([Object.Member(key: name, value: value)]))
        }
        let grid = document.sections.map { section in
            (name: section.name, header: section.header, records: document.records[section.records].map { entry($0.value, $0.key) })
        }
        let result = try applySections(to: grid, wrap: entry) { (n: Int, change: Change, p: RecordPosition) throws(ListDiffError) in
            let record = document.records[document.sections[p.section].records.lowerBound + p.index]
            let numbered = duplicates == .match ? record.occurrence : nil
            try checkKey(n, change, p, found: record.key, scalar: record.value.isScalar, occurrence: numbered)
        }
        return try layout.rebuild(document.root, sections: result)
    }

}
