/// The key's field paths as a tree of names, so that a scanner finds every part of a key in
/// one pass over a record, without building the record.
///
/// Level 0 holds the names of the record's own members that the key uses. A name ends one or
/// more key fields (`--key id`), leads on to the level of its value's members (`--key
/// user.id`), or both. In a list, a level's names are the indexes written in decimal, as
/// `FieldPath.value(in:)` reads them. As there, the first member of a name is the one used.
struct KeyTrie: Sendable {
    struct Level: Sendable {
        var names: [[UInt8]] = []
        /// The key fields each name ends, as a bit mask over `IdentityKey.fields`.
        var fields: [UInt64] = []
        /// The level each name leads into, or -1.
        var next: [Int] = []
        /// Each name's number among the names of all levels, for a record's visited set.
        var ids: [Int] = []
    }

    let levels: [Level]
    let fieldCount: Int

    /// Nil when the key has more than 64 fields, or its paths more than 64 names in all.
    init?(_ key: IdentityKey) {
        guard key.fields.count <= 64 else { return nil }
        var levels = [Level()]
        var names = 0
        for (f, field) in key.fields.enumerated() {
            var level = 0
            for (k, component) in field.components.enumerated() {
                let bytes = Array(component.utf8)
                var e = levels[level].names.firstIndex(of: bytes) ?? -1
                if e < 0 {
                    e = levels[level].names.count
                    levels[level].names.append(bytes)
                    levels[level].fields.append(0)
                    levels[level].next.append(-1)
                    levels[level].ids.append(names)
                    names += 1
                }
                if k == field.components.count - 1 {
                    levels[level].fields[e] |= 1 << UInt64(f)
                } else {
                    if levels[level].next[e] < 0 {
                        levels[level].next[e] = levels.count
                        levels.append(Level())
                    }
                    level = levels[level].next[e]
                }
            }
        }
        guard names <= 64 else { return nil }
        self.levels = levels
        fieldCount = key.fields.count
    }

    /// The entry at `level` named by these bytes, or nil.
    @inline(__always)
    func entry(_ level: Int, named name: UnsafeRawBufferPointer) -> Int? {
        let names = levels[level].names
        for e in 0..<names.count where names[e].count == name.count {
            if names[e].withUnsafeBytes({ $0.count == 0 || SystemCalls.compare($0.baseAddress!, name.baseAddress!, $0.count) == 0 }) {
                return e
            }
        }
        return nil
    }

    /// The entry at `level` for list index `index` (a name that is its decimal spelling), or nil.
    func entry(_ level: Int, index: Int) -> Int? {
        var digits = Array(String(index).utf8)
        return digits.withUnsafeMutableBytes { entry(level, named: UnsafeRawBufferPointer($0)) }
    }

    /// The mask of all key fields.
    var allFields: UInt64 { fieldCount == 64 ? ~0 : (1 << UInt64(fieldCount)) - 1 }
}

/// What a scan of one record found of its key.
struct KeyFinding {
    /// Fields whose path led to a value.
    var found: UInt64 = 0
    /// Fields whose value is a string, number or boolean.
    var scalar: UInt64 = 0
    /// Trie entries already used in this record (the first member of a name counts).
    var visited: UInt64 = 0
    /// Fields whose value is null.
    var null: UInt64 = 0

    /// The parts of a composite key that have a value (the others are absent).
    var present: UInt64 { found & scalar }

    /// Whether the record has a usable key, and if not, whether its first failing field is
    /// missing (as `IdentityKey.identify` reports it: the fields in order, missing before
    /// not scalar).
    func status(_ keys: KeyTrie) -> KeyStatus {
        let all = keys.allFields
        if found & scalar & all == all { return .keyed }
        if keys.fieldCount > 1 {
            // A composite key (as `IdentityKey.identify`): an absent or null part is a value
            // of its own, so long as some part has a value.
            for f in 0..<keys.fieldCount {
                let bit: UInt64 = 1 << UInt64(f)
                if found & bit != 0, scalar & bit == 0, null & bit == 0 { return .unusable }
            }
            return found & scalar & all != 0 ? .keyed : .missing
        }
        // One field, not keyed: missing, or not a scalar.
        return found & 1 == 0 ? .missing : .unusable
    }
}

/// Whether a record could be keyed.
enum KeyStatus: UInt8, Sendable {
    case keyed
    /// An object whose first failing key field is absent (a section object looks so).
    case missing
    /// A key that is not a scalar, or a record that is null or a list.
    case unusable
}

extension KeyFinding {
    /// Notes the value found for the fields in `mask`.
    @inline(__always)
    mutating func note(_ mask: UInt64, scalar isScalar: Bool, hash: Hash128, memory: ScanMemory) {
        guard found & mask != mask else { return }
        found |= mask
        if isScalar { scalar |= mask }
        if hash == CanonicalHash.null { null |= mask }
        var rest = mask
        while rest != 0 {
            memory.keyParts[rest.trailingZeroBitCount] = hash
            rest &= rest - 1
        }
    }
}

/// How key hashes are made: a seed mixed into each, and (for tests) a mask that keeps few
/// bits of the first half of each key's canonical hash, so that different keys share that
/// half, as two keys whose halves truly collide do. The engine checks every match it makes
/// on a hash, and on meeting two keys with one hash runs again with another seed.
struct KeyHashing: Sendable, Equatable {
    var seed: UInt64 = 0
    var mask: UInt64 = ~0
    /// How many attempts came before this one.
    var attempt = 0

    /// A key's hash from its 128-bit canonical hash: the first half at first; once seeded,
    /// both halves, so that two keys whose first halves collide part on the next attempt
    /// instead of meeting again on every one.
    @inline(__always)
    func mix(_ h: Hash128) -> UInt64 {
        let a = h.a & mask
        if seed == 0 { return a }
        return CanonicalHash.mum(a ^ seed, h.b ^ 0x9E37_79B9_7F4A_7C15 ^ seed)
    }

    /// A key's hash within a section, for records keyed within their own list (the lists a
    /// path with `*` names): the same key in two sections is two keys.
    @inline(__always)
    func scoped(_ keyHash: UInt64, in section: Hash128) -> UInt64 {
        CanonicalHash.mum(keyHash ^ section.a, section.b ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The hash a scan gives a record whose key, as written, is `key` (a composite key's
    /// parts in an array).
    func hash(key: Value, fields: Int) -> UInt64 {
        if fields > 1, case .array(let parts) = key {
            var hasher = CanonicalHash.ArrayHasher()
            for part in parts { hasher.add(CanonicalHash.of(part)) }
            return mix(hasher.finish())
        }
        return mix(CanonicalHash.of(key))
    }

    /// How many attempts a diff makes before it gives up. Each seeded attempt draws new
    /// 64-bit hashes from both halves of the keys' hashes, independent of the attempts
    /// before, so a collision on each of them does not happen by chance; the limit turns a
    /// fault in the hashing into an error instead of a diff that never ends.
    static let attempts = 16

    /// The hashing for the next attempt after a collision (another seed), or an error once
    /// `attempts` attempts have been made.
    func nextAttempt() throws(ListDiffError) -> KeyHashing {
        guard attempt + 1 < Self.attempts else {
            throw ListDiffError(
                .limit, "different keys had the same hash on \(Self.attempts) attempts; this is a fault in listdiff, please report it")
        }
        return KeyHashing(seed: seed &+ 0x2545_F491_4F6C_DD1D, mask: mask, attempt: attempt + 1)
    }
}
