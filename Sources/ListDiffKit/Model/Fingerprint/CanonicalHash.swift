/// A 128-bit hash.
package struct Hash128: Hashable, Sendable {
    package var a: UInt64
    package var b: UInt64

    package init(a: UInt64, b: UInt64) {
        self.a = a
        self.b = b
    }

    /// 32 lowercase hex digits.
    package var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in [a, b] {
            for shift in stride(from: 60, through: 0, by: -4) { out.append(digits[Int(word >> UInt64(shift) & 0xF)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A fast 128-bit hash of a value that follows `Value`'s equality: equal values have equal
/// hashes, however they were written (member order, number spelling, string escapes, JSON
/// or YAML). Different values almost never share one, but may: whoever needs certainty
/// compares the values (the differ does, for every pair of records whose hashes agree).
///
/// - Strings hash their UTF-8 bytes (16 bytes at a time, multiply-mix as in wyhash).
/// - Numbers hash their exact decimal value: sign, significant digits (as one integer when
///   there are at most 19 of them) and exponent.
/// - Arrays combine their elements in order; objects add up a hash of each (key, value)
///   member, so that member order does not matter (and so two objects that differ only in
///   the order of members sharing one key, which `Value` tells apart, hash alike).
/// - Every kind, and every container's length, is mixed in.
///
/// The hash is not cryptographic: it detects accidents (a changeset applied to the wrong
/// file), not an adversary, who could edit a changeset's fingerprints as easily as its changes.
package enum CanonicalHash {
    static let p0: UInt64 = 0xa076_1d64_78bd_642f
    static let p1: UInt64 = 0xe703_7ed1_a0b4_28db
    static let p2: UInt64 = 0x8ebc_6af0_9c88_c6e3
    static let p3: UInt64 = 0x5899_65cc_7537_4cc3
    static let p4: UInt64 = 0x1d8e_4e27_c47d_124f

    // Kind tags.
    static let stringTag: UInt64 = 0x7374_7269_6e67_0001
    static let numberTag: UInt64 = 0x6e75_6d62_6572_0002
    static let arrayTag: UInt64 = 0x6172_7261_7900_0003
    static let objectTag: UInt64 = 0x6f62_6a65_6374_0004
    static let bagTag: UInt64 = 0x6261_6700_0000_0008

    package static let null = Hash128(a: 0x6e75_6c6c_0000_0005 ^ p0, b: 0x6e75_6c6c_0000_0005 ^ p3)
    package static let `true` = Hash128(a: 0x7472_7565_0000_0006 ^ p1, b: 0x7472_7565_0000_0006 ^ p4)
    package static let `false` = Hash128(a: 0x6661_6c73_6500_0007 ^ p2, b: 0x6661_6c73_6500_0007 ^ p0)

    @inline(__always)
    static func mum(_ x: UInt64, _ y: UInt64) -> UInt64 {
        let r = x.multipliedFullWidth(by: y)
        return r.high ^ r.low
    }

    /// Hashes `count` bytes at `p` under a kind tag. Reads only those bytes: short inputs
    /// and the tail are read as overlapping words, as wyhash does, without copying. Words
    /// are read little-endian, so that every machine gives one hash (the shards of a diff
    /// are chosen by it: `KeyHash`).
    @inline(__always)
    static func bytes(_ p: UnsafeRawPointer, _ count: Int, tag: UInt64) -> Hash128 {
        var s1 = tag ^ p0 ^ (UInt64(truncatingIfNeeded: count) &* p4)
        var s2 = tag ^ p1 ^ UInt64(truncatingIfNeeded: count)
        var x: UInt64 = 0
        var y: UInt64 = 0
        if count <= 16 {
            if count >= 8 {
                x = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
                y = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
            } else if count >= 4 {
                x = UInt64(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self)))
                y = UInt64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            } else if count > 0 {
                let b = p.assumingMemoryBound(to: UInt8.self)
                x = UInt64(b[0]) << 16 | UInt64(b[count >> 1]) << 8 | UInt64(b[count - 1])
            }
        } else {
            var i = 0
            while i &+ 16 < count {
                let a = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let c = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self))
                s1 = mum(a ^ p1, c ^ s1)
                s2 = mum(a ^ s2, c ^ p2)
                i &+= 16
            }
            x = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: count - 16, as: UInt64.self))
            y = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        }
        s1 = mum(x ^ p1, y ^ s1)
        s2 = mum(x ^ s2, y ^ p2)
        return Hash128(a: mum(s1 ^ p3, s2 ^ p0), b: mum(s2 ^ p4, s1 ^ p3))
    }

    @inline(__always)
    package static func string(_ utf8: UnsafeRawBufferPointer) -> Hash128 {
        utf8.count == 0
            ? bytes(UnsafeRawPointer(bitPattern: 8)!, 0, tag: stringTag)
            : bytes(utf8.baseAddress!, utf8.count, tag: stringTag)
    }

    package static func string(_ s: String) -> Hash128 {
        var s = s
        return s.withUTF8 { string(UnsafeRawBufferPointer($0)) }
    }

    /// A number from its canonical parts (see `Number.Canonical`): up to 19 significant
    /// digits as one integer, more as bytes.
    @inline(__always)
    static func number(negative: Bool, digits: UnsafeRawBufferPointer, exponent: Int) -> Hash128 {
        if digits.count <= 19 {
            var mantissa: UInt64 = 0
            for d in digits { mantissa = mantissa &* 10 &+ UInt64(d &- UInt8(ascii: "0")) }
            return number(negative: negative, mantissa: mantissa, exponent: exponent)
        }
        let tag = numberTag ^ (negative ? p2 : 0) ^ mum(UInt64(bitPattern: Int64(exponent)) ^ p3, p4)
        return bytes(digits.baseAddress!, digits.count, tag: tag)
    }

    /// A number of at most 19 significant digits: `0.mantissa × 10^exponent`, the mantissa
    /// without trailing zeros (zero: mantissa 0, exponent 0, not negative).
    @inline(__always)
    static func number(negative: Bool, mantissa: UInt64, exponent: Int) -> Hash128 {
        let e = UInt64(bitPattern: Int64(exponent))
        let t = numberTag ^ (negative ? p2 : p4)
        let s1 = mum(mantissa ^ p0 ^ t, e ^ p1)
        let s2 = mum(mantissa ^ p3, e ^ t ^ p4)
        return Hash128(a: mum(s1 ^ p3, s2 ^ p0), b: mum(s2 ^ p1, s1 ^ p2))
    }

    /// A number written in JSON or YAML spelling (`text` as `Number` keeps it).
    static func number(text: UnsafeRawBufferPointer) -> Hash128 {
        if let base = text.baseAddress,
            let (hash, end) = plainDecimal(base.assumingMemoryBound(to: UInt8.self), from: 0, count: text.count),
            end == text.count
        {
            return hash
        }
        var buffer = Number.DigitBuffer()
        let (minus, exponent) = Number.canonicalDigits(text, into: &buffer)
        return buffer.withBytes { number(negative: minus, digits: $0, exponent: exponent) }
    }

    /// Scans a plain JSON decimal at `p[start]` (`-?(0|[1-9][0-9]*)(.[0-9]+)?`, not followed by
    /// an exponent) of at most 19 significant digits, the common case, and hashes it in the
    /// same pass: the mantissa and where the point falls, as `Number.canonicalDigits` has
    /// them. Returns the hash and the offset after the number; nil for anything else
    /// (other numbers, and text that is not a valid number), for the general way.
    @inline(__always)
    static func plainDecimal(_ p: UnsafePointer<UInt8>, from start: Int, count n: Int) -> (Hash128, end: Int)? {
        var i = start
        guard i < n else { return nil }
        let negative = p[i] == UInt8(ascii: "-")
        if negative {
            i &+= 1
            guard i < n else { return nil }
        }
        var mantissa: UInt64 = 0
        var significant = 0  // digits from the first nonzero one
        var pointShift = 0  // where the point falls, counted from the first significant digit
        var d = p[i] &- UInt8(ascii: "0")
        guard d < 10 else { return nil }
        if d == 0 {
            i &+= 1
            if i < n, p[i] &- UInt8(ascii: "0") < 10 { return nil }  // a leading zero
        } else {
            while true {
                if significant == 19 { return nil }
                mantissa = mantissa &* 10 &+ UInt64(d)
                significant &+= 1
                i &+= 1
                guard i < n else { break }
                d = p[i] &- UInt8(ascii: "0")
                if d >= 10 { break }
            }
            pointShift = significant
        }
        if i < n, p[i] == UInt8(ascii: ".") {
            i &+= 1
            guard i < n, p[i] &- UInt8(ascii: "0") < 10 else { return nil }
            while i < n {
                d = p[i] &- UInt8(ascii: "0")
                if d >= 10 { break }
                if significant == 0, d == 0 {
                    pointShift &-= 1
                } else {
                    if significant == 19 { return nil }
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    significant &+= 1
                }
                i &+= 1
            }
        }
        if i < n, p[i] | 0x20 == UInt8(ascii: "e") { return nil }
        if mantissa == 0 { return (number(negative: false, mantissa: 0, exponent: 0), i) }
        while mantissa % 10 == 0 { mantissa /= 10 }
        return (number(negative: negative, mantissa: mantissa, exponent: pointShift), i)
    }

    static func number(_ n: Number) -> Hash128 {
        // Finite numbers (the readers keep them in JSON spelling, ending in a digit) hash their
        // text without building `canonical`, which allocates.
        if n.isFinite || n.canonical.kind == .finite {
            var text = n.text
            return text.withUTF8 { number(text: UnsafeRawBufferPointer($0)) }
        }
        switch n.canonical.kind {
        case .finite, .nan: return Hash128(a: numberTag ^ p4, b: numberTag ^ p0)
        case .positiveInfinity: return Hash128(a: numberTag ^ p0, b: numberTag ^ p1)
        case .negativeInfinity: return Hash128(a: numberTag ^ p2, b: numberTag ^ p3)
        }
    }

    /// Combines the elements of an array, in order.
    struct ArrayHasher: Sendable {
        var state = Hash128(a: arrayTag ^ p1, b: arrayTag ^ p2)
        var count: UInt64 = 0

        @inline(__always)
        mutating func add(_ e: Hash128) {
            state = Hash128(a: mum(state.a ^ e.a, p1 ^ e.b), b: mum(state.b ^ e.b, p2 ^ e.a))
            count &+= 1
        }

        @inline(__always)
        func finish() -> Hash128 {
            Hash128(a: mum(state.a ^ count, p3 ^ arrayTag), b: mum(state.b ^ p4, count ^ p0))
        }
    }

    /// Adds up an object's members, so that their order does not matter.
    struct ObjectHasher {
        var sum = Hash128(a: 0, b: 0)
        var count: UInt64 = 0

        @inline(__always)
        mutating func add(key: Hash128, value: Hash128) {
            sum.a &+= mum(key.a ^ value.b ^ p0, value.a ^ p3)
            sum.b &+= mum(key.b ^ value.a ^ p1, value.b ^ p4)
            count &+= 1
        }

        @inline(__always)
        func finish() -> Hash128 {
            Hash128(a: mum(sum.a ^ count ^ objectTag, p1), b: mum(sum.b ^ objectTag, p2 ^ count))
        }
    }

    /// Adds up the elements of a list whose order means nothing (`--unordered`), so that
    /// every order of the same elements gives one hash, without sorting them. Each element
    /// is mixed before it is added, so that equal sums of raw hashes do not collide.
    /// A list of records' hashes: in order, or under `--unordered` as a bag, in any order.
    /// The diff's new fingerprint, apply's and the streaming merge's all hash lists so.
    package struct ListHasher {
        private var list = ArrayHasher()
        private var bag = BagHasher()
        private let unordered: Bool

        package init(unordered: Bool) { self.unordered = unordered }

        @inline(__always)
        package mutating func add(_ e: Hash128) {
            if unordered { bag.add(e) } else { list.add(e) }
        }

        package func finish() -> Hash128 { unordered ? bag.finish() : list.finish() }
    }

    package struct BagHasher {
        var sum = Hash128(a: 0, b: 0)
        var count: UInt64 = 0

        package init() {}

        @inline(__always)
        package mutating func add(_ e: Hash128) {
            sum.a &+= mum(e.a ^ p2, e.b ^ p4)
            sum.b &+= mum(e.b ^ p3, e.a ^ p1)
            count &+= 1
        }

        @inline(__always)
        package func finish() -> Hash128 {
            Hash128(a: mum(sum.a ^ count ^ bagTag, p3), b: mum(sum.b ^ bagTag, p0 ^ count))
        }
    }

    /// The hash of a value.
    package static func of(_ value: Value) -> Hash128 {
        switch value {
        case .null: return null
        case .bool(let b): return b ? `true` : `false`
        case .number(let n): return number(n)
        case .string(let s): return string(s)
        case .array(let items):
            var h = ArrayHasher()
            for item in items { h.add(of(item)) }
            return h.finish()
        case .object(let object):
            var h = ObjectHasher()
            for member in object.members { h.add(key: string(member.key), value: of(member.value)) }
            return h.finish()
        }
    }
}
