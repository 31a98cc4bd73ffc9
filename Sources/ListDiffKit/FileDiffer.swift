import Dispatch

/// Diffs two files, or two byte buffers, of JSON, NDJSON, YAML, CSV or TSV records.
///
/// ```swift
/// let differ = FileDiffer(key: try IdentityKey(parsing: ["id"]))
/// let changeset = try differ.diff(oldPath: "old.json", newPath: "new.json")
/// ```
///
/// The inputs are scanned without building a value for each record, on every core; only
/// the changed records become values. The changeset is the one `Differ` gives for the same
/// records, and carries both inputs' fingerprints, so that `FileApplier` can check it
/// against the file it is applied to.
public struct FileDiffer: Sendable {
    /// How the inputs are read: format, key, duplicates policy and layout.
    package var reader: DocumentReader
    /// The algorithm and comparison rules.
    public var differ: Differ
    package var progress: Progress?
    /// Whether both inputs are NDJSON sorted by key: then they are merged in one streaming
    /// pass (`SortedMerge`), in memory that grows with the changes, not with the inputs.
    package var sorted = false
    /// Paths read as an empty list instead of their content, in the other input's format: git
    /// names the missing side of an added or deleted file `/dev/null`.
    package var emptyPaths: Set<String> = []
    /// The engine's parts and key hashing (for tests: every input split, hashes that collide).
    var parts = Machine.cores
    var splitsFrom = 1 << 20
    var keyHashing = KeyHashing()
    /// For a shard of a diff (`Engine.forShard`): no moves, the record hashes and matches kept.
    var forShard = false
    /// The memory a diff of two files may use before it spills them to disk
    /// (`diffSpilling`); nil never spills.
    package var memoryLimit: MemoryLimit?
    /// Whether the output is made from OLD whole (`OutputFormat.needsOldWhole`): then the
    /// diff does not spill, and is refused under a budget asked for that it needs.
    package var keepsOld = false
    /// The folder a spill makes its own temporary folder in; nil: `TMPDIR`, else `/tmp`.
    package var spillParent: String?

    package init(reader: DocumentReader, differ: Differ = Differ(), progress: Progress? = nil) {
        self.reader = reader
        self.differ = differ
        self.progress = progress
    }

    /// A differ for files whose records are matched by `key`.
    ///
    /// - Parameters:
    ///   - key: the fields that identify a record.
    ///   - differ: the algorithm and comparison rules.
    ///   - format: the inputs' format; nil finds it from each file's extension, then from
    ///     its first bytes.
    ///   - duplicates: what to do when two records of one input share a key.
    ///   - layout: where the list, or the sections, sit in each document.
    ///   - csvInfersTypes: whether CSV and TSV cells that read as numbers, booleans or
    ///     empty become those values; off, every cell is a string.
    public init(
        key: IdentityKey, differ: Differ = Differ(), format: InputFormat? = nil, duplicates: DuplicatePolicy = .error,
        layout: LayoutOptions = LayoutOptions(), csvInfersTypes: Bool = false
    ) {
        var reader = DocumentReader(format: format, key: key, duplicates: duplicates, layout: layout)
        reader.csvInfersTypes = csvInfersTypes
        self.init(reader: reader, differ: differ)
    }

    /// The result: the changeset (with both fingerprints, which cost the engine nothing
    /// more), OLD's records to read again for a replay, and
    /// where records are in the files.
    package struct Result: Sendable {
        package var changeset: Changeset
        /// OLD's records, read again when asked for (from the engine's scan).
        package var oldRecords: Replay.Records?

        /// OLD as the engine scanned it, and the format it was written in (CSV's records are
        /// scanned as JSON text), for a writer that copies OLD's text.
        var old: (side: Engine.Side, format: InputFormat)?
        /// NEW as the engine scanned it.
        var new: Engine.Side?

        /// Finds where places in records are in the files: in NEW when `new`, else in OLD.
        package var locator: (@Sendable (_ places: [RecordPlace], _ new: Bool) -> [SourceLocation?])?

        package init(changeset: Changeset, oldRecords: Replay.Records? = nil) {
            self.changeset = changeset
            self.oldRecords = oldRecords
        }

        /// The line and column of each place (a record, or the value a path leads to in it),
        /// in NEW when `new`, else in OLD; nil where that is not known (a streaming diff keeps
        /// no records).
        package func locations(of places: [RecordPlace], new: Bool) -> [SourceLocation?] {
            locator?(places, new) ?? places.map { _ in nil }
        }

        /// The replay of the changeset, OLD's records read only as its frames show them.
        /// Throws when a change's record cannot be read.
        package func replay(oldName: String, newName: String, limit: Int) throws(ListDiffError) -> Replay {
            try Replay(
                changeset: changeset, oldName: oldName, newName: newName, limit: limit,
                old: oldRecords ?? Replay.Records { _ in nil })
        }
    }

