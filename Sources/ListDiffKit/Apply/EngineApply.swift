/// A changeset applied to a file on the engine: OLD is scanned as a diff scans it (no value
/// tree), the changes are checked and placed by record number, and the new document is
/// written with OLD's unchanged records copied from their bytes. Only the changeset's
/// values, and the records the key check reads, are built as values.
///
/// Making one does the whole job and its checks: OLD must be the file the changeset was
/// made from (its fingerprint), every change must find its key at its old position, and
/// the result must be the document the changeset leads to (the new fingerprint). `force`
/// skips the two fingerprint checks, never the key check. Then `write` writes the result.
///
/// It writes what `Changeset.apply(to:)` and the writers give on the same document, which
/// the tests check.
public final class FileApplier: @unchecked Sendable {
    /// The changes to apply. (Read from a file by the command, its deletes carry no record
    /// and its updates no fields: apply reads neither.)
    public let changeset: Changeset
    /// OLD's path.
    public let name: String
    /// OLD's format: as given, or found from its extension, then its content.
    public let format: InputFormat
    let side: Engine.Side
    /// The key hashing OLD's table was made with.
    let hashing: KeyHashing
    let reader: DocumentReader
    /// The new sections: each record an OLD record's number (0 and up), or -1 - k for the
    /// changeset's value `values[k]`.
    private var sections: [Changeset.SectionContent<Int32>] = []
    private var values: [Value] = []
    /// In a map of records: the member name of each of `values` (its change's key).
    private var valueNames: [String] = []

    /// Scans OLD, read as the changeset records (else with `reader`'s format, CSV and YAML
    /// options), with `reader`'s maximum depth, keyed by the changeset's key, duplicates
    /// policy and layout, and applies the changeset to it, with the checks
    /// `init(changeset:oldPath:format:csvInfersTypes:force:)` makes.
    ///
    /// - Throws: a `.usage` error when `asked` contradicts how the changeset says OLD was
    ///   read; the errors reading OLD for a diff gives, and those of the checks.
    package convenience init(
        changeset: Changeset, old path: String, reader base: DocumentReader, asked: ReadingRequest? = nil,
        force: Bool = false, changesetName: String? = nil, progress: Progress? = nil
    ) throws(ListDiffError) {
        let scan = try Self.scan(Header(changeset), old: path, reader: base, asked: asked, progress: progress, checksKeys: false)
        try self.init(changeset: changeset, scan, force: force, changesetName: changesetName)
    }

    /// Applies `changeset` to an input already open, read in `format`, with the checks
    /// (the fingerprints' unless `force`).
    package convenience init(changeset: Changeset, file: MappedFile, format: InputFormat, force: Bool) throws(ListDiffError) {
        let scan = try Self.scan(
            Header(changeset), file, format, reader: DocumentReader(key: changeset.key), progress: nil, checksKeys: false)
        try self.init(changeset: changeset, scan, force: force, changesetName: nil)
    }

    /// Applies `changeset` to the file at `path`, the OLD it was made from, and keeps the
    /// result for `write`.
    ///
    /// - Parameters:
    ///   - changeset: the changes to apply.
    ///   - path: OLD's path.
    ///   - format: OLD's format; nil takes the one the changeset records, else finds it from
    ///     the extension, then from the first bytes.
    ///   - csvInfersTypes: whether a CSV or TSV OLD's cells are read with types inferred; nil
    ///     reads them as the changeset records (as strings when it records nothing).
    ///   - force: apply even when OLD's fingerprint is not the changeset's, or the changeset
    ///     has none, and keep a result whose fingerprint is not the one the changeset names.
    ///     Each change must still find its key at its old position.
    /// - Throws: a `.usage` error when `format` or `csvInfersTypes` contradicts how the
    ///   changeset says the diff read OLD; the errors reading OLD for a diff gives; a
    ///   `.changeset` error when OLD is
    ///   not the file the changeset was made from, the changeset does not fit it, or the
    ///   result is not the document the changeset leads to. The fingerprint errors carry
    ///   the hint `.force`.
    public convenience init(
        changeset: Changeset, oldPath path: String, format: InputFormat? = nil, csvInfersTypes: Bool? = nil,
        force: Bool = false
    ) throws(ListDiffError) {
        var reader = DocumentReader(format: format, key: changeset.key)
        reader.csvInfersTypes = csvInfersTypes ?? false
        try self.init(
            changeset: changeset, old: path, reader: reader,
            asked: ReadingRequest(format: format, csvInfersTypes: csvInfersTypes), force: force)
    }

