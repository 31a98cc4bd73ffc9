/// Finding a key when none is given or the one given is missing: the fields present,
/// scalar and unique in every record of both files, best first.
extension FileDiffer {
    /// The fields of OLD's first records that could key both files, in the order they are
    /// tried (`FieldPath.keyRank`): `id`, then the conventional key names, then names
    /// ending in `id`, `key` or `code`, then the rest; at each rank a record's own members
    /// before those of its object members (`metadata.name`), then in the records' order.
    /// Only members with a string, number or boolean value are candidates, spelled as
    /// `--key` takes them. Several records are read, so that a field the first one lacks
    /// (`metadata.namespace` in a Namespace) is still found.
    static func candidateFields(of records: [Value]) -> [String] {
        var fields: [String] = []
        var seen = Set<String>()
        for record in records {
            for field in FieldPath.keyCandidates(of: record, conventionalOnly: false, nested: true) where seen.insert(field).inserted {
                fields.append(field)
            }
        }
        let order = Dictionary(fields.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        func rank(_ f: String) -> Int { FieldPath.keyRank(FieldPath.lastName(f), conventionalOnly: false)! }
        func depth(_ f: String) -> Int { (try? FieldPath(f))?.components.count ?? 1 }
        return fields.sorted { (rank($0), depth($0), order[$0]!) < (rank($1), depth($1), order[$1]!) }
    }

    /// Fields that name a kind of record, not one record: tried only in composites.
    static let typeNames: Set<String> = ["kind", "type"]
    /// Fields that name a scope within which names are unique (`metadata.namespace`): tried
    /// only in composites.
    static let scopeNames: Set<String> = ["namespace"]

    /// Composite keys to try when no single field keys both files: a type field, a scope
    /// field when there is one, and a name-like field (a conventional key name), as
    /// `kind`, `metadata.namespace` and `metadata.name` key Kubernetes objects. At most two
    /// type fields and two name fields are combined.
    static func composites(of fields: [String]) -> [[String]] {
        let types = fields.filter { typeNames.contains(FieldPath.lastName($0)) }.prefix(2)
        let scope = fields.first { scopeNames.contains(FieldPath.lastName($0)) }
        let names = fields.filter {
            let name = FieldPath.lastName($0)
            return !typeNames.contains(name) && !scopeNames.contains(name) && FieldPath.keyRank(name, conventionalOnly: true) != nil
        }.prefix(2)
        var out: [[String]] = []
        for type in types {
            for name in names {
                if let scope { out.append([type, scope, name]) }
                out.append([type, name])
            }
        }
        return out
    }

    /// The keys that would key every record of both files, best first: single fields (at
    /// most `limit` tried; a type or scope field such as `kind` or `namespace` is never a
    /// key alone), then, when
    /// none works, the composites of `composites(of:)`. `first` stops at the first that
    /// works. Each is checked by scanning both files as a diff scans them: present, usable
    /// and unique. A key is its fields' spellings, as `--key` takes them.
    package func keyCandidates(old: String, new: String, limit: Int = 12, first: Bool = false) throws(ListDiffError) -> [[String]] {
        try keyCandidates(try open(old, new), limit: limit, first: first)
    }

    /// `keyCandidates(old:new:limit:first:)` on inputs already open.
    func keyCandidates(_ inputs: Inputs, limit: Int = 12, first: Bool = false) throws(ListDiffError) -> [[String]] {
        let (oldFile, oldFormat, newFile, newFormat) = inputs
        let ((oldOpened, oldFormatOpened), (newOpened, newFormatOpened)) = try openedAtOnce((oldFile, oldFormat), (newFile, newFormat))
        var engine = engine(key: .wholeRecord, duplicates: .match)
        /// Whether `key` keys every record of both files.
        func keys(_ key: IdentityKey) -> Bool {
            engine.key = key
            engine.duplicates = .error
            return (try? engine.keyedSide(oldOpened, oldFormatOpened)) != nil && (try? engine.keyedSide(newOpened, newFormatOpened)) != nil
        }
        // `id` comes first whatever the first record holds: tried before that record is read.
        if first, let id = try? IdentityKey(parsing: ["id"]), keys(id) { return [["id"]] }
        engine.key = .wholeRecord
        engine.duplicates = .match
        let (side, _) = try engine.keyedSide(oldOpened, oldFormatOpened)
        guard side.count > 0 else { return [] }
        var records: [Value] = []
        for r in 0..<min(side.count, 8) { records.append(try side.records.value(r)) }
        let fields = Self.candidateFields(of: records)
        var found: [[String]] = []
        let alone = fields.filter { !Self.typeNames.contains(FieldPath.lastName($0)) && !Self.scopeNames.contains(FieldPath.lastName($0)) }
        for spelling in alone.prefix(limit) {
            guard let key = try? IdentityKey(parsing: [spelling]), keys(key) else { continue }
            found.append([spelling])
            if first { return found }
        }
        guard found.isEmpty else { return found }
        for spellings in Self.composites(of: fields) {
            guard let key = try? IdentityKey(parsing: spellings), keys(key) else { continue }
            found.append(spellings)
            if first { break }
        }
        return found
    }

    /// A missing key's error, with the keys that would work in its place.
    /// `open` opens the inputs again: only a missing key's error needs them. `inputs` names
    /// them in the message (one file when both inputs are that file, as `check` reads it).
    package func withCandidates(
        _ error: ListDiffError, inputs: String = "both files", open: () throws(ListDiffError) -> Inputs
    ) -> ListDiffError {
        guard error.keyMissing, let candidates = try? keyCandidates(open()) else { return error }
        var error = error
        if candidates.isEmpty {
            error.message += "; no field is present and unique in every record of \(inputs)"
            error.hint = .wholeRecordKey
        } else {
            let names = candidates.prefix(5).map { $0.map { "\"\($0)\"" }.joined(separator: " + ") }.joined(separator: ", ")
            error.message += "; unique in \(inputs): \(names)\(candidates.count > 5 ? ", …" : "")"
            error.hint = .key(candidates[0])
        }
        return error
    }

    /// The key `--key auto` picks: the best of `keyCandidates`.
    ///
    /// - Throws: when no field of OLD's first record keys every record of both files.
    package func discoverKey(old: String, new: String) throws(ListDiffError) -> IdentityKey {
        guard let spellings = try keyCandidates(old: old, new: new, first: true).first else {
            throw ListDiffError(
                .key,
                "--key auto found no field that is present, a string, number or boolean, and unique in every record of both files; name one with --key, or use --key . to diff the lists as sequences"
            )
        }
        return try IdentityKey(parsing: spellings)
    }
}
