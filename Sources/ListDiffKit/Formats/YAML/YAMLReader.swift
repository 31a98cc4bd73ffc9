/// A YAML reader built on the system libyaml's event API.
///
/// - Scalars resolve by the YAML 1.2 core schema (or by YAML 1.1, or as Kubernetes reads
///   them: `version`): `null`/`~`/empty, `true`/`false` (three
///   spellings each), decimal, `0o` octal and `0x` hexadecimal integers (written back in
///   decimal; beyond 4096 digits, strings), floats, `.inf`, `.nan`; `yes`, `no`, `on` and `off` stay strings. Quoted
///   scalars are strings. `!!str`, `!!int`, `!!float`, `!!bool` and `!!null` are honoured;
///   other tags are kept as their plain content.
/// - Anchors and aliases are expanded, within a budget of `maxAliasExpansion` nodes and
///   `maxAliasBytes` bytes of text in all,
///   so a "billion laughs" document is refused instead of exhausting memory.
/// - Nesting deeper than `maxDepth` is refused while parsing, before any tree is built.
/// - Duplicate mapping keys are refused, with the place of both.
/// - Deliberate refusals: a mapping key that is a mapping or a sequence (records are
///   string-keyed), and an alias to an anchor not yet defined.
package struct YAMLReader: Sendable {
    /// How plain scalars resolve: YAML 1.2's core schema (the default), YAML 1.1's types,
    /// as older readers resolve them, or as Kubernetes reads them (`GoYAML`).
    package var version = YAMLVersion.v1_2
    package var maxDepth: Int
    var maxAliasExpansion: Int
    /// The most text (strings, numbers and member names, in bytes) aliases may add in all: a
    /// node budget alone lets a few aliases of a huge scalar expand without end.
    package var maxAliasBytes: Int

    package init(maxDepth: Int = NestingLimit.standard, maxAliasExpansion: Int = 1_000_000, maxAliasBytes: Int = 16 << 20) {
        self.maxAliasBytes = maxAliasBytes
        self.maxDepth = maxDepth
        self.maxAliasExpansion = maxAliasExpansion
    }

    /// Reads one YAML document, or a stream of several as a list of records.
    ///
    /// A stream of two or more documents (`---` between them, as in Kubernetes manifests)
    /// reads as a list with one element per document, empty (null) documents left out.
    /// With `asStream`, so does one document: a part of a stream that a spill reads alone.
    package func read(_ bytes: [UInt8], name: String, asStream: Bool = false) throws(ListDiffError) -> (Value, SourceText) {
        var walked = try walk(MappedFile(name: name, bytes: bytes))
        if walked.values.count > 1 || asStream, walked.deepest >= maxDepth {
            // The documents are records, each one level deep as in a list (as the engine
            // reads a stream): walked again so, to refuse the deepest in its place.
            walked = try walk(MappedFile(name: name, bytes: bytes), documentDepth: NestingLimit.topLevelRecord)
        }
        let (documents, offsets, starts) = (walked.values, walked.valueOffsets, walked.documentStarts)
        guard !documents.isEmpty else {
            throw ListDiffError(.shape, file: name, "no YAML document in the input")
        }
        if documents.count == 1, !asStream {
            return (documents[0], SourceText(name: name, bytes: bytes, valueOffsets: offsets, lineBreaks: .yaml))
        }
        var records: [Value] = []
        var kept = [0]  // the list itself: the start of the stream
        for (d, document) in documents.enumerated() where document != .null {
            records.append(document)
            kept.append(contentsOf: offsets[starts[d]..<(d + 1 < starts.count ? starts[d + 1] : offsets.count)])
        }
        return (.array(records), SourceText(name: name, bytes: bytes, valueOffsets: kept, isStream: true, lineBreaks: .yaml))
    }

    /// Reads every document of a YAML stream.
    package func documents(_ bytes: [UInt8]) throws(ListDiffError) -> [Value] {
        try walk(MappedFile(name: "<input>", bytes: bytes)).values
    }

    /// Every document of `file` read as a value by the one walk of YAML events (`YAMLScan`),
    /// with `anchors` defined before the first: the values are the walk's `values`, their
    /// hashes its table's, and the places of their nodes its `valueOffsets`.
    /// listdiff's own scanner reads it if it can (`YAMLScan.parsing`), libyaml otherwise.
    func walk(_ file: MappedFile, anchors: [String: Value] = [:], documentDepth: Int = 0, parsing: YAMLParsing = .auto)
        throws(ListDiffError) -> YAMLScanState
    {
        file.lineBreaks = .yaml
        if parsing == .auto {
            if let walked = try? walk(file, anchors: anchors, documentDepth: documentDepth, parsing: .own) { return walked }
            return try walk(file, anchors: anchors, documentDepth: documentDepth, parsing: .libyaml)
        }
        var scan = YAMLScan(
            file: file, key: .wholeRecord, keys: KeyTrie(.wholeRecord)!, options: LayoutOptions(), reader: self,
            keyHashing: KeyHashing(), progress: nil)
        scan.stream = true
        scan.documentDepth = documentDepth
        scan.buildsValues = true
        scan.parsing = parsing
        var state = YAMLScanState(scan: scan, shape: .list, probing: false)
        state.anchors = anchors.mapValues { YAMLAnchor(value: $0, nodes: $0.nodeCount) }
        try state.run()
        return state
    }
}

