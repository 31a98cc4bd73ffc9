import Dispatch

/// Which NEW record takes which OLD record: each NEW record its key hash's match, in NEW's
/// order, unless an earlier one took it already (a key twice in NEW, or a collision, for
/// the caller to tell apart); NEW's records that matched none must have keys of their own.
struct Claims: Sendable {
    /// For each NEW record, its OLD record, or -1.
    let newToOld: PageBuffer<Int32>
    /// For each OLD record, its NEW record + 1, or 0.
    let oldToNew: PageBuffer<Int32>
    /// The earliest NEW record (by its second occurrence) whose key hash came before.
    var repeated: (first: Int, second: Int)?

    init(new: RecordTable, oldCount: Int) {
        newToOld = new.matches
        oldToNew = PageBuffer<Int32>(zeroed: oldCount)
        let matches = newToOld.buffer, taken = oldToNew.buffer
        var repeated: (first: Int, second: Int)? = nil
        for j in 0..<matches.count where matches[j] >= 0 {
            let i = Int(matches[j])
            if taken[i] != 0 {
                repeated = (Int(taken[i]) - 1, j)
                break
            }
            taken[i] = Int32(truncatingIfNeeded: j + 1)
        }
        var seen: [UInt64: Int] = [:]
        for s in 0..<new.strangers.count {
            let stranger = new.strangers[s]
            if let second = repeated?.second, stranger.record > second { break }
            if let first = seen.updateValue(stranger.record, forKey: stranger.keyHash) {
                repeated = (first, stranger.record)
                break
            }
        }
        self.repeated = repeated
    }
}

/// OLD's key hashes, for NEW's scan to look up: two open-addressing tables, each built on
/// its own core from the keys whose hash has its top bit (half the keys). A slot holds the
/// top 32 bits of the hash and the record + 1 (0 is empty); a slot whose bits agree is
/// confirmed on the full hash.
///
/// Records matched by it have equal 64-bit key hashes; whether their keys are equal is
/// checked later (equal bytes, or equal keys as values), and two records of OLD with one
/// key hash are reported for the caller to tell a repeated key from a collision.
struct OldKeys: @unchecked Sendable {
    let halves: [PageBuffer<UInt64>]
    let hashes: PageBuffer<UInt64>
    let mask: Int
    /// The tables' and hashes' memory (the buffers above keep it).
    private let low: UnsafeMutableBufferPointer<UInt64>, high: UnsafeMutableBufferPointer<UInt64>
    private let keyHashes: UnsafeMutableBufferPointer<UInt64>
    /// Whether no key hash is OLD's twice (so each has one record).
    private(set) var unique = false

    init(halves: [PageBuffer<UInt64>], hashes: PageBuffer<UInt64>, mask: Int) {
        self.halves = halves
        self.hashes = hashes
        self.mask = mask
        low = halves[0].buffer
        high = halves[1].buffer
        keyHashes = hashes.buffer
    }

    /// The index of OLD's keys, and the earliest record (by its second occurrence) whose
    /// key hash came before.
    static func build(_ old: RecordTable, chains: Chains? = nil) -> (OldKeys, repeated: (first: Int, second: Int)?) {
        var size = 16
        while size < old.count { size <<= 1 }  // half the keys, at most half full
        let halves = [PageBuffer<UInt64>(zeroed: size, huge: true), PageBuffer<UInt64>(zeroed: size, huge: true)]
        let keys = OldKeys(halves: halves, hashes: old.keyHashes, mask: size - 1)
        let (first, second) = Concurrently.both({ keys.fill(half: 0, chains: chains) }, { keys.fill(half: 1, chains: chains) })
        var filled = keys
        filled.unique = first == nil && second == nil
        guard let a = first, let b = second else { return (filled, first ?? second) }
        return (filled, a.second <= b.second ? a : b)
    }

    /// Lets the index's tables go (once NEW is matched, nothing looks keys up), their
    /// mappings kept for the next large buffers (`SpareMappings`).
    func discard() {
        for half in halves { half.discard(keeping: true) }
    }

    /// Where lookups start, for a scan to fetch before it looks up.
    var slots: KeySlots { KeySlots(low: low.baseAddress!, high: high.baseAddress!, mask: mask) }

    /// Whether `lookup(h)` is OLD record `r`, told from `r`'s own key hash when no key hash
    /// repeats: a record whose place in OLD is expected is checked there, in memory at hand,
    /// instead of in the index, anywhere in memory.
    @inline(__always)
    func finds(_ r: Int, _ h: UInt64) -> Bool {
        unique && keyHashes[r] == h
    }

