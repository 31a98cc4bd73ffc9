/// Reads CSV and TSV (RFC 4180) as a list of records, one object per row, named by the
/// header row.
///
/// The rows are turned into the JSON text of that list (`[{"id":"1",...},...]`), and every
/// reader of listdiff reads that text: the engine, the full reader and `apply`. So a CSV
/// input is diffed, hashed and fingerprinted as the same records written as JSON would be,
/// and errors found in the JSON text are placed back in the CSV (`CSVSource`).
///
/// The rules:
/// - Fields are separated by `,` (CSV) or a tab (TSV); a row ends at LF or CRLF.
/// - A field that starts with `"` is quoted: it ends at the next lone `"`, `""` inside
///   it stands for one `"`, and it may hold separators and line breaks. After the closing
///   quote comes a separator or the end of the row.
/// - A `"` inside an unquoted field is kept as it is.
/// - A UTF-8 byte order mark at the start is skipped. Empty lines are skipped.
/// - The first row names the fields; each name must be unique. Every other row must have
///   as many fields as the header.
/// - Each value is a string, so `007` stays `007`. Under `inferTypes`, a cell that is a
///   JSON number (`-12`, `3.5`, `1e3`, not `007` or `+1`; an exponent of at most 9
///   significant digits, as the JSON reader takes) is a number, `true` and `false` are
///   booleans, and an empty cell is null; anything else stays a string.
@_spi(Benchmarks) public struct CSVReader: Sendable {
    package var separator: UInt8
    package var inferTypes: Bool

    @_spi(Benchmarks) public init(separator: UInt8 = UInt8(ascii: ","), inferTypes: Bool = false) {
        self.separator = separator
        self.inferTypes = inferTypes
    }

