/// A record's hash as the comparison rules see it, read from its JSON bytes without
/// building its value. Two records that are the same under the rules hash alike, and two
/// that differ almost surely do not. So the engine tells that a matched record whose bytes
/// changed is still the same (only an ignored field changed, say) without reading it.
///
/// How each rule enters the hash:
/// - A value left out (`--ignore`, or outside every `--only` path) is not hashed.
/// - An array at an unordered path is hashed as a bag (`CanonicalHash.BagHasher`).
/// - Any other array inside a rule's reach is hashed with each element's index, so that an
///   element left out does not shift the ones after it (as `Comparison.changes` compares
///   arrays index by index).
/// - A string under `--ignore-case` or `--ignore-whitespace` is hashed as normalised.
/// - A number under a tolerance is hashed as one placeholder, because a tolerance is no
///   equivalence that a hash can follow. Equal hashes then prove nothing, and `usedTolerance`
///   tells the caller to compare the values.
/// - A value out of every rule's reach is hashed as `CanonicalHash` hashes it.
///
/// The hash depends on the path alone for which of these applies, so that the same value
/// at the same path always hashes alike.
struct RuleHasher: Sendable {
    /// One step of a rule's path: its name's bytes in `names` (`count` -1 for `*`), and
    /// the index it names when it is one (`0`, `12`, never `012`), else -1.
    struct Segment: Sendable {
        var start: Int32
        var count: Int32
        var index: Int32
    }

    /// Rule r's steps are `segments[first[r]..<first[r + 1]]`; flat, so that matching a
    /// name costs no reference counting.
    let first: [Int]
    let segments: [Segment]
    let names: [UInt8]
    /// Bit r stands for rule r; one mask per kind of rule.
    let ignore: UInt64
    let only: UInt64
    let unordered: UInt64
    let tolerance: UInt64
    let foldCase: UInt64
    let foldWhitespace: UInt64
    /// Rules that change how a value inside their reach is hashed.
    let reshaping: UInt64

    /// Where a value is: rules whose path covers it (`applied`), and rules whose path goes
    /// on below it (`alive`), `depth` segments matched.
    struct State {
        var alive: UInt64
        var applied: UInt64
        var depth: Int
    }

    /// The rules compiled, or nil when there are none that look inside records or more
    /// than 64 (the engine then compares values, as the reference does).
    init?(_ comparison: Comparison) {
        var first = [0], segments: [Segment] = [], names: [UInt8] = []
        var masks = [UInt64](repeating: 0, count: 6)
        let kinds: [[Comparison.Pattern]] = [
            comparison.ignore, comparison.only, comparison.unorderedArrays, comparison.tolerances.map(\.path),
            comparison.ignoreCase, comparison.ignoreWhitespace,
        ]
        for (kind, patterns) in kinds.enumerated() {
            for pattern in patterns {
                guard first.count <= 64 else { return nil }
                masks[kind] |= 1 << UInt64(first.count - 1)
                for s in pattern.segments {
                    let index = Int32(s).flatMap { $0 >= 0 && String($0) == s ? $0 : nil } ?? -1
                    if s == "*" {
                        segments.append(Segment(start: 0, count: -1, index: -1))
                    } else {
                        segments.append(Segment(start: Int32(names.count), count: Int32(s.utf8.count), index: index))
                        names.append(contentsOf: s.utf8)
                    }
                }
                first.append(segments.count)
            }
        }
        guard first.count > 1 else { return nil }
        self.first = first
        self.segments = segments
        self.names = names
        (ignore, only, unordered, tolerance, foldCase, foldWhitespace) = (masks[0], masks[1], masks[2], masks[3], masks[4], masks[5])
        reshaping = unordered | tolerance | foldCase | foldWhitespace
    }

    /// How many steps rule r's path has.
    @inline(__always)
    func length(_ r: Int) -> Int { first[r + 1] - first[r] }

    /// The record itself: rules with the path `/` cover it.
    var root: State {
        var state = State(alive: 0, applied: 0, depth: 0)
        for r in 0..<first.count - 1 {
            if length(r) == 0 { state.applied |= 1 << UInt64(r) } else { state.alive |= 1 << UInt64(r) }
        }
        return state
    }

    /// The state of a member named `name` of the value at `state`.
    @inline(__always)
    func member(_ state: State, _ name: UnsafeRawBufferPointer) -> State {
        step(state) { r in
            let segment = segments[first[r] + state.depth]
            guard segment.count >= 0 else { return true }
            guard Int(segment.count) == name.count else { return false }
            return name.isEmpty
                || names.withUnsafeBufferPointer { names in
                    SystemCalls.compare(names.baseAddress! + Int(segment.start), name.baseAddress!, name.count) == 0
                }
        }
    }

    /// The state of element `index` of the array at `state`.
    @inline(__always)
    func element(_ state: State, _ index: Int) -> State {
        step(state) { r in
            let segment = segments[first[r] + state.depth]
            return segment.count < 0 || Int(segment.index) == index
        }
    }

