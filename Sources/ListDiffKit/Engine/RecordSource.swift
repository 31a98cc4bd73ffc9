#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where one side's records are read back from, when their values are needed: for the
/// records in the changeset, for an error's message, for what the replay shows and what
/// apply writes. Values are built from the input's bytes on demand and not kept.
class RecordSource: @unchecked Sendable {
    /// The input's name, for messages.
    let name: String
    let file: MappedFile
    let starts: PageBuffer<Int>
    let lengths: PageBuffer<UInt32>

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

    /// A reference to the record, its bytes copied into `arena`.
    func reference(_ record: Int, in arena: ByteArena) -> RecordReference {
        RecordReference(source: self, arena: arena, range: arena.append(bytes(record)))
    }

    /// Whether the record is a string, number or boolean (keyed by itself), without reading it.
    func isScalar(_ record: Int) -> Bool {
        preconditionFailure("a subclass reads records")
    }

    /// The record's key as written (`IdentityKey.written(in:)`), reading no more of it than
    /// the key needs where the format allows.
    func key(_ record: Int, _ key: IdentityKey) throws(ListDiffError) -> Value {
        key.written(in: try value(record)) ?? .null
    }

    /// The record's line and column.
    func location(_ record: Int) -> SourceLocation {
        SourceLocation.of(offset: starts[record], in: file.bytes)
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
        do throws(JSONParseFailure) {
            return try JSONParser.value(in: bytes, at: offset, depth: depth, maxDepth: maxDepth)
        } catch {
            // The scan checked the record: a failure now means the file changed meanwhile.
            throw ListDiffError(file: name, "the file changed while it was being read: \(error.message)")
        }
    }

    override func sameBytes(_ i: Int, as other: RecordSource, _ j: Int) -> Bool {
        guard let other = other as? JSONRecords, other.depth == depth, lengths[i] == other.lengths[j] else { return false }
        let n = Int(lengths[i])
        return n == 0 || memcmp(file.bytes.baseAddress! + starts[i], other.file.bytes.baseAddress! + other.starts[j], n) == 0
    }

    /// Reads only the members of the record that the key's paths start with (the first of
    /// each name, as `FieldPath` reads them), skipping the others unread: the scan checked them.
    override func key(_ record: Int, _ key: IdentityKey) throws(ListDiffError) -> Value {
        let start = starts[record]
        guard start < file.bytes.count, file.bytes[start] == UInt8(ascii: "{") else { return try super.key(record, key) }
        var parser = JSONParser(bytes: file.bytes, maxDepth: maxDepth)
        parser.recordsOffsets = false
        parser.index = start
        parser.depth = depth
        var members: [Object.Member] = []
        do throws(JSONParseFailure) {
            if try !parser.openIsEmpty(close: UInt8(ascii: "}")) {
                repeat {
                    try parser.nameStart()
                    let name = try parser.parseString()
                    try parser.colon()
                    if key.fields.contains(where: { $0.components[0].scalarEquals(name) }),
                       !members.contains(where: { $0.key.scalarEquals(name) })
                    {
                        members.append(Object.Member(key: name, value: try parser.parseValue()))
                    } else if parser.index < parser.bytes.count,
                              parser.bytes[parser.index] == UInt8(ascii: "{") || parser.bytes[parser.index] == UInt8(ascii: "["),
                              let end = JSONParser.skipFast(file.bytes, from: parser.index)
                    {
                        parser.index = end
                    } else {
                        _ = try parser.hashValue()
                    }
                    parser.skipWhitespace()
                } while try parser.separator(close: UInt8(ascii: "}"), "object")
            }
        } catch {
            return try super.key(record, key)
        }
        return key.written(in: .object(Object(members))) ?? .null
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
/// again (which would bring a page back for every record).
final class ByteArena: @unchecked Sendable {
    private(set) var bytes: [UInt8] = []

    func append(_ source: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        let start = bytes.count
        bytes.append(contentsOf: source)
        return start..<bytes.count
    }
}

/// A record of one side, whose value is read when it is asked for, from a copy of its bytes.
struct RecordReference: @unchecked Sendable {
    /// How the record is read (its format and depth).
    let source: RecordSource
    let arena: ByteArena
    let range: Range<Int>

    func value() throws(ListDiffError) -> Value {
        try arena.bytes.withUnsafeBufferPointer { buffer throws(ListDiffError) in
            try source.value(in: buffer, at: range.lowerBound)
        }
    }

    /// The record's text as it was written.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        arena.bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
