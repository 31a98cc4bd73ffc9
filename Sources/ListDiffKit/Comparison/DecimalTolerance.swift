/// Exact decimal arithmetic for numeric tolerances: whether two numbers are within an
/// absolute or relative tolerance of each other, computed on their decimal digits, never
/// through `Double` (so `0.1 + 0.2` is `0.3`, and big integers lose nothing).
enum DecimalTolerance {
    /// A finite decimal: `0.d₁d₂…dₙ × 10^exponent`, digits 0 to 9 with no leading or
    /// trailing zero; zero has no digits.
    struct Decimal {
        var negative: Bool
        var digits: [UInt8]
        var exponent: Int

        init?(_ number: Number) {
            let canonical = number.canonical
            guard canonical.kind == .finite else { return nil }
            negative = canonical.negative
            digits = canonical.digits.map { $0 &- UInt8(ascii: "0") }
            exponent = canonical.exponent
        }

        init(negative: Bool, digits: [UInt8], exponent: Int) {
            self.negative = negative
            self.digits = digits
            self.exponent = exponent
        }

        /// The same value with leading and trailing zero digits dropped.
        static func canonical(negative: Bool, _ digits: [UInt8], exponent: Int) -> Decimal {
            guard let first = digits.firstIndex(where: { $0 != 0 }) else { return Decimal(negative: false, digits: [], exponent: 0) }
            let last = digits.lastIndex(where: { $0 != 0 })!
            return Decimal(negative: negative, digits: Array(digits[first...last]), exponent: exponent - first)
        }
    }

    /// The most digits one computation lines up. Numbers further apart in scale than this
    /// (`1e-90000` against `1e90000`) are compared exactly instead.
    static let longest = 100_000

    /// Whether `a` and `b` differ by at most `absolute`, or by at most `relative` times the
    /// larger of their magnitudes. Infinities and NaN are only ever equal to themselves.
    static func within(_ a: Number, _ b: Number, absolute: Number?, relative: Number?) -> Bool {
        if a == b { return true }
        guard let x = Decimal(a), let y = Decimal(b), let difference = magnitudeOfDifference(x, y) else { return false }
        if let absolute, let bound = Decimal(absolute), compareMagnitudes(difference, bound) <= 0 { return true }
        if let relative, let rate = Decimal(relative) {
            let larger = compareMagnitudes(x, y) >= 0 ? x : y
            if compareMagnitudes(difference, product(rate, larger)) <= 0 { return true }
        }
        return false
    }

    /// -1, 0 or 1 as |x| is less than, equal to or greater than |y|.
    static func compareMagnitudes(_ x: Decimal, _ y: Decimal) -> Int {
        if x.digits.isEmpty || y.digits.isEmpty { return x.digits.isEmpty ? (y.digits.isEmpty ? 0 : -1) : 1 }
        if x.exponent != y.exponent { return x.exponent < y.exponent ? -1 : 1 }
        for i in 0..<max(x.digits.count, y.digits.count) {
            let p = i < x.digits.count ? x.digits[i] : 0, q = i < y.digits.count ? y.digits[i] : 0
            if p != q { return p < q ? -1 : 1 }
        }
        return 0
    }

    /// |x − y|, or nil when the two are too far apart in scale to line up.
    static func magnitudeOfDifference(_ x: Decimal, _ y: Decimal) -> Decimal? {
        if x.digits.isEmpty { return Decimal(negative: false, digits: y.digits, exponent: y.exponent) }
        if y.digits.isEmpty { return Decimal(negative: false, digits: x.digits, exponent: x.exponent) }
        // Both as integers over the lowest place either uses, in one column layout.
        let high = max(x.exponent, y.exponent) + 1  // room for a carry
        let low = min(x.exponent - x.digits.count, y.exponent - y.digits.count)
        guard high - low <= longest else { return nil }
        func column(_ d: Decimal) -> [Int8] {
            var out = [Int8](repeating: 0, count: high - low)
            let start = high - d.exponent
            for (k, digit) in d.digits.enumerated() { out[start + k] = Int8(digit) }
            return out
        }
        var p = column(x), q = column(y)
        if x.negative != y.negative {
            // Opposite signs: the magnitudes add.
            var carry: Int8 = 0
            for k in stride(from: p.count - 1, through: 0, by: -1) {
                let s = p[k] + q[k] + carry
                p[k] = s % 10
                carry = s / 10
            }
        } else {
            if compareMagnitudes(x, y) < 0 { swap(&p, &q) }
            var borrow: Int8 = 0
            for k in stride(from: p.count - 1, through: 0, by: -1) {
                var s = p[k] - q[k] - borrow
                borrow = 0
                if s < 0 {
                    s += 10
                    borrow = 1
                }
                p[k] = s
            }
        }
        return Decimal.canonical(negative: false, p.map { UInt8($0) }, exponent: high)
    }

    /// |x × y|. Digits past the `longest / 50`th of either are dropped first (which can
    /// only make the product smaller, and so the tolerance stricter).
    static func product(_ x: Decimal, _ y: Decimal) -> Decimal {
        let cap = longest / 50
        let a = Array(x.digits.prefix(cap)), b = Array(y.digits.prefix(cap))
        guard !a.isEmpty, !b.isEmpty else { return Decimal(negative: false, digits: [], exponent: 0) }
        var out = [Int](repeating: 0, count: a.count + b.count)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            var carry = 0
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                let s = out[i + j + 1] + Int(a[i]) * Int(b[j]) + carry
                out[i + j + 1] = s % 10
                carry = s / 10
            }
            out[i] += carry
        }
        // 0.a × 10^ex × 0.b × 10^ey = 0.(a·b, over a.count + b.count places) × 10^(ex + ey).
        return Decimal.canonical(negative: false, out.map { UInt8($0) }, exponent: x.exponent + y.exponent)
    }
}