    /// Reads a changeset (as `ChangesetReader.readForApply` does: without the values apply
    /// does not read) and scans OLD at once, on two cores:
    /// the scan needs only the changeset's key, duplicates policy and layout, which a
    /// changeset that listdiff wrote gives before its changes. The changeset's errors come
    /// first, as when it is read before OLD.
    package static func open(
        changeset bytes: [UInt8], name: String, old path: String, reader base: DocumentReader,
        asked: ReadingRequest? = nil, force: Bool = false, progress: Progress? = nil
    ) throws(ListDiffError) -> FileApplier {
        let reader = ChangesetReader()
        guard let header = reader.header(bytes, name: name) else {
            return try FileApplier(
                changeset: reader.readForApply(bytes, name: name), old: path, reader: base, asked: asked, force: force,
                changesetName: name, progress: progress)
        }
        let early = Header(key: header.key, duplicates: header.duplicates, layout: header.layout)
        let (read, scanned) = Concurrently.both(
            { () throws(ListDiffError) -> Changeset in try reader.readForApply(bytes, name: name) },
            { () throws(ListDiffError) -> Scan in
                // On one core less than the machine has: the changeset is read on the
                // other meanwhile, and takes about as long as the scan on one core.
                try Self.scan(
                    early, old: path, reader: base, asked: asked, progress: progress, parts: max(1, Machine.cores - 1),
                    checksKeys: false)
            })
        let changeset = try read.get()
        progress?.lap("read changeset, scan OLD")
        guard Header(changeset) == early else {
            // (Not the header the whole changeset gives: OLD is scanned again with its own.)
            return try FileApplier(
                changeset: changeset, old: path, reader: base, asked: asked, force: force, changesetName: name,
                progress: progress)
        }
        let applier = try FileApplier(changeset: changeset, try scanned.get(), force: force, changesetName: name)
        progress?.lap("apply")
        return applier
    }

    /// What OLD's scan depends on in a changeset.
    struct Header: Equatable {
        var key: IdentityKey
        var duplicates: DuplicatePolicy
        var layout: Layout
    }

    /// OLD, scanned for a changeset.
    struct Scan {
        let name: String
        let format: InputFormat
        var side: Engine.Side
        var hashing: KeyHashing
        let reader: DocumentReader
        /// The engine that scanned OLD, and OLD as it read it.
        let engine: Engine
        let file: MappedFile
        let scanned: InputFormat
        /// Whether OLD's keys were checked as a diff checks them (else only scanned).
        var keysChecked: Bool

        /// The scan with OLD's keys checked as a diff checks them: a record without a usable
        /// key, a key found twice. When two keys share a hash, OLD is scanned again under
        /// the next key hashing.
        func checkingKeys() throws(ListDiffError) -> Scan {
            guard !keysChecked else { return self }
            var checked = self
            checked.keysChecked = true
            do throws(ListDiffError) {
                if try engine.indexed(side) != nil { return checked }
                (checked.side, checked.hashing) = try engine.keyedSide(file, scanned, from: try hashing.nextAttempt())
            } catch {
                try file.checkIntact()
                throw error
            }
            try file.checkIntact()
            return checked
        }
    }

    /// Scans the file at `path` for a changeset, read as the changeset records: its format,
    /// its CSV types and its YAML version, where it records its format (else as `reader`
    /// does, as before listdiff recorded them). A setting in `asked` that contradicts them
    /// is refused.
    static func scan(
        _ header: Header, old path: String, reader base: DocumentReader, asked: ReadingRequest? = nil,
        progress: Progress?, parts: Int = Machine.cores, checksKeys: Bool = true
    ) throws(ListDiffError) -> Scan {
        if let asked, let conflict = header.layout.conflict(with: asked) { throw conflict.error }
        var reader = base
        if let format = header.layout.format {
            reader.format = format
            reader.csvInfersTypes = header.layout.csvInfersTypes
            reader.yaml.version = header.layout.yamlVersion ?? .v1_2
        }
        let input = try MappedFile(path)
        let format = reader.format(for: path, bytes: input.head)
        return try scan(header, input, format, reader: reader, progress: progress, parts: parts, checksKeys: checksKeys)
    }

