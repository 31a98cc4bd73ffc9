// A diff of inputs larger than memory. Both inputs are read in chunks and their records
// written, by key hash, to partition files in a temporary folder: a record's two versions
// meet in one partition. Each partition is diffed on its own, as a shard of the diff is
// (`Shards.swift`), and the partitions are joined as shards are: the moves come from one
// pass over every matched pair of positions, and the fingerprints from every record's hash.
// So the changeset is the one the diff in memory gives, byte for byte.

/// How much memory a diff may use: past it, the diff spills its inputs to disk.
public struct MemoryLimit: Sendable, Hashable, CustomStringConvertible {
    /// The budget, in bytes.
    public var bytes: Int
    /// Whether it was asked for. Then inputs the spill cannot cut are refused rather than
    /// read whole; under the default they are read whole, as before.
    public var isExplicit: Bool

    /// A budget of `bytes`.
    public init(bytes: Int, isExplicit: Bool = true) {
        self.bytes = bytes
        self.isExplicit = isExplicit
    }

    /// The default: half the machine's memory (4 GiB where it cannot be told).
    public static var standard: MemoryLimit {
        MemoryLimit(bytes: (SystemCalls.physicalMemory() ?? 8 << 30) / 2, isExplicit: false)
    }

    /// Reads a size: a whole number of bytes, or with `K`, `M`, `G` or `T` (powers of 1024,
    /// an optional `i` and `B` after: `512M`, `1GiB`). At least 1 MiB.
    public init(parsing text: String) throws(ListDiffError) {
        let units: [(String, Int)] = [("T", 40), ("G", 30), ("M", 20), ("K", 10), ("", 0)]
        var body = text.uppercased()
        for suffix in ["IB", "B"] where body.hasSuffix(suffix) && body.count > suffix.count {
            body.removeLast(suffix.count)
            break
        }
        for (unit, shift) in units where body.hasSuffix(unit) {
            let digits = body.dropLast(unit.count)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int(digits), n >= 0, n <= Int.max >> shift else { break }
            self.init(bytes: n << shift)
            guard bytes >= Self.least else {
                throw ListDiffError(.usage, "--memory-limit must be at least 1M; got '\(SafeText.escape(text))'")
            }
            return
        }
        throw ListDiffError(
            .usage, "--memory-limit takes a size: bytes, or a number with K, M, G or T (such as 512M or 2G); got '\(SafeText.escape(text))'"
        )
    }

    /// The smallest budget: a spill's own buffers need some room.
    static let least = 1 << 20

    public var description: String {
        for (unit, shift) in [("T", 40), ("G", 30), ("M", 20), ("K", 10)] where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return "\(bytes)"
    }
}

/// A temporary folder that holds a spill's partition files. It is removed when the diff
/// ends, and by `SignalCleanup` when a signal ends the run.
final class SpillFolder {
    let path: String
    let count: Int
    private var entries: [SignalCleanup.Entry?] = []
    private var files: [String] = []

    /// A new folder under `parent` (else `TMPDIR`, else `/tmp`), for `count` partitions.
    init(partitions count: Int, in parent: String? = nil) throws(ListDiffError) {
        let base = parent ?? SystemCalls.environment("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        guard let (_, path, entry) = SignalCleanup.makeTemporary(base + (base.hasSuffix("/") ? "" : "/") + "listdiff-spill-", folder: true)
        else {
            throw ListDiffError(
                .io, file: base, "cannot make a folder for the spill files: \(InputFile.errnoText()) (set TMPDIR to a folder with room)")
        }
        self.path = path
        self.count = count
        entries.append(entry)
    }

    /// The path of a partition's file: `side` is `old` or `new`, `kind` `records` or `index`.
    func file(_ partition: Int, _ side: String, _ kind: String) -> String {
        "\(path)/\(side)-\(partition).\(kind)"
    }

    /// Creates a file in the folder, removed with it.
    func create(_ file: String, buffer: Int) throws(ListDiffError) -> SpillWriter {
        // (Named for removal first: a signal between the two leaves nothing behind.)
        files.append(file)
        entries.append(SignalCleanup.add(file))
        let fd = SystemCalls.createForWriting(file)
        guard fd >= 0, SystemCalls.close(fd) else { throw SpillWriter.failure(file, folder: path) }
        return SpillWriter(path: file, folder: path, buffer: buffer)
    }

    /// Empties a file made in the folder.
    func empty(_ file: String) throws(ListDiffError) {
        SystemCalls.remove(file)
        let fd = SystemCalls.createForWriting(file)
        guard fd >= 0, SystemCalls.close(fd) else { throw SpillWriter.failure(file, folder: path) }
    }

    /// Removes every file and the folder (once: the diff's end and `deinit` both ask).
    func remove() {
        guard !entries.isEmpty else { return }
        for file in files { SystemCalls.remove(file) }
        var bytes = Array(path.utf8CString)
        bytes.withUnsafeMutableBufferPointer { SystemCalls.removeFolder($0.baseAddress!) }
        for entry in entries { SignalCleanup.forget(entry) }
        entries = []
        files = []
    }

    deinit { remove() }
}

/// Writes a spill file through a buffer. The file is open only while a full buffer is
/// written, so that a thousand partitions do not hold a thousand descriptors. A write that
/// fails (a full disk) is a clean error that names the folder.
final class SpillWriter {
    let path: String
    /// The records written so far (the caller counts them).
    var lines = 0
    private let folder: String
    private var buffer: [UInt8] = []
    private let size: Int

