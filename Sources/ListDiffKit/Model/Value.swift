/// A JSON-shaped value as it was written in a file.
///
/// - Objects keep their members in file order, duplicates included.
/// - Numbers keep their exact text and compare by exact decimal value
///   (`1`, `1.0` and `1e0` are equal; two 20-digit ids that differ in the last digit are not).
/// - Strings, and object keys, compare by Unicode scalars, never by canonical
///   equivalence: an NFC key and its NFD spelling are different keys.
///
/// Equality (`==`) is the content equality listdiff uses for updates: deep and
/// type-aware (`true` is not `1`, `"1"` is not `1`), and object member order does not matter.
public enum Value: Sendable {
    case null
    case bool(Bool)
    case number(Number)
    case string(String)
    case array([Value])
    case object(Object)
}

/// `Value.Object` under its short name inside the package.
package typealias Object = Value.Object

extension Value {
    /// An ordered list of object members.
    public struct Object: Sendable {
        /// One member: a key and its value.
        public struct Member: Sendable {
            /// The member's name.
            public var key: String
            /// The member's value.
            public var value: Value
            /// A member.
            public init(key: String, value: Value) {
                self.key = key
                self.value = value
            }
        }

        /// The members in the order written; a key may repeat (YAML and JSON readers refuse
        /// that, but an object built in memory may hold it).
        public var members: [Member]

        /// An object of these members, in this order.
        public init(_ members: [Member] = []) {
            self.members = members
        }

        /// The value of the first member whose key is `key`, comparing keys scalar by scalar.
        public subscript(key: String) -> Value? {
            for k in members.indices where members[k].key.scalarEquals(key) {
                return members[k].value
            }
            return nil
        }

        /// Whether two members share a key (compared by Unicode scalars).
        var hasDuplicateKeys: Bool {
            if members.count < 2 { return false }
            if members.count <= 16 {
                // Small objects (most records): compare the keys pairwise, no hashing.
                for k in 1..<members.count {
                    for l in 0..<k where members[l].key.scalarEquals(members[k].key) { return true }
                }
                return false
            }
            var seen = Set<ScalarKey>()
            for member in members where !seen.insert(ScalarKey(member.key)).inserted {
                return true
            }
            return false
        }
    }
}

/// A string wrapper whose equality and hash go by Unicode scalars (bytes of UTF-8),
/// not by Swift's canonical equivalence.
struct ScalarKey: Hashable {
    let string: String
    init(_ string: String) { self.string = string }
    static func == (a: ScalarKey, b: ScalarKey) -> Bool {
        a.string.scalarEquals(b.string)
    }
    func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension String {
    /// Byte-exact equality: no Unicode normalisation.
    package func scalarEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Native strings are contiguous UTF-8: compare their bytes in place.
        let fast = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                a.count == 0 || SystemCalls.compare(a.baseAddress!, b.baseAddress!, a.count) == 0
            }
        }
        if let fast, let fast { return fast }
        return utf8.elementsEqual(other.utf8)
    }

    /// Byte order of the UTF-8 encoding, which is Unicode scalar order.
    func scalarLess(_ other: String) -> Bool {
        // Native strings are contiguous UTF-8: compare their bytes in place.
        let fast = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b -> Bool in
                let n = min(a.count, b.count)
                let c = n == 0 ? 0 : SystemCalls.compare(a.baseAddress!, b.baseAddress!, n)
                return c < 0 || (c == 0 && a.count < b.count)
            }
        }
        return (fast ?? nil) ?? utf8.lexicographicallyPrecedes(other.utf8)
    }
}

extension Value: Equatable {
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a.scalarEquals(b)
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a.contentEquals(b)
        default: return false
        }
    }
}

extension Object {
    /// Members compared as a set of (key, value) pairs: order does not matter.
    /// Duplicated keys are compared in the order they were written.
    func contentEquals(_ other: Object) -> Bool {
        if members.count != other.members.count { return false }
        // Fast path: same order, which is by far the common case.
        var sameOrder = true
        for (a, b) in zip(members, other.members) where !a.key.scalarEquals(b.key) {
            sameOrder = false
            break
        }
        if sameOrder {
            return zip(members, other.members).allSatisfy { $0.value == $1.value }
        }
        let a = sortedMembers()
        let b = other.sortedMembers()
        return zip(a, b).allSatisfy { $0.key.scalarEquals($1.key) && $0.value == $1.value }
    }

    /// Members in key byte order; a stable sort, so duplicates stay in file order.
    func sortedMembers() -> [Member] {
        if zip(members, members.dropFirst()).allSatisfy({ !$1.key.scalarLess($0.key) }) { return members }
        // A stable sort: equal keys keep their file order.
        var order = Array(members.indices)
        order.sort { l, r in
            if members[l].key.scalarLess(members[r].key) { return true }
            if members[r].key.scalarLess(members[l].key) { return false }
            return l < r
        }
        return order.map { members[$0] }
    }
}

extension Value {
    /// A short name of the value's type, for messages.
    package var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Whether the value is a string, number or boolean (something that can be an identity).
    package var isScalar: Bool {
        switch self {
        case .bool, .number, .string: return true
        default: return false
        }
    }

    /// The number of nodes in the tree (this one included).
    package var nodeCount: Int {
        switch self {
        case .array(let items): return items.reduce(1) { $0 + $1.nodeCount }
        case .object(let object): return object.members.reduce(1) { $0 + $1.value.nodeCount }
        default: return 1
        }
    }
}

extension Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral, ExpressibleByDictionaryLiteral
{
    /// An object, its members in the order written.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .object(Object(elements.map { Object.Member(key: $0.0, value: $0.1) }))
    }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Value.Number(exactly: value)) }
    /// A number, written as Swift writes the `Double` (the shortest text that reads back
    /// as it): `9.99` is the number 9.99.
    public init(floatLiteral value: Double) { self = .number(Value.Number(text: "\(value)")) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}

extension Value {
    /// The first `.inf`, `-.inf` or `.nan` in the tree (pre-order), which JSON cannot spell.
    package var firstNonFiniteNumber: Number? {
        switch self {
        case .number(let n): return n.isFinite ? nil : n
        case .array(let items):
            for item in items { if let n = item.firstNonFiniteNumber { return n } }
            return nil
        case .object(let object):
            for member in object.members { if let n = member.value.firstNonFiniteNumber { return n } }
            return nil
        default: return nil
        }
    }
}

extension Value {
    /// Equality that also asks for object members in the same order, at every depth.
    package func isIdentical(to other: Value) -> Bool {
        switch (self, other) {
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        case let (.object(a), .object(b)):
            return a.members.count == b.members.count
                && zip(a.members, b.members).allSatisfy { $0.key.scalarEquals($1.key) && $0.value.isIdentical(to: $1.value) }
        default:
            return self == other
        }
    }
}

extension Value: CustomStringConvertible {
    /// The value as compact JSON (numbers as written, strings escaped as JSON escapes them).
    public var description: String { JSONWriter.compact(self) }
}