    /// Scans an open OLD read in `format`, keyed by the header's key, duplicates policy
    /// and layout. With `checksKeys` false, OLD's keys are left for `Scan.checkingKeys()`
    /// (repeated keys that are numbered are always checked: their numbers are needed).
    static func scan(
        _ header: Header, _ input: MappedFile, _ format: InputFormat, reader base: DocumentReader, progress: Progress?,
        parts: Int = Machine.cores, checksKeys: Bool = true
    ) throws(ListDiffError) -> Scan {
        var reader = base
        reader.key = header.key
        reader.duplicates = header.duplicates
        reader.layout = header.layout.options
        // OLD read as the diff read it.
        if let version = header.layout.yamlVersion { reader.yaml.version = version }
        // (A CSV or TSV OLD is scanned as the JSON text of its records, and written back as CSV.)
        let (file, scanned) = try reader.opened(input, format)
        var engine = Engine(
            key: header.key, differ: Differ(), duplicates: header.duplicates, options: reader.layout,
            progress: progress)
        engine.maxDepth = reader.json.maxDepth
        engine.yaml = reader.yaml
        engine.releasesPages = true
        engine.parts = parts
        let checks = checksKeys || header.duplicates == .match
        let side: Engine.Side, hashing: KeyHashing
        do throws(ListDiffError) {
            if checks {
                (side, hashing) = try engine.keyedSide(file, scanned)
            } else {
                (side, hashing) = (try engine.side(file, scanned, against: nil, engine.keyHashing), engine.keyHashing)
            }
        } catch {
            try file.checkIntact()
            throw error
        }
        try file.checkIntact()
        return Scan(
            name: input.name, format: format, side: side, hashing: hashing, reader: reader, engine: engine, file: file,
            scanned: scanned, keysChecked: checks)
    }

    /// Applies the changeset to the scanned OLD, with the checks (the fingerprints' unless
    /// `force`).
    init(changeset: Changeset, _ scan: Scan, force: Bool, changesetName: String?) throws(ListDiffError) {
        // OLD's keys need no check when OLD is the document the changeset was made from: the
        // diff that made it checked them. Else they are checked first, as a diff checks them.
        var scan = scan
        if force || changeset.fingerprints.map({ Fingerprint.string(scan.side.fingerprint) != $0.old }) ?? true {
            scan = try scan.checkingKeys()
        }
        self.changeset = changeset
        name = scan.name
        format = scan.format
        side = scan.side
        hashing = scan.hashing
        reader = scan.reader
        if !force {
            guard let fingerprints = changeset.fingerprints else {
                throw ListDiffError(
                    .changeset, file: changesetName, "the changeset has no fingerprints, so it cannot be checked against \(name)",
                    hint: .force)
            }
            guard fingerprint == fingerprints.old else {
                throw ListDiffError(
                    .changeset, file: name,
                    "this is not the document the changeset was made from (its fingerprint is \(fingerprint.prefix(19))…, the changeset's \(fingerprints.old.prefix(19))…; \(count) records, the changeset's \(changeset.oldCount))",
                    hint: .force)
            }
        }
        try apply()
        if !force, let fingerprints = changeset.fingerprints, newFingerprint != fingerprints.new {
            throw ListDiffError(
                .changeset, file: changesetName,
                "applying the changeset does not give the document it was made for (the new fingerprint differs): the changeset was edited or is inconsistent"
            )
        }
    }

    /// OLD's fingerprint, as the diff that made the changeset computed it for its OLD.
    public var fingerprint: String { Fingerprint.string(side.fingerprint) }

    /// OLD's number of records.
    public var count: Int { side.count }

    /// Applies the changes, in the order and with the checks of `Changeset.apply(to:)`.
    ///
    /// - Throws: when OLD's layout is not the changeset's, or the changeset does not fit OLD.
    private func apply() throws(ListDiffError) {
        // (How the inputs were read is not where the records are.)
        let made = changeset.layout.placement
        // An empty object is an empty map, for a changeset made from a map.
        if made.shape == .map, side.isEmptyObject { side.becomeEmptyMap() }
        guard side.layout == made else {
            throw ListDiffError(.changeset, file: name, "this holds \(side.layout); the changeset was made from \(changeset.layout)")
        }
        let grid: [Changeset.SectionContent<Int32>] = side.sections.map { section in
            (section.name, section.header, (Int32(section.records.lowerBound)..<Int32(section.records.upperBound)).map { $0 })
        }
        var values: [Value] = [], valueNames: [String] = []
        let side = side, hashing = hashing, changeset = changeset, key = changeset.key, match = changeset.duplicates == .match
        // What the check reads for each change, held here rather than read through `side`
        // (each read through it would retain what it holds).
        let firsts = side.sections.map(\.records.lowerBound), keyHashes = side.table.keyHashes
        // (Under a path with `*`, keys are hashed within their list.)
        let scopes: [Hash128?] = side.sections.map { section in
            guard case .pattern = side.layout.shape, case .string(let list)? = section.name else { return nil }
            return CanonicalHash.string(list)
        }
        let result = try changeset.applySections(
            to: grid,
            wrap: { value, key in
                values.append(value)
                if case .string(let name) = key { valueNames.append(name) }
                return Int32(-values.count)
            }
        ) { (n: Int, change: Change, p: RecordPosition) throws(ListDiffError) in
            let r = firsts[p.section] + p.index
            // The key hash the scan found says yes without reading the record; a record
            // is read, and the message made, only when it says no.
            var hash = hashing.hash(key: change.key, fields: key.fields.count)
            if let scope = scopes[p.section] { hash = hashing.scoped(hash, in: scope) }
            if keyHashes[r] == hash,
                !match || side.occurrence(r) == (change.occurrence ?? 0)
            {
                return
            }
            let found = try side.records.key(r, key)
            try changeset.checkKey(
                n, change, p, found: found, scalar: side.records.isScalar(r),
                occurrence: match ? side.occurrence(r) : nil)
        }
        self.values = values
        self.valueNames = valueNames
        sections = result
    }

