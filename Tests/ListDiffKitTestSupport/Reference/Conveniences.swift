import ListDiffKit

// The reference under the names the tests used when it lived in the library.

extension Differ {
    /// The reference diff of two documents read in full (`ReferenceDiffer`), keyed by `key`.
    package func diff(old: Document, new: Document, key: IdentityKey) throws(ListDiffError) -> Changeset {
        try ReferenceDiffer(reader: DocumentReader(key: key), differ: self).diff(old: old, new: new)
    }
}

extension Fingerprint {
    /// The new fingerprint of a changeset made under comparison rules, on the reference.
    package static func ofResult(_ changeset: Changeset, old: Document) throws(ListDiffError) -> String {
        try ReferenceDiffer.fingerprint(of: changeset, appliedTo: old)
    }
}

extension Replay {
    /// The replay of a changeset of two documents read in full.
    package init(old: Document, new: Document, changeset: Changeset, limit: Int = 300) throws(ListDiffError) {
        let records = old.records
        try self.init(
            changeset: changeset, oldName: old.source.name, newName: new.source.name, limit: limit,
            old: Records { r in r < records.count ? (records[r].value, records[r].occurrence) : nil })
    }
}
