/// YAML as Kubernetes reads it (`--yaml-version kubernetes`). Kubernetes reads a manifest
/// with sigs.k8s.io/yaml, which decodes it with go-yaml v2 (gopkg.in/yaml.v2 2.4.0;
/// `resolve` in its resolve.go) and writes what that gives as JSON (`YAMLToJSON`). So a
/// plain scalar is what go-yaml v2 resolves it to, written as Go's JSON writer writes it:
///
/// - Its first byte picks the way. One of `yYnNtTfFoO~` looks it up in a fixed list: `y`,
///   `yes`, `on`, `true` and `n`, `no`, `off`, `false` (each also capitalised or in
///   capitals) are booleans, `~` and `null` (`Null`, `NULL`) null. A dot may start a float
///   (`.5`), `.inf` or `.nan`. A sign or digit may start an integer or a float. Anything
///   else is a string, and so is all that fits none of these.
/// - An integer is what Go's `strconv.ParseInt(s, 0, 64)` reads once every `_` is dropped:
///   decimal, `0x`, `0o`, `0b` (in either case) and octal with a leading `0`, signed or not;
///   then `ParseUint` up to 2^64 - 1 without a sign. Larger ones are not integers.
/// - A float matches `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` (`1e3`, `1.`,
///   `08`, an integer too large for 64 bits) and is the nearest float64; one that
///   overflows it (`1e400`) is a string.
/// - No base 60 (`1:30` is a string) and no timestamps (`2001-12-14` stays the string it is).
///
/// Mapping keys resolve the same way, and sigs.k8s.io/yaml turns a key that is not a
/// string into one: `true`, `false`, an integer in decimal, a float as Go's
/// `FormatFloat(f, 'g', -1, 32)` writes it. It refuses null keys and keys beyond int64;
/// a plain `<<` merges a mapping, which listdiff does not do, so it refuses it too.
enum GoYAML {
    /// A plain scalar as go-yaml v2 resolves it.
    enum Scalar: Equatable {
        case null
        case bool(Bool)
        /// An integer that fits int64, as decimal text.
        case int(String)
        /// An integer beyond int64 that fits uint64 (written without a sign), as decimal text.
        case uint(String)
        case float(Double)
        case string
    }

    /// The fixed spellings (go-yaml v2's `resolveMap`).
    static let literals: [([UInt8], Scalar)] = {
        var list: [(String, Scalar)] = []
        for s in ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"] { list.append((s, .bool(true))) }
        for s in ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"] { list.append((s, .bool(false))) }
        for s in ["~", "null", "Null", "NULL"] { list.append((s, .null)) }
        for s in [".nan", ".NaN", ".NAN"] { list.append((s, .float(.nan))) }
        for s in [".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"] { list.append((s, .float(.infinity))) }
        for s in ["-.inf", "-.Inf", "-.INF"] { list.append((s, .float(-.infinity))) }
        return list.map { (Array($0.0.utf8), $0.1) }
    }()