    /// The member name of a record of a map: OLD's record's, or the change's key for a
    /// value the changeset brings.
    private func memberName(_ r: Int32) throws(ListDiffError) -> String {
        r >= 0 ? try side.records.memberName(Int(r)) : valueNames[Int(-1 - r)]
    }

    /// The fingerprint of the result (of its part at the layout's path).
    public var newFingerprint: String {
        // Under `--unordered`, each list is hashed as a bag, in any order (`Fingerprint.ofResult`).
        let unordered = changeset.comparison.unorderedRecords
        let hashes = side.table.hashes, values = values
        if let names = side.records.names {
            // A map: its members, each name with its record, in any order.
            var map = CanonicalHash.ObjectHasher()
            for r in sections.first?.records ?? [] {
                let name = r >= 0 ? names.hashes[Int(r)] : CanonicalHash.string(valueNames[Int(-1 - r)])
                map.add(key: name, value: r >= 0 ? hashes[Int(r)] : CanonicalHash.of(values[Int(-1 - r)]))
            }
            return Fingerprint.string(map.finish())
        }
        return Fingerprint.string(
            side.layout.hash(sections) { records in
                var list = CanonicalHash.ListHasher(unordered: unordered)
                for r in records { list.add(r >= 0 ? hashes[Int(r)] : CanonicalHash.of(values[Int(-1 - r)])) }
                return list.finish()
            })
    }

    // MARK: - Writing

    /// Writes the new document: JSON indented as `JSONWriter.writePretty` does, NDJSON one
    /// compact value per line (the document must be a list), or YAML as `YAMLWriter` does.
    ///
    /// - Throws: before writing anything, when the document holds a number JSON cannot
    ///   write, or is not a list for NDJSON; a YAML emitter's failure.
    public func write(_ format: InputFormat, to stream: inout some TextOutputStream) throws(ListDiffError) {
        try write(format) { stream.write(String(decoding: $0, as: UTF8.self)) }
    }

    /// Writes the new document as `write(_:to:)` does, handing its bytes to `out` in blocks.
    package func write(_ format: InputFormat, bytes out: Sink) throws(ListDiffError) {
        try writeUnchecked(format, bytes: out)
        // OLD's records were read again as they were written.
        try side.file.checkIntact()
    }

    private func writeUnchecked(_ format: InputFormat, bytes out: Sink) throws(ListDiffError) {
        let root = try skeleton()
        if format != .yaml, let bad = try firstNonFiniteNumber(root) {
            throw ListDiffError(
                .usage, file: name, "the result holds the number \(bad), which JSON cannot write", hint: .outputFormat(.yaml))
        }
        if side.lone, format == .json || format == .yaml, let record = try loneRecord() {
            // OLD was one object, and so is the result: it is written alone again.
            return try writeLone(record, format, to: out)
        }
        switch format {
        case .json:
            var bytes = JSONBytes(capacity: 1 << 16)
            writeJSON(root, level: 0, pretty: true, to: &bytes, out)
            bytes.append("\n")
            out(UnsafeRawBufferPointer(bytes.bytes))
        case .ndjson:
            guard case .array(let items) = root else {
                throw ListDiffError(
                    .usage,
                    file: name,
                    "NDJSON writes a list, one record per line; the result is not a list (it is of type \(root.typeName))",
                    hint: .outputFormat(.json)
                )
            }
            var bytes = JSONBytes(capacity: 1 << 16)
            if let t = Self.hole(root) {
                writeRecords(sections[t].records, pretty: false, level: 0, lines: true, to: &bytes, out)
            } else {
                for item in items {
                    writeJSON(item, level: 0, pretty: false, to: &bytes, out)
                    bytes.append("\n")
                }
            }
            out(UnsafeRawBufferPointer(bytes.bytes))
        case .yaml:
            try writeYAML(root, to: out)
        case .csv, .tsv:
            try writeCSV(root, separator: format == .tsv ? 0x09 : UInt8(ascii: ","), to: out)
        }
    }

