/// How to find the records in a document (the command's `--path`, `--section-key`, `--items`).
public struct LayoutOptions: Sendable, Hashable {
    /// Where the list or the sections are, as a JSON Pointer or dotted path; nil for the top level.
    public var path: FieldPath?
    /// The field that names a section object; nil to detect it.
    public var sectionKey: String?
    /// The field that holds a section object's records; nil to detect it.
    public var items: String?

    /// Where to find the records: `path` to the list or sections (nil: the root), and for a
    /// list of section objects, the member naming each section and the one holding its records
    /// (nil: found from the usual names).
    public init(path: FieldPath? = nil, sectionKey: String? = nil, items: String? = nil) {
        self.path = path
        self.sectionKey = sectionKey
        self.items = items
    }

    /// Fields tried, in this order, when `items` is not given.
    package static let itemsCandidates = ["items", "records", "rows", "elements", "entries", "children", "values", "data"]
    /// Fields tried, in this order, when `sectionKey` is not given.
    package static let sectionKeyCandidates = ["name", "title", "section", "header", "label", "key", "id"]
}

/// Where a document's records are and how they are grouped.
package struct Layout: Sendable, Hashable, CustomStringConvertible {
    package enum Shape: Sendable, Hashable {
        /// A list of records: one section.
        case list
        /// An object whose members are lists: a section per member, named by its key.
        case objectOfLists
        /// A list of section objects, each named by `sectionKey` and holding its records in `items`.
        case sectionList(sectionKey: String, items: String)
    }

    package var path: FieldPath?
    package var shape: Shape

    package init(path: FieldPath? = nil, shape: Shape = .list) {
        self.path = path
        self.shape = shape
    }

    package var isSectioned: Bool { shape != .list }

    /// The part of a document that is diffed: the value at the path, or the whole.
    package func diffed(in root: Value) -> Value { path.flatMap { $0.value(in: root) } ?? root }

    /// The options that find this layout again in the same document.
    package var options: LayoutOptions {
        if case .sectionList(let key, let items) = shape { return LayoutOptions(path: path, sectionKey: key, items: items) }
        return LayoutOptions(path: path)
    }

    /// For people: `a list`, `sections: an object of lists`, `sections: a list of objects named by "name", records in "items"`.
    package var description: String {
        let at = path.map { " at \($0.spelling)" } ?? ""
        switch shape {
        case .list: return "a list of records" + at
        case .objectOfLists: return "sections as an object of lists" + at
        case .sectionList(let key, let items):
            return "sections as a list of objects\(at), named by \"\(key)\", records in \"\(items)\""
        }
    }

    /// One list of records found in a document, with what names it.
    struct FoundList {
        var name: Value?
        /// A section object with its records list emptied (for `.sectionList`).
        var header: Value?
        var elements: [Value]
        /// Pre-order index of the list value, and the source offset of its section.
        var preorder: Int
        var offset: Int
    }

    /// Why a YAML stream refuses the options that find records elsewhere.
    static let streamOptions =
        "a stream of YAML documents is read as a list of them; --path, --section-key and --items do not apply"

    static func find(in root: Value, source: SourceText, key: IdentityKey, options: LayoutOptions)
        throws(ListDiffError) -> (layout: Layout, lists: [FoundList])
    {
        func offset(_ preorder: Int) -> Int { source.offset(ofValueAt: preorder) ?? 0 }
        func error(_ preorder: Int?, _ message: String) -> ListDiffError {
            ListDiffError(.shape, file: source.name, location: source.place(preorder.map { offset($0) }), message)
        }
        if source.isStream, options.path != nil || options.items != nil || options.sectionKey != nil {
            throw ListDiffError(.shape, file: source.name, location: SourceLocation(line: 1, column: 1), Layout.streamOptions)
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
        let expected = "expected a list of records, an object of lists, or a list of section objects"

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
        case .object(let object):
            var lists: [FoundList] = []
            var next = preorder + 1
            for member in object.members {
                guard case .array(let elements) = member.value else {
                    throw error(
                        next,
                        "\(what) is an object whose member \"\(member.key)\" is \(member.value.typeName.withArticle), not a list; \(expected) (--path points at one inside a larger document)"
                    )
                }
                lists.append(FoundList(name: .string(member.key), header: nil, elements: elements, preorder: next, offset: offset(next)))
                next += member.value.nodeCount
            }
            return (Layout(path: options.path, shape: .objectOfLists), lists)
        default:
            throw error(preorder, "\(what) is \(container.typeName.withArticle); \(expected)")
        }
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
                "the section objects share no list field (tried \(LayoutOptions.itemsCandidates.joined(separator: ", "))); name it with --items"
            )
        }
        let sectionKey = options.sectionKey ?? LayoutOptions.sectionKeyCandidates.first(where: { $0 != items && everyone($0, \.isScalar) })
        guard let sectionKey else {
            throw error(
                preorder,
                "the section objects share no name field (tried \(LayoutOptions.sectionKeyCandidates.joined(separator: ", "))); name it with --section-key"
            )
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

    /// The document `root` with the value at the path replaced by `sections` arranged in this
    /// layout's shape. `sections` pairs each section's name and header with its records.
    func rebuild(_ root: Value, sections: [(name: Value?, header: Value?, records: [Value])]) throws(ListDiffError) -> Value {
        let container: Value
        switch shape {
        case .list:
            container = .array(sections.first?.records ?? [])
        case .objectOfLists:
            var object = Object()
            for section in sections {
                guard case .string(let name)? = section.name else {
                    throw ListDiffError(.shape, "a section of an object of lists needs a string name")
                }
                object.members.append(.init(key: name, value: .array(section.records)))
            }
            container = .object(object)
        case .sectionList(_, let items):
            container = .array(
                sections.map { section in
                    var header: Object
                    if case .object(let o)? = section.header { header = o } else { header = Object() }
                    if let k = header.members.firstIndex(where: { $0.key.scalarEquals(items) }) {
                        header.members[k].value = .array(section.records)
                    } else {
                        header.members.append(.init(key: items, value: .array(section.records)))
                    }
                    return .object(header)
                })
        }
        guard let path else { return container }
        return Self.replacing(root, at: path.components[...], with: container)
    }

    /// The canonical hash of the container `rebuild` makes of `sections` (the part at the
    /// path), given how to hash each section's list. `apply` and the reference both use it
    /// when each list is hashed as a bag (`--unordered`).
    package func hash<R>(_ sections: [SectionContent<R>], list: ([R]) -> Hash128) -> Hash128 {
        switch shape {
        case .list:
            return list(sections.first?.records ?? [])
        case .objectOfLists:
            var hasher = CanonicalHash.ObjectHasher()
            for section in sections {
                guard case .string(let name)? = section.name else { continue }
                hasher.add(key: CanonicalHash.string(name), value: list(section.records))
            }
            return hasher.finish()
        case .sectionList(_, let items):
            // As `rebuild` builds each section object: the records list in place of the
            // header's first member of that name, or last.
            var hasher = CanonicalHash.ArrayHasher()
            for section in sections {
                var object = CanonicalHash.ObjectHasher()
                var listed = false
                if case .object(let header)? = section.header {
                    for member in header.members {
                        if !listed, member.key.scalarEquals(items) {
                            listed = true
                            object.add(key: CanonicalHash.string(member.key), value: list(section.records))
                        } else {
                            object.add(key: CanonicalHash.string(member.key), value: CanonicalHash.of(member.value))
                        }
                    }
                }
                if !listed { object.add(key: CanonicalHash.string(items), value: list(section.records)) }
                hasher.add(object.finish())
            }
            return hasher.finish()
        }
    }

    static func replacing(_ value: Value, at steps: ArraySlice<String>, with replacement: Value) -> Value {
        guard let step = steps.first else { return replacement }
        switch value {
        case .object(var object):
            if let k = object.members.firstIndex(where: { $0.key.scalarEquals(step) }) {
                object.members[k].value = replacing(object.members[k].value, at: steps.dropFirst(), with: replacement)
            }
            return .object(object)
        case .array(var items):
            if let i = Int(step), items.indices.contains(i) {
                items[i] = replacing(items[i], at: steps.dropFirst(), with: replacement)
            }
            return .array(items)
        default:
            return value
        }
    }
}

/// One section of a document: its name (nil for a plain list), the section object with its
/// records list emptied (for a list of section objects), and its records' range in `Document.records`.
package struct Section: Sendable {
    package let name: Value?
    package let header: Value?
    package let records: Range<Int>
    /// Byte offset of the section in its source.
    package let offset: Int
}

/// One section as `Layout` rebuilds it and `Changeset` applies to it: its name, its own
/// fields, and its records, each an `R` (a value, or whatever the caller keeps for one).
/// `Changeset.SectionContent` is the same type.
package typealias SectionContent<R> = (name: Value?, header: Value?, records: [R])
