/// A path to a field inside a record: `id`, `user.id` (dotted) or `/user/id` (RFC 6901 JSON Pointer).
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The path's steps: object member names, or array indexes written as decimal digits.
    public let components: [String]
    /// The path as the user wrote it.
    public let spelling: String

    /// Names preferred for a key after `id`, in this order (compared without case).
    static let keyNames = ["key", "uuid", "guid", "code", "sku", "ean", "isbn", "slug", "name"]

    /// How good a member name is for a key, best first: `id`, then the names in
    /// `keyNames`, then names ending in `id`, `key` or `code` (all three conventional), then
    /// any other name (nil when `conventionalOnly`).
    static func keyRank(_ name: String, conventionalOnly: Bool) -> Int? {
        let lower = name.lowercased()
        if name == "id" { return 0 }
        if let k = keyNames.firstIndex(of: lower) { return 1 + k }
        if lower.hasSuffix("id") || lower.hasSuffix("key") || lower.hasSuffix("code") { return 1 + keyNames.count }
        return conventionalOnly ? nil : 2 + keyNames.count
    }

    /// Whether `name` (lowercased) is `id` or one of `keyNames`.
    static func isKeyName(_ name: String) -> Bool { name == "id" || keyNames.contains(name) }

    /// The scalar members of `record` that could key it, best first, spelled as `--key`
    /// takes them; with `conventionalOnly`, only those with a conventional key name.
    /// With `nested`, the scalar members of its object members too (`metadata.name`), each
    /// after the record's own members of the same rank.
    package static func keyCandidates(of record: Value, conventionalOnly: Bool, nested: Bool = false) -> [String] {
        guard case .object(let object) = record else { return [] }
        var names: [(rank: Int, depth: Int, offset: Int, path: [String])] = []
        var seen = Set<[String]>()
        func add(_ members: [Value.Object.Member], under parent: [String], offset base: Int) {
            for (offset, member) in members.enumerated() where member.value.isScalar {
                let path = parent + [member.key]
                guard seen.insert(path).inserted else { continue }
                if let rank = keyRank(member.key, conventionalOnly: conventionalOnly) {
                    names.append((rank, parent.count, base + offset, path))
                }
            }
        }
        add(object.members, under: [], offset: 0)
        if nested {
            for (offset, member) in object.members.enumerated() {
                if case .object(let inner) = member.value { add(inner.members, under: [member.key], offset: (offset + 1) << 16) }
            }
        }
        return names.sorted { ($0.rank, $0.depth, $0.offset) < ($1.rank, $1.depth, $1.offset) }.map { spelling(ofPath: $0.path) }
    }

    /// A path of member names as `--key` reads it: dotted, or a JSON Pointer when a name
    /// holds a dot, starts with a slash, is empty, or is `auto`.
    static func spelling(ofPath names: [String]) -> String {
        guard names.count > 1 else { return spelling(ofMember: names[0]) }
        if names.contains(where: { $0.contains(".") || $0.hasPrefix("/") || $0.isEmpty }) {
            return names.map { "/" + FieldPath.escape($0) }.joined()
        }
        return names.joined(separator: ".")
    }

    /// The last name of a spelled path, lowercased: what its rank goes by.
    static func lastName(_ spelling: String) -> String {
        ((try? FieldPath(spelling))?.components.last ?? spelling).lowercased()
    }

    /// A member name as `--key` reads it: as it is, or as a JSON Pointer when it holds a
    /// dot, starts with a slash, is empty, or is `auto` (which `--key` takes as a request).
    static func spelling(ofMember name: String) -> String {
        guard name.contains(".") || name.hasPrefix("/") || name.isEmpty || name == "auto" else { return name }
        return "/" + FieldPath.escape(name)
    }

    /// The path as an RFC 6901 JSON Pointer (`/user/id`).
    package var pointer: String { components.map { "/" + FieldPath.escape($0) }.joined() }

    /// Whether a step is `*`, which matches any member or index (a path with one names
    /// many places).
    package var isPattern: Bool { components.contains("*") }

    /// The values this path names in `root`, as a pattern, in document order, each with its
    /// JSON Pointer: `*` matches every member or index.
    package func matches(in root: Value) -> [(pointer: String, value: Value)] {
        var found: [(pointer: String, value: Value)] = []
        func walk(_ value: Value, _ steps: ArraySlice<String>, _ pointer: String) {
            guard let step = steps.first else { return found.append((pointer, value)) }
            switch value {
            case .object(let object):
                for member in object.members where step == "*" || member.key.scalarEquals(step) {
                    walk(member.value, steps.dropFirst(), pointer + "/" + FieldPath.escape(member.key))
                }
            case .array(let items):
                for (k, item) in items.enumerated() where step == "*" || String(k) == step {
                    walk(item, steps.dropFirst(), pointer + "/\(k)")
                }
            default:
                break
            }
        }
        walk(root, components[...], "")
        return found
    }

    /// Parses a path. A leading `/` makes it a JSON Pointer (`~1` is `/`, `~0` is `~`);
    /// otherwise dots separate the steps.
    public init(_ spelling: String) throws(ListDiffError) {
        self.spelling = spelling
        if spelling.hasPrefix("/") {
            components = try FieldPath.pointerComponents(spelling)
        } else {
            let parts = spelling.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !spelling.isEmpty, !parts.contains(where: \.isEmpty) else {
                throw ListDiffError(
                    .usage,
                    "invalid key path '\(spelling)': use a field name, a dotted path such as user.id, or a JSON Pointer such as /user/id")
            }
            components = parts
        }
    }

    static func pointerComponents(_ pointer: String) throws(ListDiffError) -> [String] {
        var result: [String] = []
        for raw in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            var step = ""
            var it = raw.makeIterator()
            while let c = it.next() {
                if c == "~" {
                    switch it.next() {
                    case "0": step.append("~")
                    case "1": step.append("/")
                    default: throw ListDiffError(.usage, "invalid JSON Pointer '\(pointer)': '~' must be followed by 0 or 1")
                    }
                } else {
                    step.append(c)
                }
            }
            result.append(step)
        }
        return result
    }

    /// RFC 6901 escaping of one reference token, the inverse of `pointerComponents`: `~` as
    /// `~0`, `/` as `~1`.
    package static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        var out = ""
        for c in token.unicodeScalars {
            switch c {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    public var description: String { spelling }

    /// The value at this path, if there is one.
    public func value(in root: Value) -> Value? {
        var current = root
        for step in components {
            switch current {
            case .object(let object):
                guard let next = object[step] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(step), String(index) == step, items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }
}

/// How records are matched: one field path, several for a composite key, or the whole
/// record (`.`), which makes a list a plain sequence.
public struct IdentityKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's field paths; none when the whole record is the key.
    public let fields: [FieldPath]
    /// Whether each record is its own identity (`--key .`): records match only when their
    /// content is equal, so a list diffs as a sequence (inserts, deletes and moves, never
    /// an update), and repeated records are numbered by occurrence.
    public let isWholeRecord: Bool

    /// A key of these fields: one, or several that identify a record together.
    public init(_ fields: [FieldPath]) {
        self.fields = fields
        isWholeRecord = false
    }

    private init(wholeRecord: Void) {
        fields = []
        isWholeRecord = true
    }

    /// The whole record as its own identity (`--key .`).
    public static let wholeRecord = IdentityKey(wholeRecord: ())

    /// Parses `--key` arguments; none means `id`, and `.` alone means the whole record.
    public init(parsing spellings: [String]) throws(ListDiffError) {
        if spellings.contains(".") {
            guard spellings.count == 1 else {
                throw ListDiffError(.usage, "--key . (the whole record) cannot be combined with other key fields")
            }
            self = .wholeRecord
            return
        }
        var fields: [FieldPath] = []
        for spelling in spellings.isEmpty ? ["id"] : spellings {
            fields.append(try FieldPath(spelling))
        }
        self.init(fields)
    }

    /// The key's spellings, as `--key` takes them.
    public var spellings: [String] { isWholeRecord ? ["."] : fields.map(\.spelling) }

    public var description: String { spellings.joined(separator: ", ") }

    package enum Failure: Error, Equatable {
        case missing(FieldPath)
        /// A composite key none of whose parts has a value.
        case missingAll([FieldPath])

        /// The record lacks its key (not: has one that cannot be used).
        package var isMissing: Bool {
            switch self {
            case .missing, .missingAll: return true
            default: return false
            }
        }
        case notScalar(FieldPath, typeName: String)
        case notARecord(typeName: String)
    }

    /// The key as written (an array for a composite key), as `identify` gives it, or nil
    /// when the record has no usable key; without building the identity.
    package func written(in element: Value) -> Value? {
        if isWholeRecord { return element }
        switch element {
        case .object:
            if fields.count == 1 {
                guard let part = fields[0].value(in: element), part.isScalar else { return nil }
                return part
            }
            var parts: [Value] = []
            parts.reserveCapacity(fields.count)
            var any = false
            for field in fields {
                // An absent or null part of a composite key is written null: a value of its own.
                let part = field.value(in: element) ?? .null
                guard part.isScalar || part == .null else { return nil }
                any = any || part.isScalar
                parts.append(part)
            }
            return any ? .array(parts) : nil
        case .string, .number, .bool:
            return element
        case .null, .array:
            return nil
        }
    }

    /// The key of one list element: for an object, the values at the key's paths;
    /// for a scalar, the scalar itself.
    /// Returns the key as written (an array for a composite key) and its canonical identity.
    package func identify(_ element: Value) -> Result<(written: Value, id: RecordID), Failure> {
        // A key of no fields keys every object alike.
        if fields.isEmpty, !isWholeRecord, case .object = element { return .success((.array([]), RecordID.Encoder().id)) }
        guard let written = written(in: element) else { return .failure(failure(in: element)) }
        return .success((written, id(ofWritten: written)))
    }

    /// A keyed path's step for an element whose key is `written`: an object of the key's
    /// fields and their values (`{"name": "web"}`), as jd writes one.
    package func step(_ written: Value) -> Value {
        if fields.count == 1 { return .object(Object([.init(key: fields[0].spelling, value: written)])) }
        guard case .array(let parts) = written else { return written }
        return .object(Object(zip(fields, parts).map { .init(key: $0.spelling, value: $1) }))
    }

    /// The canonical identity of a key as written (as `written(in:)` gives it).
    package func id(ofWritten written: Value) -> RecordID {
        var encoder = RecordID.Encoder()
        // A composite key's identity is that of its parts, one after another.
        if !isWholeRecord, fields.count > 1, case .array(let parts) = written {
            for part in parts { encoder.append(part) }
        } else {
            encoder.append(written)
        }
        return encoder.id
    }

    /// Why `written(in:)` finds no key in `element`.
    private func failure(in element: Value) -> Failure {
        guard case .object = element else { return .notARecord(typeName: element.typeName) }
        if fields.count == 1, fields[0].value(in: element) == nil { return .missing(fields[0]) }
        for field in fields {
            // A composite key: a part that is absent or null is a value of its own (written
            // null), so long as some part has a value.
            let part = field.value(in: element) ?? .null
            if !part.isScalar, fields.count == 1 || part != .null { return .notScalar(field, typeName: part.typeName) }
        }
        return .missingAll(fields)
    }
}

/// The canonical identity of a record: equal exactly when the keys are equal as values
/// (type-aware; numbers by decimal value; strings by Unicode scalars).
package struct RecordID: Hashable, Sendable {
    let bytes: [UInt8]

    package static func == (a: RecordID, b: RecordID) -> Bool { a.bytes == b.bytes }

    package func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// This identity extended with an occurrence number, for `--duplicates match`.
    package func numbered(_ occurrence: Int) -> RecordID {
        var encoder = Encoder(bytes: bytes)
        encoder.bytes.append(UInt8(ascii: "#"))
        encoder.appendLength(occurrence)
        return encoder.id
    }

    struct Encoder {
        var bytes: [UInt8] = []

        mutating func append(_ value: Value) {
            switch value {
            case .string(let s):
                var s = s
                s.withUTF8 { Self.appendString(UnsafeRawBufferPointer($0), to: &bytes) }
            case .number(let n):
                let c = n.canonical
                if c.kind == .finite {
                    c.digits.withUnsafeBytes {
                        Self.appendFiniteNumber(negative: c.negative, digits: $0, exponent: c.exponent, to: &bytes)
                    }
                    break
                }
                bytes.append(UInt8(ascii: "n"))
                bytes.append(c.kind.rawValue)
                bytes.append(c.negative ? 1 : 0)
                Self.appendLength(0, to: &bytes)
                withUnsafeBytes(of: Int64(c.exponent).littleEndian) { bytes.append(contentsOf: $0) }
            case .bool(let b):
                bytes.append(b ? UInt8(ascii: "T") : UInt8(ascii: "F"))
            case .null:
                bytes.append(UInt8(ascii: "z"))
            case .array(let items):
                // (Only a whole record as its key is a container.)
                bytes.append(UInt8(ascii: "a"))
                appendLength(items.count)
                for item in items { append(item) }
            case .object(let object):
                // Members in the order of their names' bytes: member order is not content.
                bytes.append(UInt8(ascii: "o"))
                appendLength(object.members.count)
                for member in object.members.sorted(by: { $0.key.scalarLess($1.key) }) {
                    append(.string(member.key))
                    append(member.value)
                }
            }
        }

        /// A string: `s`, its UTF-8 length, its UTF-8 bytes.
        @inline(__always)
        static func appendString(_ utf8: UnsafeRawBufferPointer, to bytes: inout some KeyOutput) {
            bytes.append(UInt8(ascii: "s"))
            appendLength(utf8.count, to: &bytes)
            bytes.append(contentsOf: utf8)
        }

        /// A finite number by its canonical parts: `n`, kind, sign, digit count, digits, exponent.
        @inline(__always)
        static func appendFiniteNumber(negative: Bool, digits: UnsafeRawBufferPointer, exponent: Int, to bytes: inout some KeyOutput) {
            bytes.append(UInt8(ascii: "n"))
            bytes.append(Number.Canonical.Kind.finite.rawValue)
            bytes.append(negative ? 1 : 0)
            appendLength(digits.count, to: &bytes)
            bytes.append(contentsOf: digits)
            withUnsafeBytes(of: Int64(exponent).littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func appendLength(_ n: Int) {
            Self.appendLength(n, to: &bytes)
        }

        @inline(__always)
        static func appendLength(_ n: Int, to bytes: inout some KeyOutput) {
            var n = n
            repeat {
                let low = UInt8(n & 0x7F)
                n >>= 7
                bytes.append(n == 0 ? low : low | 0x80)
            } while n != 0
        }

        var id: RecordID { RecordID(bytes: bytes) }
    }
}

/// Where `RecordID.Encoder` writes an identity's bytes.
protocol KeyOutput {
    /// Whether the bytes are kept (false: a scan wants the key's hash only).
    static var keepsBytes: Bool { get }
    mutating func append(_ byte: UInt8)
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer)
}

extension KeyOutput {
    static var keepsBytes: Bool { true }
}

extension Array: KeyOutput where Element == UInt8 {}

/// A `KeyOutput` that keeps nothing, for a scan that needs only the key's hash.
struct NoKey: KeyOutput {
    static var keepsBytes: Bool { false }
    func append(_ byte: UInt8) {}
    func append(contentsOf bytes: UnsafeRawBufferPointer) {}
}