    /// The records as CSV: a header row, then one row per record. The header is OLD's when
    /// OLD is CSV, then any other field in the order records first hold it. A field a
    /// record lacks, or that is null, is an empty cell; numbers and booleans are written as
    /// JSON writes them. Rows end as OLD's do (CRLF or LF).
    ///
    /// - Throws: before writing anything, when the result is not a list of objects, or a
    ///   field holds an object or a list (a cell holds text).
    private func writeCSV(_ root: Value, separator: UInt8, to out: Sink) throws(ListDiffError) {
        guard case .array = root, let t = Self.hole(root) else {
            throw ListDiffError(
                .usage, file: name, "CSV writes a list of records; the result is not one list", hint: .outputFormat(.json))
        }
        let records = sections[t].records
        var header = side.file.csv?.header ?? []
        var known = Set(header)
        // A CSV OLD's own records are flat and hold its header's fields alone: then only the
        // changeset's values are checked, and OLD is not read twice.
        let checked = side.file.csv == nil ? Array(records.indices) : records.indices.filter { records[$0] < 0 }
        var k = 0
        try forEachValue(checked.map { records[$0] }) { (value: Value, _) throws(ListDiffError) in
            let index = checked[k]
            k += 1
            guard case .object(let object) = value else {
                throw ListDiffError(
                    .usage, file: name, "CSV writes records that are objects; record \(index) is \(value.typeName.withArticle)")
            }
            for member in object.members {
                switch member.value {
                case .object, .array:
                    let what = member.value.typeName == "object" ? "an object" : "a list"
                    throw ListDiffError(
                        .usage, file: name,
                        "a CSV cell holds text; field \(JSONWriter.compact(.string(member.key))) of record \(index) is \(what)")
                default:
                    if known.insert(member.key).inserted { header.append(member.key) }
                }
            }
        }
        let newline: [UInt8] = side.file.csv?.crlf == true ? [0x0D, 0x0A] : [0x0A]
        var bytes: [UInt8] = []
        func row(_ cells: [String]) {
            Self.csvRow(cells, separator: separator, newline: newline, into: &bytes)
            if bytes.count >= 1 << 16 {
                bytes.withUnsafeBytes { out($0) }
                bytes.removeAll(keepingCapacity: true)
            }
        }
        if !header.isEmpty { row(header) }
        try forEachValue(records) { (value: Value, _) throws(ListDiffError) in
            guard case .object(let object) = value else { return }
            row(Self.csvCells(of: object, header: header))
        }
        bytes.withUnsafeBytes { out($0) }
    }

    /// A record's cells under `header`: a field it lacks, or that is null, is an empty cell;
    /// numbers and booleans are written as JSON writes them.
    package static func csvCells(of object: Value.Object, header: [String]) -> [String] {
        header.map { name in
            switch object[name] {
            case nil, .null?: return ""
            case .string(let text)?: return text
            case let other?: return JSONWriter.compact(other)
            }
        }
    }