    init(path: String, folder: String, buffer: Int) {
        self.path = path
        self.folder = folder
        size = buffer
    }

    static func failure(_ path: String, folder: String) -> ListDiffError {
        if SystemCalls.diskWasFull {
            return ListDiffError(
                .io, file: folder,
                "the disk is full: the spill files do not fit (set TMPDIR to a folder with room, or raise --memory-limit)")
        }
        return ListDiffError(.io, file: path, "cannot write a spill file: \(InputFile.errnoText())")
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) throws(ListDiffError) {
        if buffer.count + bytes.count > size { try flush() }
        buffer.append(contentsOf: bytes)
    }

    func append(contentsOf text: String) throws(ListDiffError) {
        for byte in text.utf8 { try append(byte) }
    }

    func append(_ byte: UInt8) throws(ListDiffError) {
        if buffer.count >= size { try flush() }
        buffer.append(byte)
    }

    func append<T: FixedWidthInteger>(integer value: T) throws(ListDiffError) {
        if buffer.count + MemoryLayout<T>.size > size { try flush() }
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }

    /// Writes the buffer at the file's end.
    func flush() throws(ListDiffError) {
        guard !buffer.isEmpty else { return }
        let fd = SystemCalls.openForAppending(path)
        guard fd >= 0 else { throw Self.failure(path, folder: folder) }
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { SystemCalls.writeBytes(fd, from: $0.baseAddress! + done, count: $0.count - done) }
            if n < 0, SystemCalls.wasInterrupted { continue }
            guard n > 0 else {
                let error = Self.failure(path, folder: folder)
                SystemCalls.close(fd)
                throw error
            }
            done += n
        }
        guard SystemCalls.close(fd) else { throw Self.failure(path, folder: folder) }
        buffer = []
    }

    /// Writes what is left.
    func close() throws(ListDiffError) { try flush() }
}

extension FileDiffer {
    /// Why the diff of `old` and `new` cannot spill, or nil when it can: what the spill
    /// does not cut (a layout, `--key .`, an algorithm other than Heckel's), and inputs
    /// whose records are not a list at the top.
    func spillRefusal(_ heads: [(name: String, format: InputFormat, head: [UInt8])]) -> String? {
        let layout = reader.layout
        if keepsOld { return "the output is made from OLD whole (-f replay, -f mergepatch), which a spill does not keep" }
        if layout.sectionKey != nil || layout.items != nil {
            for (name, format, _) in heads where format == .csv || format == .tsv {
                return "'\(SafeText.escape(name))' is CSV or TSV: a list of section objects spills in JSON, NDJSON and YAML"
            }
        }
        if let path = layout.path {
            if path.isPattern { return "a `*` in --path names many lists, sections the spill does not cut out" }
            for (name, format, _) in heads where format != .json && format != .yaml {
                return "'\(SafeText.escape(name))' is not JSON or YAML: a list at --path spills in JSON and YAML only"
            }
        }
        if reader.key.isWholeRecord { return "--key . diffs a sequence, which needs both lists whole" }
        if !(differ.algorithm is HeckelDiff) {
            return "the spill pairs records as Heckel's algorithm does; --algorithm \(differ.algorithm.name) needs both lists whole"
        }
        for (name, format, head) in heads where !RecordChunks.cuts(format, head: head, path: layout.path != nil) {
            if layout.path != nil {
                return "'\(SafeText.escape(name))' is not a JSON object or list, or a YAML block collection, where --path could lead"
            }
            return
                "'\(SafeText.escape(name))' is not a list or a map of records at the top (a JSON array or object, a YAML block sequence or mapping at the left margin or a stream of documents, NDJSON, CSV or TSV)"
        }
        return nil
    }

    /// Whether the diff of `old` and `new` spills, and into how many partitions: when the
    /// inputs are larger than the budget allows (both sizes known), or when a budget was
    /// asked for and an input is a stream. Nil: the diff runs in memory.
    ///
    /// - Throws: a `.usage` error when a budget was asked for and the inputs need it, but
    ///   the spill cannot cut them (`spillRefusal`).
    func spillPartitions(old: String, new: String) throws(ListDiffError) -> Int? {
        guard let limit = memoryLimit, !sorted, emptyPaths.isEmpty else { return nil }
        var total = 0
        var streamed = false
        var heads: [(String, InputFormat, [UInt8])] = []
        for path in [old, new] {
            // (A stream is not opened here: a pipe or FIFO is read once, by the diff.)
            guard path != "-", SystemCalls.status(ofPath: path)?.kind == .regular else {
                streamed = true
                continue
            }
            let (fd, status) = try InputFile.open(path)
            defer { SystemCalls.close(fd) }
            guard let status, status.kind == .regular else {
                streamed = true
                continue
            }
            total += status.size
            var head = [UInt8](repeating: 0, count: RecordChunks.headBytes)
            let n = head.withUnsafeMutableBytes { SystemCalls.readBytes(fd, into: $0.baseAddress!, count: $0.count, at: 0) }
            head.removeSubrange(max(n, 0)...)
            heads.append((path, reader.format(for: path, bytes: head), head))
        }
        // The diff in memory needs about its inputs' size again for its tables.
        let needs = total * Self.spillFactor
        guard needs > limit.bytes || streamed && limit.isExplicit else { return nil }
        if let why = spillRefusal(heads) {
            guard limit.isExplicit else { return nil }
            throw Self.refusal(why)
        }
        // Partitions of about a sixteenth of the budget each; a stream counts as the budget.
        let share = max(limit.bytes / 16, 64)
        let bytes = streamed ? max(total, limit.bytes) * 2 : total
        return min(max(2, (bytes * Self.spillFactor + share - 1) / share), 1024)
    }

