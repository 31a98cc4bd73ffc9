/// Reads an input in chunks of whole records, in a bounded buffer, for a diff that spills.
///
/// Each chunk is a small document of the input's own format that holds the next records
/// and nothing else, so the reader that reads the whole input reads it with the same rules:
/// - NDJSON: whole lines.
/// - JSON: a list's records, cut after a comma between two records; a later chunk starts
///   with `[` on a line of its own, and its places on the first line of records are moved
///   right by the characters before them, so that every place keeps its column. A list at
///   a `--path` inside a larger document is cut the same way: every chunk holds the text
///   before the list (read and checked whole in the first chunk, which must hold it), and
///   the chunks before the last close what that text opened. An object of lists (records
///   in sections) is cut between two records of a list, or between two lists: a later
///   chunk that starts inside a list is led by `{`, the list's name and `[`.
/// - CSV and TSV: whole rows, each chunk after the first led by the header.
/// - YAML: a block sequence's items at the left margin, a stream's documents, or a block
///   mapping's members at the left margin (a map of records). A later chunk of a mapping is
///   led by the input's text before its first key, then that key with an empty record, whose
///   lines keep their numbers, so that its reader reads a map as the whole input's does.
///
/// Cutting looks only at the bytes that mark a record's end (quotes, brackets, line
/// starts); the reader of each chunk checks everything else. A chunk reads as the same
/// records the whole input holds there; a place in a chunk is a place in the input once
/// `lineShift` is added to its line.
package struct RecordChunks {
    /// One chunk: its text, and how many lines to add to a line in it to find the line in
    /// the input.
    package struct Chunk {
        /// The chunk's text, for the caller to own and free (`MappedFile(name:owning:)`).
        package var text: UnsafeMutableBufferPointer<UInt8>
        package var lineShift: Int
        /// A JSON chunk that starts mid-line: the characters before it on that line, and
        /// the chunk's line where it starts (after its own `[`, or the text before a list at
        /// a path, whose lines are the input's first lines as they are).
        package var columns = 0
        package var firstLine = 1
        /// Records the chunk holds before its own: a later chunk of a map of records is led
        /// by the map's first member, so that its reader reads a map (and says so where a
        /// member is not a record) as the whole input's reader does.
        package var leading = 0
        /// Whether the chunk is the whole input: it reads as the whole input reads.
        package var isWhole = false
        /// Whether the chunk ends where the input does.
        package var isLast = false
        /// An object of lists: whether the chunk's first list goes on from the one the
        /// chunk before ended with (the cut fell between two of its records).
        package var continuesSection = false
        /// A list of section objects: the places, in the chunk and in the input, of the
        /// member names that lead it (the section's name and its records list), which an
        /// error may name as the first of a name given twice.
        package var leadPlaces: [(chunk: SourceLocation, input: SourceLocation)] = []

        /// An error found in the chunk, placed in the input.
        package func placed(_ error: ListDiffError) -> ListDiffError {
            let moved = error.movedDown(lineShift, columns: columns, firstLine: firstLine)
            guard !leadPlaces.isEmpty else { return moved }
            return moved.placingFirstAt { at in leadPlaces.first { $0.chunk == at }?.input ?? at }
        }

        /// A place in the chunk, placed in the input.
        package func placed(_ at: SourceLocation) -> SourceLocation {
            guard at.line >= firstLine else { return at }
            return SourceLocation(line: at.line + lineShift, column: at.column + (at.line == firstLine ? columns : 0))
        }
    }

    /// Whether an input of `format` that starts with `head` is cut into chunks: a list of
    /// records at the top (NDJSON, CSV and TSV always; a JSON array or object, which may
    /// be a map of records; YAML whose first content is a block sequence's item at the
    /// left margin, or a stream's document marker), or with `path`, a JSON array or object
    /// (the list or map is found as it is read).
    package static func cuts(_ format: InputFormat, head: [UInt8], path: Bool = false) -> Bool {
        var k = ByteOrderMark.length(at: head)
        switch format {
        case .ndjson, .csv, .tsv: return !path
        case .json:
            while k < head.count, [0x20, 0x0A, 0x0D, 0x09].contains(head[k]) { k += 1 }
            // (Empty: the reader says what an empty input is.)
            return k == head.count || head[k] == UInt8(ascii: "[") || head[k] == UInt8(ascii: "{")
        case .yaml:
            // (Empty: the reader says what an empty input is.)
            if head[k...].allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) { return true }
            // A stream of documents, its first without `---`.
            if isStream(head) { return true }
            // Past comments, blank lines and directives, the first line at the margin.
            var lineStart = k
            while lineStart < head.count {
                let end = head[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? head.count
                let first = head[lineStart..<end].first
                if let first, first != UInt8(ascii: "#"), first != UInt8(ascii: "%"), first != UInt8(ascii: "\r") {
                    // (An empty list or map is written `[]` or `{}`: one chunk, as small as it gets.)
                    let line = head[lineStart..<end].filter { $0 != 0x20 && $0 != 0x0D }
                    return startsDocument(head, lineStart) || startsItem(head, lineStart) || startsKey(head, lineStart)
                        || line.elementsEqual("[]".utf8) || line.elementsEqual("{}".utf8)
                }
                lineStart = end + 1
            }
            return false
        }
    }

    /// How much of an input's start chooses its format and tells whether it is cut.
    package static let headBytes = 1 << 16

    /// The error for an input the chunks cannot cut: under the default budget, the diff
    /// runs in memory instead (`notSpillable`).
    package static func refusal(_ why: String, file: String? = nil, at: SourceLocation? = nil) -> ListDiffError {
        var error = ListDiffError(.usage, file: file, location: at, "--memory-limit: these inputs do not spill: \(why)")
        error.notSpillable = true
        return error
    }

    let fd: Int32
    let name: String
    /// The input's format, chosen from its first bytes.
    package private(set) var format: InputFormat = .ndjson
    /// The least a chunk holds before it is cut (unless the input ends first).
    let chunkBytes: Int
    /// Bytes read and not yet handed out; `buffer[0]` is at line `line` of the input.
    private var buffer: [UInt8] = []
    private var line = 1
    private var atEnd = false
    private var read = 0
    private var chunks = 0
    /// CSV: the header row, which leads every chunk after the first.
    private var header: [UInt8] = []
    /// JSON: how many characters precede `buffer[0]` on its line (blanked in the chunk).
    private var column = 0
    /// JSON: the list has ended; the rest goes in the last chunk.
    private var listEnded = false
    /// YAML: whether the records are a stream's documents (else a block sequence's items).
    package private(set) var documents = false
    /// YAML: whether the records are a block mapping's members (a map of records), at the
    /// top or at a path.
    package private(set) var cutsAMapping = false
    /// YAML at a path: the column of the list's items (or the map's members), once found.
    private var itemColumn: Int? = nil
    /// YAML at a path: the first chunk was handed out at an error in the text before the
    /// list, for its reader to say what it is.
    private var pathFailed = false
    /// YAML: a block sequence's directives (`%TAG`, `%YAML`) and its `---`, which lead every
    /// chunk after the first.
    private var directives: [UInt8] = []
    /// JSON: where the list is inside the document (nil: at the top).
    let path: FieldPath?
    /// JSON at a path, or an object at the top: where the records' container starts (`[`,
    /// or `{` for a map) in the first chunk, once found; the text up to it (and a map's
    /// first member), which leads every later chunk; and what closes the containers that
    /// text opens, which ends every chunk but the last.
    private var listStart: Int? = nil
    private var opening: [UInt8] = []
    private var closing: [UInt8] = []
    /// JSON: what closes the records' container: `]`, or `}` for a map of records.
    private var closer = UInt8(ascii: "]")
    /// JSON without a path: whether the input is an object (a map of records, or one record
    /// that holds the key).
    private var objectAtTop = false
    /// JSON: records that lead every later chunk (a map's first member).
    private var leading = 0
    /// JSON: whether the records' container is an object of lists (records in sections).
    package private(set) var cutsSections = false
    /// An object of lists: the name (as written, quotes included) of the list the last cut
    /// fell in, nil when it fell between two lists; and that of the cut the buffer ends.
    private var cutSection: [UInt8]? = nil
    private var pendingSection: [UInt8]? = nil
    /// A list of section objects: where, in the input, the members that lead a chunk
    /// (`cutSection`) are; and, for the cut the buffer ends, where they are in the buffer
    /// (nil when they are the last cut's).
    private var cutSectionPlaces: [SourceLocation] = []
    private var pendingLead: [Int]? = nil
    /// YAML, an object of lists: the column of the items of the list the last cut fell
    /// in, and that of the cut the buffer ends.
    private var sectionColumn = 0
    private var pendingSectionColumn = 0
    /// JSON, a list of section objects: the member that names a section and the one that
    /// holds its records, written as JSON names (`"name"`, `"items"`). Set by the caller
    /// once the first chunk (which is cut between section objects only) has been read as
    /// such a list, or before it when the layout is given; cuts may then fall between two
    /// records of a section's list. A
    /// chunk that starts inside one is led by `{`, the name member and the list's name
    /// (`cutSection`); the name member must come before the list, so that it is known.
    private var sectionObjects: (key: [UInt8], items: [UInt8])? = nil
    /// YAML, a list of section objects: the member names that name a section and hold its
    /// records, as plain scalars (`name`, `items`), set as `sectionObjects` is. A chunk that
    /// starts inside a section's block sequence of records is led by `- `, the name member
    /// as written, and the list's key (`cutSection`); the name member must come before the
    /// list, on one line of its own.
    private var yamlSectionObjects: (key: [UInt8], items: [UInt8])? = nil

    /// Reads the input open on `fd` (named `name` in errors), in chunks of about
    /// `chunkBytes`; `format` chooses the format from the input's first bytes. With `path`,
    /// the records are the JSON list there.
    package init(
        fd: Int32, name: String, chunkBytes: Int, path: FieldPath? = nil,
        format: ([UInt8]) throws(ListDiffError) -> InputFormat
    ) throws(ListDiffError) {
        self.fd = fd
        self.name = name
        self.chunkBytes = max(chunkBytes, 64)
        self.path = path
        try fill(Self.headBytes)
        self.format = try format(Array(buffer.prefix(Self.headBytes)))
        if self.format == .json, path == nil {
            var k = ByteOrderMark.length(at: buffer)
            while k < buffer.count, [0x20, 0x0A, 0x0D, 0x09].contains(buffer[k]) { k += 1 }
            objectAtTop = k < buffer.count && buffer[k] == UInt8(ascii: "{")
        }
    }

    /// Cuts later chunks of a JSON list of section objects between the records of a
    /// section's list too (see `sectionObjects`).
    package mutating func cutSectionObjects(key: String, items: String) {
        switch format {
        case .json: sectionObjects = (Array(JSONWriter.compact(.string(key)).utf8), Array(JSONWriter.compact(.string(items)).utf8))
        // (A stream's documents are cut between documents only.)
        case .yaml where !documents && !cutsAMapping && !cutsSections: yamlSectionObjects = (Array(key.utf8), Array(items.utf8))
        default: break
        }
    }

    /// The next chunk, or nil after the last.
    package mutating func next() throws(ListDiffError) -> Chunk? {
        // (An empty input is one empty chunk: its reader says what an empty input is.)
        if atEnd && buffer.isEmpty && chunks > 0 { return nil }
        while true {
            if !atEnd && buffer.count < chunkBytes { try fill(chunkBytes) }
            let startLine = line
            if let cut = try cutPoint() {
                return take(cut, startLine: startLine)
            }
            if atEnd { return take(buffer.count, startLine: startLine, last: true) }
            // No record ends in what is read: read more (a record longer than a chunk).
            try fill(buffer.count * 2)
        }
    }

    /// Reads until the buffer holds `count` bytes or the input ends.
    private mutating func fill(_ count: Int) throws(ListDiffError) {
        var block = [UInt8](repeating: 0, count: min(1 << 20, max(count - buffer.count, 1)))
        while buffer.count < count, !atEnd {
            // (No more than asked for: a chunk is about `chunkBytes`, however large the input.)
            let want = min(block.count, count - buffer.count)
            let n = block.withUnsafeMutableBytes { SystemCalls.readBytes(fd, into: $0.baseAddress!, count: want) }
            if n < 0 {
                if SystemCalls.wasInterrupted { continue }
                throw ListDiffError(.io, file: name, "cannot read: \(InputFile.errnoText())")
            }
            if n == 0 {
                atEnd = true
                break
            }
            if read < InputFile.startLength {
                let start = read
                buffer.append(contentsOf: block[..<n])
                read += n
                try buffer.withUnsafeBufferPointer { b throws(ListDiffError) in
                    try InputFile.checkStart(UnsafeBufferPointer(rebasing: b[..<min(b.count, InputFile.startLength + start)]), name: name)
                }
            } else {
                buffer.append(contentsOf: block[..<n])
                read += n
            }
            try InputFile.checkSize(read, name: name)
        }
    }

    /// Hands out `buffer[..<cut]` as a chunk, in a document of the input's format.
    private mutating func take(_ cut: Int, startLine: Int, last: Bool = false) -> Chunk {
        var prefix: [UInt8] = [], suffix: [UInt8] = []
        var prefixLines = 0
        let first = chunks == 0
        let startColumn = column
        chunks += 1
        let section = cutSection
        var leadPlaces: [(chunk: SourceLocation, input: SourceLocation)] = []
        let breaks: LineBreaks = format == .yaml ? .yaml : format == .csv || format == .tsv ? .csv : .newline
        switch format {
        case .json:
            if !first {
                prefix = path == nil && !objectAtTop ? Array("[\n".utf8) : opening
                // (A list cut in two goes on under its name.)
                if let section {
                    if let objects = sectionObjects, cutSectionPlaces.count == 2 {
                        // (`{`, the name member, `, ` and the records list's name.)
                        let lead = [prefix.count + 1, prefix.count + section.count - objects.items.count]
                        leadPlaces = zip(Self.places(of: lead, in: prefix + section, line: 1, column: 0), cutSectionPlaces).map {
                            (chunk: $0, input: $1)
                        }
                    }
                    prefix += section + Array(": [".utf8)
                }
                prefix += Array("\n".utf8)
            }
        case .csv, .tsv:
            if !first { prefix = header }
        case .yaml:
            if first, !documents, !cutsAMapping { directives = Self.directives(buffer) }
            if !first { prefix = cutsAMapping || cutsSections || path != nil ? opening : directives }
            // (A list cut in two goes on under its name.)
            if !first, let section {
                if yamlSectionObjects != nil, cutSectionPlaces.count == 2, let dash = section.firstIndex(of: UInt8(ascii: "-")),
                    let newline = section.firstIndex(of: 0x0A)
                {
                    // (`- `, the name member, and the records list's key, at the members' column.)
                    let members = section[(dash + 1)...].firstIndex { $0 != 0x20 } ?? dash + 1
                    let lead = [prefix.count + members, prefix.count + newline + 1 + members]
                    leadPlaces = zip(Self.places(of: lead, in: prefix + section, line: 1, column: 0, breaks: breaks), cutSectionPlaces)
                        .map { (chunk: $0, input: $1) }
                }
                prefix += section + Array(":\n".utf8)
            }
            if !last, cutsSections || yamlSectionObjects != nil {
                cutSection = pendingSection
                sectionColumn = pendingSectionColumn
                if let pendingLead { cutSectionPlaces = Self.places(of: pendingLead, in: buffer, line: line, column: 0, breaks: breaks) }
            }
        case .ndjson: break
        }
        prefixLines = Self.places(of: [prefix.count], in: prefix, line: 1, column: 0, breaks: breaks)[0].line - 1
        if format == .json, !last {
            // (A section object's list cut in two closes the object too.)
            let list: [UInt8] = pendingSection == nil ? [] : sectionObjects == nil ? Array("]".utf8) : Array("]}".utf8)
            suffix = Array("\n".utf8) + list + [closer] + closing
            cutSection = pendingSection
            if let pendingLead { cutSectionPlaces = Self.places(of: pendingLead, in: buffer, line: line, column: column) }
        }
        // The chunk in one buffer of its own, copied once.
        let text = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(prefix.count + cut + suffix.count, 1))
        var at = 0
        for part in [prefix[...], buffer[..<cut], suffix[...]] {
            _ = UnsafeMutableBufferPointer(rebasing: text[at..<(at + part.count)]).initialize(from: part)
            at += part.count
        }
        let chunk = UnsafeMutableBufferPointer(rebasing: text[..<at])
        // Where the next chunk starts: its line, and (JSON) its column past the comma,
        // which is not handed out.
        let skip = format == .json && !last ? cut + 1 : cut
        let next = Self.places(of: [skip], in: buffer, line: line, column: column, breaks: breaks)[0]
        line = next.line
        if format == .json { column = next.column - 1 }
        buffer.removeFirst(skip)
        var out = Chunk(text: chunk, lineShift: startLine - 1 - prefixLines)
        out.isWhole = first && last
        out.isLast = last || atEnd && buffer.isEmpty
        if format == .json, !first {
            out.columns = startColumn
            out.firstLine = prefixLines + 1
            out.leading = leading
            out.continuesSection = section != nil
            out.leadPlaces = leadPlaces
        }
        if format == .yaml, cutsAMapping || cutsSections || path != nil || section != nil, !first {
            // (The lines before the chunk's own are the input's first lines, as they are,
            // and a list's name.)
            out.firstLine = prefixLines + 1
            out.leading = cutsAMapping ? 1 : 0
            out.continuesSection = section != nil
            out.leadPlaces = leadPlaces
        }
        return out
    }

    /// Where the buffer's whole records end: after the last record that is known to be
    /// followed by another (or by the end); nil when no record ends in it yet.
    private mutating func cutPoint() throws(ListDiffError) -> Int? {
        switch format {
        case .ndjson:
            // (The last line break within a chunk's size, else the first past it.)
            let window = buffer[..<min(buffer.count, chunkBytes)]
            guard let k = window.lastIndex(of: UInt8(ascii: "\n")) ?? buffer[window.endIndex...].firstIndex(of: UInt8(ascii: "\n"))
            else { return nil }
            return k + 1
        case .csv, .tsv:
            return csvCut()
        case .json:
            return try jsonCut()
        case .yaml:
            return try yamlCut()
        }
    }

    /// CSV: after the last row end outside a quoted field (a field that starts with `"`
    /// and runs to a lone `"`, as `CSVReader` reads it). The first chunk keeps its header row:
    /// the first row that is not empty, as `CSVReader` skips empty rows.
    private mutating func csvCut() -> Int? {
        let quote = UInt8(ascii: "\""), newline = UInt8(ascii: "\n"), `return` = UInt8(ascii: "\r")
        let separator = format == .tsv ? UInt8(0x09) : UInt8(ascii: ",")
        var last: Int? = nil, firstRowEnd: Int? = nil
        var fieldStart = true, quoted = false
        // (Whether the row read so far holds anything: a byte order mark and row ends do not.)
        var rowHolds = false
        var k = chunks == 0 ? ByteOrderMark.length(at: buffer) : 0
        while k < buffer.count {
            // (A chunk is about `chunkBytes`, however much is read.)
            if k >= chunkBytes, last != nil, chunks > 0 || !header.isEmpty { break }
            let byte = buffer[k]
            if quoted {
                if byte == quote {
                    if k + 1 < buffer.count, buffer[k + 1] == quote {
                        k += 2
                        continue
                    }
                    if k + 1 == buffer.count, !atEnd { break }  // ("" may be cut in two: read more first.)
                    quoted = false
                }
            } else if fieldStart && byte == quote {
                quoted = true
                fieldStart = false
            } else if byte == separator {
                fieldStart = true
            } else if byte == newline || byte == `return` && k + 1 < buffer.count && buffer[k + 1] != newline {
                // (A lone `\r` ends a row too, as `CSVReader` reads it.)
                fieldStart = true
                if firstRowEnd == nil, rowHolds { firstRowEnd = k + 1 }
                rowHolds = false
                last = k + 1
            } else {
                fieldStart = false
            }
            // (The `\r` of `\r\n` holds nothing; one at the end of what is read is looked at again.)
            if byte != newline, byte != `return` || quoted { rowHolds = true }
            k += 1
        }
        if chunks == 0 {
            // The header row stays in the first chunk, and leads the later ones, its row end
            // a line feed: a lone `\r` there and a chunk that starts with `\n` would read as
            // one `\r\n`, and lose a line.
            guard let end = firstRowEnd else { return nil }
            if header.isEmpty {
                header = Array(buffer[..<end])
                if header.last == `return` { header[header.count - 1] = newline }
            }
        }
        return last
    }

    /// JSON: a comma between two records of the top list; nil until one is found. The
    /// list's end ends the cutting: the rest is read whole.
    private mutating func jsonCut() throws(ListDiffError) -> Int? {
        if listEnded {
            // (The text after a list at a path is read whole, with the last records: it
            // must fit in a chunk.)
            if path != nil, !atEnd, buffer.count > chunkBytes + aroundLimit {
                throw Self.refusal(
                    "the text after the list or map at --path \(SafeText.escape(path!.spelling)) is longer than \(aroundLimit >> 10) KiB",
                    file: name)
            }
            return nil
        }
        var depth = 0
        var strings = JSONStrings()
        var pendingComma: Int? = nil, cut: Int? = nil
        var from = 0
        // An object of lists: the name of the list open (depth 2), where the last name at
        // depth 1 starts, and where its colon is.
        var section: [UInt8]? = nil
        var nameStart = 0, colon = 0
        pendingSection = nil
        // A list of section objects (depth 2 inside it): where the last member name starts
        // and its colon; where its value starts (-2 right after the colon, -1 when no value
        // is pending); the name member as written (name, colon and a scalar value), once
        // read; whether the list open at depth 3 is the records list.
        let objects = sectionObjects
        var memberStart = 0, memberColon = 0, valueStart = -1
        var keyMember: [UInt8]? = nil, keyStart = 0
        var inItems = false
        // (Where the lead's member names are in the buffer; nil: the last cut's lead.)
        var lead: [Int]? = nil
        pendingLead = nil
        if chunks > 0 {
            depth = 1
            if let cutSection {
                depth = sectionObjects != nil ? 3 : 2
                section = cutSection
                inItems = true
            }
        } else if objectAtTop, atEnd, buffer.count <= chunkBytes {
            // (An object at the top that fits in a chunk is not cut: it may be one record.)
            return nil
        } else if path != nil || objectAtTop {
            // (The first chunk holds the text before the list, and cuts only inside it.)
            guard let start = try locateList() else { return nil }
            depth = 1
            from = start + 1
        }
        // (The depth of the comma pending: 1 between records or lists, 2 between the records
        // of an object's list.)
        var commaDepth = 0
        // (The member named at depth 2, as written, less the space before its colon.)
        func memberName() -> ArraySlice<UInt8> {
            var end = memberColon
            while end > memberStart, [0x20, 0x0A, 0x0D, 0x09].contains(buffer[end - 1]) { end -= 1 }
            return buffer[memberStart..<end]
        }
        // (The name member ends at depth 2's next comma or `}`: it is kept, as written.)
        func endMember(at k: Int) {
            guard let objects, valueStart >= 0 else { return }
            if memberName().elementsEqual(objects.key) {
                var end = k
                while end > valueStart, [0x20, 0x0A, 0x0D, 0x09].contains(buffer[end - 1]) { end -= 1 }
                if keyMember == nil {
                    keyMember = Array(buffer[memberStart..<end])
                    keyStart = memberStart
                }
            }
            valueStart = -1
        }
        for k in from..<buffer.count {
            let byte = buffer[k]
            // (A chunk is about `chunkBytes`, however much is read.)
            if k >= chunkBytes, cut != nil { return cut }
            if strings.skips(byte) { continue }
            if valueStart == -2, byte > 0x20, byte != UInt8(ascii: ":") { valueStart = k }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                continue
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if cutsSections, depth == 2 {
                    // A list opens under the name before it (less the space before the colon).
                    var end = colon
                    while end > nameStart, [0x20, 0x0A, 0x0D, 0x09].contains(buffer[end - 1]) { end -= 1 }
                    section = Array(buffer[nameStart..<end])
                }
                if let objects {
                    if depth == 2 {
                        // A section object starts.
                        (keyMember, valueStart) = (nil, -1)
                    } else if depth == 3, valueStart == k {
                        // A member's value is a list or an object (a name that is not a
                        // scalar is not kept, so its object is not cut inside).
                        let name = memberName()
                        inItems = byte == UInt8(ascii: "[") && name.elementsEqual(objects.items)
                        section = inItems ? keyMember.map { Array("{".utf8) + $0 + Array(", ".utf8) + name } : nil
                        lead = [keyStart, memberStart]
                        valueStart = -1
                    }
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if objects != nil {
                    if depth == 3 { inItems = false }
                    if depth == 2 { endMember(at: k) }
                }
                depth -= 1
                if depth <= 0 {
                    // The list ends: the rest, to the end of the input, is one chunk.
                    listEnded = true
                    return cut
                }
            case UInt8(ascii: ","):
                if depth == 1 || cutsSections && depth == 2 || objects != nil && depth == 3 && inItems && section != nil {
                    pendingComma = k
                    commaDepth = depth
                }
                if objects != nil, depth == 2 { endMember(at: k) }
                continue
            case UInt8(ascii: ":"):
                if depth == 1 { colon = k }
                if objects != nil, depth == 2 {
                    memberColon = k
                    valueStart = -2
                }
            case UInt8(ascii: "\""):
                if depth == 1 { nameStart = k }
                if objects != nil, depth == 2, valueStart == -1 { memberStart = k }
            default: break
            }
            // A value starts after the comma: the comma is between two records (or lists).
            if let comma = pendingComma, depth >= 1 {
                if depth > commaDepth || byte != UInt8(ascii: "]") && byte != UInt8(ascii: "}") {
                    cut = comma
                    pendingSection = commaDepth >= 2 ? section : nil
                    pendingLead = commaDepth == 3 ? lead : nil
                }
                pendingComma = nil
            }
        }
        return cut
    }

    /// The places of `offsets` in `bytes`, whose first byte is at `line` after `column`
    /// characters, lines ending as `breaks` says.
    static func places(of offsets: [Int], in bytes: [UInt8], line: Int, column: Int, breaks: LineBreaks = .newline)
        -> [SourceLocation]
    {
        bytes.withUnsafeBufferPointer {
            SourceLocation.of(offsets: offsets, in: $0, from: SourceLocation(line: line, column: column + 1), breaks: breaks).map { $0! }
        }
    }

    /// An object of lists: where the name of the list at `list` starts (its opening quote),
    /// read back over the colon and the name; nil where the text is not so.
    package static func nameStart(beforeList list: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var k = list - 1
        func space() { while k >= 0, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[k]) { k -= 1 } }
        space()
        guard k >= 0, bytes[k] == UInt8(ascii: ":") else { return nil }
        k -= 1
        space()
        guard k >= 0, bytes[k] == UInt8(ascii: "\"") else { return nil }
        k -= 1
        // The opening quote: the first one back that no odd run of backslashes escapes.
        while k >= 0 {
            if bytes[k] == UInt8(ascii: "\"") {
                var slashes = 0
                while k - 1 - slashes >= 0, bytes[k - 1 - slashes] == UInt8(ascii: "\\") { slashes += 1 }
                if slashes % 2 == 0 { return k }
            }
            k -= 1
        }
        return nil
    }

    /// JSON: whether the records' container is an object (a map of records), once the
    /// first chunk is cut.
    package var cutsAnObject: Bool { closer == UInt8(ascii: "}") }

    /// JSON at a path: the most text before the list, or after it, that a chunk holds.
    var aroundLimit: Int { max(chunkBytes, Self.headBytes) }

    /// JSON at a path: where the list the path names starts (its `[`) in the first chunk,
    /// and the text before it kept (`opening`, `closing`); nil while more must be read, or
    /// when the whole input is read without it (then it is one chunk, and its reader says
    /// what it holds).
    ///
    /// - Throws: the reader's error where the text read is not JSON before the walk's end;
    ///   else a refusal (`notSpillable`) when the path names no list, or when the text
    ///   before the list is longer than `aroundLimit`.
    private mutating func locateList() throws(ListDiffError) -> Int? {
        if let listStart { return listStart }
        let steps = path?.components ?? []
        let at = path.map { " at --path \(SafeText.escape($0.spelling))" } ?? " at the top"
        var walk = JSONPathWalk(bytes: buffer)
        let outcome = walk.find(steps)
        if case .found(let start, let closers) = outcome {
            opening = Array(buffer[...start])
            if buffer[start] == UInt8(ascii: "{") {
                closer = UInt8(ascii: "}")
                // An object whose first member is a list is an object of lists, as the
                // reader judges it.
                // (Where its value is not read yet, neither is the member's end: more is read.)
                var first = JSONPathWalk(bytes: buffer)
                if case .end(let value) = first.memberValue(from: start + 1), buffer[value] == UInt8(ascii: "[") {
                    cutsSections = true
                }
                // A map of records: its first member leads every later chunk.
                switch cutsSections ? .empty : walk.memberEnd(from: start + 1) {
                case .end(let end):
                    opening = Array(buffer[..<end]) + [UInt8(ascii: ",")]
                    leading = 1
                case .empty: break
                case .more where !atEnd:
                    guard buffer.count < aroundLimit else {
                        throw Self.refusal("the first member\(at) is longer than \(aroundLimit >> 10) KiB", file: name)
                    }
                    return nil
                case .more, .malformed:
                    // (The whole input in one chunk, or the reader's error.)
                    if atEnd { return nil }
                    try readerError()
                    throw Self.refusal("no map of records\(at)", file: name)
                }
            }
            listStart = start
            closing = closers
            return start
        }
        if atEnd { return nil }
        let why: String
        switch outcome {
        case .more:
            if buffer.count < aroundLimit { return nil }
            why = "no list or map\(at) in the first \(aroundLimit >> 10) KiB: the text before it must fit in a chunk"
        case .notFound(let what): why = what + at
        case .malformed, .found: why = "no list or map\(at)"
        }
        var again = JSONPathWalk(bytes: buffer)
        if case .notFound = outcome, let (nameEnd, closers) = again.repeatedStep(steps) {
            // (The reader finds a name given twice where it meets the second.)
            let text = Array(buffer[..<nameEnd]) + Array(":0".utf8) + closers
            _ = try JSONReader().read(text, name: name)
        }
        try readerError()
        throw Self.refusal(why, file: name)
    }

    /// Throws the JSON reader's first error in what is read, when it is not just the end of
    /// what is read: the text is read up to its last bracket, comma or colon outside a
    /// string, and an error before that place is an error of the input.
    private func readerError() throws(ListDiffError) {
        var safe = 0
        var strings = JSONStrings()
        for (k, byte) in buffer.enumerated() where !strings.skips(byte) {
            if [UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ","), UInt8(ascii: ":")]
                .contains(byte)
            {
                safe = k + 1
            }
        }
        do {
            _ = try JSONReader().read(Array(buffer[..<safe]), name: name)
        } catch {
            guard let place = error.location else { return }
            let end = Self.places(of: [safe], in: buffer, line: 1, column: 0)[0]
            if (place.line, place.column) < (end.line, end.column) { throw error }
        }
    }

    /// YAML: before the last line at the left margin that starts a record: `- ` of a
    /// top-level block sequence, or `---` of a stream's next document.
    /// In a block mapping, the first chunk holds at least the first member, which leads every
    /// later chunk.
    ///
    /// - Throws: a refusal (`notSpillable`) when a mapping's first member is longer than
    ///   `aroundLimit`.
    private mutating func yamlCut() throws(ListDiffError) -> Int? {
        if path != nil { return try yamlPathCut() }
        var from = 0
        if chunks == 0 && buffer.count > 0 {
            documents = Self.isStream(buffer)
            if !documents, let first = Self.firstContentLine(buffer), let colon = Self.keyColon(buffer, first) {
                if first > Self.headBytes {
                    throw Self.refusal("the text before the first member at the top is longer than \(Self.headBytes >> 10) KiB", file: name)
                }
                // (Cuts come after the first key's line.)
                from = (buffer[first...].firstIndex(of: UInt8(ascii: "\n")) ?? buffer.count - 1) + 1
                if Self.valueIsList(buffer, after: colon) {
                    // An object of lists (records in sections), as the reader judges it by its
                    // first member: later chunks are led by the text before the first key
                    // (and the name of a list cut in two).
                    cutsSections = true
                    opening = Array(buffer[..<first])
                } else {
                    // A map of records: later chunks are led by the text before the first
                    // key and that key with an empty record, on its own line. It makes them
                    // read as a map, and holds no anchor that a later one of the same name
                    // would hide.
                    cutsAMapping = true
                    opening = Array(buffer[...colon]) + Array(" {}\n".utf8)
                }
            }
        }
        if cutsSections { return yamlSectionsCut(from: from) }
        if yamlSectionObjects != nil, !documents, !cutsAMapping { return yamlSectionObjectsCut(column: 0, endsList: false).cut }
        var last: Int? = nil
        Self.yamlRecordStarts(in: buffer, from: from, documents: documents, mapping: cutsAMapping) { start in
            // (A chunk is about `chunkBytes`, however much is read.)
            if start >= chunkBytes, last != nil { return false }
            last = start
            return true
        }
        return last
    }

    /// Whether the value after the key whose colon is at `colon` is a list: `[` after it on
    /// its line, or on the next line with text, `-` and a space (a block sequence).
    static func valueIsList(_ b: [UInt8], after colon: Int) -> Bool {
        var k = colon + 1
        // (Past a tag or an anchor: `users: !!seq`.)
        while k < b.count, [0x20, 0x09, UInt8(ascii: "!"), UInt8(ascii: "&")].contains(b[k]) {
            if b[k] == 0x20 || b[k] == 0x09 {
                k += 1
            } else {
                while k < b.count, ![0x20, 0x09, 0x0A, 0x0D].contains(b[k]) { k += 1 }
            }
        }
        guard k < b.count else { return false }
        if b[k] == UInt8(ascii: "[") { return true }
        guard b[k] == 0x0A || b[k] == 0x0D || b[k] == UInt8(ascii: "#") else { return false }
        // (The next line with text, past comments and blank lines.)
        while let end = b[k...].firstIndex(of: 0x0A) {
            k = end + 1
            while k < b.count, b[k] == 0x20 { k += 1 }
            guard k < b.count else { return false }
            if b[k] == 0x0A || b[k] == 0x0D || b[k] == UInt8(ascii: "#") { continue }
            return b[k] == UInt8(ascii: "-") && (k + 1 == b.count || [0x20, 0x0A, 0x0D].contains(b[k + 1]))
        }
        return false
    }

    /// YAML, an object of lists: before the last line at the left margin that starts a
    /// list's key, or the last item of a block sequence (a `- ` line at its items' column)
    /// that has an item before it. A cut inside a list makes the next chunk go on under its
    /// name.
    private mutating func yamlSectionsCut(from: Int) -> Int? {
        // (Whole lines only: a line cut short may look like another.)
        let whole = wholeLines
        var last: Int? = nil
        pendingSection = nil
        // The list open: its key as written, its items' column once seen, and whether an
        // item of it came before (in this text, or in the chunk before when the cut fell
        // inside it).
        var section: [UInt8]? = cutSection
        var column: Int? = cutSection != nil ? sectionColumn : nil
        var seenItem = cutSection != nil
        var pendingColumn: Int? = nil
        var tracker = YAMLLineTracker()
        buffer.withUnsafeBufferPointer { text in
            guard let base = text.baseAddress else { return }
            // (A byte order mark is not a list's name.)
            var k = chunks == 0 ? ByteOrderMark.length(at: buffer) : 0
            while k < whole {
                let end = SystemCalls.find(0x0A, in: base + k, count: whole - k).map { $0 - UnsafeRawPointer(base) } ?? whole
                var i = k
                while i < end, text[i] == 0x20 { i += 1 }
                let indent = i - k
                if k >= chunkBytes, last != nil { break }
                if i < end, ![0x0D, 0x09, UInt8(ascii: "#")].contains(text[i]), tracker.outside(at: indent) {
                    let item = Self.startsItem(text, i, end)
                    if indent == 0, let colon = Self.keyColon(buffer, k) {
                        // A list's key: a cut between two lists.
                        if k >= from, k > 0 {
                            last = k
                            pendingSection = nil
                        }
                        // (Its items follow when nothing but a tag or a comment does on its line.)
                        section = Self.onlyProperties(buffer, colon + 1, end) ? Array(buffer[k..<colon]) : nil
                        column = nil
                        seenItem = false
                    } else if section != nil, item, column == nil || column == indent {
                        // An item of the list: a cut inside it, past its first.
                        if seenItem, k > 0 {
                            last = k
                            pendingSection = section
                            pendingColumn = indent
                        }
                        column = indent
                        seenItem = true
                    } else if column == nil {
                        // (The key's value is not a block sequence.)
                        section = nil
                    }
                }
                tracker.lines(text, k, end)
                k = end + 1
            }
        }
        if pendingSection != nil { pendingSectionColumn = pendingColumn ?? 0 }
        return last
    }

    /// YAML, a list of section objects (`yamlSectionObjects`, asked for after the first
    /// chunk, or before it when the layout is given): before the last section object (a `- ` line at the list's items' `column`), or before
    /// the last item of a section's block sequence of records that has an item before it,
    /// when the section's name member came first, its value on its line alone (a plain or
    /// quoted scalar, no anchor or alias), and the list's key is alone on its line. A cut
    /// inside a section makes the next chunk go on under its lead (`cutSection`). With
    /// `endsList` (a list at a path), a line further left than the items, or at their column
    /// but not an item, ends the list: the rest is the last chunk. In the first chunk, the
    /// list starts at `from` (at a path), or with its first item.
    private mutating func yamlSectionObjectsCut(column p: Int, endsList: Bool, from: Int = 0) -> (cut: Int?, ended: Bool) {
        guard let (key, items) = yamlSectionObjects else { return (nil, false) }
        let whole = wholeLines
        var last: Int? = nil
        var ended = false
        pendingSection = nil
        pendingLead = nil
        var pendingColumn = 0
        // The section object open: its members' column, once known; where its name member
        // is (its key, the end of its line) while its next line is not yet seen, and whether
        // that line showed the value to be on its line alone; the lead once its records list
        // starts (nil: not cut inside), where the lead's two keys are in the buffer (nil: the
        // last cut's), the items' column once seen, whether an item of it came before.
        var inSection = cutSection != nil
        var members: Int? = nil
        var name: (key: Int, end: Int)? = nil
        var named = false
        var lead: [UInt8]? = cutSection
        var leadAt: [Int]? = nil
        var inItems = cutSection != nil
        var itemColumn: Int? = cutSection != nil ? sectionColumn : nil
        var seenItem = cutSection != nil
        if let cutSection, let dash = cutSection.firstIndex(of: UInt8(ascii: "-")) {
            members = cutSection[(dash + 1)...].firstIndex { $0 != 0x20 }
        }
        // (The first chunk is not cut before its first section object.)
        var opened = chunks > 0
        var tracker = YAMLLineTracker()
        func isKey(_ k: Int, _ colon: Int, _ word: [UInt8]) -> Bool {
            var e = colon
            while e > k, buffer[e - 1] == 0x20 { e -= 1 }
            return buffer[k..<e].elementsEqual(word)
        }
        // (After a colon: nothing but spaces and a comment.)
        func bare(_ from: Int, _ end: Int) -> Bool {
            var i = from
            while i < end, buffer[i] == 0x20 || buffer[i] == 0x0D { i += 1 }
            return i == end || buffer[i] == UInt8(ascii: "#") && buffer[i - 1] == 0x20
        }
        // (A member line of the section open, its key at `i`.)
        func member(_ i: Int, _ end: Int) {
            guard let colon = Self.keyColon(buffer, i) else {
                inItems = false
                lead = nil
                return
            }
            if inItems {
                // (A member after the records list: no cut inside the section any more.)
                inItems = false
                lead = nil
                return
            }
            if isKey(i, colon, key) {
                var v = colon + 1
                while v < end, buffer[v] == 0x20 { v += 1 }
                let simple = v < end && !Array("*&|>#\r".utf8).contains(buffer[v])
                name = simple ? (i, end) : nil
                named = false
            } else if isKey(i, colon, items), bare(colon + 1, end), named, let name, let m = members {
                // The records list: a cut inside it goes on under `- `, the name member and its key.
                var text = [UInt8](repeating: 0x20, count: m)
                text[p] = UInt8(ascii: "-")
                text += buffer[name.key..<name.end]
                text.append(0x0A)
                text += [UInt8](repeating: 0x20, count: m)
                text += buffer[i..<colon]
                lead = text
                leadAt = [name.key, i]
                inItems = true
                itemColumn = nil
                seenItem = false
            }
            // (Else a section whose name is not known before its records list, or whose
            // list's key is not alone on its line, is read whole.)
        }
        // (An item of the records list at `k`: a cut inside the section, past its first.)
        func record(_ k: Int, _ indent: Int) {
            if seenItem, k > 0, let lead {
                last = k
                pendingSection = lead
                pendingColumn = indent
                pendingLead = leadAt
            }
            itemColumn = indent
            seenItem = true
        }
        buffer.withUnsafeBufferPointer { text in
            guard let base = text.baseAddress else { return }
            var k = chunks == 0 ? ByteOrderMark.length(at: buffer) : 0
            while k < whole {
                let end = SystemCalls.find(0x0A, in: base + k, count: whole - k).map { $0 - UnsafeRawPointer(base) } ?? whole
                if k < from {
                    // (The text before a list at a path.)
                    tracker.lines(text, k, end)
                    k = end + 1
                    continue
                }
                var i = k
                while i < end, text[i] == 0x20 { i += 1 }
                let indent = i - k
                if k >= chunkBytes, last != nil { break }
                let blank = i == end || text[i] == 0x0D
                let outside = !blank && text[i] != 0x09 && tracker.outside(at: indent)
                let comment = !blank && text[i] == UInt8(ascii: "#")
                if !blank, name != nil, !named {
                    // (The line after the name member: its value went no further.)
                    if outside, !comment, let m = members, indent <= m { named = true } else { name = nil }
                }
                if outside, !comment {
                    let item = Self.startsItem(text, i, end)
                    if indent < p || indent == p && !item {
                        // (Past the list, or a token at the margin that is no section object.)
                        if endsList {
                            ended = true
                            break
                        }
                        inSection = false
                        inItems = false
                        lead = nil
                    } else if indent == p {
                        // A section object: a cut between two.
                        if k > from, opened {
                            last = k
                            pendingSection = nil
                        }
                        opened = true
                        inSection = true
                        inItems = false
                        lead = nil
                        name = nil
                        named = false
                        var j = i + 1
                        while j < end, text[j] == 0x20 { j += 1 }
                        if j < end, text[j] != 0x0D, text[j] != UInt8(ascii: "#") {
                            members = j - k
                            member(j, end)
                        } else {
                            members = nil
                        }
                    } else if inSection, members == nil || indent == members {
                        if members == nil { members = indent }
                        if inItems, item, itemColumn == nil || itemColumn == indent {
                            // (An item of a list at the members' column.)
                            record(k, indent)
                        } else {
                            member(i, end)
                        }
                    } else if inSection, inItems {
                        if item, itemColumn == nil || itemColumn == indent, let m = members, indent > m {
                            record(k, indent)
                        } else if itemColumn == nil || indent < itemColumn! {
                            // (The records are no block sequence, or it ended.)
                            inItems = false
                            lead = nil
                        }
                    }
                }
                tracker.lines(text, k, end)
                k = end + 1
            }
        }
        if pendingSection != nil { pendingSectionColumn = pendingColumn }
        return (last, ended)
    }

    /// YAML at a path: before the last item of the list there (a `- ` line at the items'
    /// column) that the buffer holds whole. The first chunk holds the text before the list,
    /// which leads every later chunk; a line at a smaller column, or at the column but not
    /// an item, ends the list, and the rest is the last chunk.
    ///
    /// - Throws: a refusal (`notSpillable`) when the path leads to anything but a block
    ///   sequence, when an anchor is defined before it, or when the text before or after
    ///   the list is longer than `aroundLimit`.
    private mutating func yamlPathCut() throws(ListDiffError) -> Int? {
        let at = " at --path \(SafeText.escape(path!.spelling))"
        if pathFailed { throw Self.refusal("no list or map\(at)", file: name) }
        if listEnded {
            if !atEnd, buffer.count > chunkBytes + aroundLimit {
                throw Self.refusal("the text after the list or map\(at) is longer than \(aroundLimit >> 10) KiB", file: name)
            }
            return nil
        }
        var from = 0
        if chunks == 0 {
            guard let start = try locateYAMLList(at) else {
                // (An error before the list: the text read so far is the first chunk, whose
                // reader says what it is.)
                if pathFailed { return buffer.count }
                return nil
            }
            from = start
        }
        if yamlSectionObjects != nil {
            let (cut, ended) = yamlSectionObjectsCut(column: itemColumn ?? 0, endsList: true, from: from)
            if ended { listEnded = true }
            return cut
        }
        var last: Int? = nil
        // (Whole lines only: a line cut short may look like the list's end.)
        let whole = wholeLines
        let end = Self.yamlItemStarts(in: buffer[..<whole], from: from, column: itemColumn ?? 0, mapping: cutsAMapping) { start in
            if start >= chunkBytes, last != nil { return false }
            last = start
            return true
        }
        if end != nil { listEnded = true }
        return last
    }

    /// Finds the list at the path in what is read: where the line of its first item starts;
    /// nil when more must be read, or (`pathFailed`) when the text before it is not YAML.
    private mutating func locateYAMLList(_ at: String) throws(ListDiffError) -> Int? {
        // (Whole lines only: a line cut short could read as another name.)
        let whole = (buffer.lastIndex(of: 0x0A) ?? -1) + 1
        let outcome = buffer.withUnsafeBufferPointer {
            YAMLPathWalk.find(path!.components, in: UnsafeBufferPointer(rebasing: $0[..<(atEnd ? buffer.count : whole)]))
        }
        // (libyaml's lines: a lone `\r`, U+0085, U+2028 and U+2029 end one too.)
        let lines = Self.places(of: [whole], in: buffer, line: 0, column: 0, breaks: .yaml)[0].line
        switch outcome {
        case .found(let line, var column, let map):
            var start = Self.yamlLineStart(line, in: buffer)
            if map { return try locatedYAMLMap(start, column, at) }
            if !buffer[start..<(start + column)].allSatisfy({ $0 == 0x20 }) {
                let end = buffer[start...].firstIndex(of: 0x0A) ?? buffer.count
                if Self.isEmptyFlow(buffer[(start + column)..<end], "[", "]") {
                    // (`items: []`, as kubectl writes no resources: nothing to cut; the
                    // text after it must fit in a chunk, as after any list.)
                    listEnded = true
                    return nil
                }
                // A tag after the key (`items: !!seq`) starts the list: its first item is on
                // the next line with text.
                var k = end + 1
                while k < whole, let next = buffer[k...].firstIndex(of: 0x0A) {
                    let text = buffer[k..<next].firstIndex { $0 != 0x20 } ?? next
                    guard text == next || buffer[text] == UInt8(ascii: "#") || buffer[text] == 0x0D else { break }
                    k = next + 1
                }
                let indent = (buffer[k..<whole].firstIndex { $0 != 0x20 } ?? whole) - k
                guard Self.onlyProperties(buffer, start + column, end), k + indent < whole, Self.startsItem(buffer, k + indent) else {
                    throw Self.refusal("a list\(at) that starts on a line with other text", file: name)
                }
                start = k
                column = indent
            }
            if start > aroundLimit {
                throw Self.refusal("the text before the list\(at) is longer than \(aroundLimit >> 10) KiB", file: name)
            }
            opening = Array(buffer[..<start])
            itemColumn = column
            return start
        case .malformed(let line) where line < lines || atEnd:
            pathFailed = true
            return nil
        case .ended, .malformed:
            if atEnd || buffer.count < aroundLimit { return nil }
            if readerFails(lines, whole) { return nil }
            throw Self.refusal(
                "no list or map\(at) in the first \(aroundLimit >> 10) KiB: the text before it must fit in a chunk", file: name)
        case .notFound(let why):
            if atEnd || readerFails(lines, whole) { return nil }
            throw Self.refusal(why + at, file: name)
        }
    }

    /// The map at the path, found at the line that starts at `start`, its first member at
    /// `column`: where that line starts. Later chunks are led by the text before it and the
    /// first member's key with an empty record, on its own line, as at the top (`yamlCut`).
    ///
    /// - Throws: a refusal (`notSpillable`) when the map starts on a line with other text
    ///   (but for `{}`, which is read whole), when its first key is not a plain or quoted name,
    ///   when it is an object of lists, or when the text before it is longer than
    ///   `aroundLimit`.
    private mutating func locatedYAMLMap(_ start: Int, _ column: Int, _ at: String) throws(ListDiffError) -> Int? {
        let end = buffer[start...].firstIndex(of: 0x0A) ?? buffer.count
        if !buffer[start..<(start + column)].allSatisfy({ $0 == 0x20 }) {
            // (`data: {}`: nothing to cut; the text after it must fit in a chunk.)
            if Self.isEmptyFlow(buffer[(start + column)..<end], "{", "}") {
                listEnded = true
                return nil
            }
            throw Self.refusal("a map\(at) that starts on a line with other text", file: name)
        }
        guard let colon = Self.keyColon(buffer, start + column) else {
            throw Self.refusal(
                "a map\(at) whose first key is not a plain or quoted name, alone on its line (a tag, an anchor or `?` before it)",
                file: name)
        }
        // (An object of lists, as the reader judges it by its first member.)
        if Self.valueIsList(buffer, after: colon) {
            throw Self.refusal("an object of lists\(at), which the spill of YAML does not cut at a path", file: name)
        }
        if start > aroundLimit {
            throw Self.refusal("the text before the map\(at) is longer than \(aroundLimit >> 10) KiB", file: name)
        }
        opening = Array(buffer[..<start]) + Array(buffer[start...colon]) + Array(" {}\n".utf8)
        cutsAMapping = true
        itemColumn = column
        return start
    }

    /// Whether the YAML reader finds an error in the first `lines` lines (`buffer[..<whole]`):
    /// a name given twice, or text that is not YAML, where the path leads astray. The first
    /// chunk is then the text read (`pathFailed`), and its reader says so, as in memory.
    private mutating func readerFails(_ lines: Int, _ whole: Int) -> Bool {
        do throws(ListDiffError) { _ = try YAMLReader().documents(Array(buffer[..<whole])) } catch {
            if let place = error.location, place.line <= lines {
                pathFailed = true
                return true
            }
        }
        return false
    }

    /// Where the 0-based `line` of a YAML text starts, its lines ended as libyaml ends them.
    static func yamlLineStart(_ line: Int, in text: [UInt8]) -> Int {
        text.withUnsafeBufferPointer { b in
            var k = 0, seen = 0
            while seen < line, k < b.count {
                let length = b[k] == 0x0A ? 1 : LineBreaks.yaml.otherBreak(in: b, at: k, end: b.count)
                if length > 0 { seen += 1 }
                k += max(length, 1)
            }
            return k
        }
    }

    /// Calls `found` with where each item of a YAML block sequence whose items are at
    /// `column` starts, past `from` (the first item's line, which does not end one), until it
    /// returns false. Returns where the list ends, when the text holds its end: a line whose
    /// text starts at a smaller column, or at the column but is not an item.
    static func yamlItemStarts(in b: ArraySlice<UInt8>, from: Int, column: Int, mapping: Bool = false, _ found: (Int) -> Bool)
        -> Int?
    {
        var tracker = YAMLLineTracker()
        return b.withUnsafeBufferPointer { text -> Int? in
            guard let base = text.baseAddress else { return nil }
            var k = ByteOrderMark.length(at: b)
            while k < text.count {
                let end = SystemCalls.find(0x0A, in: base + k, count: text.count - k).map { $0 - UnsafeRawPointer(base) } ?? text.count
                if k >= from {
                    var i = k
                    while i < end, text[i] == 0x20 { i += 1 }
                    let indent = i - k
                    if i < end, ![0x0D, 0x09, UInt8(ascii: "#")].contains(text[i]), indent <= column, tracker.outside(at: indent) {
                        // (`-` then a space or the line's end.)
                        let item = Self.startsItem(text, i, end)
                        guard indent == column, item || mapping else { return k }
                        // (In a mapping, a `- ` line at the members' column is an item of the
                        // member before it, an indentless list.)
                        if k > from, !mapping || !item && Self.startsKey(text, i), !found(k) { return nil }
                    }
                }
                tracker.lines(text, k, end)
                k = end + 1
            }
            return nil
        }
    }

    /// Calls `found` with where each record of a YAML text starts, after the first and at or
    /// past `from`, until it returns false: a document's `---` line (with the directives
    /// and comments before it), or a line at the left margin that starts a mapping's key
    /// (`mapping`) or a sequence's `- ` item. Such a line must be outside every scalar and
    /// collection, which the tracker follows from the text's start; a `---` line ends them.
    static func yamlRecordStarts(in b: [UInt8], from: Int, documents: Bool, mapping: Bool, _ found: (Int) -> Bool) {
        var tracker = YAMLLineTracker()
        // (The first record does not end one, though comments come before it.)
        var first = true
        // A stream: where the comment and directive lines just before this one start.
        var notes: Int? = nil
        b.withUnsafeBufferPointer { text in
            guard let base = text.baseAddress else { return }
            var k = ByteOrderMark.length(at: b)
            while k < text.count {
                let end = SystemCalls.find(0x0A, in: base + k, count: text.count - k).map { $0 - UnsafeRawPointer(base) } ?? text.count
                if documents {
                    if k >= from, startsDocument(b, k) {
                        // (A document's directives and the comments before its `---` go with
                        // it: the lines before it that start with `%` or `#` outside every
                        // scalar.)
                        let start = notes ?? k
                        if start > 0, !found(start) { return }
                    }
                    let note = k < end && (b[k] == UInt8(ascii: "%") || b[k] == UInt8(ascii: "#")) && tracker.outsideAtMargin
                    notes = note ? notes ?? k : nil
                    tracker.lines(text, k, end)
                } else {
                    // (A line with a token at the margin, past comments, directives, markers
                    // and the anchor or tag of the collection on a line of its own.)
                    let token =
                        k < end && tracker.outsideAtMargin && !startsDocument(b, k)
                        && ![0x0D, 0x20, 0x09, UInt8(ascii: "#"), UInt8(ascii: "%")].contains(b[k]) && !onlyProperties(b, k, end)
                    if token, !first, k >= from, mapping ? startsKey(b, k) : startsItem(b, k), !found(k) { return }
                    if token { first = false }
                    tracker.lines(text, k, end)
                }
                k = end + 1
            }
        }
    }

    /// Whether a line's text from a value on is an empty flow collection (`[]` or `{}`),
    /// then perhaps a comment.
    static func isEmptyFlow(_ text: ArraySlice<UInt8>, _ open: Unicode.Scalar, _ close: Unicode.Scalar) -> Bool {
        var rest = text.drop { $0 == 0x20 }
        guard rest.first == UInt8(ascii: open) else { return false }
        rest = rest.dropFirst().drop { $0 == 0x20 }
        guard rest.first == UInt8(ascii: close) else { return false }
        rest = rest.dropFirst().drop { $0 == 0x20 || $0 == 0x0D }
        return rest.isEmpty || rest.first == UInt8(ascii: "#")
    }

    /// Whether the line `b[k..<end]` holds only anchors and tags (and a comment).
    static func onlyProperties(_ b: [UInt8], _ k: Int, _ end: Int) -> Bool {
        var i = k
        while i < end {
            switch b[i] {
            case 0x20, 0x09, 0x0D:
                i += 1
            case UInt8(ascii: "&"), UInt8(ascii: "!"):
                while i < end, ![0x20, 0x09, 0x0D].contains(b[i]) { i += 1 }
            case UInt8(ascii: "#"):
                return i > k
            default:
                return false
            }
        }
        return true
    }

    /// Where the line before the one that starts at `k` starts.
    static func lineStart(before k: Int, in b: [UInt8]) -> Int? {
        guard k > 0 else { return nil }
        var j = k - 1
        while j > 0, b[j - 1] != UInt8(ascii: "\n") { j -= 1 }
        return j
    }

    /// A block sequence's leading directive lines and its `---` line, when it has directives:
    /// a later chunk needs them (`%TAG` names the handles its tags use).
    static func directives(_ b: [UInt8]) -> [UInt8] {
        var k = ByteOrderMark.length(at: b)
        var out: [UInt8] = []
        var any = false
        while k < b.count {
            let end = (b[k...].firstIndex(of: UInt8(ascii: "\n")) ?? b.count - 1) + 1
            if b[k] == UInt8(ascii: "%") {
                any = true
                out += b[k..<end]
            } else if startsDocument(b, k) {
                return any ? out + Array("---\n".utf8) : []
            } else if b[k] != UInt8(ascii: "#"), b[k] != UInt8(ascii: "\n"), b[k] != UInt8(ascii: "\r") {
                return []
            }
            k = end
        }
        return []
    }

    /// Whether the text's records are documents: a `---` line after the first content.
    static func isStream(_ bytes: [UInt8]) -> Bool {
        var k = ByteOrderMark.length(at: bytes)
        var lineStart = true
        var content = false
        while k < bytes.count {
            if lineStart {
                if startsDocument(bytes, k) {
                    if content { return true }
                } else if bytes[k] != UInt8(ascii: "#"), bytes[k] != UInt8(ascii: "\n"), bytes[k] != UInt8(ascii: "%") {
                    content = true
                }
            }
            lineStart = bytes[k] == UInt8(ascii: "\n")
            k += 1
        }
        return false
    }

    static func startsDocument<Text: RandomAccessCollection<UInt8>>(_ b: Text, _ k: Int) -> Bool where Text.Index == Int {
        k + 3 <= b.count && b[k] == UInt8(ascii: "-") && b[k + 1] == UInt8(ascii: "-") && b[k + 2] == UInt8(ascii: "-")
            && (k + 3 == b.count || [0x20, 0x09, 0x0A, 0x0D].contains(b[k + 3]))
    }

    /// In a block mapping at the left margin (an object of lists): where the line of the key
    /// of the value at `offset` starts, the last line at or before it that starts at the
    /// margin with content other than a comment or an item of an indentless list.
    package static func keyLine(before offset: Int, in b: UnsafeBufferPointer<UInt8>) -> Int {
        var k = offset
        while k > 0, b[k - 1] != 0x0A { k -= 1 }
        while k > 0, [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "#"), UInt8(ascii: "-")].contains(b[k]) {
            k -= 1
            while k > 0, b[k - 1] != 0x0A { k -= 1 }
        }
        return k
    }

    /// Where the first line with content starts: past blank lines, comments, directives
    /// and a `---` line.
    static func firstContentLine(_ b: [UInt8]) -> Int? {
        var k = ByteOrderMark.length(at: b)
        while k < b.count {
            let first = b[k]
            guard [UInt8(ascii: "#"), UInt8(ascii: "%"), 0x0A, 0x0D, 0x20].contains(first) || startsDocument(b, k) else { return k }
            guard let end = b[k...].firstIndex(of: 0x0A) else { return nil }
            k = end + 1
        }
        return nil
    }

    /// Whether the line at `k` starts a block mapping's member at the left margin: a plain
    /// key (no indicator first) or a quoted one on one line, then `:` and a space or the
    /// line's end. Other lines at the margin (comments, `- ` items of an indentless
    /// sequence, markers, a continued scalar) do not.
    static func startsKey<Text: RandomAccessCollection<UInt8>>(_ b: Text, _ k: Int) -> Bool where Text.Index == Int {
        keyColon(b, k) != nil
    }

    /// Where the colon after the key that starts the line at `k` is (`startsKey`), or nil.
    static func keyColon<Text: RandomAccessCollection<UInt8>>(_ b: Text, _ k: Int) -> Int? where Text.Index == Int {
        guard k < b.count else { return nil }
        let first = b[k]
        let blanks: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        // (`-`, `?` and `:` start a plain key when no space follows them; `.` does but for
        // a `...` marker.)
        let indicators = Array(",[]{}#&*!|>%@` \t\r\n".utf8)
        let spaced = k + 1 == b.count || blanks.contains(b[k + 1])
        var j = k
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            // The closing quote on the same line (a backslash escapes in double quotes;
            // two single quotes are one in single quotes).
            j += 1
            while j < b.count, b[j] != 0x0A {
                if first == UInt8(ascii: "\""), b[j] == UInt8(ascii: "\\") {
                    j += 2
                    continue
                }
                if b[j] == first {
                    guard first == UInt8(ascii: "'"), j + 1 < b.count, b[j + 1] == first else { break }
                    j += 1
                }
                j += 1
            }
            guard j < b.count, b[j] == first else { return nil }
            j += 1
            while j < b.count, b[j] == 0x20 || b[j] == 0x09 { j += 1 }
            guard j < b.count, b[j] == UInt8(ascii: ":") else { return nil }
        } else {
            guard !indicators.contains(first), !([UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: ":")].contains(first) && spaced),
                !startsDocument(b, k), !(first == UInt8(ascii: ".") && b[k...].starts(with: "...".utf8))
            else { return nil }
            // A colon followed by a space or the line's end, before a comment.
            j += 1
            while j < b.count, b[j] != 0x0A {
                if b[j] == UInt8(ascii: ":"), j + 1 == b.count || blanks.contains(b[j + 1]) { break }
                if b[j] == UInt8(ascii: "#"), b[j - 1] == 0x20 || b[j - 1] == 0x09 { return nil }
                j += 1
            }
            guard j < b.count, b[j] == UInt8(ascii: ":") else { return nil }
        }
        return j + 1 == b.count || blanks.contains(b[j + 1]) ? j : nil
    }

    /// Whether the line `text[k..<end]` (from its text) is a block sequence's item: `-`, then
    /// a space or the line's end.
    static func startsItem(_ text: UnsafeBufferPointer<UInt8>, _ k: Int, _ end: Int) -> Bool {
        text[k] == UInt8(ascii: "-") && (k + 1 == end || [0x20, 0x0D].contains(text[k + 1]))
    }

    /// Where the lines read whole end: at the last line break, or at the input's end.
    private var wholeLines: Int { atEnd ? buffer.count : (buffer.lastIndex(of: 0x0A) ?? -1) + 1 }

    static func startsItem(_ b: [UInt8], _ k: Int) -> Bool {
        k + 1 < b.count && b[k] == UInt8(ascii: "-")
            && [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(b[k + 1])
    }
}

