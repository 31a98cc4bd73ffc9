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
    /// Under `DuplicatePolicy.match`, how many earlier records of the same file share this
    /// key (0 for the first); always 0 otherwise.
    package let occurrence: Int
    /// The record's section and its index in it.
    package let position: RecordPosition
}

/// What to do when two records of one file share a key.
public enum DuplicatePolicy: String, Sendable, CaseIterable {
    /// Refuse, naming the key and both places.
    case error
    /// Number repeated keys by occurrence and pair the k-th occurrence in old with the
    /// k-th in new, as IGListKit does: the identity is the key plus its occurrence number.
    case match
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
    /// `root` is a list of records, an object of lists, or a list of section objects
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
        let duplicates = key.isWholeRecord ? .match : duplicates
        let found = try Layout.find(in: root, source: source, key: key, options: options)
        var records: [Record] = []
        var sections: [Section] = []
        var firstSeen: [RecordID: Int] = [:]
        var occurrences: [RecordID: Int] = [:]
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
                let offset = source.offset(ofValueAt: preorder) ?? 0
                preorder += element.nodeCount
                let place = list.name == nil ? "record \(index)" : "record \(index) of section \(JSONWriter.compact(list.name!))"
                switch key.identify(element) {
                case .failure(let failure):
                    var keyError = error(.key, at: offset, failure.message(place: place))
                    keyError.keyMissing = failure.isMissing
                    throw keyError
                case .success(let (written, id)):
                    switch duplicates {
                    case .error:
                        if let first = firstSeen.updateValue(records.count, forKey: id) {
                            let earlier = source.place(records[first].offset)
                            let firstPlace = records[first].position
                            let places =
                                sections.isEmpty && list.name == nil
                                ? "records \(firstPlace.index) and \(index)"
                                : "records \(firstPlace) and \(RecordPosition(section: s, index: index))"
                            throw error(
                                .key,
                                at: offset,
                                KeyFormatter(key).duplicate(written, selfKeyed: element.isScalar, places: places, first: earlier))
                        }
                        records.append(
                            Record(
                                key: written, id: id, value: element, offset: offset, occurrence: 0,
                                position: RecordPosition(section: s, index: index)))
                    case .match:
                        let occurrence = occurrences[id, default: 0]
                        occurrences[id] = occurrence + 1
                        records.append(
                            Record(
                                key: written, id: id.numbered(occurrence), value: element, offset: offset,
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

/// Spells a record key for people: `id=4`, `region="eu" id=4`.
package struct KeyFormatter: Sendable {
    package let key: IdentityKey

    package init(_ key: IdentityKey) {
        self.key = key
    }

    /// - Parameter selfKeyed: the record is a scalar keyed by itself (so no field name is shown).
    /// - Parameter occurrence: under `--duplicates match`, the key's occurrence number, shown when above 0.
    package func format(_ written: Value, selfKeyed: Bool = false, occurrence: Int? = nil) -> String {
        let base = spell(written, selfKeyed: selfKeyed)
        guard let occurrence, occurrence > 0 else { return base }
        return base + " (occurrence \(occurrence))"
    }

    /// The message for a key found twice in one file.
    func duplicate(_ written: Value, selfKeyed: Bool, places: String, first: SourceLocation?) -> String {
        let at = first.map { "; the first is at line \($0.line), column \($0.column)" } ?? ""
        return
            "duplicate key \(format(written, selfKeyed: selfKeyed)) (\(places)\(at); --duplicates match pairs repeated keys by occurrence)"
    }

    func spell(_ written: Value, selfKeyed: Bool) -> String {
        if selfKeyed { return JSONWriter.compact(written) }
        if key.fields.count > 1, case .array(let parts) = written, parts.count == key.fields.count {
            // An absent part (written null) is left out: the fields shown are named.
            return zip(key.fields, parts).filter { $1 != .null }.map { "\($0.spelling)=\(JSONWriter.compact($1))" }
                .joined(separator: " ")
        }
        if key.fields.count == 1, written.isScalar {
            return "\(key.fields[0].spelling)=\(JSONWriter.compact(written))"
        }
        return JSONWriter.compact(written)
    }
}

extension String {
    var withArticle: String {
        guard let first = first else { return self }
        return ("aeiou".contains(first) ? "an " : "a ") + self
    }
}

extension IdentityKey.Failure {
    /// What is wrong, for a message; `place` names the record ("record 4").
    func message(place: String) -> String {
        switch self {
        case .missing(let field):
            return "\(place) has no key field '\(field)'"
        case .missingAll(let fields):
            return "\(place) has none of the key fields \(fields.map { "'\($0)'" }.joined(separator: ", "))"
        case .notScalar(let field, let typeName):
            return "key field '\(field)' of \(place) is \(typeName.withArticle); a key must be a string, number or boolean"
        case .notARecord(let typeName):
            return "\(place) is \(typeName.withArticle); expected an object or a scalar"
        }
    }
}
