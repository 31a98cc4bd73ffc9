/// A strict RFC 8259 JSON reader over raw bytes.
///
/// It keeps what a diff needs and Foundation's `JSONSerialization` drops: object member
/// order (duplicates included), each value's source offset, and each number's exact text.
/// It refuses, with the byte offset of the problem: anything RFC 8259 does not allow,
/// invalid UTF-8, escapes that decode to a lone UTF-16 surrogate (a Swift `String` cannot
/// hold one, and silently replacing it would make two different strings equal), exponents
/// beyond ±999,999,999, and nesting deeper than `maxDepth`. A UTF-8 byte order mark at the
/// start is skipped, as RFC 8259 §8.1 permits.
///
/// - Complexity: O(n) in the size of the input; recursion depth at most `maxDepth`.
package struct JSONReader: Sendable {
    /// The deepest nesting of arrays and objects accepted.
    package var maxDepth: Int

    package init(maxDepth: Int = NestingLimit.standard) {
        self.maxDepth = maxDepth
    }

    /// Reads exactly one JSON text.
    package func read(_ bytes: [UInt8], name: String) throws(ListDiffError) -> (Value, SourceText) {
        let (values, offsets) = try parse(bytes, name: name)
        return (values[0], SourceText(name: name, bytes: bytes, valueOffsets: offsets))
    }

    /// Reads NDJSON (JSON Lines): one JSON value per line, blank lines skipped. The result
    /// is the list of the values, as if they were written as one JSON list.
    func readLines(_ bytes: [UInt8], name: String) throws(ListDiffError) -> (Value, SourceText) {
        let (values, offsets) = try parse(bytes, name: name, lines: true)
        return (.array(values), SourceText(name: name, bytes: bytes, valueOffsets: offsets))
    }

    /// Reads a value from bytes; convenience for tests and small inputs.
    package func value(_ bytes: [UInt8]) throws(ListDiffError) -> Value {
        try parse(bytes, name: "<input>").values[0]
    }

    /// Reads zero or more JSON texts separated by white space (as in a JSON sequence file).
    package func values(_ bytes: [UInt8]) throws(ListDiffError) -> [Value] {
        try parse(bytes, name: "<input>", many: true).values
    }

    /// The values of `bytes`, exactly one text, `many` or NDJSON's `lines`, with the offset of
    /// every value (in `lines`, 0 first: the list itself); a failure as an error in `name`.
    private func parse(_ bytes: [UInt8], name: String, many: Bool = false, lines: Bool = false)
        throws(ListDiffError) -> (values: [Value], offsets: [Int])
    {
        do throws(JSONParseFailure) {
            return try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseFailure) in
                var parser = JSONParser(bytes: buffer, maxDepth: maxDepth)
                if lines { parser.offsets = [0] }
                let values = lines ? try parser.parseLines() : try parser.parseTexts(many: many)
                return (values, parser.offsets)
            }
        } catch {
            throw bytes.withUnsafeBufferPointer { error.error(file: name, in: $0) }
        }
    }
}

struct JSONParseFailure: Error {
    var offset: Int
    var message: String
    /// Syntax, but for the limits (nesting, a record's size).
    var kind = ListDiffError.Kind.syntax
    /// Another place the message refers to: the first of a member name given twice.
    var first: Int? = nil

    /// The message, with the line and column of `first` when there is one.
    func message(_ locate: (Int) -> SourceLocation) -> String {
        guard let first else { return message }
        let place = locate(first)
        return "\(message) \(ListDiffError.firstAt(place))"
    }

