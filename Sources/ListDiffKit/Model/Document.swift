/// What to do when two records of one file share a key.
public enum DuplicatePolicy: String, Sendable, CaseIterable {
    /// Refuse, naming the key and both places.
    case error
    /// Number repeated keys by occurrence and pair the k-th occurrence in old with the
    /// k-th in new, as IGListKit does: the identity is the key plus its occurrence number.
    case match
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
    package func duplicate(_ written: Value, selfKeyed: Bool, places: String, first: SourceLocation?) -> String {
        let at = first.map { "; the first is at line \($0.line), column \($0.column)" } ?? ""
        return
            "duplicate key \(format(written, selfKeyed: selfKeyed)) (\(places)\(at))"
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
    package var withArticle: String {
        guard let first = first else { return self }
        return ("aeiou".contains(first) ? "an " : "a ") + self
    }
}

extension IdentityKey.Failure {
    /// What is wrong, for a message; `place` names the record ("record 4").
    package func message(place: String) -> String {
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
