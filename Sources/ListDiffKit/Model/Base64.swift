/// Base64 (RFC 4648, with padding), for file content that is not UTF-8 text inside a
/// JSON document (a tree changeset's added or changed files).
package enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let a = iterator.next() {
            let b = iterator.next(), c = iterator.next()
            let n = UInt32(a) << 16 | UInt32(b ?? 0) << 8 | UInt32(c ?? 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(b == nil ? UInt8(ascii: "=") : alphabet[Int(n >> 6 & 63)])
            out.append(c == nil ? UInt8(ascii: "=") : alphabet[Int(n & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes, or nil when `text` is not base64 with padding.
    package static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8: UInt32] = [:]
        for (i, c) in alphabet.enumerated() { values[c] = UInt32(i) }
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        var i = 0
        while i < chars.count {
            let pad = (chars[i + 2] == UInt8(ascii: "=") ? 1 : 0) + (chars[i + 3] == UInt8(ascii: "=") ? 1 : 0)
            if pad > 0, i + 4 != chars.count { return nil }
            if pad == 1, chars[i + 2] == UInt8(ascii: "=") { return nil }
            var n: UInt32 = 0
            for k in 0..<4 {
                let c = chars[i + k]
                if k >= 4 - pad {
                    n <<= 6
                } else {
                    guard let v = values[c] else { return nil }
                    n = n << 6 | v
                }
            }
            out.append(UInt8(n >> 16 & 255))
            if pad < 2 { out.append(UInt8(n >> 8 & 255)) }
            if pad < 1 { out.append(UInt8(n & 255)) }
            i += 4
        }
        return out
    }
}