/// How a scalar resolves: the YAML 1.2 core schema and the tags listdiff honours.
extension YAMLScalar {
    /// The text a scalar value stands for when it is used as a mapping key through an alias.
    static func keyText(_ value: Value) -> String? {
        switch value {
        case .string(let s): return s
        case .number(let n): return n.text
        case .bool(let b): return b ? "true" : "false"
        case .null: return ""
        case .array, .object: return nil
        }
    }

    static let tagPrefix = "tag:yaml.org,2002:"

    static func resolve(_ text: String, tag: String?, plain isPlain: Bool, at here: SourceLocation, version: YAMLVersion)
        throws(ListDiffError) -> Value
    {
        /// A plain scalar's value in `version`.
        func plain(_ text: String) -> Value {
            switch version {
            case .v1_2: return coreSchema(text)
            case .v1_1: return yaml11(text)
            case .kubernetes: return kubernetes(text)
            }
        }
        guard let tag else {
            return isPlain ? plain(text) : .string(text)
        }
        // The non-specific tag `!` makes a scalar a string (YAML 1.2 §6.9.1).
        if tag == "!" { return .string(text) }
        func bad(_ kind: String) -> ListDiffError {
            ListDiffError(.syntax, location: here, "'\(text)' is not a valid \(kind)")
        }
        switch tag {
        case tagPrefix + "str": return .string(text)
        case tagPrefix + "null":
            guard case .null = plain(text) else { throw bad("null") }
            return .null
        case tagPrefix + "bool":
            guard case .bool = plain(text) else { throw bad("boolean") }
            return plain(text)
        case tagPrefix + "int", tagPrefix + "float":
            if version == .kubernetes {
                let float = tag == tagPrefix + "float"
                guard let number = kubernetesNumber(text, float: float) else { throw bad(float ? "number" : "integer") }
                return number
            }
            guard case .number = plain(text) else { throw bad("number") }
            return plain(text)
        default:
            return .string(text)
        }
    }

    /// YAML 1.2 core schema resolution of a plain scalar.
    static func coreSchema(_ text: String) -> Value {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
            return .number(Number(text: text))
        default:
            if let number = YAMLNumbers.jsonText(text) { return .number(Number(text: number)) }
            return .string(text)
        }
    }
}

extension YAMLScalar {
    /// YAML 1.1's resolution of a plain scalar (the types of yaml.org/type): booleans
    /// `y`, `yes`, `on`, `true` and `n`, `no`, `off`, `false` (each also capitalised or in
    /// capitals); integers in binary (`0b`), octal (a leading `0`), decimal and hexadecimal,
    /// with `_` between digits, and in base 60 (`1:30`); floats with a `.`, an exponent with
    /// its sign, or in base 60; `.inf`, `.nan`; and null.
    static func yaml11(_ text: String) -> Value {
        switch text {
        case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON": return .bool(true)
        case "n", "N", "no", "No", "NO", "off", "Off", "OFF": return .bool(false)
        default:
            if let number = YAMLNumbers.yaml11Text(text) { return .number(Number(text: number)) }
            // Null, true, false, .inf and .nan are spelt as in the core schema; its other
            // numbers (`1e3`, `0o14`) are strings in 1.1.
            let core = coreSchema(text)
            switch core {
            case .null, .bool: return core
            case .number(let n) where !n.isFinite: return core
            default: return .string(text)
            }
        }
    }

    /// Whether YAML 1.1 or Kubernetes may read a plain scalar otherwise than the core
    /// schema does: it starts with a digit, a sign, a dot or one of `yYnNoO`. (The rest read
    /// alike.)
    static func mayDifferFromCore(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let first = text.first else { return false }
        switch first {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "y"),
            UInt8(ascii: "Y"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "o"), UInt8(ascii: "O"):
            return true
        default:
            return false
        }
    }
}