    /// The OLD record with key hash `h`, or -1.
    @inline(__always)
    func lookup(_ h: UInt64) -> Int {
        find(h, in: h >> 63 == 0 ? low : high, keyHashes).record
    }

    /// `h`'s slot in `slots`: the record that holds it, or the empty slot it would take.
    @inline(__always)
    func find(_ h: UInt64, in slots: UnsafeMutableBufferPointer<UInt64>, _ hashes: UnsafeMutableBufferPointer<UInt64>) -> (
        slot: Int, record: Int
    ) {
        var p = Int(truncatingIfNeeded: h) & mask
        while slots[p] != 0 {
            let r = Int(slots[p] & 0xFFFF_FFFF) - 1
            if slots[p] >> 32 == h >> 32, hashes[r] == h { return (p, r) }
            p = (p + 1) & mask
        }
        return (p, -1)
    }

    /// Adds the keys of one half, 64 records at a time: which ones is found without a
    /// branch, and their slots are touched first, so that the cache misses overlap.
    func fill(half: Int, chains: Chains?) -> (first: Int, second: Int)? {
        let slots = halves[half].buffer, hashes = hashes.buffer
        var repeated: (first: Int, second: Int)? = nil
        var sink: UInt64 = 0
        var block = 0
        while block < hashes.count {
            let end = min(block + 64, hashes.count)
            var mine: UInt64 = 0
            for k in block..<end { mine |= (hashes[k] >> 63 ^ UInt64(half) ^ 1) << UInt64(k - block) }
            var rest = mine
            while rest != 0 {
                sink &+= slots[Int(truncatingIfNeeded: hashes[block + rest.trailingZeroBitCount]) & mask]
                rest &= rest - 1
            }
            rest = mine
            while rest != 0 {
                let k = block + rest.trailingZeroBitCount
                rest &= rest - 1
                let h = hashes[k]
                let (p, r) = find(h, in: slots, hashes)
                if r >= 0 {
                    if repeated == nil { repeated = (r, k) }
                    // A key's records are in this half only, in order: linked as they come.
                    chains?.link(k, to: r)
                    continue
                }
                slots[p] = (h >> 32) << 32 | UInt64(k + 1)
            }
            block = end
        }
        OldKeys.keep(sink)
        return repeated
    }

    /// Keeps the warming reads from being optimised away.
    @inline(never)
    static func keep(_ sink: UInt64) {
        _ = sink
    }
}

/// Where `OldKeys` looks a key hash up first: NEW's scan fetches that slot as soon as it
/// has read a record's key, so that the lookup after the rest of the record need not wait
/// for memory. Plain pointers, read without reference counting in the scan's loop.
struct KeySlots {
    let low: UnsafeMutablePointer<UInt64>, high: UnsafeMutablePointer<UInt64>
    let mask: Int

    @inline(__always)
    func fetch(_ h: UInt64) {
        SystemCalls.prefetch((h >> 63 == 0 ? low : high) + (Int(truncatingIfNeeded: h) & mask))
    }
}

/// Under `--duplicates match`, OLD's records of one key in file order, so that the k-th
/// occurrence of a key in NEW takes the k-th in OLD, as IGListKit pairs them. Linked while
/// OLD's index is built (`OldKeys.build`).
struct Chains: @unchecked Sendable {
    /// The next OLD record of the same key, or -1.
    let next: PageBuffer<Int32>
    /// Each OLD record's occurrence of its key, from 0.
    let occurrence: PageBuffer<UInt32>
    /// Each OLD record's first occurrence of its key (itself for the first).
    let head: PageBuffer<Int32>
    /// For a first occurrence, the last record of its key so far.
    private let tail: PageBuffer<Int32>

    init(count: Int) {
        next = PageBuffer(zeroed: count)
        occurrence = PageBuffer(zeroed: count)
        head = PageBuffer(zeroed: count)
        tail = PageBuffer(zeroed: count)
        let next = next.buffer, head = head.buffer, tail = tail.buffer
        for k in 0..<count {
            next[k] = -1
            head[k] = Int32(truncatingIfNeeded: k)
            tail[k] = Int32(truncatingIfNeeded: k)
        }
    }

    /// Record k has the key of record `first`, its first occurrence.
    @inline(__always)
    func link(_ k: Int, to first: Int) {
        let last = Int(tail[first])
        next[last] = Int32(truncatingIfNeeded: k)
        tail[first] = Int32(truncatingIfNeeded: k)
        head[k] = Int32(truncatingIfNeeded: first)
        occurrence[k] = occurrence[last] + 1
    }
}
