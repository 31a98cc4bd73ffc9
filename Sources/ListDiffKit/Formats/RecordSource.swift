import Synchronization

/// Where one side's records are read back from, when their values are needed: for the
/// records in the changeset, for an error's message, for what the replay shows and what
/// apply writes. Values are built from the input's bytes on demand and not kept.
class RecordSource: @unchecked Sendable {
    /// The input's name, for messages.
    let name: String
    let file: MappedFile
    let starts: PageBuffer<Int>
    let lengths: PageBuffer<UInt32>
    /// In a map of records: each record's member name, its key.
    var names: MemberNames?

    init(file: MappedFile, table: RecordTable) {
        name = file.name
        self.file = file
        starts = table.starts
        lengths = table.lengths
    }

    var count: Int { starts.count }

    /// The record's value.
    func value(_ record: Int) throws(ListDiffError) -> Value {
        try value(in: file.bytes, at: starts[record])
    }

    /// The value of a record whose text starts at `offset` in `bytes` (the input, or a copy).
    func value(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) throws(ListDiffError) -> Value {
        preconditionFailure("a subclass reads records")
    }

    /// A record's value from a copy of its text (`text(_:)`).
    func value(copy: UnsafeBufferPointer<UInt8>) throws(ListDiffError) -> Value {
        try value(in: copy, at: 0)
    }

    /// Whether values should be read many at a time (`values(_:)`) rather than one by one,
    /// and kept rather than read again when a change is written.
    var readsInBatches: Bool { false }

    /// The values of several records.
    func values(_ records: [Int]) throws(ListDiffError) -> [Int: Value] {
        var values: [Int: Value] = [:]
        for r in records { values[r] = try value(r) }
        return values
    }

    /// The record's text, as much as reads alone.
    func text(_ record: Int) -> [UInt8] { Array(bytes(record)) }

    /// A reference to the record, its text copied into `arena`.
    func reference(_ record: Int, in arena: ByteArena, reader: RecordSource) -> RecordReference {
        let text = bytes(record)
        let (chunk, start) = arena.append(text)
        return RecordReference(
            source: reader, chunk: chunk, start: Int32(truncatingIfNeeded: start),
            count: Int32(truncatingIfNeeded: text.count))
    }

    /// What reads a record's copied text: this source without its tables, which are let go
    /// once the changes are built.
    var copyReader: RecordSource { self }

    /// Whether the record is a string, number or boolean (keyed by itself), without reading it.
    func isScalar(_ record: Int) -> Bool {
        preconditionFailure("a subclass reads records")
    }

    /// The record's key as written (`IdentityKey.written(in:)`), reading no more of it than
    /// the key needs where the format allows. In a map of records: its member name.
    func key(_ record: Int, _ key: IdentityKey) throws(ListDiffError) -> Value {
        if names != nil { return .string(try memberName(record)) }
        return key.written(in: try value(record)) ?? .null
    }

    /// The member name of a map's record: as the scan kept it (YAML), or read again where
    /// it is written (JSON).
    func memberName(_ record: Int) throws(ListDiffError) -> String {
        guard let names else { return "" }
        if !names.texts.isEmpty { return names.texts[record] }
        var parser = JSONParser(bytes: file.bytes, maxDepth: 1)
        parser.index = names.starts[record]
        do throws(JSONParseFailure) {
            return try parser.parseString()
        } catch {
            throw ListDiffError(.io, file: name, "the file changed while it was being read: \(error.message)")
        }
    }

    /// The record's line and column, when the input's places are known.
    func location(_ record: Int) -> SourceLocation? {
        file.location(of: starts[record])
    }

    /// For each request, a record and paths into it (steps as `PathTrie` reads them): where
    /// the value each path leads to starts in the input, or the nearest value above it that
    /// the record holds (a field removed here: its parent; the record itself at the least).
    /// Each record asked about is read once for all its paths; no other is read.
    func offsets(_ requests: [(record: Int, paths: [[Value]])]) -> [[Int]] {
        requests.map { record, paths in paths.map { _ in starts[record] } }
    }

    /// Whether record `i` is byte for byte record `j` of `other`, read alike (so that the
    /// two are one value without reading either).
    func sameBytes(_ i: Int, as other: RecordSource, _ j: Int) -> Bool {
        false
    }

    /// The record's bytes as written (for JSON, a value that may be copied as it is).
    func bytes(_ record: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: file.bytes[starts[record]..<starts[record] + Int(lengths[record])])
    }
}

/// Records of a JSON or NDJSON input, parsed from their bytes.
final class JSONRecords: RecordSource, @unchecked Sendable {
    /// The parser depth of the records' list.
    let depth: Int
    let maxDepth: Int

    init(file: MappedFile, table: RecordTable, depth: Int, maxDepth: Int) {
        self.depth = depth
        self.maxDepth = maxDepth
        super.init(file: file, table: table)
    }

    override func value(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) throws(ListDiffError) -> Value {
        try value(in: bytes, at: offset, depth: depth)
    }

    /// The value of one of a record's members, at `offset` in `bytes` (the input, or a copy
    /// of the record).
    func memberValue(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) throws(ListDiffError) -> Value {
        try value(in: bytes, at: offset, depth: depth + 1)
    }

