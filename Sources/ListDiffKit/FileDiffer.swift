/// Reads two files and diffs them: on the fast path (`FastDiff`) when it covers them, else
/// by reading both documents in full (`DocumentReader`, `Differ`). Both give one changeset.
public struct FileDiffer: Sendable {
    public var reader: DocumentReader
    public var differ: Differ
    /// Whether the fast path may be taken.
    public var fast = true
    public var progress: Progress?

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

        public init(changeset: Changeset, documents: (old: Document, new: Document)?, fast: Bool) {
            self.changeset = changeset
            self.documents = documents
            self.fast = fast
        }
    }

    /// Whether these options let the fast path run (it also needs plain lists in JSON or NDJSON).
    public var fastPathApplies: Bool {
        fast && reader.duplicates == .error && reader.layout == LayoutOptions()
    }

    public func diff(old: String, new: String, fingerprints: Bool) throws(ListDiffError) -> Result {
        let oldFile = try MappedFile(old)
        let newFile = try MappedFile(new)
        progress?.begin(total: FastDiff.work(old: oldFile, new: newFile))
        let oldFormat = reader.format(for: old, bytes: oldFile.head)
        let newFormat = reader.format(for: new, bytes: newFile.head)
        progress?.lap("open")
        if fastPathApplies, let oldInput = Self.fastInput(oldFormat), let newInput = Self.fastInput(newFormat) {
            var fastDiff = FastDiff(key: reader.key, differ: differ, progress: progress)
            fastDiff.maxDepth = reader.json.maxDepth
            if let changeset = try fastDiff.diff(old: oldFile, oldInput, new: newFile, newInput) {
                return Result(changeset: changeset, documents: nil, fast: true)
            }
        }
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

    static func fastInput(_ format: InputFormat) -> FastDiff.Input? {
        switch format {
        case .json: return .json
        case .ndjson: return .ndjson
        case .yaml: return nil
        }
    }
}