    /// Both inputs, open, with their formats.
    package typealias Inputs = (MappedFile, InputFormat, MappedFile, InputFormat)

    /// Opens both inputs and finds their formats. A path in `emptyPaths` is an empty list in
    /// the other's format.
    package func open(_ old: String, _ new: String) throws(ListDiffError) -> Inputs {
        // The other input with no records: its sections, headers and the document around
        // them kept, so that it has the other's shape. NDJSON's empty list is no line at all.
        // The layout and sections are the ones the engine finds in the other input.
        func empty(_ name: String, like other: MappedFile, _ format: InputFormat) throws(ListDiffError) -> (MappedFile, InputFormat) {
            if format == .ndjson { return (MappedFile(name: name, bytes: []), .ndjson) }
            let (opened, openedFormat) = try reader.opened(other, format)
            let side = try engine(key: reader.key, duplicates: reader.duplicates).side(opened, openedFormat, against: nil, KeyHashing())
            let (root, _) = try reader.root(Array(opened.bytes), openedFormat, name: other.name)
            let twin = try side.layout.rebuild(root, sections: side.sections.map { (name: $0.name, header: $0.header, records: []) })
            return (MappedFile(name: name, bytes: Array(JSONWriter.compact(twin).utf8)), .json)
        }
        switch (emptyPaths.contains(old), emptyPaths.contains(new)) {
        case (true, true):
            let format = reader.format == .ndjson ? InputFormat.ndjson : .json
            let none = MappedFile(name: old, bytes: format == .ndjson ? [] : Array("[]".utf8))
            return (none, format, MappedFile(name: new, bytes: format == .ndjson ? [] : Array("[]".utf8)), format)
        case (true, false):
            let newFile = try MappedFile(new)
            let format = reader.format(for: new, bytes: newFile.head)
            let (oldFile, oldFormat) = try empty(old, like: newFile, format)
            return (oldFile, oldFormat, newFile, format)
        case (false, true):
            let oldFile = try MappedFile(old)
            let format = reader.format(for: old, bytes: oldFile.head)
            let (newFile, newFormat) = try empty(new, like: oldFile, format)
            return (oldFile, format, newFile, newFormat)
        case (false, false):
            let oldFile = try MappedFile(old)
            let newFile = try MappedFile(new)
            return (oldFile, reader.format(for: old, bytes: oldFile.head), newFile, reader.format(for: new, bytes: newFile.head))
        }
    }

    /// An engine that reads as `reader` does (its depth limit, YAML options and layout).
    func engine(key: IdentityKey, duplicates: DuplicatePolicy) -> Engine {
        var engine = Engine(key: key, differ: differ, duplicates: duplicates, options: reader.layout)
        engine.maxDepth = reader.json.maxDepth
        engine.yaml = reader.yaml
        return engine
    }

    /// Both inputs as the engine reads them (`DocumentReader.opened`), on two cores: a CSV
    /// input is turned into JSON text, OLD's error first.
    func openedAtOnce(_ old: (MappedFile, InputFormat), _ new: (MappedFile, InputFormat)) throws(ListDiffError) -> (
        (MappedFile, InputFormat), (MappedFile, InputFormat)
    ) {
        let reader = reader
        let (a, b) = Concurrently.both(
            { () throws(ListDiffError) in try reader.opened(old.0, old.1) },
            { () throws(ListDiffError) in try reader.opened(new.0, new.1) })
        return (try a.get(), try b.get())
    }

    /// Diffs the files at two paths.
    ///
    /// - Throws: a `ListDiffError` naming the file, and the line and column where they
    ///   apply: an input that cannot be read or parsed, a record without its key (the
    ///   message names the fields that would key both files), a repeated key under
    ///   `DuplicatePolicy.error`, inputs of different shapes.
    public func diff(oldPath: String, newPath: String) throws(ListDiffError) -> Changeset {
        try diff(old: oldPath, new: newPath).changeset
    }

    /// Diffs two documents held as bytes, as `diff(oldPath:newPath:)` diffs files. The names
    /// stand for the inputs in errors, and their extensions choose the format when the
    /// differ has none.
    public func diff(old: [UInt8], new: [UInt8], oldName: String = "old", newName: String = "new") throws(ListDiffError)
        -> Changeset
    {
        func open() -> Inputs {
            let oldFile = MappedFile(name: oldName, bytes: old), newFile = MappedFile(name: newName, bytes: new)
            return (oldFile, reader.format(for: oldName, bytes: oldFile.head), newFile, reader.format(for: newName, bytes: newFile.head))
        }
        do {
            let (oldFile, oldFormat, newFile, newFormat) = open()
            return try diffOpened(oldFile, oldFormat, newFile, newFormat).changeset
        } catch {
            throw withCandidates(error, open: open)
        }
    }