    /// One CSV row: a cell that holds the separator, a quote or a line break is quoted (its
    /// quotes doubled); then `newline`.
    package static func csvRow(_ cells: [String], separator: UInt8, newline: [UInt8], into bytes: inout [UInt8]) {
        for (k, text) in cells.enumerated() {
            if k > 0 { bytes.append(separator) }
            let utf8 = Array(text.utf8)
            if utf8.contains(where: { $0 == separator || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) {
                bytes.append(UInt8(ascii: "\""))
                for b in utf8 {
                    if b == UInt8(ascii: "\"") { bytes.append(b) }
                    bytes.append(b)
                }
                bytes.append(UInt8(ascii: "\""))
            } else {
                bytes.append(contentsOf: utf8)
            }
        }
        bytes.append(contentsOf: newline)
    }

    /// The result's one record, when it holds exactly one.
    private func loneRecord() throws(ListDiffError) -> Value? {
        guard sections.count == 1, sections[0].records.count == 1 else { return nil }
        var record: Value? = nil
        try forEachValue(sections[0].records) { value, _ in record = value }
        return record
    }

    /// One record, written alone as the document.
    private func writeLone(_ record: Value, _ format: InputFormat, to out: Sink) throws(ListDiffError) {
        if format == .yaml {
            let text = try YAMLWriter.document(record)
            return Array(text.utf8).withUnsafeBytes { out($0) }
        }
        var bytes = JSONBytes(capacity: 1 << 12)
        bytes.appendPretty(record, level: 0)
        bytes.append("\n")
        out(UnsafeRawBufferPointer(bytes.bytes))
    }

    /// The new document with each section's records list standing as one marker (a number
    /// whose text no reader gives), for the writers to fill in.
    private func skeleton() throws(ListDiffError) -> Value {
        let map = side.layout.shape == .map
        let marked = sections.enumerated().map { t, section in
            let marker = Value.number(Number(text: "<records \(t)>"))
            // (A map's records are members: its marker is one, with no name.)
            return (name: section.name, header: section.header, records: [map ? .object(Object([.init(key: "", value: marker)])) : marker])
        }
        return try side.layout.rebuild(try outside(), sections: marked)
    }

    /// The new document as a value: what `write` writes, built in memory.
    package func result() throws(ListDiffError) -> Value {
        let root = try outside()
        var filled: [SectionContent<Value>] = []
        for section in sections {
            var records: [Value] = []
            records.reserveCapacity(section.records.count)
            let map = side.layout.shape == .map
            try forEachValue(section.records) { (value: Value, r: Int32) throws(ListDiffError) in
                // A map's record is given as its member, its name and itself.
                records.append(map ? .object(Object([.init(key: try memberName(r), value: value)])) : value)
            }
            filled.append((section.name, section.header, records))
        }
        let value = try side.layout.rebuild(root, sections: filled)
        try side.file.checkIntact()
        return value
    }

    /// The section whose marker the container (a records list, or a map) holds.
    private static func hole(_ container: Value) -> Int? {
        let marker: Value
        switch container {
        case .array(let items) where items.count == 1: marker = items[0]
        case .object(let object) where object.members.count == 1 && object.members[0].key.isEmpty: marker = object.members[0].value
        default: return nil
        }
        guard case .number(let n) = marker, n.text.hasPrefix("<records ") else { return nil }
        return Int(n.text.dropFirst(9).dropLast())
    }

    /// What lies outside the records' container (when the layout has a path): OLD read with
    /// its container left out, so that only the rest is built. A YAML OLD is read whole.
    private func outside() throws(ListDiffError) -> Value {
        guard side.layout.path != nil else { return .null }
        let bytes = side.file.bytes
        // (A pattern's lists are many, here and there: the document is read whole.)
        if format == .yaml || side.layout.shape == .pattern {
            return try reader.root(Array(bytes), format, name: name).0
        }
        let start = side.containerOffset
        // The container was checked by the scan: its end is found by matching brackets.
        let end = JSONParser.skipFast(bytes, from: start) ?? bytes.count
        var text = Array(bytes[..<start])
        text.append(contentsOf: "null".utf8)
        text.append(contentsOf: bytes[end...])
        return try JSONReader(maxDepth: reader.json.maxDepth).read(text, name: name).0
    }

    /// The first number JSON cannot write, in the document or its records (only a YAML
    /// OLD's records or the changeset's values can hold one).
    private func firstNonFiniteNumber(_ root: Value) throws(ListDiffError) -> Number? {
        func outside(_ value: Value) -> Number? {
            switch value {
            case let container where Self.hole(container) != nil: return nil
            case .array(let items): return items.lazy.compactMap(outside).first
            case .object(let object): return object.members.lazy.compactMap { outside($0.value) }.first
            default: return value.firstNonFiniteNumber
            }
        }
        if let bad = outside(root) { return bad }
        for value in values { if let bad = value.firstNonFiniteNumber { return bad } }
        guard format == .yaml else { return nil }
        var found: Number? = nil
        try forEachValue(Array(0..<Int32(side.count))) { value, _ in
            if found == nil { found = value.firstNonFiniteNumber }
        }
        return found
    }

    /// The values of `records`, in order, read in batches (for a YAML OLD).
    private func forEachValue(_ records: [Int32], _ body: (Value, Int32) throws(ListDiffError) -> Void) throws(ListDiffError) {
        var start = 0
        while start < records.count {
            let batch = records[start..<min(records.count, start + 4096)]
            let old = batch.filter { $0 >= 0 }.map { Int($0) }
            let read = try side.records.values(old)
            for r in batch { try body(r >= 0 ? read[Int(r)]! : values[Int(-1 - r)], r) }
            start += batch.count
        }
    }

    /// A JSON value, the records lists in it written where their markers are.
    private func writeJSON(_ value: Value, level: Int, pretty: Bool, to bytes: inout JSONBytes, _ out: Sink) {
        // A list's elements, or an object's members with their names.
        let elements: [(name: String?, value: Value)]
        switch value {
        case let container where Self.hole(container) != nil:
            return writeRecords(sections[Self.hole(container)!].records, pretty: pretty, level: level, lines: false, to: &bytes, out)
        case .array(let items) where !items.isEmpty: elements = items.map { (nil, $0) }
        case .object(let object) where !object.members.isEmpty: elements = object.members.map { ($0.key, $0.value) }
        default: return pretty ? bytes.appendPretty(value, level: level) : bytes.append(value: value)
        }
        let isObject = elements[0].name != nil
        bytes.append(isObject ? "{" : "[")
        for (i, element) in elements.enumerated() {
            if i > 0 { bytes.append(",") }
            if pretty {
                bytes.append("\n")
                bytes.indent(level + 1)
            }
            if let name = element.name {
                bytes.append(string: name)
                bytes.append(pretty ? ": " : ":")
            }
            writeJSON(element.value, level: level + 1, pretty: pretty, to: &bytes, out)
        }
        if pretty {
            bytes.append("\n")
            bytes.indent(level)
        }
        bytes.append(isObject ? "}" : "]")
    }

    /// Where written bytes go.
    package typealias Sink = (UnsafeRawBufferPointer) -> Void

    private final class Block: @unchecked Sendable {
        var bytes = JSONBytes(capacity: 1 << 16)
    }

    /// A records list: `[` and `]` around the records (one per line, indented, when
    /// `pretty`), or with `lines`, one compact record per line and no brackets; a map's
    /// records in `{` and `}`, each after its name. Blocks of records are written on every
    /// core at once; OLD's pages go once written.
    private func writeRecords(
        _ records: [Int32], pretty: Bool, level: Int, lines: Bool, to bytes: inout JSONBytes,
        _ out: Sink
    ) {
        let map = side.layout.shape == .map
        if !lines {
            guard !records.isEmpty else { return bytes.append(map ? "{}" : "[]") }
            bytes.append(map ? "{" : "[")
        }
        let json = format != .yaml
        let source = side.records, file = side.file, values = values
        records.withUnsafeBufferPointer { all in
            nonisolated(unsafe) let all = all
            Machine.inWaves(count: all.count, slot: Block.init) { block, range in
                block.bytes.removeAll()
                // A YAML OLD's records are read in one batch per block.
                let read = json ? [:] : (try? source.values(range.compactMap { all[$0] >= 0 ? Int(all[$0]) : nil })) ?? [:]
                // A JSON OLD's records that keep their order (most) are read where they are
                // mapped, and their pages handed back in one run; the others (moved) are
                // copied from the file, so that no stray page is mapped and handed back
                // (each hand-back makes every core drop the pages from its address cache).
                var inOrder = [Bool](repeating: !json, count: range.count)
                if json {
                    visitLongestIncreasingSubsequence(count: range.count, value: { Int(all[range.lowerBound + $0]) }) {
                        inOrder[$0] = true
                    }
                }
                var scratch: [UInt8] = []
                var run: Range<Int>? = nil
                // One access to the block's bytes for the whole loop (each access to a
                // class's property is checked for exclusivity at run time).
                func fill(_ bytes: inout JSONBytes) {
                    for n in range {
                        if lines {
                            if n > 0 { bytes.append("\n") }
                        } else if pretty {
                            bytes.append(n == 0 ? "\n" : ",\n")
                            bytes.indent(level + 1)
                        } else if n > 0 {
                            bytes.append(",")
                        }
                        let r = Int(all[n])
                        if map {
                            // (A name that cannot be read again means the file changed: the
                            // check after writing says so.)
                            bytes.append(string: (try? memberName(Int32(r))) ?? "")
                            bytes.append(pretty ? ": " : ":")
                        }
                        if r < 0 {
                            let value = values[-1 - r]
                            pretty ? bytes.appendPretty(value, level: level + 1) : bytes.append(value: value)
                        } else if json {
                            func write(_ text: UnsafeRawBufferPointer) {
                                pretty ? bytes.append(prettyJSON: text, level: level + 1) : bytes.append(compactJSON: text)
                            }
                            let start = source.starts[r], end = start + Int(source.lengths[r])
                            if inOrder[n - range.lowerBound] {
                                write(UnsafeRawBufferPointer(source.bytes(r)))
                                run = (run?.lowerBound ?? start)..<end
                            } else if (try? file.copy(start..<end, into: &scratch)) != nil {
                                scratch.withUnsafeBytes { write($0) }
                            } else {
                                // The file shrank: reading the map notes it, and the write fails.
                                write(UnsafeRawBufferPointer(source.bytes(r)))
                            }
                        } else if let value = read[r] {
                            pretty ? bytes.appendPretty(value, level: level + 1) : bytes.append(value: value)
                        }
                    }
                }
                fill(&block.bytes)
                if json {
                    if let run { file.release(pages: run) }
                } else {
                    // The pages of the OLD records read, in the kernel's fault-around blocks.
                    var strays = StrayPages(file: file, limit: range.count + 1)
                    for n in range where all[n] >= 0 { strays.add(source.starts[Int(all[n])], 1) }
                    strays.release()
                }
            } drain: { block in
                // What came before the block, then the block's bytes as they are (not copied).
                if bytes.count > 0 {
                    out(UnsafeRawBufferPointer(bytes.bytes))
                    bytes.removeAll()
                }
                out(UnsafeRawBufferPointer(block.bytes.bytes))
            }
        }
        if lines {
            if !records.isEmpty { bytes.append("\n") }
        } else if pretty {
            bytes.append("\n")
            bytes.indent(level)
            bytes.append(map ? "}" : "]")
        } else {
            bytes.append(map ? "}" : "]")
        }
    }

    /// The document as YAML through libyaml's emitter, handed on as it is written.
    private func writeYAML(_ root: Value, to out: Sink) throws(ListDiffError) {
        let emitter = LibYAMLEmitter()
        var failure: ListDiffError? = nil
        /// Each record of section `t` through `body` (a map's after its name), the bytes
        /// handed on every 64 KiB.
        func eachRecord(_ t: Int, _ body: (Value) -> Void) {
            let map = side.layout.shape == .map
            do throws(ListDiffError) {
                try forEachValue(sections[t].records) { (record: Value, r: Int32) throws(ListDiffError) in
                    if map { YAMLWriter.string(try memberName(r), to: emitter) }
                    body(record)
                    guard emitter.sink.bytes.count >= 1 << 16 else { return }
                    emitter.sink.bytes.withUnsafeBytes(out)
                    emitter.sink.bytes.removeAll(keepingCapacity: true)
                }
            } catch {
                failure = failure ?? error
            }
        }
        emitter.emit(.streamStart)
        if (side.records as? YAMLRecords)?.details.stream == true, case .array = root, let hole = Self.hole(root) {
            // OLD was a stream of documents: so is the result, one document per record.
            eachRecord(hole) { record in
                emitter.emit(.documentStart)
                YAMLWriter.write(record, to: emitter)
                emitter.emit(.documentEnd)
            }
        } else {
            emitter.emit(.documentStart)
            // The records lists are written where their markers are.
            YAMLWriter.write(root, to: emitter) { container in
                guard let hole = Self.hole(container) else { return false }
                eachRecord(hole) { YAMLWriter.write($0, to: emitter) }
                return true
            }
            emitter.emit(.documentEnd)
        }
        emitter.emit(.streamEnd)
        if let failure { throw failure }
        if let problem = emitter.failure { throw ListDiffError(.io, "cannot write YAML: \(problem)") }
        emitter.sink.bytes.withUnsafeBytes(out)
    }
}

extension FileApplier.Header {
    init(_ changeset: Changeset) {
        self.init(key: changeset.key, duplicates: changeset.duplicates, layout: changeset.layout)
    }
}

extension Engine {
    /// An input scanned on its own with its keys checked as a diff checks OLD's: a record
    /// without a usable key, a key found twice (unless repeated keys are numbered), in the
    /// reader's order and words.
    func keyedSide(_ file: MappedFile, _ format: InputFormat) throws(ListDiffError) -> (Side, KeyHashing) {
        try keyedSide(file, format, from: keyHashing)
    }

