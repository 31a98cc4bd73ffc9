/// `Value.Number` under its short name inside the package.
package typealias Number = Value.Number

extension Value {
    /// A number kept as the exact text it was written with.
    ///
    /// Two numbers are equal when their exact decimal values are equal: `1`, `1.0`, `10e-1`
    /// and `1e0` are one number; `-0` equals `0`; nothing is ever rounded through `Double`.
    /// YAML's `.inf`, `-.inf` and `.nan` are kept too (they have no JSON spelling).
    public struct Number: Sendable, CustomStringConvertible {
        /// The text as written (for YAML integers in octal or hexadecimal, the decimal spelling).
        public let text: String

        /// A number as written: the text must be a JSON number (or YAML's `.inf`, `-.inf`,
        /// `.nan`), which is not checked.
        public init(text: String) {
            self.text = text
        }

        /// An integer.
        public init(exactly value: Int) {
            self.text = String(value)
        }

        public var description: String { text }

        /// Whether the number is finite, so that it has a JSON spelling.
        /// (Finite numbers are kept in JSON spelling, which ends in a digit; `.inf` and `.nan` do not.)
        public var isFinite: Bool {
            guard let last = text.utf8.last else { return false }
            return last >= UInt8(ascii: "0") && last <= UInt8(ascii: "9")
        }

        /// The exact decimal value: sign, significant digits and exponent, so that
        /// `value = 0.d₁d₂…dₙ × 10^exponent` with no leading or trailing zero digit.
        struct Canonical: Hashable {
            enum Kind: UInt8 { case finite, positiveInfinity, negativeInfinity, nan }
            var kind: Kind
            var negative: Bool
            var digits: [UInt8]
            var exponent: Int
        }

        var canonical: Canonical {
            switch text {
            case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
                return Canonical(kind: .positiveInfinity, negative: false, digits: [], exponent: 0)
            case "-.inf", "-.Inf", "-.INF":
                return Canonical(kind: .negativeInfinity, negative: true, digits: [], exponent: 0)
            case ".nan", ".NaN", ".NAN":
                return Canonical(kind: .nan, negative: false, digits: [], exponent: 0)
            default:
                return Number.canonicalize(Array(text.utf8))
            }
        }

        /// Reads `[+-]? digits? (. digits?)? ([eE] [+-]? digits)?`. Input is trusted to be a
        /// number the readers accepted; anything else still yields some value, never a trap.
        static func canonicalize(_ bytes: [UInt8]) -> Canonical {
            var buffer = DigitBuffer()
            let (negative, exponent) = bytes.withUnsafeBytes { canonicalDigits($0, into: &buffer) }
            return Canonical(kind: .finite, negative: negative, digits: buffer.withBytes { Array($0) }, exponent: exponent)
        }

        /// The significant digits of a finite number's text (no leading or trailing zero) into
        /// `digits`, and its sign and exponent, so that `value = 0.digits × 10^exponent`; zero
        /// has no digits, exponent 0 and no sign. Allocates nothing for up to 32 digits.
        static func canonicalDigits(_ bytes: UnsafeRawBufferPointer, into digits: inout DigitBuffer) -> (negative: Bool, exponent: Int) {
            var i = 0
            var negative = false
            let n = bytes.count
            if i < n, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
                negative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var pointShift = 0  // digits seen before the decimal point
            var seenPoint = false
            while i < n {
                let b = bytes[i]
                if b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
                    if digits.count == 0, b == UInt8(ascii: "0") {
                        // A leading zero: it shifts the point only after the point.
                        if seenPoint { pointShift -= 1 }
                    } else {
                        digits.append(b)
                        if !seenPoint { pointShift += 1 }
                    }
                } else if b == UInt8(ascii: ".") {
                    seenPoint = true
                } else {
                    break
                }
                i += 1
            }
            var exponent = 0
            if i < n, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                var expNegative = false
                if i < n, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
                    expNegative = bytes[i] == UInt8(ascii: "-")
                    i += 1
                }
                while i < n, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                    // Saturate: the readers refuse exponents this large before they get here.
                    exponent = min(exponent &* 10 &+ Int(bytes[i] - UInt8(ascii: "0")), Int(Int32.max))
                    i += 1
                }
                if expNegative { exponent = -exponent }
            }
            digits.dropTrailingZeros()
            if digits.count == 0 { return (false, 0) }
            return (negative, exponent + pointShift)
        }

        /// Digits kept inline up to 32, on the heap beyond.
        struct DigitBuffer {
            private var inline: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            private var heap: [UInt8]?
            private(set) var count = 0

            @inline(__always)
            mutating func append(_ b: UInt8) {
                if heap == nil {
                    if count < 32 {
                        let k = count
                        withUnsafeMutableBytes(of: &inline) { $0[k] = b }
                        count += 1
                        return
                    }
                    heap = withUnsafeBytes(of: &inline) { Array($0) }
                }
                heap!.append(b)
                count += 1
            }

            mutating func dropTrailingZeros() {
                if heap != nil {
                    while let last = heap!.last, last == UInt8(ascii: "0") { heap!.removeLast() }
                    count = heap!.count
                    return
                }
                while count > 0, withUnsafeBytes(of: &inline, { $0[count - 1] }) == UInt8(ascii: "0") { count -= 1 }
            }

            mutating func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
                if let heap { return heap.withUnsafeBytes(body) }
                let n = count
                return withUnsafeBytes(of: &inline) { body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
        }
    }
}

extension Number: Hashable {
    public static func == (lhs: Value.Number, rhs: Value.Number) -> Bool {
        // `.nan` equals `.nan` here: a diff compares what was written, and a value must equal itself.
        if lhs.text.scalarEquals(rhs.text) { return true }
        if lhs.isFinite, rhs.isFinite { return sameValue(lhs.text, rhs.text) }
        return lhs.canonical == rhs.canonical
    }

    /// Whether two finite numbers' texts have one exact value (without allocating, for up
    /// to 32 significant digits).
    static func sameValue(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                var da = DigitBuffer(), db = DigitBuffer()
                let (negativeA, exponentA) = canonicalDigits(UnsafeRawBufferPointer(pa), into: &da)
                let (negativeB, exponentB) = canonicalDigits(UnsafeRawBufferPointer(pb), into: &db)
                guard negativeA == negativeB, exponentA == exponentB, da.count == db.count else { return false }
                return da.withBytes { x in db.withBytes { y in x.elementsEqual(y) } }
            }
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonical)
    }
}
