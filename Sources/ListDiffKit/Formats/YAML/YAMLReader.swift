/// A YAML reader built on the system libyaml's event API.
///
/// - Scalars resolve by the YAML 1.2 core schema: `null`/`~`/empty, `true`/`false` (three
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
    package var maxDepth: Int
    var maxAliasExpansion: Int
    /// The most text (strings, numbers and member names, in bytes) aliases may add in all: a
    /// node budget alone lets a few aliases of a huge scalar expand without end.
    package var maxAliasBytes: Int

    package init(maxDepth: Int = 1000, maxAliasExpansion: Int = 1_000_000, maxAliasBytes: Int = 16 << 20) {
        self.maxAliasBytes = maxAliasBytes
        self.maxDepth = maxDepth
        self.maxAliasExpansion = maxAliasExpansion
    }

    /// Reads one YAML document, or a stream of several as a list of records.
    ///
    /// A stream of two or more documents (`---` between them, as in Kubernetes manifests)
    /// reads as a list with one element per document, empty (null) documents left out.
    package func read(_ bytes: [UInt8], name: String) throws(ListDiffError) -> (Value, SourceText) {
        let walked = try walk(MappedFile(name: name, bytes: bytes))
        let (documents, offsets, starts) = (walked.values, walked.valueOffsets, walked.documentStarts)
        guard !documents.isEmpty else {
            throw ListDiffError(.shape, file: name, "no YAML document in the input")
        }
        if documents.count == 1 { return (documents[0], SourceText(name: name, bytes: bytes, valueOffsets: offsets)) }
        var records: [Value] = []
        var kept = [0]  // the list itself: the start of the stream
        for (d, document) in documents.enumerated() where document != .null {
            records.append(document)
            kept.append(contentsOf: offsets[starts[d]..<(d + 1 < starts.count ? starts[d + 1] : offsets.count)])
        }
        return (.array(records), SourceText(name: name, bytes: bytes, valueOffsets: kept, isStream: true))
    }

    /// Reads every document of a YAML stream.
    package func documents(_ bytes: [UInt8]) throws(ListDiffError) -> [Value] {
        try walk(MappedFile(name: "<input>", bytes: bytes)).values
    }

    /// Every document of `file` read as a value by the one walk of YAML events (`YAMLScan`),
    /// with `anchors` defined before the first: the values are the walk's `values`, their
    /// hashes its table's, and the places of their nodes its `valueOffsets`.
    func walk(_ file: MappedFile, anchors: [String: Value] = [:]) throws(ListDiffError) -> YAMLScanState {
        var scan = YAMLScan(
            file: file, key: .wholeRecord, keys: KeyTrie(.wholeRecord)!, options: LayoutOptions(), reader: self,
            keyHashing: KeyHashing(), progress: nil)
        scan.stream = true
        scan.buildsValues = true
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

    static func resolve(_ text: String, tag: String?, plain: Bool, at here: SourceLocation) throws(ListDiffError) -> Value {
        guard let tag else {
            return plain ? coreSchema(text) : .string(text)
        }
        // The non-specific tag `!` makes a scalar a string (YAML 1.2 §6.9.1).
        if tag == "!" { return .string(text) }
        func bad(_ kind: String) -> ListDiffError {
            ListDiffError(.syntax, location: here, "'\(text)' is not a valid \(kind)")
        }
        switch tag {
        case tagPrefix + "str": return .string(text)
        case tagPrefix + "null":
            guard case .null = coreSchema(text) else { throw bad("null") }
            return .null
        case tagPrefix + "bool":
            guard case .bool = coreSchema(text) else { throw bad("boolean") }
            return coreSchema(text)
        case tagPrefix + "int", tagPrefix + "float":
            guard case .number = coreSchema(text) else { throw bad("number") }
            return coreSchema(text)
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

/// Core-schema numbers, respelled as JSON numbers so that every value has a JSON form.
enum YAMLNumbers {
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    static func jsonText(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard !b.isEmpty else { return nil }
        if b.count > 2, b[0] == UInt8(ascii: "0"), b[1] == UInt8(ascii: "o") {
            return convert(b[2...], radix: 8)
        }
        if b.count > 2, b[0] == UInt8(ascii: "0"), b[1] == UInt8(ascii: "x") {
            return convert(b[2...], radix: 16)
        }
        // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
        var i = 0
        var sign = ""
        if b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            if b[i] == UInt8(ascii: "-") { sign = "-" }
            i += 1
        }
        var intPart: [UInt8] = []
        while i < b.count, isDigit(b[i]) { intPart.append(b[i]); i += 1 }
        var fraction: [UInt8]? = nil
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var f: [UInt8] = []
            while i < b.count, isDigit(b[i]) { f.append(b[i]); i += 1 }
            fraction = f
        }
        if intPart.isEmpty && (fraction ?? []).isEmpty { return nil }
        var exponent = ""
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            var e = "e"
            if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
                e.append(Character(Unicode.Scalar(b[i])))
                i += 1
            }
            var digits: [UInt8] = []
            while i < b.count, isDigit(b[i]) { digits.append(b[i]); i += 1 }
            guard !digits.isEmpty else { return nil }
            // Same range as the JSON reader: at most 9 significant exponent digits.
            let significant = digits.drop { $0 == UInt8(ascii: "0") }
            guard significant.count <= 9 else { return nil }
            exponent = e + String(decoding: digits, as: UTF8.self)
        }
        guard i == b.count else { return nil }
        var integer = String(decoding: intPart.drop { $0 == UInt8(ascii: "0") }, as: UTF8.self)
        if integer.isEmpty { integer = "0" }
        var out = sign + integer
        if let fraction {
            out += "." + (fraction.isEmpty ? "0" : String(decoding: fraction, as: UTF8.self))
        }
        return out + exponent
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
