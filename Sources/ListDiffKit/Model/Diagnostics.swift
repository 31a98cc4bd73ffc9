/// `ListDiffError.Location` under its short name inside the package.
package typealias SourceLocation = ListDiffError.Location

extension ListDiffError {
    /// A 1-based line and column in a source file. Columns count Unicode scalars.
    public struct Location: Sendable, Hashable, CustomStringConvertible {
        /// The line, from 1.
        public var line: Int
        /// The column, from 1, in Unicode scalars.
        public var column: Int

        /// A place in a text.
        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }

        public var description: String { "\(line):\(column)" }

        /// The location of byte `offset` in `bytes`, counting lines by `breaks` and columns by
        /// scalars.
        static func of(
            offset: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: SourceLocation = .textStart,
            breaks: LineBreaks = .newline
        ) -> SourceLocation {
            of(offsets: [offset], in: bytes, from: start, breaks: breaks)[0]!
        }

        /// Where a text starts: line 1, column 1.
        static let textStart = SourceLocation(line: 1, column: 1)

        /// The locations of many offsets at once, in one pass over `bytes` (nil stays nil).
        /// `bytes[0]` is at `start`. Where that is the start of a text, a byte order mark
        /// there takes no column: the readers skip it.
        static func of(
            offsets: [Int?], in bytes: UnsafeBufferPointer<UInt8>, from start: SourceLocation = .textStart,
            breaks: LineBreaks = .newline
        ) -> [SourceLocation?] {
            let order = offsets.indices.filter { offsets[$0] != nil }.sorted { offsets[$0]! < offsets[$1]! }
            var out = [SourceLocation?](repeating: nil, count: offsets.count)
            var line = start.line, column = start.column
            var i = start == .textStart ? ByteOrderMark.length(at: bytes) : 0
            for k in order {
                let end = min(offsets[k]!, bytes.count)
                while i < end {
                    let b = bytes[i]
                    if b == 0x0A || breaks != .newline && b >= 0x0D && breaks.otherBreak(in: bytes, at: i, end: bytes.count) > 0 {
                        // (The bytes after the first of a longer break do not count.)
                        line += 1
                        column = 1
                    } else if b & 0xC0 != 0x80 {
                        column += 1
                    }
                    i += 1
                }
                out[k] = SourceLocation(line: line, column: column)
            }
            return out
        }
    }
}

/// What ends a line, for the places errors name: `\n` always (`\r\n` is one break, at its
/// `\n`), and in some formats more.
package enum LineBreaks: Sendable {
    /// `\n` alone: JSON and NDJSON.
    case newline
    /// A lone `\r` too, as spreadsheets on old Macs end rows: CSV and TSV.
    case csv
    /// As libyaml reads YAML: a lone `\r`, U+0085, U+2028 and U+2029 too.
    case yaml

    /// The length of a line break other than `\n` at `text[i]`, in a text that ends at `end`:
    /// a `\r` that no `\n` follows (1), in YAML U+0085 (2), U+2028 or U+2029 (3); 0 where
    /// there is none.
    @inline(__always)
    package func otherBreak(in text: UnsafeBufferPointer<UInt8>, at i: Int, end: Int) -> Int {
        switch text[i] {
        case 0x0D: return self != .newline && (i + 1 == end || text[i + 1] != 0x0A) ? 1 : 0
        case 0xC2: return self == .yaml && i + 1 < end && text[i + 1] == 0x85 ? 2 : 0
        case 0xE2: return self == .yaml && i + 2 < end && text[i + 1] == 0x80 && text[i + 2] & 0xFE == 0xA8 ? 3 : 0
        default: return 0
        }
    }
}

extension ListDiffError {
    /// How a message names a second place in the same text: `(first at line L, column C)`.
    package static func firstAt(_ place: SourceLocation) -> String {
        "(first at line \(place.line), column \(place.column))"
    }

    /// The error found in a part of a text that starts `lines` lines into it: its place,
    /// and the place its message names (`firstAt`), moved down by `lines`; a place on the
    /// part's line `firstLine` moved right by `columns` too (the part starts mid-line). A
    /// place before `firstLine` stays: those lines are the text's own first lines.
    package func movedDown(_ lines: Int, columns: Int = 0, firstLine: Int = 1) -> ListDiffError {
        func move(_ at: SourceLocation) -> SourceLocation {
            // (Lines before `firstLine` are the input's own first lines, as they are.)
            guard at.line >= firstLine else { return at }
            return SourceLocation(line: at.line + lines, column: at.column + (at.line == firstLine ? columns : 0))
        }
        guard lines != 0 || columns != 0, let at = location else { return self }
        var moved = self.placingFirstAt(move)
        moved.location = move(at)
        return moved
    }