    private func value(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int, depth: Int) throws(ListDiffError) -> Value {
        do throws(JSONParseFailure) {
            return try JSONParser.value(in: bytes, at: offset, depth: depth, maxDepth: maxDepth)
        } catch {
            // The scan checked the record: a failure now means the file changed meanwhile.
            throw ListDiffError(.io, file: name, "the file changed while it was being read: \(error.message)")
        }
    }

    override var copyReader: RecordSource {
        JSONRecords(file: MappedFile(name: name, bytes: []), table: RecordTable(capacity: 1), depth: depth, maxDepth: maxDepth)
    }

    override func sameBytes(_ i: Int, as other: RecordSource, _ j: Int) -> Bool {
        guard let other = other as? JSONRecords, other.depth == depth, lengths[i] == other.lengths[j] else { return false }
        let n = Int(lengths[i])
        return n == 0 || SystemCalls.compare(file.bytes.baseAddress! + starts[i], other.file.bytes.baseAddress! + other.starts[j], n) == 0
    }

    /// Reads only the members of the record that the key's paths start with (the first of
    /// each name, as `FieldPath` reads them), skipping the others unread and stopping once
    /// each is found: the scan checked the record.
    override func key(_ record: Int, _ key: IdentityKey) throws(ListDiffError) -> Value {
        let start = starts[record]
        let bytes = file.bytes
        guard names == nil, !key.isWholeRecord, start < bytes.count, bytes[start] == UInt8(ascii: "{") else {
            return try super.key(record, key)
        }
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.recordsOffsets = false
        parser.index = start
        parser.depth = depth
        var wanted = 0
        for (f, field) in key.fields.enumerated()
        where !key.fields[..<f].contains(where: { $0.components[0].scalarEquals(field.components[0]) }) {
            wanted += 1
        }
        var members: [Object.Member] = []
        // A key of one member (the common case): its value is the key when it is a scalar.
        let single = key.fields.count == 1 && key.fields[0].components.count == 1
        do throws(JSONParseFailure) {
            if try !parser.openIsEmpty(close: UInt8(ascii: "}")) {
                repeat {
                    try parser.nameStart()
                    // The name, when a key field starts with it: compared as UTF-8, decoded
                    // only when it has escapes.
                    let name = try parser.withString { written in
                        key.fields.first { $0.components[0].utf8.elementsEqual(written) }?.components[0]
                    }
                    try parser.colon()
                    if single, name != nil {
                        let value = try parser.parseValue()
                        return value.isScalar ? value : .null
                    }
                    if let name, !members.contains(where: { $0.key.scalarEquals(name) }) {
                        members.append(Object.Member(key: name, value: try parser.parseValue()))
                        if members.count == wanted { break }
                    } else {
                        parser.index = JSONParser.skip(bytes, from: parser.index)
                    }
                    parser.skipWhitespace()
                } while try parser.separator(close: UInt8(ascii: "}"), "object")
            }
        } catch {
            return try super.key(record, key)
        }
        return key.written(in: .object(Object(members))) ?? .null
    }

    override func offsets(_ requests: [(record: Int, paths: [[Value]])]) -> [[Int]] {
        offsetsInText(requests)
    }

    override func isScalar(_ record: Int) -> Bool {
        let start = starts[record]
        guard start < file.bytes.count else { return false }
        switch file.bytes[start] {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "n"): return false
        default: return true
        }
    }
}

/// Bytes copied out of the inputs during the compare, while their pages are at hand, for
/// the values of the records in the changeset: written later without reading the inputs
/// again (which would bring a page back for every record). Filled in chunks, so that it
/// never copies what it holds to grow.
final class ByteArena: @unchecked Sendable {
    /// One chunk of the arena's bytes.
    final class Chunk: @unchecked Sendable {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int
        var count = 0

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
        }

        deinit { base.deallocate() }
    }

    private var chunk = Chunk(capacity: 1 << 20)

    /// Copies `source` in; the chunk that holds it and where.
    func append(_ source: UnsafeBufferPointer<UInt8>) -> (Chunk, Int) {
        if chunk.count + source.count > chunk.capacity { chunk = Chunk(capacity: max(1 << 20, source.count)) }
        let start = chunk.count
        if let from = source.baseAddress, source.count > 0 { (chunk.base + start).update(from: from, count: source.count) }
        chunk.count += source.count
        return (chunk, start)
    }
}

/// A record of one side, whose value is read when it is asked for, from a copy of its text.
struct RecordReference: @unchecked Sendable {
    /// How the record is read (its format and depth).
    let source: RecordSource
    let chunk: ByteArena.Chunk
    let start: Int32
    let count: Int32

    func value() throws(ListDiffError) -> Value {
        try source.value(copy: UnsafeBufferPointer(start: chunk.base + Int(start), count: Int(count)))
    }

    /// The record's text as it was written.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(start: chunk.base + Int(start), count: Int(count)))
    }
}

