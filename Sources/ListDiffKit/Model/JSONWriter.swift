/// Writes values as JSON: numbers with their exact text, object members in their order.
///
/// Non-finite YAML numbers (`.inf`, `-.inf`, `.nan`) have no JSON spelling; they are
/// written as the strings `".inf"`, `"-.inf"` and `".nan"`.
///
/// The work is done on bytes (`JSONBytes`); the `String` functions wrap it.
package enum JSONWriter {
    /// One line, no spaces.
    package static func compact(_ value: Value) -> String {
        var out = JSONBytes()
        out.append(value: value)
        return out.string
    }

    package static func write(_ value: Value, to out: inout String) {
        out += compact(value)
    }

    /// Indented with two spaces, starting at `level`.
    package static func writePretty(_ value: Value, to out: inout String, level: Int = 0) {
        var bytes = JSONBytes()
        bytes.appendPretty(value, level: level)
        out += bytes.string
    }

    package static func writeString(_ s: String, to out: inout String) {
        var bytes = JSONBytes()
        bytes.append(string: s)
        out += bytes.string
    }
}

/// A growing buffer of UTF-8 bytes that JSON is written into: strings are copied whole
/// when they need no escape, numbers as their text, integers without going through `String`.
/// It owns its memory (no copy-on-write checks on the hot path), so it is not copyable.
struct JSONBytes: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written so far.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// The bytes as a `String` (they are UTF-8 by construction).
    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func removeAll() {
        count = 0
    }

    /// The bytes written, handed over: the caller deallocates them.
    consuming func take() -> UnsafeMutableBufferPointer<UInt8> {
        let taken = UnsafeMutableBufferPointer(start: base, count: count)
        discard self
        return taken
    }

    /// Asks for transparent huge pages for the buffer's whole 2 MiB blocks: for a large
    /// buffer written once, in full, fewer page faults.
    func adviseHugePages() {
        let block = 1 << 21
        let start = (Int(bitPattern: base) + block - 1) & ~(block - 1)
        let end = (Int(bitPattern: base) + capacity) & ~(block - 1)
        guard end > start, let from = UnsafeRawPointer(bitPattern: start) else { return }
        SystemCalls.advise(from, count: end - start, .hugePages)
    }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        var room = capacity * 2
        while room < needed { room *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: room)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = room
    }

    @inline(__always)
    mutating func append(bytes source: UnsafeRawBufferPointer) {
        guard let from = source.baseAddress, source.count > 0 else { return }
        reserve(source.count)
        if source.count <= 16 {
            // Short (a name, a cell): a loop in place costs less than a call to memmove.
            let to = base + count
            for k in 0..<source.count { to[k] = from.load(fromByteOffset: k, as: UInt8.self) }
        } else {
            UnsafeMutableRawPointer(base + count).copyMemory(from: from, byteCount: source.count)
        }
        count &+= source.count
    }

    mutating func append(_ other: UnsafeBufferPointer<UInt8>) {
        append(bytes: UnsafeRawBufferPointer(other))
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(bytes: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func append(byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    /// Text as it is, no quotes, no escapes.
    mutating func append(raw text: String) {
        Self.withUTF8(text) { append(bytes: $0) }
    }

    /// A string's UTF-8 bytes, without copying it when it is stored contiguously (as native
    /// strings are).
    @inline(__always)
    static func withUTF8<R>(_ s: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = s.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        var s = s
        return s.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// A decimal integer.
    mutating func append(int value: Int) {
        if value < 0 { append(byte: UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var k = digits.count
            repeat {
                k -= 1
                digits[k] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            append(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: digits[k...])))
        }
    }

    /// A JSON string: quoted, escaped where JSON needs it (and U+2028, U+2029, DEL, for
    /// JavaScript and terminals).
    mutating func append(string s: String) {
        Self.withUTF8(s) { append(stringBytes: $0) }
    }

    mutating func append(stringBytes utf8: UnsafeRawBufferPointer) {
        append(byte: UInt8(ascii: "\""))
        var plainStart = 0
        var i = 0
        let n = utf8.count
        while i < n {
            // 0xE2 starts U+2028 and U+2029 (E2 80 A8, E2 80 A9) among others.
            i = Self.nextSpecial(utf8, from: i)
            guard i < n else { break }
            let c = utf8[i]
            let width: Int
            let escape: StaticString?
            var unicode: UInt32? = nil
            switch c {
            case 0x22: escape = "\\\""; width = 1
            case 0x5C: escape = "\\\\"; width = 1
            case 0x0A: escape = "\\n"; width = 1
            case 0x0D: escape = "\\r"; width = 1
            case 0x09: escape = "\\t"; width = 1
            case 0x08: escape = "\\b"; width = 1
            case 0x0C: escape = "\\f"; width = 1
            case 0xE2:
                if i + 2 < n, utf8[i + 1] == 0x80, utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9 {
                    unicode = utf8[i + 2] == 0xA8 ? 0x2028 : 0x2029
                    escape = nil
                    width = 3
                } else {
                    i += 1
                    continue
                }
            default:
                unicode = UInt32(c)
                escape = nil
                width = 1
            }
            append(bytes: UnsafeRawBufferPointer(rebasing: utf8[plainStart..<i]))
            if let escape {
                append(escape)
            } else if let unicode {
                let hex: StaticString = "0123456789abcdef"
                append("\\u")
                hex.withUTF8Buffer { digits in
                    for shift in stride(from: 12, through: 0, by: -4) { append(byte: digits[Int(unicode >> UInt32(shift) & 0xF)]) }
                }
            }
            i += width
            plainStart = i
        }
        append(bytes: UnsafeRawBufferPointer(rebasing: utf8[plainStart..<n]))
        append(byte: UInt8(ascii: "\""))
    }

    /// A JSON value given as checked JSON text, written as `append(value:)` writes the value
    /// it reads as (white space dropped, strings escaped anew, numbers as written), without
    /// building the value.
    mutating func append(compactJSON text: UnsafeRawBufferPointer) {
        var i = 0
        let n = text.count
        var decoded: [UInt8] = []
        while i < n {
            switch text[i] {
            case 0x20, 0x09, 0x0A, 0x0D:
                i += 1
            case 0x22:
                i = append(stringIn: text, at: i, &decoded)
            default:
                // Brackets, commas, colons, numbers and literals, up to the next blank or string.
                var j = i + 1
                while j < n, text[j] != 0x22, text[j] != 0x20, text[j] != 0x0A, text[j] != 0x09, text[j] != 0x0D { j += 1 }
                append(bytes: UnsafeRawBufferPointer(rebasing: text[i..<j]))
                i = j
            }
        }
    }

    /// A JSON value given as checked JSON text, written as `appendPretty(_:level:)` writes
    /// the value it reads as, without building the value.
    mutating func append(prettyJSON text: UnsafeRawBufferPointer, level start: Int) {
        if appendFlatObject(text, level: start) { return }
        var i = 0
        let n = text.count
        var level = start
        var decoded: [UInt8] = []
        @inline(__always) func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }
        while i < n {
            let c = text[i]
            switch c {
            case 0x20, 0x09, 0x0A, 0x0D:
                i += 1
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                var j = i + 1
                while j < n, isBlank(text[j]) { j += 1 }
                append(byte: c)
                if j < n, text[j] == c &+ 2 {  // "]" and "}" are two past "[" and "{"
                    append(byte: c &+ 2)
                    i = j + 1
                } else {
                    level += 1
                    newLine(level: level)
                    i += 1
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                level -= 1
                newLine(level: level)
                append(byte: c)
                i += 1
            case UInt8(ascii: ","):
                append(byte: c)
                newLine(level: level)
                i += 1
            case UInt8(ascii: ":"):
                append(": ")
                i += 1
            case 0x22:
                i = append(stringIn: text, at: i, &decoded)
            default:
                // A number or a literal, up to the next delimiter.
                var j = i + 1
                while j < n {
                    let b = text[j]
                    if isBlank(b) || b == 0x2C || b == 0x3A || b == 0x5D || b == 0x7D || b == 0x22 { break }
                    j += 1
                }
                append(bytes: UnsafeRawBufferPointer(rebasing: text[i..<j]))
                i = j
            }
        }
    }

    /// The common record, written the common way: an object on one line with no white
    /// space, whose names and string values need no escaping and whose other values are
    /// numbers or literals. Written as `append(prettyJSON:level:)` writes it, but in one
    /// loop whose branches go the same way member after member. False, with nothing
    /// written, for anything else.
    private mutating func appendFlatObject(_ text: UnsafeRawBufferPointer, level: Int) -> Bool {
        let n = text.count
        guard n > 2, let p = text.baseAddress?.assumingMemoryBound(to: UInt8.self), p[0] == UInt8(ascii: "{"),
            p[n - 1] == UInt8(ascii: "}"), p[1] == 0x22
        else { return false }
        // Room for the most the object can take, reserved once: each member (at least five
        // bytes, `"":0,`) gains a line feed, its indentation and a space; and 16 bytes more,
        // since an indentation is stored 16 spaces at a time.
        let members = n / 5 + 1
        reserve(n + members * (2 * level + 4) + 2 * level + 2 + 16)
        let mark = count
        var out = base + count
        // Spaces, eight to a word.
        let spaces: UInt64 = 0x2020_2020_2020_2020
        @inline(__always) func newLine(_ level: Int) {
            out[0] = 0x0A
            out += 1
            let width = 2 * level
            if width <= 16 {
                UnsafeMutableRawPointer(out).storeBytes(of: spaces, as: UInt64.self)
                UnsafeMutableRawPointer(out + 8).storeBytes(of: spaces, as: UInt64.self)
            } else {
                out.initialize(repeating: 0x20, count: width)
            }
            out += width
        }
        @inline(__always) func copy(_ from: Int, _ to: Int) {
            let length = to - from
            if length >= 8, length <= 16 {
                // Two words that may overlap, both read within the range.
                let from = UnsafeRawPointer(p + from), into = UnsafeMutableRawPointer(out)
                into.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
                into.storeBytes(
                    of: from.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self), toByteOffset: length - 8, as: UInt64.self)
            } else if length >= 4, length < 8 {
                let from = UnsafeRawPointer(p + from), into = UnsafeMutableRawPointer(out)
                into.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
                into.storeBytes(
                    of: from.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self), toByteOffset: length - 4, as: UInt32.self)
            } else if length < 4 {
                for k in 0..<length { out[k] = p[from + k] }
            } else {
                out.update(from: p + from, count: length)
            }
            out += length
        }
        out[0] = UInt8(ascii: "{")
        out += 1
        var i = 1
        while true {
            // The name, from its quote: plain, or not this path.
            let nameEnd = Self.nextSpecial(text, from: i + 1)
            guard nameEnd < n, p[nameEnd] == 0x22, nameEnd + 1 < n, p[nameEnd + 1] == UInt8(ascii: ":") else { break }
            newLine(level + 1)
            copy(i, nameEnd + 1)
            out[0] = UInt8(ascii: ":")
            out[1] = 0x20
            out += 2
            i = nameEnd + 2
            guard i < n else { break }
            // The value: a plain string, or a number or literal up to the next `,` or `}`.
            var end: Int
            let first = p[i]
            if first == 0x22 {
                end = Self.nextSpecial(text, from: i + 1)
                guard end < n, p[end] == 0x22 else { break }
                end += 1
            } else {
                guard first != UInt8(ascii: "{"), first != UInt8(ascii: "["), first > 0x20 else { break }
                end = i + 1
                while end < n, p[end] != UInt8(ascii: ","), p[end] != UInt8(ascii: "}"), p[end] > 0x20 { end += 1 }
            }
            copy(i, end)
            i = end
            guard i < n else { break }
            if p[i] == UInt8(ascii: ",") {
                i += 1
                guard i < n, p[i] == 0x22 else { break }
                out[0] = UInt8(ascii: ",")
                out += 1
                continue
            }
            guard p[i] == UInt8(ascii: "}"), i == n - 1 else { break }
            newLine(level)
            out[0] = UInt8(ascii: "}")
            count = out - base + 1
            return true
        }
        count = mark
        return false
    }

    /// A line feed and the indentation of `level`.
    @inline(__always)
    private mutating func newLine(level: Int) {
        append(byte: 0x0A)
        indent(level)
    }

    /// The checked JSON string whose opening quote is at `i`, written escaped anew; returns
    /// the index past its closing quote. `decoded` is scratch space for escaped strings.
    @inline(__always)
    private mutating func append(stringIn text: UnsafeRawBufferPointer, at i: Int, _ decoded: inout [UInt8]) -> Int {
        let n = text.count
        let start = i + 1
        // Most strings need nothing done: no escapes, nothing the writer escapes. They are
        // found eight bytes at a time and copied as they are, quotes and all.
        var j = start
        var plain = true
        while true {
            j = Self.nextSpecial(text, from: j)
            guard j < n else { break }
            let b = text[j]
            if b == 0x22 { break }
            plain = false
            j += b == 0x5C ? 2 : 1
        }
        let end = min(j, n)
        if plain, end < n {
            append(bytes: UnsafeRawBufferPointer(rebasing: text[i...end]))
            return end + 1
        }
        if !text[start..<end].contains(0x5C) {
            append(stringBytes: UnsafeRawBufferPointer(rebasing: text[start..<end]))
        } else {
            decoded.removeAll(keepingCapacity: true)
            Self.unescape(UnsafeRawBufferPointer(rebasing: text[start..<end]), into: &decoded)
            decoded.withUnsafeBytes { append(stringBytes: $0) }
        }
        return end + 1
    }

    /// The index of the first byte at or after `start` that a string's copy must stop at:
    /// a quote, a backslash, or a byte the writer escapes (controls, DEL, and 0xE2, which
    /// starts U+2028 and U+2029); `text.count` if there is none. Reads eight bytes at a time.
    @inline(__always)
    static func nextSpecial(_ text: UnsafeRawBufferPointer, from start: Int) -> Int {
        let n = text.count
        var i = start
        #if _endian(little)
        if let base = text.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            @inline(__always) func zeroBytes(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
            while i + 8 <= n {
                let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                // Bytes below 0x20: their top three bits are zero.
                let found =
                    zeroBytes(w ^ (ones &* 0x22)) | zeroBytes(w ^ (ones &* 0x5C)) | zeroBytes(w ^ (ones &* 0x7F))
                    | zeroBytes(w ^ (ones &* 0xE2)) | zeroBytes(w & (ones &* 0xE0))
                if found != 0 { return i + found.trailingZeroBitCount / 8 }
                i += 8
            }
        }
        #endif
        while i < n {
            let c = text[i]
            if c < 0x20 || c == 0x22 || c == 0x5C || c == 0x7F || c == 0xE2 { return i }
            i += 1
        }
        return n
    }

    /// The byte a one-letter JSON escape stands for (`n` for a line feed); nil for `u` and
    /// for a letter that is no escape. `unescape` and the reader both use it.
    static func escaped(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return letter
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        default: return nil
        }
    }

    /// The scalar a UTF-16 surrogate pair stands for.
    static func scalar(high: UInt32, low: UInt32) -> UInt32 { 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00) }

    /// The bytes a checked JSON string's content (between its quotes) stands for.
    static func unescape(_ text: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        func hex(_ k: Int) -> UInt32 {
            var v: UInt32 = 0
            for q in k..<min(k + 4, text.count) {
                let b = text[q]
                let d: UInt8 = b <= 0x39 ? b &- 0x30 : (b | 0x20) &- 0x57
                v = v << 4 | UInt32(d & 0xF)
            }
            return v
        }
        var i = 0
        let n = text.count
        while i < n {
            let c = text[i]
            guard c == 0x5C, i + 1 < n else {
                out.append(c)
                i += 1
                continue
            }
            guard text[i + 1] == UInt8(ascii: "u") else {
                out.append(Self.escaped(text[i + 1]) ?? text[i + 1])
                i += 2
                continue
            }
            var scalar = hex(i + 2)
            i += 6
            if scalar >= 0xD800, scalar < 0xDC00, i + 5 < n {
                scalar = Self.scalar(high: scalar, low: hex(i + 2))
                i += 6
            }
            out.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}")!)
        }
    }

    /// A value on one line, no spaces.
    mutating func append(value: Value) {
        append(value, level: nil)
    }

    /// `name` (the member's comma, name and colon) and then `value`; nothing when `value` is
    /// nil, so that an optional member is one line at its writer.
    mutating func append(_ name: StaticString, int value: Int?) {
        guard let value else { return }
        append(name)
        append(int: value)
    }

    /// `name`, then `value` as a JSON string; nothing when `value` is nil.
    mutating func append(_ name: StaticString, string value: String?) {
        guard let value else { return }
        append(name)
        append(string: value)
    }

    /// `name`, then `value` on one line; nothing when `value` is nil.
    mutating func append(_ name: StaticString, value: Value?) {
        guard let value else { return }
        append(name)
        append(value: value)
    }

    /// A value indented with two spaces, starting at `level`.
    mutating func appendPretty(_ value: Value, level: Int) {
        append(value, level: level)
    }

    /// A value, indented from `level`, or on one line with no spaces when it is nil.
    private mutating func append(_ value: Value, level: Int?) {
        switch value {
        case .null: append("null")
        case .bool(let b): b ? append("true") : append("false")
        case .number(let n):
            if n.isFinite { append(raw: n.text) } else { append(string: n.text) }
        case .string(let s): append(string: s)
        case .array(let items):
            append(byte: UInt8(ascii: "["))
            for i in items.indices {
                if i > 0 { append(byte: UInt8(ascii: ",")) }
                if let level { newLine(level: level + 1) }
                append(items[i], level: level.map { $0 + 1 })
            }
            if let level, !items.isEmpty { newLine(level: level) }
            append(byte: UInt8(ascii: "]"))
        case .object(let object):
            append(byte: UInt8(ascii: "{"))
            let members = object.members
            for i in members.indices {
                if i > 0 { append(byte: UInt8(ascii: ",")) }
                if let level { newLine(level: level + 1) }
                append(string: members[i].key)
                level == nil ? append(byte: UInt8(ascii: ":")) : append(": ")
                append(members[i].value, level: level.map { $0 + 1 })
            }
            if let level, !members.isEmpty { newLine(level: level) }
            append(byte: UInt8(ascii: "}"))
        }
    }

    mutating func indent(_ level: Int) {
        let spaces = 2 * level
        reserve(spaces)
        (base + count).initialize(repeating: 0x20, count: spaces)
        count &+= spaces
    }
}
