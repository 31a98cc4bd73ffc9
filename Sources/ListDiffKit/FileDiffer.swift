/// Reads two files and diffs them on the engine, or (`fast` off, the reference the engine is
/// tested against) by reading both documents in full (`DocumentReader`, `Differ`). Both give
/// one changeset.
public struct FileDiffer: Sendable {
    public var reader: DocumentReader
    public var differ: Differ
    /// Whether the fast path may be taken.
    public var fast = true
    public var progress: Progress?
    /// The engine's parts and key hashing (for tests: every input split, hashes that collide).
    var parts = Machine.cores
    var splitsFrom = 1 << 20
    var keyHashing = KeyHashing()

    public init(reader: DocumentReader, differ: Differ = Differ(), progress: Progress? = nil) {
        self.reader = reader
        self.differ = differ
        self.progress = progress
    }

    /// The result: the changeset (with fingerprints when asked for, and always from the fast
    /// path, where they cost nothing more), and the documents when they were read in full.
    public struct Result: Sendable {
        public var changeset: Changeset
        public var documents: (old: Document, new: Document)?
        /// Whether the fast path made it.
        public var fast: Bool
        /// OLD's records, read again when asked for (from the engine's scan, or the document).
        public var oldRecords: Replay.Records?

        public init(changeset: Changeset, documents: (old: Document, new: Document)?, fast: Bool,
                    oldRecords: Replay.Records? = nil)
        {
            self.changeset = changeset
            self.documents = documents
            self.fast = fast
            self.oldRecords = oldRecords
        }

        /// The replay of the changeset, OLD's records read only as its frames show them.
        public func replay(oldName: String, newName: String, limit: Int) -> Replay {
            var records = oldRecords ?? Replay.Records { _ in nil }
            if let old = documents?.old.records {
                records = Replay.Records { r in r < old.count ? (old[r].value, old[r].occurrence) : nil }
            }
            return Replay(changeset: changeset, oldName: oldName, newName: newName, limit: limit, old: records)
        }
    }

    /// Whether the engine reads these inputs (the full reader is the reference it is
    /// tested against).
    public var fastPathApplies: Bool { fast }

    public func diff(old: String, new: String, fingerprints: Bool) throws(ListDiffError) -> Result {
        let oldFile = try MappedFile(old)
        let newFile = try MappedFile(new)
        let oldFormat = reader.format(for: old, bytes: oldFile.head)
        let newFormat = reader.format(for: new, bytes: newFile.head)
        if fastPathApplies {
            var engine = Engine(key: reader.key, differ: differ, duplicates: reader.duplicates, options: reader.layout,
                                progress: progress)
            engine.maxDepth = reader.json.maxDepth
            engine.yaml = reader.yaml
            engine.parts = parts
            engine.splitsFrom = splitsFrom
            engine.keyHashing = keyHashing
            let (changeset, side) = try engine.diffKeepingOld(old: oldFile, oldFormat, new: newFile, newFormat)
            let records = side.records
            return Result(changeset: changeset, documents: nil, fast: true, oldRecords: Replay.Records { r in
                guard r < records.count, let value = try? records.value(r) else { return nil }
                return (value, side.occurrence(r) ?? 0)
            })
        }
        progress?.begin(total: 2 * (oldFile.bytes.count + newFile.bytes.count))
        var formatted = reader
        formatted.format = oldFormat
        let oldDocument = try formatted.parse(Array(oldFile.bytes), name: old)
        progress?.advance(by: oldFile.bytes.count)
        formatted.format = newFormat
        let newDocument = try formatted.parse(Array(newFile.bytes), name: new)
        progress?.advance(by: newFile.bytes.count)
        progress?.enter(.comparing)
        var changeset = try differ.diff(old: oldDocument, new: newDocument, key: reader.key)
        if fingerprints {
            let (a, b) = Fingerprint.of(oldDocument.diffed, newDocument.diffed)
            changeset.fingerprints = Changeset.Fingerprints(old: a, new: b)
        }
        progress?.enter(.writing)
        return Result(changeset: changeset, documents: (oldDocument, newDocument), fast: false)
    }
}