/// Core-schema numbers, respelled as JSON numbers so that every value has a JSON form.
enum YAMLNumbers {
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// A core-schema number (`0o` octal, `0x` hexadecimal, or a decimal as
    /// `YAMLScalar.isDecimal` accepts it) as JSON number text, or nil.
    static func jsonText(_ text: String) -> String? {
        let b = Array(text.utf8)
        if b.count > 2, b[0] == UInt8(ascii: "0"), b[1] == UInt8(ascii: "o") {
            return convert(b[2...], radix: 8)
        }
        if b.count > 2, b[0] == UInt8(ascii: "0"), b[1] == UInt8(ascii: "x") {
            return convert(b[2...], radix: 16)
        }
        guard b.withUnsafeBytes(YAMLScalar.isDecimal) else { return nil }
        // A decimal: its sign (`-` kept, `+` dropped), whole part without leading zeros (at
        // least `0`), fraction (at least one digit) and exponent (`e`, its sign and digits).
        var rest = b[...]
        let sign = rest.first == UInt8(ascii: "-") ? "-" : ""
        if rest.first == UInt8(ascii: "-") || rest.first == UInt8(ascii: "+") { rest.removeFirst() }
        let e = rest.firstIndex { $0 | 0x20 == UInt8(ascii: "e") } ?? rest.endIndex
        let exponent = e < rest.endIndex ? "e" + String(decoding: rest[(e + 1)...], as: UTF8.self) : ""
        let dot = rest[..<e].firstIndex(of: UInt8(ascii: ".")) ?? e
        let integer = String(decoding: rest[..<dot].drop { $0 == UInt8(ascii: "0") }, as: UTF8.self)
        var out = sign + (integer.isEmpty ? "0" : integer)
        if dot < e {
            out += "." + (dot + 1 == e ? "0" : String(decoding: rest[(dot + 1)..<e], as: UTF8.self))
        }
        return out + exponent
    }