    /// The JSON text of `bytes`' records, one record per line, and where each came from.
    package func transcode(_ bytes: UnsafeBufferPointer<UInt8>, name: String) throws(ListDiffError) -> (
        json: UnsafeMutableBufferPointer<UInt8>, source: CSVSource
    ) {
        var scanner = CSVScanner(bytes: bytes, separator: separator, name: name)
        var source = CSVSource()
        var out = JSONBytes(capacity: bytes.count * 2 + 64)
        out.adviseHugePages()
        out.append(byte: UInt8(ascii: "["))
        scanner.skipByteOrderMark()
        // The header row: each name as it is written before each value (`"name":`).
        var names: [[UInt8]] = []
        var seen: [[UInt8]: Int] = [:]
        var field: [UInt8] = []
        if scanner.nextRow() != nil {
            repeat {
                let at = scanner.index
                try scanner.field(into: &field)
                try scanner.checkText(at..<scanner.index)
                if let earlier = seen[field] {
                    throw scanner.error(
                        at: at,
                        "the header names \(Self.quoted(field)) twice (fields \(earlier + 1) and \(names.count + 1)); each field needs its own name"
                    )
                }
                seen[field] = names.count
                source.header.append(String(decoding: field, as: UTF8.self))
                var written = JSONBytes(capacity: field.count + 8)
                field.withUnsafeBytes { written.append(stringBytes: $0) }
                written.append(byte: UInt8(ascii: ":"))
                names.append(Array(written.bytes))
            } while try scanner.endOfField()
        }
        // The names written out, one after another, so that a row reads no array of arrays.
        let written = names.flatMap { $0 }
        var nameEnds: [Int] = []
        for name in names { nameEnds.append((nameEnds.last ?? 0) + name.count) }
        let quote = UInt8(ascii: "\"")
        let base = bytes.baseAddress ?? UnsafePointer(bitPattern: 8)!
        while let rowStart = scanner.nextRow() {
            (source.rowLines.isEmpty ? Self.firstRow : Self.nextRow).withUnsafeBytes { out.append(bytes: $0) }
            source.rowLines.append(scanner.line)
            out.append(byte: UInt8(ascii: "{"))
            var k = 0
            repeat {
                guard k < names.count else {
                    throw scanner.error(
                        at: scanner.index,
                        "this row has more fields than the header's \(names.count); quote a field that holds a separator")
                }
                if k > 0 { out.append(byte: UInt8(ascii: ",")) }
                let nameStart = k == 0 ? 0 : nameEnds[k - 1]
                written.withUnsafeBytes { out.append(bytes: UnsafeRawBufferPointer(rebasing: $0[nameStart..<nameEnds[k]])) }
                let start = scanner.index
                if start < bytes.count, base[start] != quote {
                    // Unquoted, the common cell: its end, and whether JSON needs any of its
                    // bytes escaped, found in one pass.
                    let (end, plain, ascii) = Self.unquotedEnd(base, from: start, count: bytes.count, separator: separator)
                    scanner.index = end
                    let text = UnsafeRawBufferPointer(start: base + start, count: end - start)
                    if !ascii { try scanner.checkText(start..<end) }
                    if !plain {
                        Self.write(text, inferring: inferTypes, to: &out)
                    } else if inferTypes, Self.isLiteral(text) {
                        if text.isEmpty { out.append("null") } else { out.append(bytes: text) }
                    } else {
                        out.append(byte: quote)
                        out.append(bytes: text)
                        out.append(byte: quote)
                    }
                } else {
                    let cell = try scanner.cell(scratch: &field)
                    try scanner.checkText(cell.copied ? start..<scanner.index : cell.start..<cell.end)
                    if cell.copied {
                        field.withUnsafeBytes { Self.write($0, inferring: inferTypes, to: &out) }
                    } else {
                        Self.write(
                            UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[cell.start..<cell.end]),
                            inferring: inferTypes, to: &out)
                    }
                }
                k += 1
            } while try scanner.endOfField()
            guard k == names.count else {
                throw scanner.error(at: rowStart, "this row has \(k) field\(k == 1 ? "" : "s"); the header has \(names.count)")
            }
            out.append(byte: UInt8(ascii: "}"))
        }
        source.crlf = scanner.sawCRLF
        Self.end.withUnsafeBytes { out.append(bytes: $0) }
        return (out.take(), source)
    }

    /// For the benchmark that measures this scanner against CSV packages: the length of
    /// the JSON text `bytes` turns into (the text is made, then let go).
    @_spi(Benchmarks) public func transcodedLength(_ bytes: UnsafeBufferPointer<UInt8>) throws(ListDiffError) -> Int {
        let (json, _) = try transcode(bytes, name: "benchmark")
        defer { json.deallocate() }
        return json.count
    }

    private static let firstRow: [UInt8] = [0x0A]
    private static let nextRow: [UInt8] = [UInt8(ascii: ","), 0x0A]
    private static let end: [UInt8] = [0x0A, UInt8(ascii: "]"), 0x0A]

    /// The records of `bytes` as a value (a list of objects), and the JSON text they were
    /// read from (so the places it gives are in that text, not in the CSV; the engine, which
    /// the command runs, places its errors in the CSV).
    package func read(_ bytes: [UInt8], name: String, json: JSONReader) throws(ListDiffError) -> (Value, SourceText) {
        let (text, source) = try bytes.withUnsafeBufferPointer { buffer throws(ListDiffError) in try transcode(buffer, name: name) }
        defer { text.deallocate() }
        do throws(ListDiffError) {
            return try json.read(Array(text), name: name)
        } catch {
            throw source.placed(error)
        }
    }

    /// Where the unquoted cell at `start` ends (at a separator, a line feed, a CR or the end
    /// of the input); whether it holds no byte that a JSON string escapes (`"`, `\`, a
    /// control, or the first byte of U+2028 or U+2029); and whether it is ASCII (else its
    /// text must be checked as UTF-8). Eight bytes at a time: a
    /// byte is flagged when it is the separator or one of those, and the first flagged
    /// byte is exact (the usual zero-byte test is wrong only above a true one).
    @inline(__always)
    static func unquotedEnd(_ p: UnsafePointer<UInt8>, from start: Int, count n: Int, separator: UInt8) -> (
        end: Int, plain: Bool, ascii: Bool
    ) {
        var i = start
        var high: UInt64 = 0
        #if _endian(little)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let separators = ones &* UInt64(separator)
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        while i &+ 8 <= n {
            let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            let flags =
                zeroBytes(w ^ separators) | zeroBytes(w ^ (ones &* 0x22)) | zeroBytes(w ^ (ones &* 0x5C))
                | zeroBytes(w ^ (ones &* 0xE2)) | ((w &- ones &* 0x20) & ~w & highs)
            if flags == 0 {
                high |= w & highs
                i &+= 8
                continue
            }
            // (The bytes before the first flagged one are looked at here alone.)
            high |= w & highs & ((flags & (0 &- flags)) &- 1)
            i &+= flags.trailingZeroBitCount >> 3
            break
        }
        #endif
        // From the first flagged byte (or the last few), one at a time.
        var plain = true, ascii = high == 0
        while i < n {
            let b = p[i]
            if b == separator || b == 0x0A || b == 0x0D { return (i, plain, ascii) }
            if b == 0x22 || b == 0x5C || b < 0x20 || b == 0xE2 { plain = false }
            if b >= 0x80 { ascii = false }
            i += 1
        }
        return (i, plain, ascii)
    }

    /// A cell's value in JSON: a string, or under `inferring` the literal it is.
    @inline(__always)
    static func write(_ text: UnsafeRawBufferPointer, inferring: Bool, to out: inout JSONBytes) {
        if inferring, isLiteral(text) {
            if text.isEmpty { out.append("null") } else { out.append(bytes: text) }
        } else {
            out.append(stringBytes: text)
        }
    }

    /// Whether `inferTypes` reads a cell as a JSON literal: empty (null), `true`, `false`
    /// or a number as JSON writes one.
    @inline(__always)
    static func isLiteral(_ cell: UnsafeRawBufferPointer) -> Bool {
        if cell.isEmpty { return true }
        switch cell[0] {
        // (`true` and `false` compared byte by byte: the generic comparison is slow here.)
        case UInt8(ascii: "t"):
            return cell.count == 4 && cell[1] == UInt8(ascii: "r") && cell[2] == UInt8(ascii: "u") && cell[3] == UInt8(ascii: "e")
        case UInt8(ascii: "f"):
            return cell.count == 5 && cell[1] == UInt8(ascii: "a") && cell[2] == UInt8(ascii: "l") && cell[3] == UInt8(ascii: "s")
                && cell[4] == UInt8(ascii: "e")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return isJSONNumber(cell)
        default: return false
        }
    }

    /// Whether `text` is a number as JSON writes one, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
    /// that the JSON reader takes: an exponent of at most 9 significant digits.
    static func isJSONNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = text.count
        /// Passes the digits at `i`; false when there is none.
        @inline(__always) func digits(_ i: inout Int) -> Bool {
            let start = i
            while i < n, text[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            return i > start
        }
        if i < n, text[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n else { return false }
        if text[i] == UInt8(ascii: "0") { i += 1 } else if !digits(&i) { return false }
        if i < n, text[i] == UInt8(ascii: ".") {
            i += 1
            if !digits(&i) { return false }
        }
        if i < n, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") { i += 1 }
            let exponent = i
            if !digits(&i) { return false }
            // `JSONParser.scanNumber` refuses more: such a cell is text, not an error.
            if i - exponent > 9, text[exponent..<i].drop(while: { $0 == UInt8(ascii: "0") }).count > 9 { return false }
        }
        return i == n
    }

    static func quoted(_ bytes: [UInt8]) -> String {
        JSONWriter.compact(.string(String(decoding: bytes.prefix(60), as: UTF8.self)))
    }
}