    /// Diffs two files. A record without its key is an error that names the fields that
    /// would key both files (`keyCandidates`).
    package func diff(old: String, new: String) throws(ListDiffError) -> Result {
        if sorted {
            try checkSorted(old, new)
            var merge = SortedMerge(key: reader.key, memberOrder: differ.memberOrder, progress: progress)
            merge.comparison = differ.comparison
            merge.renames = differ.renames
            merge.maxDepth = reader.json.maxDepth
            return Result(changeset: try merge.diff(old: old, new: new))
        }
        if let partitions = try spillPartitions(old: old, new: new) {
            do {
                return try diffSpilling(old: old, new: new, partitions: partitions)
            } catch {
                // Under the default budget, what does not spill is diffed in memory.
                if !(error.notSpillable && memoryLimit?.isExplicit == false) {
                    throw withCandidates(error) { () throws(ListDiffError) in try open(old, new) }
                }
            }
        }
        do {
            let (oldFile, oldFormat, newFile, newFormat) = try open(old, new)
            return try diffOpened(oldFile, oldFormat, newFile, newFormat)
        } catch {
            throw withCandidates(error) { () throws(ListDiffError) in try open(old, new) }
        }
    }

    /// Reads the file at `path` as `diff(old:new:)` reads an input, on the same engine: its
    /// format, its layout, every record's key, and repeated keys (unless they are matched by
    /// occurrence). Returns how many records it holds.
    ///
    /// - Throws: the first problem, as the diff would throw it: malformed text, a shape with
    ///   no list of records where one is looked for, a record without its key (naming the
    ///   fields that would key the file), a key found twice.
    package func check(_ path: String) throws(ListDiffError) -> Int {
        try checkedSide(path).count
    }

    /// The file at `path` read and keyed as `check` reads it.
    func checkedSide(_ path: String) throws(ListDiffError) -> Engine.Side {
        try checkedSide(try MappedFile(path), path)
    }

    /// `checkedSide(_:)` of a file read already: standard input can be read only once.
    func checkedSide(_ file: MappedFile, _ path: String) throws(ListDiffError) -> Engine.Side {
        let format = reader.format(for: path, bytes: file.head)
        do {
            let (opened, openedFormat) = try reader.opened(file, format)
            var engine = engine(key: reader.key, duplicates: reader.duplicates)
            engine.parts = parts
            let (side, _) = try engine.keyedSide(opened, openedFormat)
            try opened.checkIntact()
            return side
        } catch {
            throw withCandidates(error, inputs: "the file") { () throws(ListDiffError) in (file, format, file, format) }
        }
    }

    /// Every problem a diff would refuse the file at `path` for, up to `limit`: none when it
    /// reads. Malformed text and a wrong shape stop the reading, so they are one problem. A
    /// key problem (a record without its key, two records with one key) does not: after the
    /// first, every record's key is checked, and each other problem follows in record order.
    package func problems(_ path: String, limit: Int = 1000) -> [ListDiffError] {
        // (Read once, so that standard input is checked whole too.)
        let file: MappedFile
        let first: ListDiffError
        do {
            file = try MappedFile(path)
        } catch {
            return [error]
        }
        do {
            _ = try checkedSide(file, path)
            return []
        } catch {
            first = error
        }
        guard first.kind == .key, !reader.key.isWholeRecord, limit > 1 else { return [first] }
        do {
            let (opened, format) = try reader.opened(file, reader.format(for: path, bytes: file.head))
            let engine = engine(key: reader.key, duplicates: reader.duplicates)
            let side = try engine.side(opened, format, against: nil, KeyHashing())
            let rest = try engine.keyProblems(side, duplicates: reader.duplicates != .match, limit: limit)
            return [first] + rest.filter { $0.location != first.location }.prefix(limit - 1)
        } catch {
            return [first]
        }
    }

