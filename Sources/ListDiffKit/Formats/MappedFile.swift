/// The bytes of one input, for the fast reader: a regular file is mapped into memory (no
/// copy), anything else (standard input, pipes) is read into one buffer.
///
/// A mapped file's pages can be handed back once scanned (`release(_:)`), so that the
/// resident memory of a diff stays near the size of its tables rather than its inputs;
/// touching them again reads them back from the page cache.
package final class MappedFile: @unchecked Sendable {
    package let name: String
    package let bytes: UnsafeBufferPointer<UInt8>
    /// How many mapped reads had faulted when this file was mapped.
    private var faultsBefore = 0
    private let mapped: Bool
    /// The open file of a mapped input, for `copy(_:into:)`; -1 otherwise.
    private let descriptor: Int32
    private static let pageSize = SystemCalls.pageSize

    /// Maps the file at `path`; `name` stands for it in errors (a spill file, for the
    /// input it came from).
    package init(_ path: String, name: String? = nil) throws(ListDiffError) {
        self.name = name ?? path
        let (fd, status) = try InputFile.open(path)
        let size = fd != SystemCalls.standardInput && status?.kind == .regular ? status!.size : nil
        if let size {
            do throws(ListDiffError) { try InputFile.checkSize(size, name: path) } catch {
                SystemCalls.close(fd)
                throw error
            }
        }
        if let size, size > 0, let base = SystemCalls.mapForReading(fd, count: size) {
            descriptor = fd
            SystemCalls.advise(base, count: size, .sequential)
            // Pages of the file that are not in the page cache are read ahead now, in the
            // background, rather than one fault at a time when the scan reaches them.
            SystemCalls.advise(base, count: size, .willNeed)
            bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: size)
            mapped = true
            faultsBefore = SystemCalls.mappedFaultCount()
            csv = nil
            _ = Self.guarded
            try InputFile.checkStart(bytes, name: path)
            return
        }
        defer { if fd != SystemCalls.standardInput { SystemCalls.close(fd) } }
        descriptor = -1
        let all = try InputFile.read(fd: fd, name: path)
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(all.count, 1))
        _ = copy.initialize(from: all)
        bytes = UnsafeBufferPointer(start: copy.baseAddress, count: all.count)
        mapped = false
        csv = nil
    }

    /// For a CSV or TSV input: where its records came from (`bytes` is their JSON text).
    package let csv: CSVSource?

    /// Text made in memory (a chunk of an input), owned from now on.
    package init(name: String, owning text: UnsafeMutableBufferPointer<UInt8>) {
        self.name = name
        bytes = UnsafeBufferPointer(text)
        mapped = false
        descriptor = -1
        csv = nil
    }

    /// A CSV or TSV input: the JSON text its records were turned into, owned from now on.
    init(name: String, json: UnsafeMutableBufferPointer<UInt8>, csv: CSVSource) {
        self.name = name
        bytes = UnsafeBufferPointer(json)
        mapped = false
        descriptor = -1
        self.csv = csv
    }

    /// Whether the text is listdiff's own, written from values held in memory: its lines
    /// and columns mean nothing to the caller, so errors name none.
    private(set) var placesHidden = false

    /// Where `offset` is, in the input as written (a CSV input's row, for its JSON text);
    /// nil when the places are hidden.
    func location(of offset: Int) -> SourceLocation? {
        if placesHidden { return nil }
        return placed(SourceLocation.of(offset: offset, in: bytes, breaks: lineBreaks))
    }

    /// What ends a line of the text: set to YAML's breaks where the text is read as YAML.
    package var lineBreaks = LineBreaks.newline

    /// Whether the text is a part of an input that starts inside it (a later part of NDJSON
    /// cut by the spill): a byte order mark there is no mark but a line's text.
    package var startsMidText = false

    /// A place in this file's text, placed in its input: a CSV input's row for its JSON
    /// text, a spill file's record at its place in the input.
    private func placed(_ location: SourceLocation) -> SourceLocation {
        let written = csv?.location(location) ?? location
        return origin?.location(written) ?? written
    }

    /// For a file that holds some records of a larger input (a spill file): where each of
    /// its records stands in that input. Nil for an input as it is.
    package var origin: RecordOrigin?

    /// The number the record `r` of this file has in the input it came from.
    func recordNumber(_ r: Int) -> Int { origin?.number(r) ?? r }

    /// An error found in this file's text, placed in its input: at a CSV input's row for its
    /// JSON text; in a spill file, at its record's place in the input, and so is the place
    /// its message names (a member name given twice).
    func placed(_ error: ListDiffError) -> ListDiffError {
        var placed = csv?.placed(error) ?? error
        if let origin {
            placed = placed.placingFirstAt(origin.location)
            placed.location = placed.location.map(origin.location)
        }
        return placed
    }

    /// Where each of `offsets` is, as `location(of:)` tells.
    func locations(of offsets: [Int?]) -> [SourceLocation?] {
        if placesHidden { return offsets.map { _ in nil } }
        let locations = SourceLocation.of(offsets: offsets, in: bytes, breaks: lineBreaks)
        return locations.map { $0.map(placed) }
    }

    /// Bytes held in memory under a name (for tests and small inputs).
    package init(name: String, bytes source: [UInt8], placesHidden: Bool = false) {
        self.name = name
        self.placesHidden = placesHidden
        csv = nil
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(source.count, 1))
        _ = copy.initialize(from: source)
        bytes = UnsafeBufferPointer(start: copy.baseAddress, count: source.count)
        mapped = false
        descriptor = -1
    }

    /// A value held in memory as the engine reads it: JSON text, or YAML when the value
    /// holds a non-finite number, which JSON cannot spell. Its places are hidden, since
    /// the text is listdiff's own.
    package static func of(_ value: Value, name: String) throws(ListDiffError) -> (MappedFile, InputFormat) {
        if value.firstNonFiniteNumber != nil {
            return (MappedFile(name: name, bytes: Array(try YAMLWriter.document(value).utf8), placesHidden: true), .yaml)
        }
        return (MappedFile(name: name, bytes: Array(JSONWriter.compact(value).utf8), placesHidden: true), .json)
    }

    /// Copies the bytes of `range` into `buffer` without touching the mapping: a record
    /// read far from where the compare walks is read from the page cache, so that no page
    /// is mapped and none needs handing back. Handing one back makes every core drop it
    /// from its address cache, which costs far more than the read.
    /// - Throws: when the file no longer holds the range (it shrank meanwhile).
    func copy(_ range: Range<Int>, into buffer: inout [UInt8]) throws(ListDiffError) {
        buffer.removeAll(keepingCapacity: true)
        guard mapped else {
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
            return
        }
        buffer.reserveCapacity(range.count)
        var done = 0
        buffer.append(contentsOf: repeatElement(0, count: range.count))
        let failed = buffer.withUnsafeMutableBytes { out -> Bool in
            while done < range.count {
                let n = SystemCalls.readBytes(
                    descriptor, into: out.baseAddress! + done, count: range.count - done, at: range.lowerBound + done)
                if n < 0, SystemCalls.wasInterrupted { continue }
                if n <= 0 { return true }
                done += n
            }
            return false
        }
        if failed {
            throw ListDiffError(.io, file: name, Self.shrank)
        }
    }

    /// A read past the end of a file that shrank gives zeros (noted) instead of SIGBUS.
    private static let guarded: Void = SystemCalls.guardMappedReads()

    /// Throws when a read of this file found that it had shrunk since it was mapped (so
    /// what was read is not the file): reads of the lost pages gave zeros.
    package func checkIntact() throws(ListDiffError) {
        // (A fault from before this file was mapped was another file's, perhaps at these
        // same addresses, since mapped and let go.)
        guard mapped, SystemCalls.mappedFaultCount() > faultsBefore, let fault = SystemCalls.lastMappedFault(),
            let base = bytes.baseAddress
        else { return }
        let start = UInt(bitPattern: base)
        let end = start + UInt((bytes.count + Self.pageSize - 1) / Self.pageSize * Self.pageSize)
        if fault >= start, fault < end {
            throw ListDiffError(.io, file: name, Self.shrank)
        }
    }

    static let shrank = "the file shrank while it was read (another program changed it); run again once it is complete"

    /// The first bytes, to guess the format from.
    var head: [UInt8] { Array(bytes.prefix(4096)) }

    /// Hands back the mapped pages wholly inside `range` (no-op for a read buffer). Needs
    /// no state, so that two threads may release their own parts of one file.
    func release(_ range: Range<Int>) {
        guard mapped else { return }
        let low = (range.lowerBound + Self.pageSize - 1) / Self.pageSize * Self.pageSize
        let high = min(range.upperBound, bytes.count) / Self.pageSize * Self.pageSize
        guard high > low else { return }
        SystemCalls.advise(bytes.baseAddress! + low, count: high - low, .dontNeed)
    }

    /// Hands back every page that `range` touches, whole or not (a page shared with a record
    /// still in use is read again if it is needed).
    func release(pages range: Range<Int>) {
        guard mapped, !range.isEmpty else { return }
        let low = range.lowerBound / Self.pageSize * Self.pageSize
        let high = min(bytes.count, (range.upperBound + Self.pageSize - 1) / Self.pageSize * Self.pageSize)
        guard high > low else { return }
        SystemCalls.advise(bytes.baseAddress! + low, count: high - low, .dontNeed)
    }

    /// Tells the kernel that the rest is read here and there (no read-ahead on a fault).
    func adviseRandom() {
        guard mapped, let base = bytes.baseAddress else { return }
        SystemCalls.advise(base, count: bytes.count, .random)
    }

    deinit {
        if mapped {
            SystemCalls.unmap(bytes.baseAddress!, count: bytes.count)
            SystemCalls.close(descriptor)
        } else {
            UnsafeMutableBufferPointer(mutating: bytes).deallocate()
        }
    }
}

