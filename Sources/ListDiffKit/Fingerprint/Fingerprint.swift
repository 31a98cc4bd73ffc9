/// A document's fingerprint: `sha256:` and the hex SHA-256 of the value's canonical encoding.
///
/// The encoding is injective and follows `Value`'s equality, so that two values have the
/// same fingerprint exactly when they are equal (short of a SHA-256 collision):
/// object members sorted by key bytes (duplicates in file order), numbers by exact decimal
/// value (`1.0` is `1`), strings by UTF-8 bytes, every string and container length-prefixed.
public enum Fingerprint {
    public static func of(_ value: Value) -> String {
        var encoder = Encoder()
        encoder.encode(value)
        return "sha256:" + SHA256.hex(encoder.finish())
    }

    struct Encoder {
        var hasher = SHA256()
        var buffer: [UInt8] = []

        init() { buffer.reserveCapacity(1 << 16) }

        mutating func byte(_ b: UInt8) {
            buffer.append(b)
            if buffer.count >= 1 << 16 { drain() }
        }

        mutating func text(_ s: String) {
            var s = s
            s.withUTF8 { buffer.append(contentsOf: $0) }
            if buffer.count >= 1 << 16 { drain() }
        }

        mutating func count(_ n: Int) {
            text(String(n))
            byte(UInt8(ascii: ":"))
        }

        mutating func drain() {
            buffer.withUnsafeBytes { hasher.update($0) }
            buffer.removeAll(keepingCapacity: true)
        }

        mutating func finish() -> [UInt8] {
            drain()
            return hasher.finalize()
        }

        mutating func encode(_ value: Value) {
            switch value {
            case .null: byte(UInt8(ascii: "n"))
            case .bool(let b): byte(b ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            case .number(let n):
                let c = n.canonical
                byte(UInt8(ascii: "d"))
                switch c.kind {
                case .finite:
                    if c.negative { byte(UInt8(ascii: "-")) }
                    buffer.append(contentsOf: c.digits)
                    byte(UInt8(ascii: "e"))
                    text(String(c.exponent))
                case .positiveInfinity: text("+inf")
                case .negativeInfinity: text("-inf")
                case .nan: text("nan")
                }
                byte(UInt8(ascii: ";"))
            case .string(let s):
                byte(UInt8(ascii: "s"))
                string(s)
            case .array(let items):
                byte(UInt8(ascii: "a"))
                count(items.count)
                for item in items { encode(item) }
            case .object(let object):
                byte(UInt8(ascii: "o"))
                count(object.members.count)
                for member in object.sortedMembers() {
                    string(member.key)
                    encode(member.value)
                }
            }
        }

        mutating func string(_ s: String) {
            count(s.utf8.count)
            text(s)
        }
    }
}