/// Finds, at the start of a JSON text, the list a path names: a walk that reads the member
/// names on the path and skips every other value by its brackets and strings. It checks
/// only what it must to find its way; the reader of the chunk that holds this text checks
/// the rest.
struct JSONPathWalk {
    enum Outcome: Equatable {
        /// The list's `[` is at `start`; `closers` close the containers around it,
        /// innermost first.
        case found(start: Int, closers: [UInt8])
        /// The text ends before the list is found.
        case more
        /// The text is not JSON at `offset`.
        case malformed(Int)
        /// The path leads elsewhere: why.
        case notFound(String)
    }

    let bytes: [UInt8]
    private var k = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        k = ByteOrderMark.length(at: bytes)
    }

    mutating func find(_ steps: [String]) -> Outcome {
        var closers: [UInt8] = []
        for step in steps {
            guard space() else { return .more }
            switch bytes[k] {
            case UInt8(ascii: "{"):
                closers.insert(UInt8(ascii: "}"), at: 0)
                k += 1
                var first = true
                while true {
                    guard space() else { return .more }
                    if bytes[k] == UInt8(ascii: "}") { return .notFound("no member \(JSONWriter.compact(.string(step)))") }
                    if !first {
                        guard bytes[k] == UInt8(ascii: ",") else { return .malformed(k) }
                        k += 1
                        guard space() else { return .more }
                    }
                    first = false
                    guard bytes[k] == UInt8(ascii: "\"") else { return .malformed(k) }
                    let nameStart = k
                    guard let end = stringEnd() else { return .more }
                    guard case .string(let name)? = try? JSONReader().read(Array(bytes[nameStart..<end]), name: "").0 else {
                        return .malformed(end)
                    }
                    guard space() else { return .more }
                    guard bytes[k] == UInt8(ascii: ":") else { return .malformed(k) }
                    k += 1
                    guard space() else { return .more }
                    if name.unicodeScalars.elementsEqual(step.unicodeScalars) { break }
                    if let outcome = skipValue() { return outcome }
                }
            case UInt8(ascii: "["):
                closers.insert(UInt8(ascii: "]"), at: 0)
                k += 1
                guard let index = Int(step), index >= 0, String(index) == step else {
                    return .notFound("a list where \(JSONWriter.compact(.string(step))) is not an index")
                }
                for _ in 0..<index {
                    guard space() else { return .more }
                    if bytes[k] == UInt8(ascii: "]") { return .notFound("no item \(index)") }
                    if let outcome = skipValue() { return outcome }
                    guard space() else { return .more }
                    guard bytes[k] == UInt8(ascii: ",") else {
                        return bytes[k] == UInt8(ascii: "]") ? .notFound("no item \(index)") : .malformed(k)
                    }
                    k += 1
                }
                guard space() else { return .more }
                if bytes[k] == UInt8(ascii: "]") { return .notFound("no item \(index)") }
            default:
                return .notFound("a value that is not an object or a list")
            }
        }
        guard space() else { return .more }
        guard bytes[k] == UInt8(ascii: "[") || bytes[k] == UInt8(ascii: "{") else {
            return .notFound("a value that is not a list or a map of records")
        }
        return .found(start: k, closers: closers)
    }

    enum Member: Equatable {
        /// The member ends (past its value) here.
        case end(Int)
        /// The object has no member.
        case empty
        case more
        case malformed
    }

    /// Where an object's first member's value starts (`.end`), the object open before `start`.
    mutating func memberValue(from start: Int) -> Member {
        k = start
        guard space() else { return .more }
        if bytes[k] == UInt8(ascii: "}") { return .empty }
        guard bytes[k] == UInt8(ascii: "\"") else { return .malformed }
        guard stringEnd() != nil, space() else { return .more }
        guard bytes[k] == UInt8(ascii: ":") else { return .malformed }
        k += 1
        guard space() else { return .more }
        return .end(k)
    }

    /// Where an object's first member ends, the object open before `start`.
    mutating func memberEnd(from start: Int) -> Member {
        let value = memberValue(from: start)
        guard case .end = value else { return value }
        if let outcome = skipValue() { return outcome == .more ? .more : .malformed }
        // (A value at the text's end may go on.)
        return k < bytes.count ? .end(k) : .more
    }

    /// Where a step of the path names a member given twice in one object, in what is read:
    /// the end of the second name, and what closes the containers open there, innermost
    /// first. The first of the two may not lead to the list, so `find` stops there, where
    /// the reader stops at the second. Nil when no step is given twice in what is read.
    mutating func repeatedStep(_ steps: [String]) -> (nameEnd: Int, closers: [UInt8])? {
        var closers: [UInt8] = []
        for step in steps {
            guard space() else { return nil }
            switch bytes[k] {
            case UInt8(ascii: "{"):
                closers.insert(UInt8(ascii: "}"), at: 0)
                k += 1
                var valueAt: Int? = nil
                var first = true
                while true {
                    guard space() else { return nil }
                    if bytes[k] == UInt8(ascii: "}") { break }
                    if !first {
                        guard bytes[k] == UInt8(ascii: ",") else { return nil }
                        k += 1
                        guard space() else { return nil }
                    }
                    first = false
                    let nameStart = k
                    guard bytes[k] == UInt8(ascii: "\""), let end = stringEnd(),
                        case .string(let name)? = try? JSONReader().read(Array(bytes[nameStart..<end]), name: "").0
                    else { return nil }
                    let isStep = name.unicodeScalars.elementsEqual(step.unicodeScalars)
                    if isStep, valueAt != nil { return (end, closers) }
                    guard space(), bytes[k] == UInt8(ascii: ":") else { return nil }
                    k += 1
                    guard space() else { return nil }
                    if isStep { valueAt = k }
                    guard skipValue() == nil else { return nil }
                }
                guard let valueAt else { return nil }
                k = valueAt
            case UInt8(ascii: "["):
                closers.insert(UInt8(ascii: "]"), at: 0)
                k += 1
                guard let index = Int(step), index >= 0 else { return nil }
                for _ in 0..<index {
                    guard space(), skipValue() == nil, space(), bytes[k] == UInt8(ascii: ",") else { return nil }
                    k += 1
                }
            default: return nil
            }
        }
        return nil
    }

    /// Moves past white space; false at the text's end.
    private mutating func space() -> Bool {
        while k < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[k]) { k += 1 }
        return k < bytes.count
    }

    /// Moves past the string that starts at `k`, and returns where it ends (past its
    /// quote); nil when the text ends first.
    private mutating func stringEnd() -> Int? {
        var j = k + 1
        while j < bytes.count {
            if bytes[j] == UInt8(ascii: "\\") {
                j += 2
                continue
            }
            if bytes[j] == UInt8(ascii: "\"") {
                k = j + 1
                return k
            }
            j += 1
        }
        return nil
    }

    /// Moves past the value that starts at `k`; nil when it did, else the outcome.
    private mutating func skipValue() -> Outcome? {
        var depth = 0
        while k < bytes.count {
            switch bytes[k] {
            case UInt8(ascii: "\""):
                guard stringEnd() != nil else { return .more }
                if depth == 0 { return nil }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return nil }
                depth -= 1
                if depth == 0 {
                    k += 1
                    return nil
                }
            case UInt8(ascii: ","), 0x20, 0x0A, 0x0D, 0x09:
                if depth == 0 { return nil }
            default: break
            }
            k += 1
        }
        return .more
    }
}

/// Where a JSON text's strings are, read a byte at a time.
struct JSONStrings {
    private var inString = false, escaped = false

    /// Reads one byte; true when it is inside a string after its opening quote (the closing
    /// quote included), which a walk over the structure skips. The opening quote is not
    /// skipped: a value starts there.
    mutating func skips(_ byte: UInt8) -> Bool {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return true
        }
        if byte == UInt8(ascii: "\"") { inString = true }
        return false
    }
}