/// Where the records of a file made from part of a larger input stand in that input: a
/// chunk of it (its records numbered from `first`), or a spill file, which holds one record
/// a line (its line `n` is its record `n - 1`), each with its number and place.
package struct RecordOrigin: Sendable {
    /// The number of a chunk's first record.
    package var first = 0
    /// A spill file's records: each one's number and place in the input.
    package var numbers: [Int] = []
    package var locations: [SourceLocation] = []

    /// A chunk whose first record is number `first`.
    package init(first: Int) { self.first = first }

    /// Whether the chunk is part of a stream of YAML documents. It is read as a stream even
    /// when it holds one document, as the whole input is: each document is a record.
    package var stream = false

    /// Records in sections, counted over the whole document: where each section starts and
    /// its name. A record is then named by its place in its section, as the whole input's
    /// reader names it.
    package var sections: (starts: [Int], names: [Value?])? = nil

    /// A spill file's records.
    package init(numbers: [Int], locations: [SourceLocation]) {
        self.numbers = numbers
        self.locations = locations
    }

    func number(_ r: Int) -> Int { numbers.isEmpty ? first + r : numbers[r] }

    /// The place in the input of a place in a spill file: its record's start.
    func location(_ spilled: SourceLocation) -> SourceLocation {
        let r = spilled.line - 1
        return locations.indices.contains(r) ? locations[r] : spilled
    }
}
