/// Text quoted from an input, made safe to show to a person.
///
/// Files are written by anyone, and what listdiff prints reaches terminals, CI logs and
/// review pages. A member name holding ESC can retitle or clear a terminal; a newline can
/// forge a whole line of the patch; a right-to-left override can make text read other
/// than it is. So every character that could do that is spelled as an escape:
///
/// - C0 controls and DEL: `\n`, `\r`, `\t`, `\b`, `\f`, else `\u001b` (as JSON spells them);
/// - C1 controls (U+0080 to U+009F), such as U+009B, which some terminals take for ESC [;
/// - the line and paragraph separators U+2028 and U+2029;
/// - bidirectional controls: U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069;
/// - invisible characters that make two texts look alike: U+200B, U+2060 to U+2064 and
///   U+FEFF. (The joiners U+200C and U+200D stay: scripts and emoji need them.)
///
/// JSON text that passes through keeps its meaning: these escapes are JSON's own.
package enum SafeText {
    /// `text` with every character that could act on a terminal or mislead a reader escaped.
    package static func escape(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out += spelling(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `text` holds anything `escape` would change (a quick look at the bytes first).
    static func needsEscaping(_ text: String) -> Bool {
        var plain = true
        for byte in text.utf8 where byte < 0x20 || byte >= 0x7F {
            plain = false
            break
        }
        if plain { return false }
        return text.unicodeScalars.contains(where: isUnsafe)
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        case 0x200B, 0x2060...0x2064, 0xFEFF: return true
        default: return false
        }
    }

    static func spelling(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\u{08}": return "\\b"
        case "\u{0C}": return "\\f"
        default:
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }
}