    /// How many times its inputs' size a diff in memory is taken to need.
    static let spillFactor = 2

    /// One input read in chunks and its records written to the partition files: for each
    /// record, its text as one line of JSON in its partition's records file, and its
    /// number and place in the partition's index file.
    struct SplitSide {
        var count = 0
        var format: InputFormat = .ndjson
        /// Whether the records are a map's members (else a list's): each partition is then
        /// a JSON object, a member a line.
        var map = false
        /// How many records each partition holds.
        var partitionCounts: [Int] = []
        /// The format of the partition files: a map's are JSON objects, a list's NDJSON.
        var partitionFormat: InputFormat { map ? .json : .ndjson }
        /// The first record without a usable key: its error, thrown once the whole input
        /// has been read (a malformed text later in it comes first, as in memory).
        var unkeyed: ListDiffError?
        /// Records in sections (an object of lists): where each list starts among the
        /// records, and its name, in order, over the whole input; nil for a list or a map.
        /// (Each chunk's errors name its records by them.)
        var sections: (starts: [Int], names: [Value?])? = nil
        /// A list's name given twice, in two chunks: its error, thrown once the whole input
        /// has been read, as the reader throws it once it has read the whole object.
        var repeatedSection: ListDiffError?
        /// Records in sections: how they are laid out (an object of lists, or a list of
        /// section objects), as the first chunk's reader found it.
        var shape: Layout.Shape? = nil
        /// A list of section objects: each section object with its records list emptied,
        /// as the reader of the whole input gives it.
        var headers: [Value?] = []
        /// A list of section objects: the number of the section each name was first given to.
        var sectionNumbers: [String: Int] = [:]

        /// The sections as the engine holds them, once the side is read.
        var sectionList: [Section]? {
            sections.map { sections in
                sections.starts.indices.map { s in
                    let end = s + 1 < sections.starts.count ? sections.starts[s + 1] : count
                    return Section(
                        name: sections.names[s], header: headers.indices.contains(s) ? headers[s] : nil,
                        records: sections.starts[s]..<end, offset: 0)
                }
            }
        }

        /// Takes in a chunk's sections: its first goes on from the last one taken when the
        /// cut fell inside that list. Finds a name given in an earlier chunk again.
        ///
        /// - Throws: a refusal (`notSpillable`) where a section object cut in two names a
        ///   member on both sides of the cut, which its reader would have found.
        mutating func add(_ side: Engine.Side, _ chunk: RecordChunks.Chunk, seen: inout [String: SourceLocation])
            throws(ListDiffError)
        {
            // (One copy of the lists while they grow.)
            var (starts, names) = sections ?? ([], [])
            sections = nil
            var start = self.count
            let continues = chunk.continuesSection && !starts.isEmpty
            if case .sectionList(_, let items) = side.layout.shape {
                // A list of section objects: its names may repeat. A section cut in two
                // takes the members that follow its records list from the chunk that ends it.
                for (s, section) in side.sections.enumerated() {
                    defer { start += section.records.count }
                    if s == 0, continues {
                        if case .object(var object)? = headers.last, case .object(let piece)? = section.header,
                            let list = piece.members.firstIndex(where: { $0.key.scalarEquals(items) })
                        {
                            for member in piece.members[(list + 1)...] {
                                if object.members.contains(where: { $0.key == member.key }) {
                                    sections = (starts, names)
                                    throw FileDiffer.refusal(
                                        "a section object names \(JSONWriter.compact(.string(member.key))) before its records and again after them",
                                        file: side.file.name)
                                }
                                object.members.append(member)
                            }
                            headers[headers.count - 1] = .object(object)
                        }
                        continue
                    }
                    starts.append(start)
                    names.append(section.name)
                    headers.append(section.header)
                    // (A name given twice is an error, before the records of its second section.)
                    if repeatedSection == nil, let name = section.name {
                        if let earlier = sectionNumbers.updateValue(names.count - 1, forKey: Fingerprint.of(name)) {
                            repeatedSection = ListDiffError(
                                .shape, file: side.file.name,
                                location: side.file.location(of: section.offset).map(chunk.placed),
                                Engine.repeatedSection(name, earlier, names.count - 1))
                        }
                    }
                }
                sections = (starts, names)
                return
            }
            // (Where each new list's name is, in one pass over the chunk's text.)
            let yaml = side.format == .yaml
            let offsets = side.sections.dropFirst(continues ? 1 : 0).map {
                yaml
                    ? RecordChunks.keyLine(before: $0.offset, in: side.file.bytes)
                    : RecordChunks.nameStart(beforeList: $0.offset, in: side.file.bytes)
            }
            let at = side.file.locations(of: offsets)
            var named: [String: SourceLocation] = [:]
            for (s, section) in side.sections.enumerated() {
                defer { start += section.records.count }
                if s == 0, continues { continue }
                starts.append(start)
                names.append(section.name)
                let id = Fingerprint.of(section.name ?? .null)
                let place = at[s - (continues ? 1 : 0)].map(chunk.placed) ?? SourceLocation(line: 0, column: 0)
                if repeatedSection == nil, let first = seen[id], case .string(let text)? = section.name {
                    repeatedSection = ListDiffError(
                        .syntax, file: side.file.name, location: place,
                        yaml
                            ? YAMLRules.duplicateKey(text, first: first)
                            : "\(JSONParser.repeatedName(text)) \(ListDiffError.firstAt(first))")
                }
                named[id] = place
            }
            // (Names within a chunk are the reader's to check.)
            seen.merge(named) { first, _ in first }
            sections = (starts, names)
        }
    }