/// Where the records of a CSV input came from, for placing errors found in its JSON text
/// back in the CSV, and what `apply` needs to write CSV again.
package struct CSVSource: Sendable {
    /// The line each record's row starts on. Record r is on line r + 2 of the JSON text.
    var rowLines: [Int] = []
    /// The header's names, in order.
    package var header: [String] = []
    /// Whether rows end with CRLF.
    package var crlf = false

    /// Where in the CSV a place in the JSON text is: the start of its row.
    func location(_ json: SourceLocation) -> SourceLocation {
        let r = json.line - 2
        guard r >= 0, r < rowLines.count else { return SourceLocation(line: rowLines.first ?? 1, column: 1) }
        return SourceLocation(line: rowLines[r], column: 1)
    }

    /// `error`, placed in the CSV rather than in its JSON text.
    func placed(_ error: ListDiffError) -> ListDiffError {
        guard let location = error.location else { return error }
        var moved = error
        moved.location = self.location(location)
        return moved
    }
}

/// Reads fields from CSV bytes.
struct CSVScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let separator: UInt8
    let name: String
    var index = 0
    /// The line `index` is on.
    var line = 1
    var sawCRLF = false

    mutating func skipByteOrderMark() {
        if index == 0 { index = ByteOrderMark.length(at: bytes) }
    }

    /// Skips empty lines; the start of the next row, or nil at the end.
    mutating func nextRow() -> Int? {
        while index < bytes.count {
            if bytes[index] == 0x0A {
                index += 1
                line += 1
            } else if bytes[index] == 0x0D {
                // (`\r\n`, or a lone `\r`, as spreadsheets on old Macs end rows.)
                index += index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
                line += 1
            } else {
                return index
            }
        }
        return nil
    }

    /// Reads one field, leaving `index` at what follows it: where its text is in the input,
    /// or, for a quoted field with a doubled quote, `copied` into `scratch`.
    @inline(__always)
    mutating func cell(scratch: inout [UInt8]) throws(ListDiffError) -> (start: Int, end: Int, copied: Bool) {
        let n = bytes.count
        guard index < n, bytes[index] == UInt8(ascii: "\"") else {
            let start = index, base = bytes.baseAddress ?? UnsafePointer(bitPattern: 8)!
            index = CSVReader.unquotedEnd(base, from: start, count: n, separator: separator).end
            return (start, index, false)
        }
        // Quoted: in place unless a doubled quote must be read as one.
        let start = index + 1
        var i = start
        while i < n, bytes[i] != UInt8(ascii: "\"") {
            if Self.endsLine(bytes, i) { line += 1 }
            i += 1
        }
        if i + 1 >= n || bytes[i + 1] != UInt8(ascii: "\"") {
            if i < n {
                index = i + 1
                try afterClosingQuote()
                return (start, i, false)
            }
        }
        // Counted again as the copy reads them.
        let text = bytes
        line -= (start..<min(i, n)).count { Self.endsLine(text, $0) }
        try field(into: &scratch)
        return (0, 0, true)
    }

    /// Reads one field into `field`, leaving `index` at what follows it.
    mutating func field(into field: inout [UInt8]) throws(ListDiffError) {
        field.removeAll(keepingCapacity: true)
        let n = bytes.count
        guard index < n, bytes[index] == UInt8(ascii: "\"") else {
            // Unquoted: found in place by `cell`, then copied.
            let (start, end, _) = try cell(scratch: &field)
            field.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
            return
        }
        let open = index
        index += 1
        while true {
            guard index < n else { throw error(at: open, "this quoted field is never closed") }
            let b = bytes[index]
            if Self.endsLine(bytes, index) { line += 1 }
            if b == UInt8(ascii: "\"") {
                if index + 1 < n, bytes[index + 1] == UInt8(ascii: "\"") {
                    field.append(b)
                    index += 2
                    continue
                }
                index += 1
                break
            }
            field.append(b)
            index += 1
        }
        try afterClosingQuote()
    }

    /// After a quoted field's closing quote: a separator, the end of the row or the input.
    private func afterClosingQuote() throws(ListDiffError) {
        let n = bytes.count
        guard index < n else { return }
        let b = bytes[index]
        if b == separator || b == 0x0A || b == 0x0D { return }
        throw error(at: index, "expected a separator or the end of the row after a quoted field's closing quote")
    }

    /// After a field: true when a separator follows (and is passed), false at the end of
    /// the row (passed too) or of the input.
    mutating func endOfField() throws(ListDiffError) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case separator:
            index += 1
            return true
        case 0x0D:
            if index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                sawCRLF = true
                index += 2
            } else {
                index += 1
            }
            line += 1
            return false
        default:
            index += 1
            line += 1
            return false
        }
    }

    func error(at offset: Int, _ message: String) -> ListDiffError {
        ListDiffError(.syntax, file: name, location: SourceLocation.of(offset: offset, in: bytes, breaks: .csv), message)
    }

    /// Refuses a field's text `bytes[range]` that is not UTF-8, at the byte where it fails
    /// (by the JSON reader's rule, which would refuse its JSON text at its row).
    func checkText(_ range: Range<Int>) throws(ListDiffError) {
        var i = range.lowerBound
        while i < range.upperBound {
            guard bytes[i] >= 0x80 else {
                i += 1
                continue
            }
            do throws(JSONParseFailure) {
                i = try JSONParser.validateUTF8Scalar(in: bytes, at: i)
            } catch {
                throw self.error(at: error.offset, error.message)
            }
        }
    }

    /// Whether `bytes[i]` ends a line: `\n`, or a lone `\r` (`LineBreaks.csv`).
    @inline(__always)
    static func endsLine(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        bytes[i] == 0x0A || LineBreaks.csv.otherBreak(in: bytes, at: i, end: bytes.count) > 0
    }
}
