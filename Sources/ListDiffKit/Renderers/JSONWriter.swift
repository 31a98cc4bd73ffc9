/// Writes values as JSON: numbers with their exact text, object members in their order.
///
/// Non-finite YAML numbers (`.inf`, `-.inf`, `.nan`) have no JSON spelling; they are
/// written as the strings `".inf"`, `"-.inf"` and `".nan"`.
///
/// The work is done on bytes (`JSONBytes`); the `String` functions wrap it.
public enum JSONWriter {
    /// One line, no spaces.
    public static func compact(_ value: Value) -> String {
        var out = JSONBytes()
        out.append(value: value)
        return out.string
    }

    public static func write(_ value: Value, to out: inout String) {
        out += compact(value)
    }

    /// Indented with two spaces, starting at `level`.
    public static func writePretty(_ value: Value, to out: inout String, level: Int = 0) {
        var bytes = JSONBytes()
        bytes.appendPretty(value, level: level)
        out += bytes.string
    }

    public static func writeString(_ s: String, to out: inout String) {
        var bytes = JSONBytes()
        bytes.append(string: s)
        out += bytes.string
    }
}

/// A growing buffer of UTF-8 bytes that JSON is written into: strings are copied whole
/// when they need no escape, numbers as their text, integers without going through `String`.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }

    /// The bytes as a `String` (they are UTF-8 by construction).
    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    /// Text as it is, no quotes, no escapes.
    mutating func append(raw text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A decimal integer.
    mutating func append(int value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var k = digits.count
            repeat {
                k -= 1
                digits[k] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[k...]))
        }
    }

    /// A JSON string: quoted, escaped where JSON needs it (and U+2028, U+2029, DEL, for
    /// JavaScript and terminals).
    mutating func append(string s: String) {
        var s = s
        s.withUTF8 { append(stringBytes: UnsafeRawBufferPointer($0)) }
    }

    mutating func append(stringBytes utf8: UnsafeRawBufferPointer) {
        bytes.append(UInt8(ascii: "\""))
        var plainStart = 0
        var i = 0
        let n = utf8.count
        while i < n {
            let c = utf8[i]
            // 0xE2 starts U+2028 and U+2029 (E2 80 A8, E2 80 A9) among others.
            guard c < 0x20 || c == 0x22 || c == 0x5C || c == 0x7F || c == 0xE2 else {
                i += 1
                continue
            }
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
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[plainStart..<i]))
            if let escape {
                append(escape)
            } else if let unicode {
                let hex: StaticString = "0123456789abcdef"
                append("\\u")
                hex.withUTF8Buffer { digits in
                    for shift in stride(from: 12, through: 0, by: -4) { bytes.append(digits[Int(unicode >> UInt32(shift) & 0xF)]) }
                }
            }
            i += width
            plainStart = i
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[plainStart..<n]))
        bytes.append(UInt8(ascii: "\""))
    }

    /// A value on one line, no spaces.
    mutating func append(value: Value) {
        switch value {
        case .null: append("null")
        case .bool(let b): b ? append("true") : append("false")
        case .number(let n):
            if n.isFinite { append(raw: n.text) } else { append(string: n.text) }
        case .string(let s): append(string: s)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                append(value: item)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                append(string: member.key)
                bytes.append(UInt8(ascii: ":"))
                append(value: member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A value indented with two spaces, starting at `level`.
    mutating func appendPretty(_ value: Value, level: Int) {
        switch value {
        case .array(let items) where !items.isEmpty:
            append("[\n")
            for (i, item) in items.enumerated() {
                indent(level + 1)
                appendPretty(item, level: level + 1)
                i + 1 < items.count ? append(",\n") : append("\n")
            }
            indent(level)
            append("]")
        case .object(let object) where !object.members.isEmpty:
            append("{\n")
            for (i, member) in object.members.enumerated() {
                indent(level + 1)
                append(string: member.key)
                append(": ")
                appendPretty(member.value, level: level + 1)
                i + 1 < object.members.count ? append(",\n") : append("\n")
            }
            indent(level)
            append("}")
        default:
            append(value: value)
        }
    }

    mutating func indent(_ level: Int) {
        for _ in 0..<level { append("  ") }
    }
}
