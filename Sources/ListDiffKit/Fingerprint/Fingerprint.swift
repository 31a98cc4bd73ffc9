import Dispatch

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

    /// The new fingerprint of a changeset made under comparison rules: the fingerprint of
    /// the document that applying it to `old` makes (NEW's records where they changed,
    /// OLD's where they are the same under the rules). When the order of records means
    /// nothing, each list is hashed as a bag (`CanonicalHash.BagHasher`), so that any order
    /// of its records gives one fingerprint. Without rules that document is NEW.
    package static func ofResult(_ changeset: Changeset, old: Document) throws(ListDiffError) -> String {
        let result = try changeset.apply(to: old)
        guard changeset.comparison.unorderedRecords else { return of(old.layout.diffed(in: result)) }
        let document = try Document(
            result, name: old.source.name, key: changeset.key, duplicates: changeset.duplicates, options: old.layout.options)
        let sections: [Changeset.SectionContent<Value>] = document.sections.map { section in
            (name: section.name, header: section.header, records: document.records[section.records].map(\.value))
        }
        return string(
            document.layout.hash(sections) { records in
                var bag = CanonicalHash.BagHasher()
                for record in records { bag.add(CanonicalHash.of(record)) }
                return bag.finish()
            })
    }

    package static func string(_ hash: Hash128) -> String {
        prefix + hash.hex
    }

    /// Two fingerprints, computed at once on two cores.
    package static func of(_ a: Value, _ b: Value) -> (String, String) {
        let results = UnsafeMutableBufferPointer<String>.allocate(capacity: 2)
        results.initialize(repeating: "")
        defer { results.deallocate() }
        let values = [a, b]
        nonisolated(unsafe) let out = results
        DispatchQueue.concurrentPerform(iterations: 2) { i in out[i] = of(values[i]) }
        return (results[0], results[1])
    }
}