    /// The error for inputs that do not spill: under the default budget, the diff runs in
    /// memory instead (`notSpillable`).
    static func refusal(_ why: String, file: String? = nil, at: SourceLocation? = nil) -> ListDiffError {
        RecordChunks.refusal(why, file: file, at: at)
    }

    func split(_ path: String, side name: String, into folder: SpillFolder, chunkBytes: Int) throws(ListDiffError) -> SplitSide {
        let (fd, _) = try InputFile.open(path)
        defer { if fd != SystemCalls.standardInput { SystemCalls.close(fd) } }
        var chunks = try RecordChunks(fd: fd, name: path, chunkBytes: chunkBytes, path: reader.layout.path) {
            head throws(ListDiffError) in
            let format = reader.format(for: path, bytes: head)
            if let why = spillRefusal([(path, format, head)]) { throw Self.refusal(why) }
            return format
        }
        if let key = reader.layout.sectionKey, let items = reader.layout.items {
            // (With the layout given, the first chunk may be cut inside a section too: only a
            // layout found needs whole section objects to be found from.)
            chunks.cutSectionObjects(key: key, items: items)
        }
        var out = SplitSide(format: chunks.format)
        // Each partition's buffers share an eighth of the budget.
        let buffer = min(max((memoryLimit ?? .standard).bytes / 8 / (4 * folder.count), 1 << 12), 1 << 18)
        var records: [SpillWriter] = [], index: [SpillWriter] = []
        for p in 0..<folder.count {
            records.append(try folder.create(folder.file(p, name, "records"), buffer: buffer))
            index.append(try folder.create(folder.file(p, name, "index"), buffer: buffer))
        }
        let engine = engine(key: reader.key, duplicates: reader.duplicates)
        var chunkCount = 0
        // An object of lists: where each list's name was first given.
        var names: [String: SourceLocation] = [:]
        var first = true
        while let chunk = try chunks.next() {
            let file = MappedFile(name: path, owning: chunk.text)
            // (A later part of NDJSON starts at a line inside the input; other formats lead
            // every part with the input's own start, or a header that begins as it does.)
            file.startsMidText = out.format == .ndjson && !first
            first = false
            if chunks.documents, reader.layout.sectionKey != nil || reader.layout.items != nil {
                // (A part may hold one document, which is no stream: the whole input is one.)
                throw Layout.streamRefuses(path)
            }
            file.origin = RecordOrigin(first: out.count - chunk.leading)
            file.origin?.stream = chunks.documents
            do throws(ListDiffError) {
                let (opened, format) = try reader.opened(file, out.format)
                let side = try engine.side(opened, format, against: nil, KeyHashing())
                // (An empty object is an empty map, as it is beside a map in memory.)
                let map = side.layout.shape == .map || side.layout.shape == .objectOfLists && side.sections.isEmpty
                var objects: (key: String, items: String)? = nil
                if case .sectionList(let key, let items) = side.layout.shape { objects = (key, items) }
                let sectioned = side.layout.shape == .objectOfLists && !side.sections.isEmpty || objects != nil
                if case .sectionList? = out.shape, side.layout.shape == .list, side.count == 0, chunkCount > 0 {
                    // (Only blank lines between NDJSON section objects: nothing to add.)
                    continue
                }
                // (An object read as a list is one record, which holds the key: it is not cut.)
                guard side.layout.path == reader.layout.path, side.layout.shape == .list || map || sectioned,
                    sectioned || side.sections.count <= 1, !map || side.count == 0 || side.layout.shape == .map,
                    map || !chunks.cutsAnObject && !chunks.cutsAMapping || chunk.isWhole || sectioned && chunks.cutsSections,
                    chunkCount == 0 || map == out.map && (sectioned ? side.layout.shape : nil) == out.shape
                else {
                    if chunkCount > 0, let shape = out.shape {
                        // (Each chunk's reader finds the layout again; the whole input's reader
                        // may find another, or none, from all the section objects.)
                        throw Self.refusal(
                            "its first part holds \(Layout(path: reader.layout.path, shape: shape)), a later one \(side.layout)",
                            file: path)
                    }
                    throw Self.refusal(
                        "the records are not one list, one map of records or one object of lists (\(side.layout))", file: path)
                }
                out.map = map
                chunkCount += 1
                if sectioned {
                    out.shape = side.layout.shape
                    try out.add(side, chunk, seen: &names)
                    side.file.origin?.sections = out.sections
                    // (Later chunks may then start inside a section's records list.)
                    if chunkCount == 1, let objects { chunks.cutSectionObjects(key: objects.key, items: objects.items) }
                }
                if out.unkeyed == nil {
                    // (Up to the first record without its key: a key repeated before it is
                    // the error, as in memory.)
                    try write(
                        side, chunk, first: out.count - chunk.leading, from: chunk.leading, upTo: side.firstUnkeyed ?? side.count,
                        records, index)
                    if let r = side.firstUnkeyed { out.unkeyed = chunk.placed(try engine.unkeyedError(side, r)) }
                }
                out.count += side.count - chunk.leading
            } catch {
                if error.notSpillable { throw error }
                if error.ofSectionObjects, !chunk.isWhole {
                    // (The reader of the part names its sections by their number in the part.)
                    throw Self.refusal(
                        "the section objects here do not read as one list of section objects with those before and after them",
                        file: path, at: chunk.placed(error).location)
                }
                if out.format == .ndjson, error.kind == .syntax, !chunk.isLast, let at = error.location,
                    case let lines = chunk.text.count(where: { $0 == 0x0A }), at == SourceLocation(line: lines + 1, column: 1)
                {
                    // The part ends at a line break inside a record. The input's reader reads
                    // on into the next line, and names what it finds there, or the break.
                    let lineStart = (chunk.text.dropLast().lastIndex(of: 0x0A) ?? -1) + 1
                    let column = chunk.text[lineStart..<(chunk.text.count - 1)].count { $0 & 0xC0 != 0x80 } + 1
                    throw Self.refusal(
                        JSONParser.recordPastItsLine, file: path, at: chunk.placed(SourceLocation(line: lines, column: column)))
                }
                if error.kind == .shape, chunks.cutsAnObject, reader.layout.path == nil, !chunk.isWhole {
                    // An object at the top is a map of records, or one record when it holds
                    // the key, perhaps in a part not read yet: a part that is neither says
                    // nothing of the whole.
                    throw Self.refusal("an object at the top whose parts read as neither a map of records nor one record", file: path)
                }
                var placed = error.file == path ? chunk.placed(error) : error
                if out.format == .yaml, out.count > 0, error.message.hasSuffix(YAMLRules.noAnchor) {
                    // (Its anchor may be in an earlier record, which this chunk does not hold.)
                    placed = Self.refusal(
                        "\(placed.message) in its own records; a spill reads YAML records apart, so an alias cannot reach another record",
                        file: path, at: placed.location)
                }
                throw placed
            }
        }
        out.partitionCounts = records.map(\.lines)
        for writer in records where out.map {
            // (A map's partition is an object: `{` led its first member, `,` each other.)
            try writer.append(contentsOf: writer.lines == 0 ? "{}\n" : "}\n")
        }
        for writer in records + index { try writer.close() }
        return out
    }