    /// `keyedSide(_:_:)` from the key hashing `hashing` on.
    func keyedSide(_ file: MappedFile, _ format: InputFormat, from hashing: KeyHashing) throws(ListDiffError) -> (
        Side, KeyHashing
    ) {
        var hashing = hashing
        while true {
            let side = try self.side(file, format, against: nil, hashing)
            // (The index goes once checked: nothing looks keys up here.)
            if try indexed(side) != nil { return (side, hashing) }
            hashing = try hashing.nextAttempt()
        }
    }
}

extension Changeset {
    /// Applies the changes to the old list, in UIKit batch-update semantics: remove the
    /// deleted and moved-away records (old positions), replace updated records, then place
    /// inserted and moved records at their new positions; the records left keep their order.
    ///
    /// A changeset of a plain list runs on the engine, as `FileApplier` does on a file: each
    /// change that names an old position must name the key of the record there. A changeset
    /// of sections applies to the list as its one section, without that check.
    ///
    /// - Throws: when the changeset does not fit `old`: a position out of range or used twice,
    ///   a record there with another key, an update without a value, or counts that do not
    ///   reconcile.
    public func apply(to old: [Value]) throws(ListDiffError) -> [Value] {
        if layout.placement == Layout() {
            guard case .array(let records) = try apply(to: .array(old)) else { return [] }
            return records
        }
        return try applySections(to: [(nil, nil, old)], wrap: { value, _ in value }, check: nil).first?.records ?? []
    }

    /// Applies the changes to a value held in memory: a list of records, an object of lists or
    /// a list of section objects, as `Differ.diff(old:new:key:duplicates:options:)` took it.
    ///
    /// The value runs through the engine, as `Differ` does: it is written as JSON text (YAML
    /// when it holds a non-finite number), its records are found as the diff found them,
    /// and each change that names an old position must name the key of the record there.
    /// Fingerprints are not checked. Errors name `old`, without a line and column.
    ///
    /// - Throws: when `old` is not laid out as the diff's OLD was, or the changeset does not
    ///   fit it (as `apply(to:)` on a list throws).
    public func apply(to old: Value) throws(ListDiffError) -> Value {
        let (file, format) = try MappedFile.of(old, name: "old")
        do {
            return try FileApplier(changeset: self, file: file, format: format, force: true).result()
        } catch {
            var error = error
            error.location = nil
            throw error
        }
    }
}
