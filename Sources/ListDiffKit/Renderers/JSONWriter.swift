/// Writes values as JSON: numbers with their exact text, object members in their order.
///
/// Non-finite YAML numbers (`.inf`, `-.inf`, `.nan`) have no JSON spelling; they are
/// written as the strings `".inf"`, `"-.inf"` and `".nan"`.
public enum JSONWriter {
    /// One line, no spaces.
    public static func compact(_ value: Value) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    public static func write(_ value: Value, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n):
            if n.isFinite { out += n.text } else { writeString(n.text, to: &out) }
        case .string(let s): writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { out += "," }
                writeString(member.key, to: &out)
                out += ":"
                write(member.value, to: &out)
            }
            out += "}"
        }
    }

    /// Indented with two spaces, starting at `level`.
    public static func writePretty(_ value: Value, to out: inout String, level: Int = 0) {
        switch value {
        case .array(let items) where !items.isEmpty:
            out += "[\n"
            for (i, item) in items.enumerated() {
                indent(level + 1, &out)
                writePretty(item, to: &out, level: level + 1)
                out += i + 1 < items.count ? ",\n" : "\n"
            }
            indent(level, &out)
            out += "]"
        case .object(let object) where !object.members.isEmpty:
            out += "{\n"
            for (i, member) in object.members.enumerated() {
                indent(level + 1, &out)
                writeString(member.key, to: &out)
                out += ": "
                writePretty(member.value, to: &out, level: level + 1)
                out += i + 1 < object.members.count ? ",\n" : "\n"
            }
            indent(level, &out)
            out += "}"
        default:
            write(value, to: &out)
        }
    }

    static func indent(_ level: Int, _ out: inout String) {
        for _ in 0..<level { out += "  " }
    }

    public static func writeString(_ s: String, to out: inout String) {
        // Most strings need no escape: one pass over their bytes says so, and they go out whole.
        var bytes = s
        let plain = bytes.withUTF8 { utf8 in
            !utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xE2 }  // 0xE2: U+2028, U+2029
        }
        if plain {
            out += "\""
            out += s
            out += "\""
            return
        }
        out += "\""
        var plainStart = s.unicodeScalars.startIndex
        var i = plainStart
        let scalars = s.unicodeScalars
        while i < scalars.endIndex {
            let c = scalars[i]
            let escape: String?
            switch c {
            case "\"": escape = "\\\""
            case "\\": escape = "\\\\"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            case "\u{08}": escape = "\\b"
            case "\u{0C}": escape = "\\f"
            default:
                if c.value < 0x20 || c.value == 0x7F || c == "\u{2028}" || c == "\u{2029}" {
                    escape = "\\u" + String(c.value, radix: 16, uppercase: false).leftPadded(to: 4)
                } else {
                    escape = nil
                }
            }
            if let escape {
                // (Appending through `out.unicodeScalars` copies all of `out` each time.)
                out += Substring(scalars[plainStart..<i])
                out += escape
                i = scalars.index(after: i)
                plainStart = i
            } else {
                i = scalars.index(after: i)
            }
        }
        out += Substring(scalars[plainStart..<scalars.endIndex])
        out += "\""
    }
}