    /// The error with the place its message names (`firstAt`) moved by `move`.
    package func placingFirstAt(_ move: (SourceLocation) -> SourceLocation) -> ListDiffError {
        var moved = self
        let text = Array(message.utf8), lead = Array(" (first at line ".utf8)
        guard text.last == UInt8(ascii: ")"), text.count > lead.count else { return moved }
        var start = text.count - lead.count
        while start >= 0, !text[start..<(start + lead.count)].elementsEqual(lead) { start -= 1 }
        guard start >= 0 else { return moved }
        let numbers = String(decoding: text[(start + lead.count)..<(text.count - 1)], as: UTF8.self).split(separator: ", column ")
        if numbers.count == 2, let line = Int(numbers[0]), let column = Int(numbers[1]) {
            moved.message =
                String(decoding: text[..<start], as: UTF8.self) + " " + Self.firstAt(move(SourceLocation(line: line, column: column)))
        }
        return moved
    }
}

/// Every error listdiff reports: one line, `file:line:column: error: message` where a place
/// applies. The description escapes control characters (`SafeText`), so that it stays one line.
public struct ListDiffError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, for a caller to act on: each kind needs a different fix.
    public enum Kind: String, Sendable, CaseIterable {
        /// The text is not valid JSON, NDJSON or YAML (a duplicate member name included).
        case syntax
        /// The text is valid, but holds no list of records where one is looked for: not a
        /// list, an object of lists or a list of section objects, or `--path` leads nowhere.
        case shape
        /// A record without a usable key, or two records with one key.
        case key
        /// A changeset that is malformed, or that does not fit the file it is applied to.
        case changeset
        /// An input beyond a limit: its size, its nesting, its aliases, an algorithm's cost.
        case limit
        /// A file that cannot be opened, read or written, or that changed while it was read.
        case io
        /// A request that cannot be carried out: a bad key spelling or list of change kinds,
        /// a format that cannot hold the result.
        case usage
    }

    /// What kind of trouble this is.
    public var kind: Kind
    /// The file (or input) at fault, when there is one.
    public var file: String?
    /// The line and column in `file`, when the error is about a place in its text.
    public var location: ListDiffError.Location?
    /// What went wrong, in one line, without the file and place.
    public var message: String
    /// A setting that gets past the error, when one does. The message does not name it:
    /// the command words it as its option, an embedder as its parameter.
    public var hint: Hint?
    /// A record lacks its key (the error `FileDiffer` adds key candidates to).
    package var keyMissing = false
    /// The inputs cannot be spilled (`FileDiffer.diffSpilling`): under the default budget
    /// they are diffed in memory instead.
    package var notSpillable = false
    /// A list of section objects that does not read as one (a layout problem found from all
    /// the sections): a part of the list says nothing of the whole.
    package var ofSectionObjects = false
    /// An option asked of `apply` that the changeset contradicts (which the command words
    /// as its options).
    package var conflict: ReadingConflict?

    /// A setting that gets past an error.
    public enum Hint: Sendable, Hashable {
        /// Apply even though the fingerprints do not match (`FileApplier`'s `force`).
        case force
        /// Pair records that share a key by occurrence (`DuplicatePolicy.match`).
        case matchDuplicates
        /// Name the member that holds a section object's records (`LayoutOptions.items`).
        case items
        /// Name the member that names a section object (`LayoutOptions.sectionKey`).
        case sectionKey
        /// Point at the records inside a larger document (`LayoutOptions.path`).
        case path
        /// Point at this list, the one list inside the object where records were looked for.
        case pathTo(String)
        /// Write the result in this format, which can hold it.
        case outputFormat(InputFormat)
        /// Use another algorithm (the named ones) for inputs this large, or raise the cost limit.
        case algorithm(String)
        /// Key the records by these fields (one, or several together), which key every
        /// record of both inputs.
        case key([String])
        /// Make the whole record its identity (`IdentityKey.wholeRecord`): the lists diff as
        /// sequences.
        case wholeRecordKey
        /// Read the keys compose lacks from the document the first changeset was made from
        /// (`Changeset.composed(with:oldPath:)`).
        case oldDocument
    }

    /// The same error with `hint`.
    package func hinting(_ hint: Hint) -> ListDiffError {
        var copy = self
        copy.hint = hint
        return copy
    }

    /// Errors are equal when they say the same (`keyMissing` is a note for `FileDiffer`).
    public static func == (a: ListDiffError, b: ListDiffError) -> Bool {
        a.kind == b.kind && a.file == b.file && a.location == b.location && a.message == b.message && a.hint == b.hint
    }

    /// An error, as a custom `DiffAlgorithm` throws one.
    public init(
        _ kind: Kind, file: String? = nil, location: ListDiffError.Location? = nil, _ message: String, hint: Hint? = nil
    ) {
        self.kind = kind
        self.file = file
        self.location = location
        self.message = message
        self.hint = hint
    }

    /// The most characters an error's line shows.
    static let longest = 1000

    public var description: String {
        var prefix = ""
        if let file {
            prefix = file + ":"
            if let location { prefix += "\(location.line):\(location.column):" }
            prefix += " "
        }
        // One line, whatever the file name or the quoted input hold, and of a readable
        // length: a message quoting a huge key or value is cut.
        let text = SafeText.escape(prefix + "error: " + message)
        return text.count <= Self.longest ? text : String(text.prefix(Self.longest)) + "… (cut)"
    }

    /// The same error, attributed to `file` if it has no file yet.
    func inFile(_ name: String) -> ListDiffError {
        var copy = self
        if copy.file == nil { copy.file = name }
        return copy
    }
}