    /// The error for a failure in `bytes`, the whole text of the file `name`.
    func error(file name: String, in bytes: UnsafeBufferPointer<UInt8>) -> ListDiffError {
        if first == nil { return ListDiffError(kind, file: name, location: SourceLocation.of(offset: offset, in: bytes), message) }
        let places = SourceLocation.of(offsets: [offset, first], in: bytes)
        return ListDiffError(kind, file: name, location: places[0], message { _ in places[1]! })
    }
}

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    var depth = 0
    /// Start offset of every value, in pre-order (when `recordsOffsets`).
    var offsets: [Int] = []
    var recordsOffsets = true
    /// Scratch space for strings with escapes.
    var scratch: [UInt8] = []
    /// The hashes of the member names of the objects being read, innermost last, to find
    /// a name given twice in one object (`checkNames`).
    var names: [UInt64] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseTexts(many: Bool) throws(JSONParseFailure) -> [Value] {
        skipByteOrderMark()
        var values: [Value] = []
        skipWhitespace()
        if many {
            while index < bytes.count {
                values.append(try parseValue())
                skipWhitespace()
            }
            return values
        }
        if index >= bytes.count { throw fail("expected a JSON value, found the end of the input") }
        values.append(try parseValue())
        try end()
        return values
    }

    /// After the one JSON text: nothing but white space to the end of the input.
    mutating func end() throws(JSONParseFailure) {
        skipWhitespace()
        if index < bytes.count { throw fail("unexpected \(describe(index)) after the JSON value") }
    }

    /// The value starting at `offset`, `depth` levels down (a record of a list is one down).
    static func value(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int, depth: Int, maxDepth: Int) throws(JSONParseFailure) -> Value {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.index = offset
        parser.depth = depth
        parser.recordsOffsets = false
        return try parser.parseValue()
    }

    /// One member of an object as written: where its name's bytes are (inside the quotes)
    /// and where its value's are.
    struct WrittenMember {
        var name: Range<Int>
        var value: Range<Int>
    }

    /// The members of the object at `offset` as written, into `members` (emptied first),
    /// their values skipped unread (the scan checked them). False when the value there is
    /// not an object or a name has escapes.
    static func members(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int, into members: inout [WrittenMember]) -> Bool {
        members.removeAll(keepingCapacity: true)
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "{") else { return false }
        var parser = JSONParser(bytes: bytes, maxDepth: 1)
        parser.recordsOffsets = false
        parser.index = offset
        do throws(JSONParseFailure) {
            if try parser.openIsEmpty(close: UInt8(ascii: "}")) { return true }
            repeat {
                try parser.nameStart()
                guard let name = try parser.scanString() else { return false }
                try parser.colon()
                let start = parser.index
                parser.index = skip(bytes, from: start)
                members.append(WrittenMember(name: name, value: start..<parser.index))
                parser.skipWhitespace()
            } while try parser.separator(close: UInt8(ascii: "}"), "object")
        } catch {
            return false
        }
        return true
    }

    /// One JSON value per line, blank lines skipped (NDJSON).
    mutating func parseLines() throws(JSONParseFailure) -> [Value] {
        skipByteOrderMark()
        var values: [Value] = []
        while true {
            skipWhitespace()
            if index >= bytes.count { return values }
            let start = index
            values.append(try parseValue())
            try endOfLine(recordStart: start)
        }
    }

    func fail(_ message: String, at offset: Int? = nil, kind: ListDiffError.Kind = .syntax) -> JSONParseFailure {
        JSONParseFailure(offset: offset ?? index, message: message, kind: kind)
    }

    func describe(_ i: Int) -> String {
        guard i < bytes.count else { return "end of input" }
        let b = bytes[i]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true).leftPadded(to: 2)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseFailure) -> Value {
        guard index < bytes.count else { throw fail("expected a JSON value, found the end of the input") }
        if recordsOffsets { offsets.append(index) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case quote: return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let range = try scanNumber()
            return .number(Number(text: String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)))
        default: throw fail("expected a JSON value, found \(describe(index))")
        }
    }

    /// Checks one value as `parseValue` reads it (the same failures, at the same places),
    /// building nothing.
    mutating func checkValue() throws(JSONParseFailure) {
        guard index < bytes.count else { throw fail("expected a JSON value, found the end of the input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try walkObject { (_, _, parser) throws(JSONParseFailure) in try parser.checkValue() }
        case UInt8(ascii: "["): try walkArray { (_, parser) throws(JSONParseFailure) in try parser.checkValue() }
        case quote: _ = try scanString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try scanNumber()
        default: throw fail("expected a JSON value, found \(describe(index))")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseFailure) {
        let start = index
        let count = word.utf8CodeUnitCount
        let w = word.utf8Start
        for k in 0..<count {
            guard index < bytes.count, bytes[index] == w[k] else {
                throw fail("invalid literal; expected '\(word)'", at: start)
            }
            index += 1
        }
    }

    mutating func enter() throws(JSONParseFailure) {
        depth += 1
        if depth > maxDepth { throw fail("nesting is deeper than the limit of \(maxDepth)", kind: .limit) }
    }

    // MARK: - The structure, walked once for every purpose

    /// The one loop over a JSON array, the parser at its `[`: `element(k, &parser)` reads
    /// element k from its first byte. Building values, hashing, finding keys and hashing
    /// under rules all walk arrays with it.
    @inline(__always)
    mutating func walkArray(_ element: (Int, inout JSONParser) throws(JSONParseFailure) -> Void) throws(JSONParseFailure) {
        if try openIsEmpty(close: UInt8(ascii: "]")) { return }
        var k = 0
        repeat {
            skipWhitespace()
            try element(k, &self)
            k += 1
            skipWhitespace()
        } while try separator(close: UInt8(ascii: "]"), "array")
        depth -= 1
    }

    /// The one loop over a JSON object, the parser at its `{`: `member(name, hash, &parser)`
    /// reads a member's value from its first byte, given its name (unescaped UTF-8) and the
    /// name's hash. A name given twice in one object is refused, unless `checkingNames` is
    /// false because the text was checked before.
    @inline(__always)
    mutating func walkObject(
        checkingNames: Bool = true,
        _ member: (UnsafeRawBufferPointer, Hash128, inout JSONParser) throws(JSONParseFailure) -> Void
    ) throws(JSONParseFailure) {
        let start = index, mark = names.count
        if try openIsEmpty(close: UInt8(ascii: "}")) { return }
        var firstName: UInt64 = 0, count = 0
        repeat {
            try nameStart()
            if let range = try scanString() {
                let name = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range]))
                let hash = CanonicalHash.string(name)
                if checkingNames { noteName(hash.a, first: &firstName, count: &count) }
                try colon()
                try member(name, hash, &self)
            } else {
                // A name with escapes, decoded in `scratch`: copied, since reading the value
                // may use `scratch` again.
                let name = scratch
                let hash = name.withUnsafeBytes { CanonicalHash.string($0) }
                if checkingNames { noteName(hash.a, first: &firstName, count: &count) }
                try colon()
                // (`withUnsafeBytes` cannot throw a typed error.)
                try name.withUnsafeBufferPointer { (name) throws(JSONParseFailure) in
                    try member(UnsafeRawBufferPointer(name), hash, &self)
                }
            }
            skipWhitespace()
        } while try separator(close: UInt8(ascii: "}"), "object")
        depth -= 1
        if count > 1 { try checkNames(from: mark, objectAt: start) }
    }

    mutating func parseArray() throws(JSONParseFailure) -> Value {
        var items: [Value] = []
        try walkArray { (_, parser) throws(JSONParseFailure) in items.append(try parser.parseValue()) }
        return .array(items)
    }

    mutating func parseObject() throws(JSONParseFailure) -> Value {
        var members: [Object.Member] = []
        try walkObject { (name, _, parser) throws(JSONParseFailure) in
            members.append(Object.Member(key: String(decoding: name, as: UTF8.self), value: try parser.parseValue()))
        }
        return .object(Object(members))
    }

    /// Notes the hash of an object's member name: the first is kept in `first`, so that an
    /// object of one member (the most common nested object) never touches `names`.
    @inline(__always)
    mutating func noteName(_ hash: UInt64, first: inout UInt64, count: inout Int) {
        if count == 0 {
            first = hash
        } else {
            if count == 1 { names.append(first) }
            names.append(hash)
        }
        count += 1
    }

    /// Refuses a member name given twice in the object at `start`, whose names' hashes are
    /// `names[mark...]`, and forgets them.
    @inline(__always)
    mutating func checkNames(from mark: Int, objectAt start: Int) throws(JSONParseFailure) {
        let count = names.count - mark
        let repeats = names.withUnsafeMutableBufferPointer { JSONParser.hasRepeat($0.baseAddress! + mark, count: count) }
        if repeats { try JSONParser.refuseRepeatedName(in: bytes, objectAt: start, maxDepth: maxDepth) }
        names.removeLast(count)
    }

    /// Refuses a member name given twice in the object at `start`, whose names' hashes are
    /// `names`; it may reorder them.
    static func checkNames(_ names: inout [UInt64], objectAt start: Int, in bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int)
        throws(JSONParseFailure)
    {
        let count = names.count
        if names.withUnsafeMutableBufferPointer({ hasRepeat($0.baseAddress!, count: count) }) {
            try refuseRepeatedName(in: bytes, objectAt: start, maxDepth: maxDepth)
        }
    }

    /// Whether two of the `count` hashes at `p` are equal. It may reorder them. listdiff
    /// refuses an object that gives a name twice, as YAML does, because tools disagree on
    /// which member counts: jq and Python take the last.
    static func hasRepeat(_ p: UnsafeMutablePointer<UInt64>, count: Int) -> Bool {
        guard count > 1 else { return false }
        if count <= 16 {
            for i in 1..<count {
                let h = p[i]
                for j in 0..<i where p[j] == h { return true }
            }
            return false
        }
        var all = UnsafeMutableBufferPointer(start: p, count: count)
        all.sort()
        for i in 1..<count where all[i] == all[i - 1] { return true }
        return false
    }

    /// The message for a member name given twice in one object.
    static func repeatedName(_ name: String) -> String {
        "duplicate member name \"\(SafeText.escape(name))\" in one object"
    }

    /// Reads the names of the object at `start` again, exactly, and throws at the second of
    /// a name given twice; returns when the hashes only collided.
    static func refuseRepeatedName(in bytes: UnsafeBufferPointer<UInt8>, objectAt start: Int, maxDepth: Int) throws(JSONParseFailure) {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.recordsOffsets = false
        parser.index = start
        var seen: [[UInt8]: Int] = [:]
        if try parser.openIsEmpty(close: UInt8(ascii: "}")) { return }
        repeat {
            try parser.nameStart()
            let at = parser.index
            let name = try parser.scanString().map { Array(bytes[$0]) } ?? parser.scratch
            if let first = seen[name] {
                throw JSONParseFailure(offset: at, message: repeatedName(String(decoding: name, as: UTF8.self)), first: first)
            }
            seen[name] = at
            try parser.colon()
            _ = try parser.hashValue()
            parser.skipWhitespace()
        } while try parser.separator(close: UInt8(ascii: "}"), "object")
    }

    /// At `[` or `{`: enters it; true (and left again) when it closes at once with `close`.
    @inline(__always)
    mutating func openIsEmpty(close: UInt8) throws(JSONParseFailure) -> Bool {
        try enter()
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == close else { return false }
        index += 1
        depth -= 1
        return true
    }

    /// Before a member's name: white space, then its opening quote.
    @inline(__always)
    mutating func nameStart() throws(JSONParseFailure) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == quote else {
            throw fail("expected a string key in object, found \(describe(index))")
        }
    }

    /// After a member's name: the `:` and the white space around it.
    @inline(__always)
    mutating func colon() throws(JSONParseFailure) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw fail("expected ':' after object key, found \(describe(index))")
        }
        index += 1
        skipWhitespace()
    }

    /// After an element or member: true for `,`, false for the closing bracket.
    @inline(__always)
    mutating func separator(close: UInt8, _ container: String) throws(JSONParseFailure) -> Bool {
        guard index < bytes.count else {
            throw fail("unterminated \(container); expected ',' or '\(Character(Unicode.Scalar(close)))'")
        }
        let b = bytes[index]
        index += 1
        if b == UInt8(ascii: ",") { return true }
        if b == close { return false }
        throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))' in \(container), found \(describe(index - 1))", at: index - 1)
    }

    /// Steps through an object member by member, for a walk that stops and resumes (the
    /// document scan): from its `{` (`opening`) or after a member's value, the next member's
    /// name, its `:` passed; nil once the object has closed (and been left).
    mutating func nextMember(opening: inout Bool) throws(JSONParseFailure) -> String? {
        guard try nextItem(opening: &opening, close: UInt8(ascii: "}"), "object") else { return nil }
        try nameStart()
        let name = try parseString()
        try colon()
        return name
    }

    /// Steps through an array element by element, as `nextMember` does an object: true at
    /// the next element's first byte, false once the array has closed (and been left).
    @inline(__always)
    mutating func nextElement(opening: inout Bool) throws(JSONParseFailure) -> Bool {
        guard try nextItem(opening: &opening, close: UInt8(ascii: "]"), "array") else { return false }
        skipWhitespace()
        return true
    }

    /// Into the container at its opening bracket (`opening`), or past the `,` after an item:
    /// whether another item follows; false once `close` has ended the container (and it
    /// has been left).
    @inline(__always)
    mutating func nextItem(opening: inout Bool, close: UInt8, _ container: String) throws(JSONParseFailure) -> Bool {
        if opening {
            opening = false
            return try !openIsEmpty(close: close)
        }
        skipWhitespace()
        guard try separator(close: close, container) else {
            depth -= 1
            return false
        }
        return true
    }

    /// Scans and validates a number; returns its bytes.
    mutating func scanNumber() throws(JSONParseFailure) -> Range<Int> {
        let start = index
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("invalid number: leading zero", at: index - 1) }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit in the exponent") }
            var significant = 0
            let expStart = index
            while index < bytes.count, isDigit(bytes[index]) {
                if significant > 0 || bytes[index] != UInt8(ascii: "0") { significant += 1 }
                index += 1
            }
            if significant > 9 { throw fail("number exponent is out of range (more than 9 digits)", at: expStart) }
        }
        return start..<index
    }

    /// Parses a string starting at the opening quote; validates UTF-8 and escapes.
    mutating func parseString() throws(JSONParseFailure) -> String {
        try withString { String(decoding: $0, as: UTF8.self) }
    }

    /// Scans the string at `index` (its opening quote) and hands its content, unescaped, to
    /// `body`: the bytes in place when it has no escapes, else decoded in `scratch`.
    @inline(__always)
    mutating func withString<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(JSONParseFailure) -> R {
        if let range = try scanString() { return body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range]))) }
        return scratch.withUnsafeBytes(body)
    }

    /// Scans and validates a string starting at its opening quote. Without escapes, returns
    /// the range of its bytes; with escapes, decodes it into `scratch` and returns nil.
    @inline(__always)
    mutating func scanString() throws(JSONParseFailure) -> Range<Int>? {
        index += 1
        let start = index
        // Fast path: no escapes.
        while true {
            index = Self.plainEnd(bytes.baseAddress!, from: index, count: bytes.count)  // (not empty: a `"` was read)
            guard index < bytes.count else { throw fail("unterminated string", at: start - 1) }
            let b = bytes[index]
            if b == quote {
                index += 1
                return start..<(index - 1)
            }
            if b == backslash { break }
            if b < 0x20 { throw fail("unescaped control character in string") }
            index = try validateUTF8Scalar(at: index)
        }
        // Slow path: copy what we have and decode escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let b = bytes[index]
            if b == quote {
                index += 1
                return nil
            }
            if b < 0x20 { throw fail("unescaped control character in string") }
            if b == backslash {
                try parseEscape()
            } else if b >= 0x80 {
                let end = try validateUTF8Scalar(at: index)
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
                index = end
            } else {
                scratch.append(b)
                index += 1
            }
        }
        throw fail("unterminated string", at: start - 1)
    }

    /// The offset of the first byte from `start` that needs attention inside a string (`"`,
    /// `\`, a control character, a byte of a multi-byte sequence), or `count`. Eight bytes
    /// at a time (SWAR), then one by one.
    @inline(__always)
    static func plainEnd(_ p: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        let raw = UnsafeRawPointer(p)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var i = start
        while i &+ 8 <= count {
            let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let q = w ^ (ones &* 0x22)
            let bs = w ^ (ones &* 0x5C)
            let special =
                (w & highs)
                | ((q &- ones) & ~q & highs)
                | ((bs &- ones) & ~bs & highs)
                | ((w &- ones &* 0x20) & ~w & highs)
            if special != 0 {
                // The lowest flagged byte is always a true one (borrows only run upwards).
                return i &+ special.trailingZeroBitCount >> 3
            }
            i &+= 8
        }
        while i < count {
            let b = p[i]
            if b < 0x20 || b >= 0x80 || b == quote || b == backslash { return i }
            i &+= 1
        }
        return count
    }

    mutating func parseEscape() throws(JSONParseFailure) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw fail("unterminated escape in string", at: escapeStart) }
        let c = bytes[index]
        index += 1
        if let byte = JSONBytes.escaped(c) {
            scratch.append(byte)
            return
        }
        switch c {
        case UInt8(ascii: "u"):
            var scalar = try hex4(escapeStart)
            if scalar >= 0xD800 && scalar < 0xDC00 {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == backslash, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail("lone UTF-16 surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in string", at: escapeStart)
                }
                index += 2
                let low = try hex4(escapeStart)
                guard low >= 0xDC00 && low < 0xE000 else {
                    throw fail("lone UTF-16 surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in string", at: escapeStart)
                }
                scalar = JSONBytes.scalar(high: scalar, low: low)
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw fail("lone UTF-16 surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in string", at: escapeStart)
            }
            // Every value here is a valid scalar: surrogates were handled above.
            let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
            scratch.append(contentsOf: UTF8.encode(s)!)
        default:
            throw fail("invalid escape '\\\(Character(Unicode.Scalar(c)))' in string", at: escapeStart)
        }
    }

    mutating func hex4(_ escapeStart: Int) throws(JSONParseFailure) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw fail("incomplete \\u escape in string", at: escapeStart) }
            let b = bytes[index]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape in string; expected four hex digits", at: escapeStart)
            }
            v = v << 4 | UInt32(d)
            index += 1
        }
        return v
    }

    /// Validates one multi-byte UTF-8 sequence starting at `i`; returns the index after it.
    @inline(__always)
    func validateUTF8Scalar(at i: Int) throws(JSONParseFailure) -> Int { try Self.validateUTF8Scalar(in: bytes, at: i) }

    /// Validates one multi-byte UTF-8 sequence of `bytes` starting at `i`; returns the index
    /// after it. (CSV's reader checks its fields' text by this rule too.)
    static func validateUTF8Scalar(in bytes: UnsafeBufferPointer<UInt8>, at i: Int) throws(JSONParseFailure) -> Int {
        func fail(_ message: String, at offset: Int) -> JSONParseFailure { JSONParseFailure(offset: offset, message: message) }
        let b0 = bytes[i]
        let length: Int
        var lowerBound: UInt8 = 0x80
        var upperBound: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowerBound = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upperBound = 0x9F  // no surrogates
        case 0xF0: length = 4; lowerBound = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upperBound = 0x8F
        default: throw fail("invalid UTF-8 byte 0x\(String(b0, radix: 16, uppercase: true))", at: i)
        }
        guard i + length <= bytes.count else { throw fail("truncated UTF-8 sequence", at: i) }
        let b1 = bytes[i + 1]
        guard b1 >= lowerBound && b1 <= upperBound else { throw fail("invalid UTF-8 sequence", at: i) }
        for k in 2..<max(2, length) where bytes[i + k] & 0xC0 != 0x80 {
            throw fail("invalid UTF-8 sequence", at: i)
        }
        return i + length
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
