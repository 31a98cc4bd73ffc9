/// A 1-based line and column in a source file. Columns count Unicode scalars.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }

    /// The location of byte `offset` in `bytes`, counting lines by `\n` and columns by scalars.
    static func of(offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> SourceLocation {
        var line = 1
        var column = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            let b = bytes[i]
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return SourceLocation(line: line, column: column)
    }
}

/// Every error listdiff reports: one line, `file:line:column: error: message` where a place applies.
public struct ListDiffError: Error, Sendable, CustomStringConvertible, Equatable {
    public var file: String?
    public var location: SourceLocation?
    public var message: String

    public init(file: String? = nil, location: SourceLocation? = nil, _ message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String {
        var prefix = ""
        if let file {
            prefix = file + ":"
            if let location { prefix += "\(location.line):\(location.column):" }
            prefix += " "
        }
        return prefix + "error: " + message
    }

    /// The same error, attributed to `file` if it has no file yet.
    func inFile(_ name: String) -> ListDiffError {
        var copy = self
        if copy.file == nil { copy.file = name }
        return copy
    }
}