    static func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    /// Whether go-yaml v2 may read a plain scalar as something other than a string: it is
    /// empty, or starts with a sign, a digit, a dot or one of `yYnNtTfFoO~`.
    static func mayResolve(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let first = text.first else { return true }
        switch first {
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "y"),
            UInt8(ascii: "Y"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "t"), UInt8(ascii: "T"), UInt8(ascii: "f"),
            UInt8(ascii: "F"), UInt8(ascii: "o"), UInt8(ascii: "O"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A plain scalar's resolution.
    static func resolve(_ text: UnsafeRawBufferPointer) -> Scalar {
        guard mayResolve(text) else { return .string }
        if text.isEmpty { return .null }
        if text.count <= 6 {
            for (spelling, scalar) in literals where text.elementsEqual(spelling) { return scalar }
        }
        let first = text[0]
        if first == UInt8(ascii: ".") {
            // Go's ParseFloat on the text as it is: `_` only between digits.
            guard let plain = dotFloat(text), let d = double(plain) else { return .string }
            return .float(d)
        }
        guard first == UInt8(ascii: "+") || first == UInt8(ascii: "-") || isDigit(first) else { return .string }
        let plain = text.filter { $0 != UInt8(ascii: "_") }
        if let integer = integer(plain) { return integer }
        if isFloat(plain), let d = double(plain) { return .float(d) }
        return .string
    }

    /// `strconv.ParseInt(s, 0, 64)`, then `ParseUint` for one without a sign: nil when
    /// neither reads it (not an integer, or beyond 64 bits).
    static func integer(_ s: [UInt8]) -> Scalar? {
        var i = 0
        let signed = s.first == UInt8(ascii: "+") || s.first == UInt8(ascii: "-")
        let negative = s.first == UInt8(ascii: "-")
        if signed { i = 1 }
        guard i < s.count else { return nil }
        var radix: UInt64 = 10
        if s[i] == UInt8(ascii: "0") {
            // `0b`, `0o`, `0x` need a digit after them; else a leading 0 is octal.
            switch s.count - i >= 3 ? s[i + 1] | 0x20 : 0 {
            case UInt8(ascii: "b"): radix = 2; i += 2
            case UInt8(ascii: "o"): radix = 8; i += 2
            case UInt8(ascii: "x"): radix = 16; i += 2
            default: radix = 8; i += 1
            }
        }
        var n: UInt64 = 0
        while i < s.count {
            let c = s[i] | 0x20
            let d: UInt64
            if isDigit(s[i]) {
                d = UInt64(s[i] - UInt8(ascii: "0"))
            } else if c >= UInt8(ascii: "a"), c <= UInt8(ascii: "z") {
                d = UInt64(c - UInt8(ascii: "a")) + 10
            } else {
                return nil
            }
            guard d < radix else { return nil }
            let (shifted, over) = n.multipliedReportingOverflow(by: radix)
            let (sum, carry) = shifted.addingReportingOverflow(d)
            guard !over, !carry else { return nil }
            n = sum
            i += 1
        }
        if negative {
            guard n <= UInt64(1) << 63 else { return nil }
            return .int(n == 0 ? "0" : "-" + String(n))
        }
        if n <= UInt64(Int64.max) { return .int(String(n)) }
        // ParseUint takes no sign.
        return signed ? nil : .uint(String(n))
    }

    /// go-yaml v2's `yamlStyleFloat`: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
    static func isFloat(_ b: [UInt8]) -> Bool {
        var i = 0
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") { i += 1 }
        var whole = 0, fraction = 0
        while i < b.count, isDigit(b[i]) { i += 1; whole += 1 }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, isDigit(b[i]) { i += 1; fraction += 1 }
            if whole == 0, fraction == 0 { return false }
        } else if whole == 0 {
            return false
        }
        if i < b.count, b[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") { i += 1 }
            var digits = 0
            while i < b.count, isDigit(b[i]) { i += 1; digits += 1 }
            if digits == 0 { return false }
        }
        return i == b.count
    }

    /// A float that starts with a dot, as Go's `ParseFloat` reads it: `\.[0-9]+` and an
    /// optional exponent, each `_` between two digits. The text without its `_`, or nil.
    static func dotFloat(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        let b = Array(text)
        for (k, c) in b.enumerated() where c == UInt8(ascii: "_") {
            guard k > 0, k + 1 < b.count, isDigit(b[k - 1]), isDigit(b[k + 1]) else { return nil }
        }
        let plain = b.filter { $0 != UInt8(ascii: "_") }
        return isFloat(plain) ? plain : nil
    }

    /// The nearest float64 to a decimal `isFloat` accepts; nil when it overflows (Go's
    /// `ParseFloat` gives a range error, and go-yaml a string). One too small is zero.
    static func double(_ decimal: [UInt8]) -> Double? {
        guard let d = Double(String(decoding: decimal, as: UTF8.self)), d.isFinite else { return nil }
        return d
    }

    // MARK: - Writing numbers as Go does

    /// The shortest digits that read back as the number `description` spells (Swift writes
    /// the shortest, as Go does): value = 0.digits × 10^point.
    static func shortest(_ description: String) -> (digits: [UInt8], point: Int) {
        var digits = Number.DigitBuffer()
        let (_, point) = Array(description.utf8).withUnsafeBytes { Number.canonicalDigits($0, into: &digits) }
        return (digits.withBytes { Array($0) }, point)
    }

    /// Digits with the point at `point`, without an exponent (Go's `%f` of the shortest digits).
    static func fixed(_ digits: [UInt8], point: Int) -> String {
        let text = String(decoding: digits, as: UTF8.self)
        if point <= 0 { return "0." + String(repeating: "0", count: -point) + text }
        if point >= digits.count { return text + String(repeating: "0", count: point - digits.count) }
        let split = text.utf8.index(text.startIndex, offsetBy: point)
        return String(text[..<split]) + "." + String(text[split...])
    }

    /// `d.ddde±x` (Go's `%e` of the shortest digits), the exponent padded to `width` digits.
    static func exponential(_ digits: [UInt8], point: Int, width: Int) -> String {
        var out = String(decoding: digits.prefix(1), as: UTF8.self)
        if digits.count > 1 { out += "." + String(decoding: digits.dropFirst(), as: UTF8.self) }
        let exponent = point - 1
        let magnitude = String(abs(exponent))
        return out + (exponent < 0 ? "e-" : "e+") + String(repeating: "0", count: max(0, width - magnitude.count)) + magnitude
    }

    /// A float64 as Go's `encoding/json` writes it: the shortest digits, with an exponent
    /// below 1e-6 and from 1e21 up (`1e-7`, `1e+21`), else without (`0.001`,
    /// `100000000000000000000`). `.inf`, `-.inf` and `.nan`, which it cannot write, keep
    /// listdiff's spellings.
    static func json(_ d: Double) -> String {
        if d.isNaN { return ".nan" }
        if d.isInfinite { return d < 0 ? "-.inf" : ".inf" }
        let sign = d.sign == .minus ? "-" : ""
        if d == 0 { return sign + "0" }
        let (digits, point) = shortest(d.description)
        if abs(d) < 1e-6 || abs(d) >= 1e21 { return sign + exponential(digits, point: point, width: 1) }
        return sign + fixed(digits, point: point)
    }

    /// A float as a mapping key's name: sigs.k8s.io/yaml's `FormatFloat(f, 'g', -1, 32)`,
    /// the shortest digits of the nearest float32, with an exponent of at least two digits
    /// when it is below -4 or from 6 up (`1e+06`, `0.0001`, `3.1415927`); `.inf`, `-.inf`,
    /// `.nan` for the rest.
    static func keyName(_ d: Double) -> String {
        let f = Float(d)
        if f.isNaN { return ".nan" }
        if f.isInfinite { return f < 0 ? "-.inf" : ".inf" }
        let sign = f.sign == .minus ? "-" : ""
        if f == 0 { return sign + "0" }
        let (digits, point) = shortest(f.description)
        if point - 1 < -4 || point - 1 >= 6 { return sign + exponential(digits, point: point, width: 2) }
        return sign + fixed(digits, point: point)
    }
}

extension YAMLScalar {
    /// A plain scalar as Kubernetes reads it (`GoYAML`).
    static func kubernetes(_ text: String) -> Value {
        var text = text
        let scalar = text.withUTF8 { GoYAML.resolve(UnsafeRawBufferPointer($0)) }
        switch scalar {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let n), .uint(let n): return .number(Number(text: n))
        case .float(let d): return .number(Number(text: GoYAML.json(d)))
        case .string: return .string(text)
        }
    }