    @inline(__always)
    private func step(_ state: State, matches: (Int) -> Bool) -> State {
        var next = State(alive: 0, applied: state.applied, depth: state.depth + 1)
        var alive = state.alive
        while alive != 0 {
            let r = alive.trailingZeroBitCount
            alive &= alive - 1
            guard matches(r) else { continue }
            if length(r) == state.depth + 1 { next.applied |= 1 << UInt64(r) } else { next.alive |= 1 << UInt64(r) }
        }
        return next
    }

    /// Whether the value at `state` is left out of the comparison: ignored, or outside
    /// every `--only` path (neither covered by one nor on the way to one).
    @inline(__always)
    func isLeftOut(_ state: State) -> Bool {
        state.applied & ignore != 0 || (only != 0 && (state.applied | state.alive) & only == 0)
    }

    /// Whether the value at `state`, and all inside it, hash as `CanonicalHash` hashes them.
    @inline(__always)
    func isPlain(_ state: State) -> Bool { state.alive == 0 && state.applied & reshaping == 0 }

    /// What a number under a tolerance hashes as.
    static let anyNumber = Hash128(a: 0x746f_6c65_7261_6e63, b: 0x616e_7920_6e75_6d62)
}

extension JSONParser {
    /// The hash of the value at `index` under `rules` (see `RuleHasher`); `usedTolerance`
    /// is set when a number under a tolerance was hashed.
    mutating func ruleHash(_ rules: RuleHasher, _ state: RuleHasher.State, usedTolerance: inout Bool) throws(JSONParseFailure)
        -> Hash128
    {
        if rules.isPlain(state) { return try hashValue() }
        guard index < bytes.count else { throw fail("expected a JSON value, found the end of the input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            var hasher = CanonicalHash.ObjectHasher()
            // The scan checked the text, repeated names included.
            try walkObject(checkingNames: false) { (name, nameHash, parser) throws(JSONParseFailure) in
                let child = rules.member(state, name)
                if rules.isLeftOut(child) {
                    parser.index = JSONParser.skip(parser.bytes, from: parser.index)
                } else if rules.isPlain(child) {
                    var i = parser.index
                    hasher.add(key: nameHash, value: try parser.fastValueHash(parser.bytes.baseAddress!, at: &i, count: parser.bytes.count))
                    parser.index = i
                } else {
                    hasher.add(key: nameHash, value: try parser.ruleHash(rules, child, usedTolerance: &usedTolerance))
                }
            }
            return hasher.finish()
        case UInt8(ascii: "["):
            // Unordered: a bag. Ordered: elements by index (see `RuleHasher`).
            let unordered = state.applied & rules.unordered != 0
            var bag = CanonicalHash.BagHasher()
            var indexed = CanonicalHash.ObjectHasher()
            try walkArray { (k, parser) throws(JSONParseFailure) in
                let child = rules.element(state, k)
                if rules.isLeftOut(child) {
                    parser.index = JSONParser.skip(parser.bytes, from: parser.index)  // (checked by the scan)
                } else {
                    let hash = try parser.ruleHash(rules, child, usedTolerance: &usedTolerance)
                    if unordered { bag.add(hash) } else { indexed.add(key: Self.indexHash(k), value: hash) }
                }
            }
            return unordered ? bag.finish() : Self.indexedArray(indexed)
        case UInt8(ascii: "\""):
            let foldCase = state.applied & rules.foldCase != 0, foldWhitespace = state.applied & rules.foldWhitespace != 0
            guard foldCase || foldWhitespace else { return try hashString() }
            var normalized = Comparison.normalized(try parseString(), foldingCase: foldCase, foldingWhitespace: foldWhitespace)
            return normalized.withUTF8 { CanonicalHash.string(UnsafeRawBufferPointer($0)) }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard state.applied & rules.tolerance != 0 else { return try hashValue() }
            _ = try scanNumber()
            usedTolerance = true
            return RuleHasher.anyNumber
        default:
            return try hashValue()
        }
    }

    @inline(__always)
    static func indexHash(_ k: Int) -> Hash128 {
        Hash128(a: UInt64(truncatingIfNeeded: k) ^ CanonicalHash.p2, b: UInt64(truncatingIfNeeded: k) ^ CanonicalHash.p4)
    }

    /// An array hashed by index, told apart from an object of the same members.
    @inline(__always)
    static func indexedArray(_ hasher: CanonicalHash.ObjectHasher) -> Hash128 {
        let h = hasher.finish()
        return Hash128(a: h.a ^ CanonicalHash.arrayTag, b: h.b ^ CanonicalHash.p1)
    }
}

extension JSONRecords {
    /// The hash under comparison rules (`RuleHasher`) of a record whose text starts at
    /// `offset` in `bytes` (the input, or a copy).
    func ruleHash(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int, _ rules: RuleHasher, usedTolerance: inout Bool)
        throws(ListDiffError) -> Hash128
    {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.index = offset
        parser.depth = depth
        do throws(JSONParseFailure) {
            return try parser.ruleHash(rules, rules.root, usedTolerance: &usedTolerance)
        } catch {
            throw ListDiffError(.io, file: name, "the file changed while it was being read: \(error.message)")
        }
    }
}
