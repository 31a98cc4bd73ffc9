/// One element of a list, with its identity.
public struct Record: Sendable {
    /// The key as written in the file: the field's value, an array of values for a
    /// composite key, or the element itself in a list of scalars.
    public let key: Value
    /// The canonical identity used for matching.
    public let id: RecordID
    /// The whole record.
    public let value: Value
    /// Byte offset of the record in its source.
    public let offset: Int
    /// Under `DuplicatePolicy.match`, how many earlier records of the same file share this
    /// key (0 for the first); always 0 otherwise.
    public let occurrence: Int
}

/// What to do when two records of one file share a key.
public enum DuplicatePolicy: String, Sendable, CaseIterable {
    /// Refuse, naming the key and both places.
    case error
    /// Number repeated keys by occurrence and pair the k-th occurrence in old with the
    /// k-th in new, as IGListKit does: the identity is the key plus its occurrence number.
    case match
}

/// A list of keyed records read from one file.
public struct Document: Sendable {
    public let source: SourceText
    /// The whole value read from the file.
    public let root: Value
    public let records: [Record]
    public let duplicates: DuplicatePolicy

    public init(source: SourceText, root: Value, records: [Record], duplicates: DuplicatePolicy = .error) {
        self.source = source
        self.root = root
        self.records = records
        self.duplicates = duplicates
    }

    /// Line and column of record `index`.
    public func location(ofRecord index: Int) -> SourceLocation {
        source.location(ofOffset: records[index].offset)
    }

    /// The records' values, in order.
    public var values: [Value] { records.map(\.value) }

    /// Keys the top-level list of `root`.
    ///
    /// - Throws: when the top level is not a list, when an element has no key or a
    ///   key that is not a scalar, and (under `DuplicatePolicy.error`) when two elements share
    ///   a key, naming both places.
    public static func keyed(_ root: Value, source: SourceText, key: IdentityKey, duplicates: DuplicatePolicy = .error)
        throws(ListDiffError) -> Document
    {
        func error(at offset: Int?, _ message: String) -> ListDiffError {
            ListDiffError(file: source.name, location: offset.map(source.location(ofOffset:)), message)
        }
        guard case .array(let elements) = root else {
            throw error(at: source.offset(ofValueAt: 0),
                        "the top level is \(root.typeName.withArticle); expected a list of records")
        }
        var records: [Record] = []
        records.reserveCapacity(elements.count)
        var firstSeen: [RecordID: Int] = [:]
        var occurrences: [RecordID: Int] = [:]
        if duplicates == .error { firstSeen.reserveCapacity(elements.count) }
        var preorder = 1  // the list itself is value 0
        for (index, element) in elements.enumerated() {
            let offset = source.offset(ofValueAt: preorder) ?? 0
            preorder += element.nodeCount
            switch key.identify(element) {
            case .failure(.missing(let field)):
                throw error(at: offset, "record \(index) has no key field '\(field)'")
            case .failure(.notScalar(let field, let typeName)):
                throw error(at: offset, "key field '\(field)' of record \(index) is \(typeName.withArticle); a key must be a string, number or boolean")
            case .failure(.notARecord(let typeName)):
                throw error(at: offset, "record \(index) is \(typeName.withArticle); expected an object or a scalar")
            case .success(let (written, id)):
                switch duplicates {
                case .error:
                    if let first = firstSeen.updateValue(index, forKey: id) {
                        let earlier = source.location(ofOffset: records[first].offset)
                        throw error(at: offset, "duplicate key \(KeyFormatter(key).format(written, selfKeyed: element.isScalar)) (records \(first) and \(index); the first is at line \(earlier.line), column \(earlier.column); --duplicates match pairs repeated keys by occurrence)")
                    }
                    records.append(Record(key: written, id: id, value: element, offset: offset, occurrence: 0))
                case .match:
                    let occurrence = occurrences[id, default: 0]
                    occurrences[id] = occurrence + 1
                    records.append(Record(key: written, id: id.numbered(occurrence), value: element, offset: offset, occurrence: occurrence))
                }
            }
        }
        return Document(source: source, root: root, records: records, duplicates: duplicates)
    }
}

/// Spells a record key for people: `id=4`, `region="eu" id=4`.
public struct KeyFormatter: Sendable {
    public let key: IdentityKey

    public init(_ key: IdentityKey) {
        self.key = key
    }

    /// - Parameter selfKeyed: the record is a scalar keyed by itself (so no field name is shown).
    /// - Parameter occurrence: under `--duplicates match`, the key's occurrence number, shown when above 0.
    public func format(_ written: Value, selfKeyed: Bool = false, occurrence: Int? = nil) -> String {
        let base = spell(written, selfKeyed: selfKeyed)
        guard let occurrence, occurrence > 0 else { return base }
        return base + " (occurrence \(occurrence))"
    }

    func spell(_ written: Value, selfKeyed: Bool) -> String {
        if selfKeyed { return JSONWriter.compact(written) }
        if key.fields.count > 1, case .array(let parts) = written, parts.count == key.fields.count {
            return zip(key.fields, parts).map { "\($0.spelling)=\(JSONWriter.compact($1))" }.joined(separator: " ")
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
