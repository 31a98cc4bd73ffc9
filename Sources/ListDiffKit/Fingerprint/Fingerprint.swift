import Dispatch

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

    /// Two fingerprints, computed at once on two cores.
    public static func of(_ a: Value, _ b: Value) -> (String, String) {
        let results = UnsafeMutableBufferPointer<String>.allocate(capacity: 2)
        results.initialize(repeating: "")
        defer { results.deallocate() }
        let values = [a, b]
        nonisolated(unsafe) let out = results
        DispatchQueue.concurrentPerform(iterations: 2) { i in out[i] = of(values[i]) }
        return (results[0], results[1])
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
            decimal(n)
            byte(UInt8(ascii: ":"))
        }

        /// `n` in decimal, without going through a `String`.
        mutating func decimal(_ n: Int) {
            if n < 0 { byte(UInt8(ascii: "-")) }
            var m = n.magnitude
            var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                         UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var k = 0
            withUnsafeMutableBytes(of: &digits) { d in
                repeat {
                    d[k] = UInt8(ascii: "0") + UInt8(m % 10)
                    m /= 10
                    k += 1
                } while m > 0
                while k > 0 {
                    k -= 1
                    buffer.append(d[k])
                }
            }
        }

        /// A plain integer (`-?[1-9][0-9]*`), encoded as `canonical` would, without its allocations.
        mutating func integer(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { b -> Bool in
                var i = 0
                let negative = b.first == UInt8(ascii: "-")
                if negative { i = 1 }
                guard i < b.count, b[i] != UInt8(ascii: "0") else { return false }
                for j in i..<b.count where b[j] < UInt8(ascii: "0") || b[j] > UInt8(ascii: "9") { return false }
                var end = b.count
                while end > i + 1, b[end - 1] == UInt8(ascii: "0") { end -= 1 }
                if negative { buffer.append(UInt8(ascii: "-")) }
                buffer.append(contentsOf: b[i..<end])
                buffer.append(UInt8(ascii: "e"))
                decimal(b.count - i)
                return true
            }
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
                byte(UInt8(ascii: "d"))
                if integer(n.text) {
                    byte(UInt8(ascii: ";"))
                    break
                }
                let c = n.canonical
                switch c.kind {
                case .finite:
                    if c.negative { byte(UInt8(ascii: "-")) }
                    buffer.append(contentsOf: c.digits)
                    byte(UInt8(ascii: "e"))
                    decimal(c.exponent)
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