    /// A YAML 1.1 integer or float (see `YAMLScalar.yaml11`) as JSON number text, or nil.
    static func yaml11Text(_ text: String) -> String? {
        var b = Array(text.utf8)
        var sign = ""
        if let first = b.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            if first == UInt8(ascii: "-") { sign = "-" }
            b.removeFirst()
        }
        guard let first = b.first else { return nil }
        let underscore = UInt8(ascii: "_")
        /// Digits (by `isDigit`) and underscores, with at least one digit.
        func digits(_ s: ArraySlice<UInt8>, _ isDigit: (UInt8) -> Bool) -> Bool {
            !s.isEmpty && s.allSatisfy { isDigit($0) || $0 == underscore } && s.contains(where: isDigit)
        }
        func plainDigits(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> { ArraySlice(s.filter { $0 != underscore }) }
        func signed(_ n: String?) -> String? { n.map { sign == "-" && $0 != "0" ? "-" + $0 : $0 } }
        let isHex: (UInt8) -> Bool = { isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) }
        if b.count > 2, first == UInt8(ascii: "0"), b[1] == UInt8(ascii: "b") {
            guard digits(b[2...], { $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: "1") }) else { return nil }
            return signed(convert(plainDigits(b[2...]), radix: 2))
        }
        if b.count > 2, first == UInt8(ascii: "0"), b[1] == UInt8(ascii: "x") {
            guard digits(b[2...], isHex) else { return nil }
            return signed(convert(plainDigits(b[2...]), radix: 16))
        }
        if b.contains(UInt8(ascii: ":")) { return sexagesimal(b, sign: sign) }
        if b.count > 1, first == UInt8(ascii: "0"), digits(b[1...], { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }) {
            return signed(convert(plainDigits(b[1...]), radix: 8))
        }
        if first == UInt8(ascii: "0"), b.count == 1 { return "0" }
        if first != UInt8(ascii: "0"), isDigit(first), digits(b[...], isDigit) {
            return signed(String(decoding: plainDigits(b[...]), as: UTF8.self))
        }
        // A float: ([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?, digits on one side of the dot.
        guard let dot = b.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        var end = b.count
        if let e = b.firstIndex(where: { $0 | 0x20 == UInt8(ascii: "e") }) {
            guard e > dot, e + 2 < b.count + 1, e + 1 < b.count, b[e + 1] == UInt8(ascii: "-") || b[e + 1] == UInt8(ascii: "+"),
                digits(b[(e + 2)...], isDigit), !b[(e + 2)...].contains(underscore)
            else { return nil }
            end = e
        }
        let whole = b[..<dot], fraction = b[(dot + 1)..<end]
        guard whole.isEmpty || (isDigit(whole.first!) && digits(whole, isDigit)), fraction.isEmpty || digits(fraction, isDigit),
            !whole.isEmpty || !fraction.isEmpty
        else { return nil }
        return jsonText(
            sign + String(decoding: plainDigits(whole) + [UInt8(ascii: ".")] + plainDigits(fraction) + b[end...], as: UTF8.self))
    }

    /// A base 60 number: `[1-9][0-9_]*(:[0-5]?[0-9])+`, the last part with a fraction for a
    /// float (its first part may then start with 0). Nil past 18 digits of whole units.
    static func sexagesimal(_ b: [UInt8], sign: String) -> String? {
        var parts = b.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        var fraction: ArraySlice<UInt8>? = nil
        if let dot = parts[parts.count - 1].firstIndex(of: UInt8(ascii: ".")) {
            fraction = parts[parts.count - 1][(dot + 1)...]
            parts[parts.count - 1] = parts[parts.count - 1][..<dot]
        }
        let head = parts[0]
        guard let lead = head.first, isDigit(lead), lead != UInt8(ascii: "0") || fraction != nil,
            head.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: "_") }), head.filter(isDigit).count <= 18
        else { return nil }
        var total = Int(String(decoding: head.filter(isDigit), as: UTF8.self))!
        for part in parts.dropFirst() {
            guard (1...2).contains(part.count), part.allSatisfy(isDigit), let n = Int(String(decoding: part, as: UTF8.self)), n < 60
            else { return nil }
            let (shifted, overflow) = total.multipliedReportingOverflow(by: 60)
            guard !overflow else { return nil }
            let (sum, over) = shifted.addingReportingOverflow(n)
            guard !over else { return nil }
            total = sum
        }
        guard let fraction else { return (sign == "-" && total != 0 ? "-" : "") + String(total) }
        guard fraction.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: "_") }) else { return nil }
        let digits = String(decoding: fraction.filter(isDigit), as: UTF8.self)
        return jsonText(sign + String(total) + "." + digits)
    }

    /// The most significant digits an octal or hexadecimal integer may have to be read as a
    /// number; a longer one reads as a string. The conversion to decimal takes time that
    /// grows with the square of the length, so the length is bounded.
    static let maxRadixDigits = 4096

    /// An unsigned integer in base 8 or 16 as decimal text, or nil when it is not one or is
    /// longer than `maxRadixDigits`.
    static func convert(_ digits: ArraySlice<UInt8>, radix: Int) -> String? {
        var values: [UInt64] = []
        values.reserveCapacity(digits.count)
        for c in digits {
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            guard Int(d) < radix else { return nil }
            if values.isEmpty, d == 0 { continue }
            values.append(UInt64(d))
        }
        guard values.count <= maxRadixDigits else { return nil }
        // Little-endian limbs of nine decimal digits; the digits taken a chunk at a time, so
        // that limb × radix^chunk + carry stays within 64 bits.
        let base: UInt64 = 1_000_000_000
        let chunk = radix == 16 ? 8 : 10
        var limbs: [UInt64] = [0]
        var i = 0
        while i < values.count {
            let end = min(values.count, i + chunk)
            var multiplier: UInt64 = 1, carry: UInt64 = 0
            for k in i..<end {
                multiplier *= UInt64(radix)
                carry = carry * UInt64(radix) + values[k]
            }
            for k in limbs.indices {
                let v = limbs[k] * multiplier + carry
                limbs[k] = v % base
                carry = v / base
            }
            while carry > 0 {
                limbs.append(carry % base)
                carry /= base
            }
            i = end
        }
        var out = String(limbs.last!)
        for limb in limbs.dropLast().reversed() {
            let text = String(limb)
            out += String(repeating: "0", count: 9 - text.count) + text
        }
        return out
    }
}

extension Value {
    /// The bytes of text a value holds: strings, numbers as written, and member names (what
    /// an alias to it adds to a document).
    var textBytes: Int {
        switch self {
        case .string(let s): return s.utf8.count
        case .number(let n): return n.text.utf8.count
        case .array(let items): return items.reduce(0) { $0 + $1.textBytes }
        case .object(let object): return object.members.reduce(0) { $0 + $1.key.utf8.count + $1.value.textBytes }
        default: return 0
        }
    }
}
