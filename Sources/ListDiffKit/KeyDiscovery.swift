/// Finding a key when none is given or the one given is missing: the fields present,
/// scalar and unique in every record of both files, best first.
extension FileDiffer {
    /// The fields of OLD's first record that could key both files, in the order they are
    /// tried (`FieldPath.keyRank`): `id`, then the conventional key names, then names
    /// ending in `id`, `key` or `code`, then the rest in the record's order. Only its
    /// members with a string, number or boolean value are candidates, spelled as `--key`
    /// takes them.
    static func candidateFields(of record: Value) -> [String] {
        FieldPath.keyCandidates(of: record, conventionalOnly: false)
    }

    /// The keys that would key every record of both files, each alone, best first (at most
    /// `limit` fields are tried; `first` stops at the first that works). Each is checked
    /// by scanning both files as a diff scans them: present, usable and unique.
    package func keyCandidates(old: String, new: String, limit: Int = 12, first: Bool = false) throws(ListDiffError) -> [String] {
        try keyCandidates(try open(old, new), limit: limit, first: first)
    }

    /// `keyCandidates(old:new:limit:first:)` on inputs already open.
    func keyCandidates(_ inputs: Inputs, limit: Int = 12, first: Bool = false) throws(ListDiffError) -> [String] {
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
        if first, let id = try? IdentityKey(parsing: ["id"]), keys(id) { return ["id"] }
        engine.key = .wholeRecord
        engine.duplicates = .match
        let (side, _) = try engine.keyedSide(oldOpened, oldFormatOpened)
        guard side.count > 0 else { return [] }
        var found: [String] = []
        for spelling in Self.candidateFields(of: try side.records.value(0)).prefix(limit) {
            guard let key = try? IdentityKey(parsing: [spelling]), keys(key) else { continue }
            found.append(spelling)
            if first { break }
        }
        return found
    }

    /// A missing key's error, with the keys that would work in its place.
    /// `open` opens the inputs again: only a missing key's error needs them.
    package func withCandidates(_ error: ListDiffError, open: () throws(ListDiffError) -> Inputs) -> ListDiffError {
        guard error.keyMissing, let candidates = try? keyCandidates(open()) else { return error }
        var error = error
        if candidates.isEmpty {
            error.message += "; no field is present and unique in every record of both files"
            error.hint = .wholeRecordKey
        } else {
            let names = candidates.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ")
            error.message += "; unique in both files: \(names)\(candidates.count > 5 ? ", …" : "")"
            error.hint = .key(candidates[0])
        }
        return error
    }

    /// The key `--key auto` picks: the best of `keyCandidates`.
    ///
    /// - Throws: when no field of OLD's first record keys every record of both files.
    package func discoverKey(old: String, new: String) throws(ListDiffError) -> IdentityKey {
        guard let spelling = try keyCandidates(old: old, new: new, first: true).first else {
            throw ListDiffError(
                .key,
                "--key auto found no field that is present, a string, number or boolean, and unique in every record of both files; name one with --key, or use --key . to diff the lists as sequences"
            )
        }
        return try IdentityKey(parsing: [spelling])
    }
}
