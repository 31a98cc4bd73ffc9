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
        let (documents, offsets, starts) = try parse(bytes, name: name)
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
        try parse(bytes, name: "<input>").documents
    }

    /// The documents, the offsets of their nodes in preorder, and where each document's
    /// offsets start.
    private func parse(_ bytes: [UInt8], name: String) throws(ListDiffError) -> (documents: [Value], offsets: [Int], starts: [Int]) {
        var builder = YAMLTreeBuilder(reader: self, bytes: bytes)
        do {
            try builder.run()
        } catch {
            throw error.inFile(name)
        }
        return (builder.documents, builder.offsets, builder.documentStarts)
    }
}

/// Builds values from events with an explicit stack: no recursion, whatever the depth.
struct YAMLTreeBuilder {
    enum Frame {
        case sequence(items: [Value], anchor: String?, firstNode: Int)
        case mapping(
            members: [Object.Member], keys: [ScalarKey: SourceLocation], pendingKey: (String, SourceLocation)?,
            anchor: String?, firstNode: Int)
    }

    let reader: YAMLReader
    let bytes: [UInt8]
    let parser: LibYAMLParser
    var lineStarts: [Int] = [0]
    var stack: [Frame] = []
    var documents: [Value] = []
    var offsets: [Int] = []
    /// Where each document's offsets start in `offsets`.
    var documentStarts: [Int] = []
    var anchors: [String: (value: Value, nodes: Int)] = [:]
    var rules: YAMLRules

    init(reader: YAMLReader, bytes: [UInt8]) {
        self.reader = reader
        rules = YAMLRules(reader, file: nil)
        self.bytes = bytes
        self.parser = LibYAMLParser(bytes: bytes)
        // Lines as libyaml counts them: a line ends at LF, CR LF, or a CR on its own.
        for (i, b) in bytes.enumerated() where b == 0x0A || (b == 0x0D && (i + 1 == bytes.count || bytes[i + 1] != 0x0A)) {
            lineStarts.append(i + 1)
        }
    }

    /// Byte offset of a 0-based line and a column counted in characters.
    func offset(line: Int, column: Int) -> Int {
        guard line < lineStarts.count else { return bytes.count }
        var i = lineStarts[line]
        var remaining = column
        while remaining > 0, i < bytes.count {
            i += 1
            while i < bytes.count, bytes[i] & 0xC0 == 0x80 { i += 1 }
            remaining -= 1
        }
        return i
    }

    mutating func run() throws(ListDiffError) {
        while true {
            let (event, line, column) = try parser.next()
            let here = SourceLocation(line: line + 1, column: column + 1)
            switch event {
            case .documentStart:
                documentStarts.append(offsets.count)
            case .streamStart, .documentEnd:
                continue
            case .streamEnd:
                return
            case .alias(let name):
                try rules.alias(name, anchors[name], at: here)
                let anchored = anchors[name]!
                // Nesting through an alias counts against the same limit as nesting written out.
                try rules.nest(stack.count + anchored.value.containerDepth, at: here)
                let start = offset(line: line, column: column)
                offsets.append(contentsOf: repeatElement(start, count: anchored.nodes))
                try complete(anchored.value, at: here, keyText: Self.keyText(anchored.value))
            case let .scalar(text, anchor, tag, plain):
                offsets.append(offset(line: line, column: column))
                let value = try Self.resolve(text, tag: tag, plain: plain, at: here)
                if let anchor { anchors[anchor] = (value, 1) }
                try complete(value, at: here, keyText: text)
            case let .sequenceStart(anchor, _):
                try enter(at: here)
                offsets.append(offset(line: line, column: column))
                stack.append(.sequence(items: [], anchor: anchor, firstNode: offsets.count - 1))
            case let .mappingStart(anchor, _):
                try enter(at: here)
                offsets.append(offset(line: line, column: column))
                stack.append(.mapping(members: [], keys: [:], pendingKey: nil, anchor: anchor, firstNode: offsets.count - 1))
            case .sequenceEnd, .mappingEnd:
                let value: Value
                let anchor: String?
                let firstNode: Int
                switch stack.removeLast() {
                case let .sequence(items, a, first):
                    value = .array(items); anchor = a; firstNode = first
                case let .mapping(members, _, _, a, first):
                    value = .object(Object(members)); anchor = a; firstNode = first
                }
                if let anchor { anchors[anchor] = (value, offsets.count - firstNode) }
                try complete(value, at: here, keyText: nil)
            }
        }
    }

    mutating func enter(at here: SourceLocation) throws(ListDiffError) {
        try rules.nest(stack.count + 1, at: here)
    }

    /// Adds a finished node to its parent (or ends a document).
    mutating func complete(_ value: Value, at here: SourceLocation, keyText: String?) throws(ListDiffError) {
        guard let top = stack.popLast() else {
            documents.append(value)
            return
        }
        switch top {
        case .sequence(var items, let anchor, let first):
            items.append(value)
            stack.append(.sequence(items: items, anchor: anchor, firstNode: first))
        case .mapping(var members, var keys, let pendingKey, let anchor, let first):
            if let (key, _) = pendingKey {
                members.append(Object.Member(key: key, value: value))
                stack.append(.mapping(members: members, keys: keys, pendingKey: nil, anchor: anchor, firstNode: first))
            } else {
                guard let keyText else { throw rules.keyNotScalar(value.typeName, at: here) }
                // Keys are not values of the tree: drop the offset recorded for the key node.
                offsets.removeLast(value.nodeCount)
                if let earlier = keys.updateValue(here, forKey: ScalarKey(keyText)) {
                    throw rules.duplicateKey(keyText, first: earlier, at: here)
                }
                stack.append(.mapping(members: members, keys: keys, pendingKey: (keyText, here), anchor: anchor, firstNode: first))
            }
        }
    }

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
