/// How many columns of a terminal text takes, so that columns of text line up.
///
/// A character (grapheme cluster) takes the width of its first scalar: 2 for East Asian
/// Wide and Fullwidth characters (CJK, Hangul, kana, fullwidth forms) and for emoji shown
/// as emoji (by default, or asked for with U+FE0F); 0 for a combining mark, a format
/// character or another that is invisible by default; else 1. The marks and joiners that
/// follow inside a cluster add nothing, so a flag or a family emoji is 2, as current
/// terminals draw them. Text is measured after `SafeText` escaped it: no control is left.
package enum DisplayWidth {
    /// The columns `text` takes.
    package static func of(_ text: some StringProtocol) -> Int {
        var ascii = true
        for byte in text.utf8 where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii { return text.utf8.count }
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// The longest start of `text` that takes at most `cells` columns.
    package static func prefix(_ text: String, cells: Int) -> Substring {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            used += of(text[index])
            if used > cells { break }
            end = text.index(after: index)
        }
        return text[..<end]
    }

    /// The columns one character takes: 0, 1 or 2.
    package static func of(_ character: Character) -> Int {
        if character.isASCII { return 1 }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if isWide(first) || first.properties.isEmojiPresentation { return 2 }
        if first.properties.isEmoji, scalars.contains("\u{FE0F}") { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return first.properties.isDefaultIgnorableCodePoint ? 0 : 1
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) scalars, by block (Unicode's EastAsianWidth.txt);
    /// emoji are told by their own property.
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F,  // Hangul Jamo initial consonants
            0x2329...0x232A,  // angle brackets
            0x2E80...0x303E,  // CJK radicals, Kangxi, CJK symbols and punctuation
            0x3041...0x33FF,  // kana, Bopomofo, Hangul compatibility Jamo, CJK compatibility
            0x3400...0x4DBF,  // CJK Extension A
            0x4E00...0x9FFF,  // CJK Unified Ideographs
            0xA000...0xA4CF,  // Yi
            0xA960...0xA97F,  // Hangul Jamo Extended-A
            0xAC00...0xD7A3,  // Hangul Syllables
            0xF900...0xFAFF,  // CJK Compatibility Ideographs
            0xFE10...0xFE19,  // vertical forms
            0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
            0xFF00...0xFF60,  // fullwidth forms
            0xFFE0...0xFFE6,  // fullwidth signs
            0x16FE0...0x16FE4, 0x17000...0x18CFF,  // Tangut
            0x1AFF0...0x1B2FF,  // kana supplements, Nüshu
            0x1F200...0x1F2FF,  // enclosed ideographic supplement
            0x20000...0x2FFFD, 0x30000...0x3FFFD:  // CJK Extensions B and on
            return true
        default:
            return false
        }
    }
}