/// Records of a YAML input. A record's text, indented to its column as in the file and read
/// with the anchors the scan found, parses alone, and is checked on its hash; a record that
/// does not read alone (an alias to an anchor redefined since, a `%TAG` directive) is taken
/// from the whole document, read once.
final class YAMLRecords: RecordSource, @unchecked Sendable {
    let details: YAMLDetails
    let hashes: PageBuffer<Hash128>
    let reader: YAMLReader
    let options: LayoutOptions
    /// How the scan found the records laid out, to find them again in the whole document.
    let shape: ContainerShape
    private let whole = Mutex<[Value]?>(nil)

    init(file: MappedFile, scanned: ScannedDocument, reader: YAMLReader, options: LayoutOptions) {
        details = scanned.yaml ?? YAMLDetails(capacity: 1)
        hashes = scanned.table.hashes
        self.reader = reader
        self.options = options
        shape = scanned.shape
        super.init(file: file, table: scanned.table)
    }

    /// Whether the record's text goes on past its first line: then its indentation is part
    /// of what it means.
    func spansLines(_ record: Int) -> Bool {
        SystemCalls.find(0x0A, in: file.bytes.baseAddress! + starts[record], count: Int(lengths[record])) != nil
    }

    /// The column (in characters) the record starts at.
    func column(_ record: Int) -> Int {
        let start = starts[record]
        var k = start
        while k > 0, file.bytes[k - 1] != 0x0A { k -= 1 }
        var column = 0
        for i in k..<start where file.bytes[i] & 0xC0 != 0x80 { column += 1 }
        return column
    }

    override func text(_ record: Int) -> [UInt8] {
        // A record on one line reads alike at any column: only one that spans lines is
        // indented to its column (which, in a long flow list on one line, would be long).
        guard spansLines(record) else { return Array(bytes(record)) }
        return [UInt8](repeating: 0x20, count: column(record)) + Array(bytes(record))
    }

    override func value(_ record: Int) throws(ListDiffError) -> Value {
        if let walked = try? reader.walk(MappedFile(name: name, bytes: text(record)), anchors: details.anchors),
            walked.values.count == 1, walked.table.hashes[0] == hashes[record]
        {
            return walked.values[0]
        }
        return try fromWhole(record)
    }

    /// Whether a record had to be taken from the whole document.
    var readWhole: Bool { whole.withLock { $0 != nil } }

    /// The record, from the whole document read in full (once).
    func fromWhole(_ record: Int) throws(ListDiffError) -> Value {
        if let values = whole.withLock({ $0 }) { return values[record] }
        let (root, _) = try reader.read(Array(file.bytes), name: file.name, asStream: details.stream)
        let values: [Value]
        if case .pattern = shape, let path = options.path {
            // The records of every list the pattern names, in order.
            values = path.matches(in: root).flatMap { match -> [Value] in
                if case .array(let records) = match.value { return records }
                return []
            }
        } else {
            values = shape.records(in: options.path.flatMap { $0.value(in: root) } ?? root)
        }
        whole.withLock { $0 = values }
        guard record < values.count else { throw ListDiffError(.io, file: name, "the file changed while it was being read") }
        return values[record]
    }

    override var readsInBatches: Bool { true }

    /// Records read in one pass of libyaml: each record's text as a document of one stream.
    /// A record whose document does not give its hash is read alone (and, failing that,
    /// from the whole document).
    override func values(_ records: [Int]) throws(ListDiffError) -> [Int: Value] {
        let stream = stream(records).bytes
        var values: [Int: Value] = [:]
        if let walked = try? reader.walk(MappedFile(name: name, bytes: stream), anchors: details.anchors),
            walked.values.count == records.count
        {
            for (k, r) in records.enumerated() where walked.table.hashes[k] == hashes[r] { values[r] = walked.values[k] }
        }
        for r in records where values[r] == nil { values[r] = try value(r) }
        return values
    }

    /// The records' texts as the documents of one stream, and where each record's own bytes
    /// (after the indentation `text(_:)` adds) start in it.
    func stream(_ records: [Int]) -> (bytes: [UInt8], starts: [Int]) {
        var stream: [UInt8] = [], at: [Int] = []
        for r in records {
            let text = text(r)
            stream += Array("--- ".utf8)
            stream += text.drop { $0 == 0x20 }.isEmpty ? [] : [0x0A]
            at.append(stream.count + text.count - Int(lengths[r]))
            stream += text
            stream.append(0x0A)
        }
        return (stream, at)
    }

    override func offsets(_ requests: [(record: Int, paths: [[Value]])]) -> [[Int]] {
        offsetsInStream(requests)
    }

    override func isScalar(_ record: Int) -> Bool { details.scalars[record] }

    override func sameBytes(_ i: Int, as other: RecordSource, _ j: Int) -> Bool {
        guard let other = other as? YAMLRecords, details.standalone[i], other.details.standalone[j], lengths[i] == other.lengths[j],
            !spansLines(i) || column(i) == other.column(j)
        else { return false }
        let n = Int(lengths[i])
        return n == 0 || SystemCalls.compare(file.bytes.baseAddress! + starts[i], other.file.bytes.baseAddress! + other.starts[j], n) == 0
    }
}