    /// Writes each record of a chunk to its partition.
    private func write(
        _ side: Engine.Side, _ chunk: RecordChunks.Chunk, first: Int, from start: Int, upTo end: Int, _ records: [SpillWriter],
        _ index: [SpillWriter]
    ) throws(ListDiffError) {
        let documented = side.hashing == KeyHashing() && side.table.keyHashes.count == side.count
        let asText = side.format != .yaml
        // A map's record is its member: its name, from its opening quote, to its value's end
        // (in YAML, from its key).
        let names = side.records.names.map { names in (0..<end).map { names.starts[$0] } }
        // (The places of all the chunk's records in one pass over its text.)
        let places = side.records.file.locations(of: names ?? (0..<end).map { side.records.starts[$0] })
        for r in start..<end {
            let hash = documented ? side.table.keyHashes[r] : KeyHash.of(try side.records.key(r, reader.key))
            let p = KeyHash.shard(hash, of: records.count)
            let out = records[p]
            func spaced(_ text: UnsafeBufferPointer<UInt8>) throws(ListDiffError) {
                // JSON holds a line break only between tokens, where a space reads alike.
                guard let base = text.baseAddress else { return }
                var start = 0
                while start < text.count, let found = SystemCalls.find(0x0A, in: base + start, count: text.count - start) {
                    let k = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                    try out.append(UnsafeBufferPointer(rebasing: text[start..<k]))
                    try out.append(UInt8(ascii: " "))
                    start = k + 1
                }
                try out.append(UnsafeBufferPointer(rebasing: text[start...]))
            }
            func line(_ text: UnsafeBufferPointer<UInt8>) throws(ListDiffError) {
                try spaced(text)
                try out.append(0x0A)
            }
            // A record read from YAML, written as one line of JSON. (The chunk's records are
            // read in one walk, not one walk each.)
            func json(_ r: Int) throws(ListDiffError) {
                let value: Value
                if let yaml = side.records as? YAMLRecords { value = try yaml.fromWhole(r) } else { value = try side.records.value(r) }
                if value.firstNonFiniteNumber != nil {
                    // (Under the default budget, such input is diffed in memory.)
                    let placed = chunk.placed(side.error(at: r, ""))
                    throw Self.refusal(
                        "a record holds a number JSON cannot spell (.inf or .nan), which the spill files cannot hold", file: placed.file,
                        at: placed.location)
                }
                let text = Array(JSONWriter.compact(value).utf8)
                try text.withUnsafeBufferPointer { b throws(ListDiffError) in try line(b) }
            }
            defer { out.lines += 1 }
            if let names, asText {
                // `{` before the partition's first member, `,` before each other; the
                // name, its colon and its value, as written.
                try out.append(UInt8(ascii: out.lines == 0 ? "{" : ","))
                let bytes = side.records.file.bytes
                try spaced(UnsafeBufferPointer(rebasing: bytes[names[r]..<side.records.starts[r]]))
                try line(side.records.bytes(r))
            } else if asText {
                try line(side.records.bytes(r))
            } else if names != nil {
                // A YAML map's member: its name as a JSON string, and its record as JSON.
                try out.append(UInt8(ascii: out.lines == 0 ? "{" : ","))
                try out.append(contentsOf: JSONWriter.compact(.string(try side.records.memberName(r))) + ":")
                try json(r)
            } else {
                try json(r)
            }
            let at = places[r].map(chunk.placed) ?? SourceLocation(line: 0, column: 0)
            try index[p].append(integer: Int64(first + r))
            try index[p].append(integer: Int64(at.line))
            try index[p].append(integer: Int64(at.column))
        }
    }