    /// Refuses what the streaming merge cannot do. It reads two plain NDJSON lists, each
    /// key once and in order, so a layout, repeated keys and a sequence (the whole record as
    /// its key) do not apply.
    func checkSorted(_ old: String, _ new: String) throws(ListDiffError) {
        let layout = reader.layout
        if layout.path != nil || layout.sectionKey != nil || layout.items != nil {
            throw ListDiffError(.usage, "--sorted diffs plain NDJSON lists; --path, --section-key and --items do not apply")
        }
        if reader.duplicates == .match {
            throw ListDiffError(.usage, "--sorted refuses repeated keys; --duplicates match does not apply")
        }
        if reader.key.isWholeRecord {
            throw ListDiffError(.usage, "--sorted merges by key; --key . diffs a sequence, which needs both lists whole")
        }
        for file in [old, new] where (reader.format ?? InputFormat.fromExtension(of: file)) != .ndjson {
            throw ListDiffError(
                .usage, "--sorted streams NDJSON: '\(file)' is not .ndjson or .jsonl (or use --input-format ndjson)")
        }
    }

    package func diffOpened(
        _ oldFile: MappedFile, _ oldFormat: InputFormat, _ newFile: MappedFile, _ newFormat: InputFormat
    ) throws(ListDiffError) -> Result {
        try diffOpened(oldFile, oldFormat, news: [(newFile, newFormat)])[0]
    }

    /// OLD as one value, read again from the bytes the diff read (standard input too), for
    /// an output made from the whole document (a merge patch).
    ///
    /// - Throws: what reading OLD throws; a `.usage` error for a result that kept no record
    ///   of OLD (a streaming diff).
    package func oldDocument(of result: Result) throws(ListDiffError) -> Value {
        guard let (side, _) = result.old else {
            throw ListDiffError(.usage, "this diff streamed its inputs and kept no copy of OLD to read whole")
        }
        return try reader.root(Array(side.file.bytes), side.format, name: side.file.name).0
    }

    /// The merge patch renderer for a result: from the records that changed, for a map of
    /// records; else from OLD read whole (`oldDocument(of:)`).
    package func mergePatchRenderer(for result: Result) throws(ListDiffError) -> MergePatchRenderer {
        if MergePatchRenderer.mapPatchApplies(result.changeset), let (side, _) = result.old {
            let records = side.records
            return MergePatchRenderer { (r: Int) throws(ListDiffError) -> Value in try records.value(r) }
        }
        return MergePatchRenderer(old: try oldDocument(of: result))
    }

    /// Diffs the file at `old` to each file at `news`, OLD scanned once (a merge diffs BASE
    /// to OURS and THEIRS). Each result is the one `diff(old:new:)` gives for its pair.
    package func diffs(old: String, news: [String]) throws(ListDiffError) -> [Result] {
        if sorted || !emptyPaths.isEmpty {
            var results: [Result] = []
            for new in news { results.append(try diff(old: old, new: new)) }
            return results
        }
        do {
            let oldFile = try MappedFile(old)
            var opened: [(MappedFile, InputFormat)] = []
            for new in news {
                let newFile = try MappedFile(new)
                opened.append((newFile, reader.format(for: new, bytes: newFile.head)))
            }
            return try diffOpened(oldFile, reader.format(for: old, bytes: oldFile.head), news: opened)
        } catch {
            // (A missing key's candidates are those of OLD and the file the error is in.)
            let other = news.first { $0 == error.file } ?? news[0]
            throw withCandidates(error) { () throws(ListDiffError) in try open(old, other) }
        }
    }

    func diffOpened(_ oldFile: MappedFile, _ oldFormat: InputFormat, news: [(MappedFile, InputFormat)]) throws(ListDiffError)
        -> [Result]
    {
        let written = oldFormat
        var opened: (MappedFile, InputFormat), openedNews: [(MappedFile, InputFormat)] = []
        if news.count == 1 {
            let (a, b) = try openedAtOnce((oldFile, oldFormat), news[0])
            (opened, openedNews) = (a, [b])
        } else {
            opened = try reader.opened(oldFile, oldFormat)
            for (file, format) in news { openedNews.append(try reader.opened(file, format)) }
        }
        var engine = engine(key: reader.key, duplicates: reader.duplicates)
        engine.progress = progress
        engine.parts = parts
        engine.splitsFrom = splitsFrom
        engine.keyHashing = keyHashing
        engine.forShard = forShard
        return try engine.diffsKeepingSides(old: opened.0, opened.1, news: openedNews).map { (made, side, newSide) in
            var changeset = made
            reader.record(oldFormat: written, in: &changeset.layout)
            let records = side.records
            var result = Result(
                changeset: changeset,
                oldRecords: Replay.Records { r in
                    guard r < records.count, let value = try? records.value(r) else { return nil }
                    return (value, side.occurrence(r) ?? 0)
                })
            result.old = (side, written)
            result.new = newSide
            let locateOld = side.locator, locateNew = newSide.locator
            result.locator = { places, new in new ? locateNew(places) : locateOld(places) }
            return result
        }
    }
}
