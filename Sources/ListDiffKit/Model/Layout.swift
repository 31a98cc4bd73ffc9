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

/// Which YAML a plain scalar is read as.
package enum YAMLVersion: String, Sendable, CaseIterable {
    /// YAML 1.1 (2005): `yes` and `on` are true, `0644` is octal, `1:30` is base 60.
    case v1_1 = "1.1"
    /// YAML 1.2's core schema (2009): only `true` and `false` are booleans, `0o644` octal.
    case v1_2 = "1.2"
    /// YAML as Kubernetes reads it: go-yaml v2's resolution (a dialect of 1.1: `yes` is
    /// true and `0644` octal, but `1:30` is a string, `1e3` a number, numbers are 64-bit),
    /// and mapping keys resolved too, as sigs.k8s.io/yaml turns a manifest into JSON.
    case kubernetes
}

/// Where a document's records are and how they are grouped.
package struct Layout: Sendable, Hashable, CustomStringConvertible {
    package enum Shape: Sendable, Hashable {
        /// A list of records: one section.
        case list
        /// An object whose members are records, each keyed by its member name: one
        /// section. Member order means nothing, so records never move.
        case map
        /// An object whose members are lists: a section per member, named by its key.
        case objectOfLists
        /// A list of section objects, each named by `sectionKey` and holding its records in `items`.
        case sectionList(sectionKey: String, items: String)
        /// The lists a path with `*` names: a section each, named by its JSON Pointer.
        case pattern
    }

    package var path: FieldPath?
    package var shape: Shape
    /// For a changeset: the YAML its inputs were read as, when it is not 1.2 (so that
    /// `apply` reads OLD as the diff did).
    package var yamlVersion: YAMLVersion? = nil

    /// Notes the YAML version inputs were read as, when one of them is YAML and it is not 1.2.
    package mutating func note(yaml version: YAMLVersion, formats: [InputFormat]) {
        if version != .v1_2, formats.contains(.yaml) { yamlVersion = version }
    }
    /// For a changeset made from files: OLD's format, so that `apply` reads OLD as the diff
    /// did whatever its name. Nil in a changeset made from values, or by an older listdiff.
    package var format: InputFormat? = nil
    /// For a changeset made from a CSV or TSV OLD: whether its cells were read with types
    /// inferred (`--csv-types infer`).
    package var csvInfersTypes = false

    package init(path: FieldPath? = nil, shape: Shape = .list) {
        self.path = path
        self.shape = shape
    }

    /// Where the records are, without how the inputs were read.
    package var placement: Layout { Layout(path: path, shape: shape) }

    package var isSectioned: Bool { shape != .list && shape != .map }

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
        case .map: return "a map of records (keyed by member name)" + at
        case .objectOfLists: return "sections as an object of lists" + at
        case .pattern: return "sections as the lists" + at + ", each named by its path"
        case .sectionList(let key, let items):
            return "sections as a list of objects\(at), named by \"\(key)\", records in \"\(items)\""
        }
    }

    /// Refuses a path with `*` that cannot name lists of records by their paths: one that
    /// ends in `*` or an index (the lists must be members, so that each goes back by name),
    /// or goes with section options.
    package static func checkPattern(_ options: LayoutOptions) throws(ListDiffError) {
        guard let path = options.path, path.isPattern else { return }
        guard let last = path.components.last, last != "*", Int(last) == nil else {
            throw ListDiffError(
                .usage, "a path with * must end with a member name, as /paths/*/get/parameters does: \(path.spelling) does not")
        }
        if options.sectionKey != nil || options.items != nil {
            throw ListDiffError(.usage, "a path with * leads to lists of records; --section-key and --items do not apply")
        }
    }

    /// Why a YAML stream refuses the options that find records elsewhere.
    package static let streamOptions =
        "a stream of YAML documents is read as a list of them; --path, --section-key and --items do not apply"

    /// The error for a YAML stream, in the file `name`, read with options that find records
    /// elsewhere.
    package static func streamRefuses(_ name: String) -> ListDiffError {
        ListDiffError(.shape, file: name, location: SourceLocation(line: 1, column: 1), streamOptions)
    }

    /// The document `root` with the value at the path replaced by `sections` arranged in this
    /// layout's shape. `sections` pairs each section's name and header with its records. In
    /// a map each record is given as its member: an object that holds it under its name.
    package func rebuild(_ root: Value, sections: [(name: Value?, header: Value?, records: [Value])]) throws(ListDiffError) -> Value {
        let container: Value
        switch shape {
        case .list:
            container = .array(sections.first?.records ?? [])
        case .map:
            var object = Object()
            for member in sections.first?.records ?? [] {
                guard case .object(let entry) = member, entry.members.count == 1 else {
                    throw ListDiffError(.shape, "a record of a map needs its member name")
                }
                object.members.append(entry.members[0])
            }
            container = .object(object)
        case .pattern:
            container = .null  // (each section goes at its own path, below)
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
        if case .pattern = shape {
            // OLD's lists there go; each section's list is put at its path.
            var document = Self.removing(root, path.components[...])
            for section in sections {
                guard case .string(let pointer)? = section.name, let place = try? FieldPath(pointer) else {
                    throw ListDiffError(.shape, "a section of \(path.spelling) needs its path as its name")
                }
                document = Self.placing(document, at: place.components[...], .array(section.records))
            }
            return document
        }
        return Self.replacing(root, at: path.components[...], with: container)
    }

    /// `value` without the members that `steps` (a pattern ending in a member name) names.
    static func removing(_ value: Value, _ steps: ArraySlice<String>) -> Value {
        guard let step = steps.first else { return value }
        switch value {
        case .object(var object):
            if steps.count == 1 {
                object.members.removeAll { $0.key.scalarEquals(step) }
            } else {
                for k in object.members.indices where step == "*" || object.members[k].key.scalarEquals(step) {
                    object.members[k].value = removing(object.members[k].value, steps.dropFirst())
                }
            }
            return .object(object)
        case .array(var items):
            for k in items.indices where step == "*" || String(k) == step { items[k] = removing(items[k], steps.dropFirst()) }
            return .array(items)
        default:
            return value
        }
    }

    /// `value` with `replacement` at `steps`, the objects on the way made where missing (and
    /// a list too short for an index filled with empty objects).
    static func placing(_ value: Value, at steps: ArraySlice<String>, _ replacement: Value) -> Value {
        guard let step = steps.first else { return replacement }
        switch value {
        case .array(var items):
            guard let k = Int(step), k >= 0 else { return value }
            while items.count <= k { items.append(.object(Object())) }
            items[k] = placing(items[k], at: steps.dropFirst(), replacement)
            return .array(items)
        case .object(var object):
            if let k = object.members.firstIndex(where: { $0.key.scalarEquals(step) }) {
                object.members[k].value = placing(object.members[k].value, at: steps.dropFirst(), replacement)
            } else {
                object.members.append(.init(key: step, value: placing(.object(Object()), at: steps.dropFirst(), replacement)))
            }
            return .object(object)
        default:
            return .object(Object([.init(key: step, value: placing(.object(Object()), at: steps.dropFirst(), replacement))]))
        }
    }

    /// The canonical hash of the container `rebuild` makes of `sections` (the part at the
    /// path), given how to hash each section's list (a map's records as an object's
    /// members). `apply` and the reference both use it when each list is hashed as a bag
    /// (`--unordered`).
    package func hash<R>(_ sections: [SectionContent<R>], list: ([R]) -> Hash128) -> Hash128 {
        switch shape {
        case .list, .map:
            return list(sections.first?.records ?? [])
        case .objectOfLists, .pattern:
            // (A pattern's sections hash as an object of lists named by their paths.)
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

    package init(name: Value?, header: Value?, records: Range<Int>, offset: Int) {
        self.name = name
        self.header = header
        self.records = records
        self.offset = offset
    }
}

/// One section as `Layout` rebuilds it and `Changeset` applies to it: its name, its own
/// fields, and its records, each an `R` (a value, or whatever the caller keeps for one).
/// `Changeset.SectionContent` is the same type.
package typealias SectionContent<R> = (name: Value?, header: Value?, records: [R])
