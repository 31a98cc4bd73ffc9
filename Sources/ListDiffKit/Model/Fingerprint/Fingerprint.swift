/// A document's fingerprint: `h128:` and the 32 hex digits of its `CanonicalHash`.
///
/// It follows `Value`'s equality, so that a document has one fingerprint however it is
/// written (JSON or YAML, indented or not, members in any order, `1.0` or `1`), and two
/// different documents almost surely have different ones. The fast reader computes the same
/// fingerprint from the bytes, record by record, without building the values.
package enum Fingerprint {
    package static let prefix = "h128:"

    package static func of(_ value: Value) -> String {
        string(CanonicalHash.of(value))
    }

    package static func string(_ hash: Hash128) -> String {
        prefix + hash.hex
    }
}
