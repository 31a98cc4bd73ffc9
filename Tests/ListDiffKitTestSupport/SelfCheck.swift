import ListDiffKit

/// Checks that the engine agrees with the reference reader and differ, on any bytes: the
/// fuzz targets (Fuzz/) run them on generated inputs, and the tests on the inputs the
/// fuzzer once found wrong (Fuzz/Regressions). Each returns what disagreed, or nil.
package enum SelfCheck {
    /// The reference reader and the engine's scan agree on whether `bytes` hold a list of
    /// records, and on the error's place when they do not; YAML in each version.
    package static func read(_ bytes: [UInt8], _ format: InputFormat) -> String? {
        guard format == .yaml else { return read(bytes, format, yaml: .v1_2) }
        for version in YAMLVersion.allCases {
            if let problem = read(bytes, format, yaml: version) { return "YAML \(version.rawValue): " + problem }
        }
        return nil
    }

    static func read(_ bytes: [UInt8], _ format: InputFormat, yaml version: YAMLVersion) -> String? {
        guard let key = try? IdentityKey(parsing: []) else { return "no default key" }
        var reader = DocumentReader(format: format, key: key, duplicates: .match, layout: LayoutOptions())
        reader.yaml.version = version
        let reference = Result { () throws(ListDiffError) in try reader.parse(bytes, name: "a") }
        let file = MappedFile(name: "a", bytes: bytes)
        let scanned = Result { () throws(ListDiffError) in
            try FileDiffer(reader: reader).diffOpened(file, format, file, format).changeset
        }
        switch (reference, scanned) {
        case (.success, .success(let changeset)):
            return changeset.isEmpty ? nil : "a document differs from itself"
        case (.failure(let a), .failure(let b)):
            return a.location == b.location ? nil : "errors at different places: \(a) / \(b)"
        default:
            return "the reader and the engine disagree: \(reference) / \(scanned)"
        }
    }

    /// listdiff's own YAML scanner and libyaml agree on `bytes`: the same events where the
    /// own scanner reads them, and the same values, hashes, places and errors through the
    /// walk and the engine's scan, with their fallback to libyaml (`YAMLScannerCheck`).
    package static func yamlScanner(_ bytes: [UInt8]) -> String? {
        YAMLScannerCheck.check(bytes).problem
    }

    /// Reading `bytes` as a changeset ends in a changeset or an error (the fuzzer looks for
    /// crashes and hangs).
    package static func changeset(_ bytes: [UInt8]) -> String? {
        _ = try? Changeset(json: bytes, name: "fuzz")
        return nil
    }

    /// `bytes` split in two (at a place their first byte chooses) are OLD and NEW as JSON:
    /// the engine gives the reference's changeset, and applying it to OLD gives NEW.
    package static func roundTrip(_ bytes: [UInt8]) -> String? {
        guard let first = bytes.first, let key = try? IdentityKey(parsing: []) else { return nil }
        let rest = Array(bytes.dropFirst())
        let cut = rest.count * Int(first) / 256
        let oldBytes = Array(rest[..<cut]), newBytes = Array(rest[cut...])
        let reader = DocumentReader(format: .json, key: key, duplicates: .error, layout: LayoutOptions())
        guard let old = try? reader.parse(oldBytes, name: "old"), let new = try? reader.parse(newBytes, name: "new"),
            let expected = try? ReferenceDiffer(reader: reader).diff(old: old, new: new)
        else { return nil }
        guard
            let changeset = try? FileDiffer(reader: reader).diffOpened(
                MappedFile(name: "old", bytes: oldBytes), .json, MappedFile(name: "new", bytes: newBytes), .json
            ).changeset
        else { return "the engine refused what the reference diffed" }
        if changeset.summary != expected.summary { return "summaries differ: \(changeset.summary) / \(expected.summary)" }
        guard let applied = try? changeset.apply(to: old) else { return "the changeset does not apply" }
        return applied == new.root ? nil : "apply did not give NEW"
    }
}
