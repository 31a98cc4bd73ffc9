@_spi(Benchmarks) import ListDiffKit

/// The reference the engine is tested against. Each input is read in full into values
/// (`DocumentReader.parse`), its records found and keyed (`Document.keyed`, with the layout
/// decided on the values by `Layout.find`), and the two documents are diffed record by record.
/// It builds every value and keeps no index beyond a dictionary: slow, and plain to read.
///
/// The differential tests and the fuzz targets hold the engine (`FileDiffer`) to it: the same
/// changeset, byte for byte, and the same errors, on inputs of every shape and format.
package struct ReferenceDiffer {
    /// How the inputs are read: format, key, duplicates policy and layout.
    package var reader: DocumentReader
    /// The algorithm and comparison rules.
    package var differ: Differ
    /// Paths read as an empty list in the other input's shape (git's /dev/null).
    package var emptyPaths: Set<String> = []

    package init(reader: DocumentReader, differ: Differ = Differ()) {
        self.reader = reader
        self.differ = differ
    }

    /// The reference for what `files` would diff: its reader, differ and empty paths.
    package init(_ files: FileDiffer) {
        self.init(reader: files.reader, differ: files.differ)
        emptyPaths = files.emptyPaths
    }

    /// A changeset with both documents, read in full.
    package struct Result {
        package var changeset: Changeset
        package var old: Document
        package var new: Document

        /// The replay of the changeset, OLD's records taken from its document.
        package func replay(oldName: String, newName: String, limit: Int) throws(ListDiffError) -> Replay {
            let records = old.records
            return try Replay(
                changeset: changeset, oldName: oldName, newName: newName, limit: limit,
                old: Replay.Records { r in r < records.count ? (records[r].value, records[r].occurrence) : nil })
        }

        /// The line and column of each place, in NEW when `new`, else in OLD: a record, or
        /// the value a path leads to in it (`RecordPlace`).
        package func locations(of places: [RecordPlace], new: Bool) -> [SourceLocation?] {
            let document = new ? self.new : old
            let offsets = places.map { place -> Int? in
                let p = place.position
                guard p.section < document.sections.count else { return nil }
                let records = document.sections[p.section].records
                guard p.index >= 0, p.index < records.count else { return nil }
                let record = document.records[records.lowerBound + p.index]
                return document.source.offset(ofValueAt: Self.preorder(of: place.path, in: record.value, from: record.preorder))
            }
            return offsets.map { offset in offset.map { document.source.location(ofOffset: $0) } }
        }

        /// The pre-order index of the value `path` leads to in `value` (whose own is `start`),
        /// found the plain way: each step looked for among the members or elements in order,
        /// counting the values passed over; an element of a keyed list is the first whose key
        /// fields hold the step's values. Where a step is not there, the value before it.
        static func preorder(of path: [Value], in value: Value, from start: Int) -> Int {
            var here = value, index = start
            for step in path {
                // The children with their pre-order indexes, and the one the step names.
                var next = index + 1
                var found: (Value, Int)?
                switch here {
                case .object(let object):
                    guard case .string(let name) = step else { return index }
                    for member in object.members {
                        if Array(member.key.unicodeScalars) == Array(name.unicodeScalars) {
                            found = (member.value, next)
                            break
                        }
                        next += member.value.nodeCount
                    }
                case .array(let items):
                    for (k, item) in items.enumerated() {
                        if names(step, element: item, at: k) {
                            found = (item, next)
                            break
                        }
                        next += item.nodeCount
                    }
                default:
                    return index
                }
                guard let found else { return index }
                (here, index) = found
            }
            return index
        }

        /// Whether `step` names the element `item` at index `k` of a list: by its index
        /// (a number, or a string of digits), or by the values of its key fields (each absent
        /// one null in a composite key), or, for a scalar, by itself.
        static func names(_ step: Value, element item: Value, at k: Int) -> Bool {
            switch step {
            case .number(let n): return n.text == String(k)
            case .string(let s): return s == String(k)
            case .object(let fields):
                if item.isScalar { return fields.members.count == 1 && item == fields.members[0].value }
                if fields.members.count == 1 {
                    guard let path = try? FieldPath(fields.members[0].key), let part = path.value(in: item) else { return false }
                    return part.isScalar && part == fields.members[0].value
                }
                guard case .object = item else { return false }
                return fields.members.allSatisfy { field in
                    guard let path = try? FieldPath(field.key) else { return false }
                    return (path.value(in: item) ?? .null) == field.value
                }
            default: return false
            }
        }
    }

    /// Diffs two files, each read whole. A record without its key is an error that names
    /// the fields that would key both files, as the engine words it.
    package func diff(old: String, new: String) throws(ListDiffError) -> Result {
        var files = FileDiffer(reader: reader, differ: differ)
        files.emptyPaths = emptyPaths
        do {
            let (oldFile, oldFormat, newFile, newFormat) = try files.open(old, new)
            var formatted = reader
            formatted.format = oldFormat
            let oldDocument = try formatted.parse(Array(oldFile.bytes), name: oldFile.name)
            formatted.format = newFormat
            let newDocument = try formatted.parse(Array(newFile.bytes), name: newFile.name)
            var changeset = try diff(old: oldDocument, new: newDocument)
            // A YAML input read otherwise than as 1.2 is read so again by apply.
            if reader.yaml.version != .v1_2, oldFormat == .yaml || newFormat == .yaml { changeset.layout.yamlVersion = reader.yaml.version }
            reader.record(oldFormat: oldFormat, in: &changeset.layout)
            changeset.fingerprints = Changeset.Fingerprints(
                old: Fingerprint.of(oldDocument.diffed),
                new: differ.comparison.isEmpty
                    ? Fingerprint.of(newDocument.diffed) : try Self.fingerprint(of: changeset, appliedTo: oldDocument))
            return Result(changeset: changeset, old: oldDocument, new: newDocument)
        } catch {
            throw files.withCandidates(error) { () throws(ListDiffError) in try files.open(old, new) }
        }
    }

    /// The new fingerprint of a changeset made under comparison rules: the fingerprint of
    /// the document that applying it to `old` makes (NEW's records where they changed,
    /// OLD's where they are the same under the rules). When the order of records means
    /// nothing, each list is hashed as a bag, so that any order of its records gives one
    /// fingerprint.
    package static func fingerprint(of changeset: Changeset, appliedTo old: Document) throws(ListDiffError) -> String {
        let result = try changeset.apply(to: old)
        // (A map's members have no order: its hash is the same either way.)
        guard changeset.comparison.unorderedRecords, changeset.layout.shape != .map else {
            return Fingerprint.of(old.layout.diffed(in: result))
        }
        let document = try Document(
            result, name: old.source.name, key: changeset.key, duplicates: changeset.duplicates, options: old.layout.options)
        let sections: [Changeset.SectionContent<Value>] = document.sections.map { section in
            (name: section.name, header: section.header, records: document.records[section.records].map(\.value))
        }
        return Fingerprint.string(
            document.layout.hash(sections) { records in
                var bag = CanonicalHash.BagHasher()
                for record in records { bag.add(CanonicalHash.of(record)) }
                return bag.finish()
            })
    }

    /// - Complexity: the algorithm's cost, plus O((n + m) log(n + m)) for the moves, plus
    ///   the size of the matched records for the content comparison.
    package func diff(old: Document, new: Document) throws(ListDiffError) -> Changeset {
        let key = reader.key
        let algorithm = differ.algorithm, comparison = differ.comparison
        // An empty object is an empty map beside a map.
        let (old, new) = (old.asEmptyMap(beside: new), new.asEmptyMap(beside: old))
        guard old.layout.shape == new.layout.shape else {
            throw ListDiffError(
                .shape, "\(old.source.name) holds \(old.layout), \(new.source.name) holds \(new.layout); both must have one shape")
        }
        try differ.check(key: key)
        if old.layout.shape == .pattern, old.sections.isEmpty, new.sections.isEmpty {
            throw ListDiffError(
                .shape, "\(old.layout.path?.spelling ?? "") names no list in \(old.source.name) or in \(new.source.name)")
        }
        // Identities become dense symbols, equal for equal keys. A whole record as its key
        // is its own symbol, not numbered by occurrence: the algorithm pairs the repeats.
        // Under a path with `*`, a key is a key within its list.
        struct Scoped: Hashable {
            var list: String
            var id: RecordID
        }
        var symbols: [Scoped: Int] = [:]
        symbols.reserveCapacity(old.records.count + new.records.count)
        func symbol(_ id: Scoped) -> Int {
            if let s = symbols[id] { return s }
            let s = symbols.count
            symbols[id] = s
            return s
        }
        func id(_ record: Record, _ document: Document) -> Scoped {
            let list = document.layout.shape == .pattern ? Fingerprint.of(document.sections[record.position.section].name ?? .null) : ""
            guard key.isWholeRecord, case .success(let (_, id)) = key.identify(record.value) else {
                return Scoped(list: list, id: record.id)
            }
            return Scoped(list: list, id: id)
        }
        let oldSymbols = old.records.map { symbol(id($0, old)) }
        let newSymbols = new.records.map { symbol(id($0, new)) }
        var (pairing, stays) = try differ.matching(
            old: oldSymbols, new: newSymbols, symbolCount: symbols.count, complete: !key.isWholeRecord)
        var sectionChanges: [SectionChange] = []
        if old.layout.isSectioned {
            let sectionTarget: [Int?]
            (sectionChanges, sectionTarget) = try differ.diffSections(old: old.sections, new: new.sections)
            if comparison.unorderedRecords {
                // Order means nothing: a record moves only when it changes section.
                stays = pairing.enumerated().map { i, j in
                    guard let j else { return true }
                    return sectionTarget[old.records[i].position.section] == new.records[j].position.section
                }
            } else {
                stays = Self.staysWithinSections(pairing: pairing, old: old, new: new, sectionTarget: sectionTarget)
            }
        } else if comparison.unorderedRecords || old.layout.shape == .map {
            // Order means nothing (a map's members have none): nothing moves.
            stays = [Bool](repeating: true, count: pairing.count)
        }

        // (A map's names are unique: never numbered.)
        let numbered = old.layout.shape != .map && (old.duplicates == .match || new.duplicates == .match)
        func side(_ document: Document) -> RecordSide {
            RecordSide(
                count: document.records.count, position: { document.records[$0].position },
                value: { document.records[$0].value }, key: { i, _ in document.records[i].key },
                isScalar: { i, _ in key.isWholeRecord || (document.layout.shape != .map && document.records[i].value.isScalar) },
                occurrence: { numbered ? document.records[$0].occurrence : nil })
        }
        let significant = differ.memberOrder == .significant
        let (changes, summary) = try differ.changes(old: side(old), new: side(new), pairing: pairing, stays: stays) { i, j in
            let a = old.records[i].value, b = new.records[j].value
            return significant ? a.isIdentical(to: b) : comparison.same(a, b)
        }
        var changeset = Changeset(
            algorithm: algorithm.name, key: old.layout.shape == .map ? IdentityKey([]) : key, oldCount: old.records.count,
            newCount: new.records.count, changes: changes, summary: summary)
        changeset.duplicates = numbered ? .match : .error
        changeset.comparison = comparison
        changeset.memberOrderSignificant = significant
        changeset.layout = old.layout
        changeset.sections = sectionChanges
        changeset.oldSections = SectionOutline(names: old.sections.map(\.name), sizes: old.sections.map(\.records.count))
        changeset.newSections = SectionOutline(names: new.sections.map(\.name), sizes: new.sections.map(\.records.count))
        return changeset
    }

    /// Which matched records stay put when records are grouped in sections: a record stays
    /// when its section goes to its new section and it is on a longest run, within that pair
    /// of sections, of records that kept their order. Every other matched record moves.
    private static func staysWithinSections(pairing: [Int?], old: Document, new: Document, sectionTarget: [Int?]) -> [Bool] {
        var stays = [Bool](repeating: false, count: old.records.count)
        for (s, section) in old.sections.enumerated() {
            guard let t = sectionTarget[s] else { continue }
            var pairedOld: [Int] = []
            var pairedNew: [Int] = []
            for i in section.records {
                if let j = pairing[i], new.records[j].position.section == t {
                    pairedOld.append(i)
                    pairedNew.append(j)
                }
            }
            for p in longestIncreasingSubsequence(pairedNew) { stays[pairedOld[p]] = true }
        }
        return stays
    }
}

extension Document {
    /// This document as an empty map, when it is an empty object and `other` is a map.
    func asEmptyMap(beside other: Document) -> Document {
        other.layout.shape == .map ? asEmptyMap() : self
    }

    /// This document as an empty map, when it is an empty object.
    func asEmptyMap() -> Document {
        guard layout.shape == .objectOfLists, sections.isEmpty else { return self }
        return Document(source: source, root: root, layout: Layout(path: layout.path, shape: .map), records: [], duplicates: duplicates)
    }
}
