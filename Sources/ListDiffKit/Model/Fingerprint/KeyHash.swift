/// The documented hash of a record's key, the same on every machine: it chooses the shard
/// a record belongs to (`listdiff --partition I/N`, `listdiff hash`), so that a diff split
/// across machines puts both versions of a record in one shard.
///
/// It is the first 64 bits (`a`, read as an unsigned integer) of the `CanonicalHash` of the
/// key as a changeset writes it: the value of a one-field key, the array of the values of a
/// composite key, the member name (a string) in a map of records. The canonical hash has
/// no random seed and reads bytes as little-endian words, and it follows `Value`'s
/// equality: `7`, `7.0` and `70e-1` are one key, as they are to the diff. It is the hash the
/// engine gives each key on its first attempt (`KeyHashing` with no seed), so one rule
/// serves both.
///
/// A key's shard of `n` is `hash % n`, counted from 0.
public enum KeyHash {
    /// The hash of a key as a changeset writes it (`Changeset.Change.key`).
    public static func of(_ key: Value) -> UInt64 {
        CanonicalHash.of(key).a
    }

    /// The shard, from 0 to `count - 1`, that a key with this hash falls in.
    public static func shard(_ hash: UInt64, of count: Int) -> Int {
        Int(hash % UInt64(count))
    }

    /// 16 lowercase hex digits, as `listdiff hash` prints a key's hash.
    public static func hexDigits(_ hash: UInt64) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