    /// A number tagged `!!int` or `!!float`, as go-yaml v2 reads it: `!!int` takes an
    /// integer only, `!!float` an integer (made a float64) or a float. Nil when the text is not one.
    static func kubernetesNumber(_ text: String, float: Bool) -> Value? {
        var text = text
        switch text.withUTF8({ GoYAML.resolve(UnsafeRawBufferPointer($0)) }) {
        case .int(let n):
            return .number(Number(text: float ? GoYAML.json(Double(n)!) : n))
        case .uint(let n):
            // (go-yaml v2 makes a float of an int64 only.)
            return float ? nil : .number(Number(text: n))
        case .float(let d):
            return float ? .number(Number(text: GoYAML.json(d))) : nil
        default:
            return nil
        }
    }

    /// Why Kubernetes cannot read a mapping key, or the name it reads a plain key as when it
    /// is not the key's text (nil: the text).
    enum KubernetesKey {
        case name(String)
        case refused(String)
    }

    /// A plain mapping key as sigs.k8s.io/yaml names it: resolved as a value is, then a
    /// boolean is `true` or `false`, an integer its decimal text, a float `GoYAML.keyName`.
    /// Nil when the name is the text.
    static func kubernetesKey(_ text: UnsafeRawBufferPointer) -> KubernetesKey? {
        if text.elementsEqual("<<".utf8) {
            return .refused(
                "a merge key (<<) is not supported: Kubernetes merges the mapping it names into this one, which listdiff does not do; write its members out"
            )
        }
        let name: String
        switch GoYAML.resolve(text) {
        case .string: return nil
        case .null: return .refused("a mapping key that is null is not supported: Kubernetes reads no null key")
        case .uint:
            return .refused(
                "the mapping key '\(String(decoding: text, as: UTF8.self))' is an integer beyond 64-bit signed range, which Kubernetes reads as no key"
            )
        case .bool(let b): name = b ? "true" : "false"
        case .int(let n): name = n
        case .float(let d): name = GoYAML.keyName(d)
        }
        return name.utf8.elementsEqual(text) ? nil : .name(name)
    }
}
