import Synchronization

/// Reads a whole input into memory: a regular file, `-` for standard input, or any
/// stream (pipes, FIFOs, `<(process substitution)`), with plain `read(2)` calls.
package enum InputFile {
    /// The most bytes one input may hold (64 GiB unless set): a bound on what a device or an
    /// endless stream can make listdiff read.
    package static let maxBytes = Atomic<Int>(64 << 30)

    /// How far into an input `checkStart` looks.
    static let startLength = 1 << 16

    /// Refuses an input whose start holds a NUL byte: no JSON, NDJSON, YAML or CSV text does, and
    /// /dev/zero, binary files and random bytes do at once.
    static func checkStart(_ bytes: UnsafeBufferPointer<UInt8>, name: String) throws(ListDiffError) {
        let start = UnsafeBufferPointer(rebasing: bytes.prefix(startLength))
        guard let base = start.baseAddress, let nul = SystemCalls.find(0, in: base, count: start.count) else { return }
        let offset = UnsafeRawPointer(nul) - UnsafeRawPointer(base)
        throw ListDiffError(
            .syntax,
            file: name, location: SourceLocation.of(offset: offset, in: start),
            "holds a NUL byte, which no JSON, NDJSON, YAML or CSV text holds")
    }

    static func checkSize(_ count: Int, name: String) throws(ListDiffError) {
        let limit = maxBytes.load(ordering: .relaxed)
        if count > limit {
            throw ListDiffError(
                .limit, file: name, "holds more than \(limit) bytes, the most listdiff reads (LISTDIFF_MAX_INPUT_SIZE sets it)")
        }
    }

    /// Reads the input at `path`. `text` refuses one that starts with a NUL byte
    /// (`checkStart`); without it, any bytes are read (a file compared as bytes).
    package static func read(_ path: String, text: Bool = true) throws(ListDiffError) -> [UInt8] {
        let (fd, _) = try open(path)
        defer { if fd != SystemCalls.standardInput { SystemCalls.close(fd) } }
        return try read(fd: fd, name: path, text: text)
    }

    /// Opens `path` (`-` is standard input) for reading, refusing a directory; the caller
    /// closes the descriptor (unless it is standard input).
    package static func open(_ path: String) throws(ListDiffError) -> (fd: Int32, status: SystemCalls.FileStatus?) {
        let fd: Int32
        if path == "-" {
            fd = SystemCalls.standardInput
        } else {
            fd = SystemCalls.openForReading(path)
            guard fd >= 0 else { throw ListDiffError(.io, file: path, "cannot open: \(errnoText())") }
        }
        let status = SystemCalls.status(of: fd)
        if status?.kind == .directory {
            if fd != SystemCalls.standardInput { SystemCalls.close(fd) }
            throw ListDiffError(.io, file: path, "is a directory")
        }
        return (fd, status)
    }

    /// Reads everything left on an open descriptor (which stays open).
    package static func read(fd: Int32, name path: String, text: Bool = true) throws(ListDiffError) -> [UInt8] {
        var capacity = 1 << 16
        if let status = SystemCalls.status(of: fd), status.kind == .regular, status.size > 0 {
            capacity = status.size + 1
        }
        try checkSize(capacity - 1, name: path)
        var bytes = [UInt8](repeating: 0, count: capacity)
        var count = 0
        var checked = !text
        while true {
            if !checked, count >= startLength {
                try bytes.withUnsafeBufferPointer { b throws(ListDiffError) in
                    try checkStart(UnsafeBufferPointer(rebasing: b[..<count]), name: path)
                }
                checked = true
            }
            try checkSize(count, name: path)
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: bytes.count)) }
            let n = bytes.withUnsafeMutableBytes { buffer in
                SystemCalls.readBytes(fd, into: buffer.baseAddress! + count, count: buffer.count - count)
            }
            if n < 0 {
                if SystemCalls.wasInterrupted { continue }
                throw ListDiffError(.io, file: path, "cannot read: \(errnoText())")
            }
            if n == 0 { break }
            count += n
        }
        bytes.removeSubrange(count...)
        if !checked { try bytes.withUnsafeBufferPointer { b throws(ListDiffError) in try checkStart(b, name: path) } }
        return bytes
    }

    static func errnoText() -> String {
        SystemCalls.describe(SystemCalls.errorNumber)
    }
}

/// Reads one input into a keyed document.
package struct DocumentReader: Sendable {
    /// A format forced by the user; nil means by extension, then by content.
    package var format: InputFormat?
    package var key: IdentityKey
    package var duplicates: DuplicatePolicy = .error
    /// Where the records are: `--path`, `--section-key`, `--items`.
    package var layout = LayoutOptions()
    package var json = JSONReader()
    package var yaml = YAMLReader()
    /// How CSV and TSV cells are read: as strings, or with numbers, booleans and nulls
    /// inferred (`--csv-types infer`).
    package var csvInfersTypes = false

    package init(
        format: InputFormat? = nil, key: IdentityKey, duplicates: DuplicatePolicy = .error,
        layout: LayoutOptions = LayoutOptions()
    ) {
        self.format = format
        self.key = key
        self.duplicates = duplicates
        self.layout = layout
    }

    /// The format used for `path` with these `bytes`.
    package func format(for path: String, bytes: [UInt8]) -> InputFormat {
        format ?? InputFormat.fromExtension(of: path) ?? InputFormat.sniff(bytes)
    }

    /// Records in a changeset's layout how its OLD, read in `format`, was read: the format,
    /// and a CSV or TSV OLD's cell types, so that `apply` reads OLD so again.
    package func record(oldFormat format: InputFormat, in layout: inout Layout) {
        layout.format = format
        layout.csvInfersTypes = csvInfersTypes && (format == .csv || format == .tsv)
    }

    /// The CSV reader for `format` (CSV or TSV).
    func csv(_ format: InputFormat) -> CSVReader {
        CSVReader(separator: format == .tsv ? 0x09 : UInt8(ascii: ","), inferTypes: csvInfersTypes)
    }

    /// An input as the engine reads it: a CSV or TSV input turned into the JSON text of its
    /// records (`CSVReader`), anything else as it is.
    package func opened(_ file: MappedFile, _ format: InputFormat) throws(ListDiffError) -> (MappedFile, InputFormat) {
        if format == .yaml { file.lineBreaks = .yaml }
        guard format == .csv || format == .tsv else { return (file, format) }
        let (json, source) = try csv(format).transcode(file.bytes, name: file.name)
        let opened = MappedFile(name: file.name, json: json, csv: source)
        opened.origin = file.origin
        return (opened, .json)
    }

    /// The whole input as one value, with the places of its values, in `format`; its records
    /// are not looked for.
    package func root(_ bytes: [UInt8], _ format: InputFormat, name: String) throws(ListDiffError) -> (Value, SourceText) {
        switch format {
        case .json: return try json.read(bytes, name: name)
        case .ndjson: return try json.readLines(bytes, name: name)
        case .yaml: return try yaml.read(bytes, name: name)
        case .csv, .tsv: return try csv(format).read(bytes, name: name, json: json)
        }
    }
}