    /// A partition's index: each record's number and place in the input.
    static func readIndex(_ path: String) throws(ListDiffError) -> RecordOrigin {
        let bytes = try InputFile.read(path, text: false)
        var origin = RecordOrigin(numbers: [], locations: [])
        let count = bytes.count / 24
        origin.numbers.reserveCapacity(count)
        origin.locations.reserveCapacity(count)
        bytes.withUnsafeBytes { raw in
            for k in 0..<count {
                let number = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 24 * k, as: Int64.self))
                let line = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 24 * k + 8, as: Int64.self))
                let column = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 24 * k + 16, as: Int64.self))
                origin.numbers.append(Int(number))
                origin.locations.append(SourceLocation(line: Int(line), column: Int(column)))
            }
        }
        return origin
    }

    /// The diff of `old` and `new`, spilled into `count` partitions.
    func diffSpilling(old: String, new: String, partitions count: Int) throws(ListDiffError) -> Result {
        // (What the engine refuses of these settings, before anything is read.)
        try differ.check(key: reader.key, duplicates: reader.key.isWholeRecord ? .match : reader.duplicates)
        let limit = memoryLimit ?? .standard
        let folder = try SpillFolder(partitions: count, in: spillParent)
        defer { folder.remove() }
        let chunkBytes = max(limit.bytes / 32, 64)
        var files = self
        files.forShard = true
        files.memoryLimit = nil
        files.progress = nil
        files.reader.format = .ndjson
        // (The partitions hold the records alone: a list at --path, or a section's list, is
        // a list at their top.)
        files.reader.layout = LayoutOptions()
        // (The renames are paired once, over the whole changeset.)
        files.differ.renames = nil
        // As in memory, a side's record without its key and its repeated keys come in
        // record order (the records before the first without a key are in the partitions).
        func earliest(_ error: ListDiffError, _ split: SplitSide, side: String, name: String) throws(ListDiffError) -> ListDiffError {
            guard let repeated = try files.firstKeyError(in: folder, side: side, name: name, split),
                Self.rank(repeated, old: old).lexicographicallyPrecedes(Self.rank(error, old: old))
            else { return error }
            return repeated
        }
        // A side's first error: an object's list named twice is the reader's error, which
        // comes before the keys'; a section object's name given twice is a key error, which
        // comes in its place among the records'.
        func firstError(_ split: SplitSide, side: String, name: String) throws(ListDiffError) -> ListDiffError? {
            if let error = split.repeatedSection, split.shape == .objectOfLists { return error }
            let errors = [split.repeatedSection, split.unkeyed].compactMap { $0 }
            guard let error = errors.min(by: { Self.rank($0, old: old).lexicographicallyPrecedes(Self.rank($1, old: old)) }) else {
                return nil
            }
            return try earliest(error, split, side: side, name: name)
        }
        var oldSplit = try split(old, side: "old", into: folder, chunkBytes: chunkBytes)
        if let error = try firstError(oldSplit, side: "old", name: old) { throw error }
        progress?.lap("split OLD")
        files.reader.format = oldSplit.partitionFormat
        var newSplit: SplitSide
        do throws(ListDiffError) {
            newSplit = try split(new, side: "new", into: folder, chunkBytes: chunkBytes)
            if let error = try firstError(newSplit, side: "new", name: new) { throw error }
        } catch {
            // As in memory, a key OLD repeats comes before NEW's errors.
            if !error.notSpillable, let earlier = try files.firstKeyError(in: folder, side: "old", name: old, oldSplit) {
                throw earlier
            }
            throw error
        }
        progress?.lap("split NEW")
        // An empty object beside an object of lists holds no list, as in memory: its
        // partitions hold no record.
        for (side, other) in [("old", newSplit), ("new", oldSplit)] where other.shape == .objectOfLists {
            var split = side == "old" ? oldSplit : newSplit
            guard split.map, split.count == 0 else { continue }
            (split.map, split.sections, split.shape) = (false, ([], []), .objectOfLists)
            for p in 0..<count { try folder.empty(folder.file(p, side, "records")) }
            if side == "old" { oldSplit = split } else { newSplit = split }
        }
        if oldSplit.map != newSplit.map {
            throw Self.refusal("one input is a map of records and the other a list")
        }
        if oldSplit.shape != newSplit.shape {
            // As in memory: each side's repeated keys, then the two layouts.
            for (side, split, name) in [("old", oldSplit, old), ("new", newSplit, new)] {
                var reading = files
                reading.reader.format = split.partitionFormat
                if let error = try reading.firstKeyError(in: folder, side: side, name: name, split) { throw error }
            }
            let path = reader.layout.path
            throw Engine.shapesDiffer(
                old, Layout(path: path, shape: oldSplit.shape ?? .list), new, Layout(path: path, shape: newSplit.shape ?? .list))
        }
        // Records in sections: the sections are diffed here, once, and each partition's
        // records are placed in them.
        var sections: SpilledSections? = nil
        if let oldSections = oldSplit.sectionList, let newSections = newSplit.sectionList {
            sections = SpilledSections(
                old: oldSections, new: newSections, changes: try differ.diffSections(old: oldSections, new: newSections).0,
                layout: Layout(path: reader.layout.path, shape: oldSplit.shape ?? .objectOfLists))
        }
        let partitionFormat = oldSplit.partitionFormat
        var join: ShardJoin? = nil
        var firstError: (rank: [Int], error: ListDiffError)? = nil
        // A map's partition with no member on either side adds nothing: it is not read
        // (two empty objects read as no sections, not as maps).
        let empty = (0..<count).filter { oldSplit.map && oldSplit.partitionCounts[$0] == 0 && newSplit.partitionCounts[$0] == 0 }
        if empty.count == count {
            // Two empty objects: the diff of one partition's, which are the inputs' values.
            var result = try files.diffOpened(
                try MappedFile(folder.file(0, "old", "records"), name: old), partitionFormat,
                try MappedFile(folder.file(0, "new", "records"), name: new), partitionFormat)
            result.changeset.layout.path = reader.layout.path
            reader.record(oldFormat: oldSplit.format, in: &result.changeset.layout)
            return result
        }
        for p in 0..<count where !empty.contains(p) {
            let oldFile = try MappedFile(folder.file(p, "old", "records"), name: old)
            let newFile = try MappedFile(folder.file(p, "new", "records"), name: new)
            oldFile.origin = try Self.readIndex(folder.file(p, "old", "index"))
            newFile.origin = try Self.readIndex(folder.file(p, "new", "index"))
            oldFile.origin?.sections = oldSplit.sections
            newFile.origin?.sections = newSplit.sections
            let positions = ShardPositions(
                oldCount: oldSplit.count, newCount: newSplit.count, old: oldFile.origin!.numbers, new: newFile.origin!.numbers)
            do throws(ListDiffError) {
                let result = try files.diffOpened(oldFile, partitionFormat, newFile, partitionFormat)
                let shard = try files.shardChangeset(
                    result, shard: try Shard(index: p, of: count), positions: positions, names: (old, new), keys: false,
                    sections: sections)
                if join == nil { join = ShardJoin(shard, name: old, spilled: true) }
                try join!.add(shard, name: old)
            } catch {
                let error = try Self.worded(error, error.file == old ? oldSplit : newSplit, folder, p, error.file == old ? "old" : "new")
                // As in memory: OLD's errors before NEW's, each side's earliest first.
                let rank = Self.rank(error, old: old)
                if firstError.map({ rank.lexicographicallyPrecedes($0.rank) }) ?? true { firstError = (rank, error) }
            }
        }
        if let firstError { throw firstError.error }
        guard var join else { throw ListDiffError(.usage, "the spill made no partition") }
        for p in empty { join.addEmpty(p) }
        progress?.lap("diff \(count) partitions")
        var changeset = try join.finish { (moved: [(old: Int, new: Int)]) throws(ListDiffError) -> [ShardJoin.MovedKey] in
            try Self.keys(of: moved, in: folder, reader.key, name: new)
        }
        progress?.lap("join")
        changeset.layout.path = reader.layout.path
        reader.record(oldFormat: oldSplit.format, in: &changeset.layout)
        changeset.layout.note(yaml: reader.yaml.version, formats: [oldSplit.format, newSplit.format])
        if let rule = differ.renames { changeset = try changeset.pairingRenames(rule) }
        var result = Result(changeset: changeset)
        result.locator = try Self.recordPlaces(of: changeset, in: folder, sections: sections)
        return result
    }

    /// Where the changed records are in the inputs, read from the partitions' indexes
    /// before the folder goes: a place in a record is its record's start (the spill keeps
    /// no text to find a field in).
    static func recordPlaces(of changeset: Changeset, in folder: SpillFolder, sections: SpilledSections?) throws(ListDiffError)
        -> @Sendable ([RecordPlace], _ new: Bool) -> [SourceLocation?]
    {
        // (Records are numbered over the whole document, sections or not.)
        let starts = [sections?.oldStarts ?? [0], sections?.newStarts ?? [0]]
        @Sendable func number(_ p: RecordPosition, _ side: Int) -> Int { starts[side][p.section] + p.index }
        var wanted: [Set<Int>] = [[], []]
        for change in changeset.changes {
            if let p = change.old { wanted[0].insert(number(p, 0)) }
            if let p = change.new { wanted[1].insert(number(p, 1)) }
        }
        var found: [[Int: SourceLocation]] = [[:], [:]]
        for (s, side) in ["old", "new"].enumerated() where !wanted[s].isEmpty {
            for p in 0..<folder.count {
                let origin = try readIndex(folder.file(p, side, "index"))
                for (number, at) in zip(origin.numbers, origin.locations) where at.line > 0 && wanted[s].contains(number) {
                    found[s][number] = at
                }
            }
        }
        let old = found[0], new = found[1]
        return { places, isNew in places.map { (isNew ? new : old)[number($0.position, isNew ? 1 : 0)] } }
    }

    /// Records in sections, spilled: each side's sections (their names, and their records
    /// counted over the whole document), the changes between them, and the layout.
    struct SpilledSections: Sendable {
        let old: [Section], new: [Section]
        let changes: [SectionChange]
        let layout: Layout
        let oldStarts: [Int], newStarts: [Int]
        /// Each side's sections as a shard gives them to the join, and as a changeset names them.
        let oldFrames: [ShardPart.SectionFrame], newFrames: [ShardPart.SectionFrame]
        let oldOutline: SectionOutline, newOutline: SectionOutline

        init(old: [Section], new: [Section], changes: [SectionChange], layout: Layout) {
            (self.old, self.new, self.changes, self.layout) = (old, new, changes, layout)
            oldStarts = old.map(\.records.lowerBound)
            newStarts = new.map(\.records.lowerBound)
            oldFrames = old.map { ShardPart.SectionFrame(records: $0.records.count, header: $0.header) }
            newFrames = new.map { ShardPart.SectionFrame(records: $0.records.count, header: $0.header) }
            oldOutline = SectionOutline(names: old.map(\.name), sizes: old.map(\.records.count))
            newOutline = SectionOutline(names: new.map(\.name), sizes: new.map(\.records.count))
        }
    }

    /// An error of partition `p` of a side, worded as the diff in memory words it: a YAML
    /// map's name given twice lands in one partition, a JSON object, whose reader finds
    /// it; the YAML reader's error is made again from the names there, at both places in
    /// the input.
    static func worded(_ error: ListDiffError, _ split: SplitSide, _ folder: SpillFolder, _ p: Int, _ side: String)
        throws(ListDiffError) -> ListDiffError
    {
        guard error.kind == .syntax, split.map, split.format == .yaml else { return error }
        let file = try MappedFile(folder.file(p, side, "records"), name: error.file ?? "")
        let places = try readIndex(folder.file(p, side, "index")).locations
        var seen: [String: Int] = [:]
        var start = 0, line = 0
        let bytes = file.bytes
        while start < bytes.count, line < places.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            // Each member a line, after its `{` or `,`.
            var parser = JSONParser(bytes: bytes, maxDepth: 1)
            parser.index = start + 1
            if let name = try? parser.parseString() {
                if let first = seen[name] {
                    return ListDiffError(
                        .syntax, file: error.file, location: places[line], YAMLRules.duplicateKey(name, first: places[first]))
                }
                seen[name] = line
            }
            start = end + 1
            line += 1
        }
        return error
    }

    /// Where an error stands among a spill's errors: OLD's before NEW's, then by place.
    static func rank(_ error: ListDiffError, old: String) -> [Int] {
        [error.file == old ? 0 : 1, error.location?.line ?? 0, error.location?.column ?? 0]
    }

    /// The earliest key error (a key repeated) of one side's partitions, each read as a
    /// diff reads an input; nil when there is none.
    func firstKeyError(in folder: SpillFolder, side: String, name: String, _ split: SplitSide) throws(ListDiffError) -> ListDiffError? {
        var first: (rank: [Int], error: ListDiffError)? = nil
        for p in 0..<folder.count {
            let file = try MappedFile(folder.file(p, side, "records"), name: name)
            file.origin = try Self.readIndex(folder.file(p, side, "index"))
            file.origin?.sections = split.sections
            do {
                _ = try checkedSide(file, name)
            } catch {
                let error = try Self.worded(error, split, folder, p, side)
                let rank = Self.rank(error, old: name)
                if first.map({ rank.lexicographicallyPrecedes($0.rank) }) ?? true { first = (rank, error) }
            }
        }
        return first?.error
    }

    /// The keys of moved records, read again from NEW's partition files: each partition's
    /// records in order, each moved one's line read as JSON.
    static func keys(of moved: [(old: Int, new: Int)], in folder: SpillFolder, _ key: IdentityKey, name: String) throws(ListDiffError)
        -> [ShardJoin.MovedKey]
    {
        guard !moved.isEmpty else { return [] }
        var slot: [Int: Int] = [:]
        slot.reserveCapacity(moved.count)
        for (k, m) in moved.enumerated() { slot[m.new] = k }
        var keys = [ShardJoin.MovedKey](repeating: ShardJoin.MovedKey(key: .null, bySelf: false), count: moved.count)
        let reader = JSONReader()
        for p in 0..<folder.count {
            let numbers = try readIndex(folder.file(p, "new", "index")).numbers
            guard numbers.contains(where: { slot[$0] != nil }) else { continue }
            let file = try MappedFile(folder.file(p, "new", "records"), name: name)
            var start = 0
            for number in numbers {
                let end = file.bytes[start...].firstIndex(of: 0x0A) ?? file.bytes.count
                if let k = slot[number] {
                    let (value, _) = try reader.read(Array(file.bytes[start..<end]), name: name)
                    // (A scalar record is keyed by itself, as the diff in memory names it.)
                    keys[k] = ShardJoin.MovedKey(key: key.written(in: value) ?? .null, bySelf: value.isScalar)
                }
                start = end + 1
            }
        }
        return keys
    }
}
