// A diff split by key into shards, each diffed on its own (on other cores, other machines,
// or a cluster's executors), and the shards' changesets joined into the one changeset the
// whole diff gives, byte for byte.
//
// A record falls in the shard `KeyHash.of(key) % count`: both versions of a record meet in
// one shard, so each shard finds its own inserts, deletes and updates. Two things need
// every record: the moves (the fewest moves are a longest increasing run over all matched
// pairs) and the fingerprints (a list's hash runs over its records in order). So a shard
// also writes, for its records, their positions in the whole documents, their hashes and
// its matched pairs, and the join makes the moves and the fingerprints from all of them.

/// One shard of a diff split by key: `index` of `count`, counted from 0.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// The shard, from 0 to `count - 1`.
    public var index: Int
    /// How many shards the diff is split into.
    public var count: Int

    /// Shard `index` of `count`.
    public init(index: Int, of count: Int) throws(ListDiffError) {
        guard count >= 1, count <= 1 << 20, (0..<count).contains(index) else {
            throw ListDiffError(
                .usage, "a shard is I/N with N from 1 to 1048576 and I from 0 to N-1 (counted from 0); got \(index)/\(count)")
        }
        self.index = index
        self.count = count
    }

    /// Reads `I/N` (`0/4` is the first of four shards).
    public init(parsing text: String) throws(ListDiffError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw ListDiffError(.usage, "--partition takes I/N, shard I of N counted from 0 (such as 0/4); got '\(SafeText.escape(text))'")
        }
        try self.init(index: i, of: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether a record with this key falls in this shard.
    func holds(_ key: Value) -> Bool { KeyHash.shard(KeyHash.of(key), of: count) == index }
}

/// Where the records of a shard's inputs stand in the whole documents, when the inputs hold
/// only the shard's records (as a cluster job hands them out): each side's record count and
/// the position of each of its records, in order. Read from JSON:
/// `{"old": {"records": N, "positions": [...]}, "new": {"records": M, "positions": [...]}}`.
public struct ShardPositions: Sendable {
    /// How many records the whole OLD and NEW hold.
    public var oldCount: Int, newCount: Int
    /// The position in the whole document of each record of the shard's OLD, and of its NEW.
    public var old: [Int], new: [Int]
    /// Whether nothing says where the shard's records stand (`unplaced`).
    public private(set) var isUnplaced = false

    /// Positions given as they are.
    public init(oldCount: Int, newCount: Int, old: [Int], new: [Int]) {
        self.oldCount = oldCount
        self.newCount = newCount
        self.old = old
        self.new = new
    }

    /// Inputs that hold only the shard's records, with nothing to say where they stand:
    /// under `--unordered`, where no record moves and NEW is a bag, the join places each
    /// shard's records after those of the shards before it (in shard order), so the joined
    /// changeset is the diff of the records in that order.
    public static var unplaced: ShardPositions {
        var positions = ShardPositions(oldCount: 0, newCount: 0, old: [], new: [])
        positions.isUnplaced = true
        return positions
    }

    /// Reads the JSON form; `name` stands for the text in errors.
    public init(json bytes: [UInt8], name: String) throws(ListDiffError) {
        let (root, source) = try JSONReader().read(bytes, name: name)
        let cursor = ValueCursor(source: source, preorder: 0, kind: .usage)
        guard case .object(let object) = root else { throw cursor.error("shard positions are a JSON object with \"old\" and \"new\"") }
        let fields = cursor.fields(of: object)
        func side(_ which: String) throws(ListDiffError) -> (Int, [Int]) {
            guard let (value, at) = fields[which], case .object(let o) = value else {
                throw cursor.error("shard positions need \"\(which)\": {\"records\": N, \"positions\": [...]}")
            }
            let members = at.fields(of: o)
            guard let (n, _) = members["records"], let total = ShardPart.integer(n), total >= 0 else {
                throw at.error("\"\(which)\" needs \"records\", the whole document's record count")
            }
            guard let (list, listAt) = members["positions"], case .array(let items) = list else {
                throw at.error("\"\(which)\" needs \"positions\", an array of record positions")
            }
            var positions: [Int] = []
            positions.reserveCapacity(items.count)
            for (item, itemAt) in listAt.elements(of: items) {
                guard let p = ShardPart.integer(item), (0..<total).contains(p), positions.last.map({ $0 < p }) ?? true else {
                    throw itemAt.error("positions must rise, each from 0 to \(total - 1)")
                }
                positions.append(p)
            }
            return (total, positions)
        }
        (oldCount, old) = try side("old")
        (newCount, new) = try side("new")
    }
}

/// What a shard adds to its changeset so that the shards can be joined: its records'
/// positions and hashes, and its matched pairs (`matched`, for the moves of a list whose
/// order counts).
package struct ShardPart: Sendable {
    var shard: Shard
    /// Each side's records in this shard: their positions in the whole document, in order.
    var oldPositions: [Int] = [], newPositions: [Int] = []
    /// A list's records' hashes, in the order of the positions (NEW's: the hash of the
    /// record the result holds there, which under comparison rules may be OLD's); empty
    /// when the side is summed instead.
    var oldHashes: [Hash128] = [], newHashes: [Hash128] = []
    /// The side's part of a hash that adds up (a map's members, an unordered NEW): the sum
    /// of the members' or records' mixed hashes.
    var oldSum: Hash128?, newSum: Hash128?
    /// OLD and NEW positions of each matched record, NEW's order, with its key and
    /// occurrence (`--duplicates match`): a record the join finds moved is named so. A
    /// spill keeps no key here: it reads a moved record's key again from its spill file.
    var matched: [(old: Int, new: Int, key: Value?, occurrence: Int?)] = []
    /// Whether the shard's records stand at 0 onward in the shard alone (`unplaced`): the
    /// join moves them past the shards before it.
    var unplaced = false
    /// When records sit in sections: each side's sections, in order (their names are the
    /// changeset's). The join needs them to place records in sections, to keep moves
    /// within a section pair as the whole diff does, and to hash each document.
    var oldSections: [SectionFrame] = [], newSections: [SectionFrame] = []

    /// One section of a document, as a shard hands it to the join: how many records it
    /// holds, and its section object's other members (nil in an object of lists).
    struct SectionFrame: Sendable, Equatable {
        var records: Int
        var header: Value?
    }

    /// Puts in `keys` the key of each matched pair whose NEW position it holds.
    func fillKeys(_ keys: inout [Int: Value]) {
        for m in matched where keys[m.new] != nil { keys[m.new] = m.key ?? .null }
    }

    /// `fillKeys` from a shard's JSON, read before as a whole: only its matched pairs are
    /// read (values are skipped, not built). False when the text is not as `render` writes
    /// it; then the caller reads it whole.
    static func fillKeys(_ keys: inout [Int: Value], fromJSON bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, maxDepth: ChangesetReader().maxDepth)
            parser.recordsOffsets = false
            parser.skipWhitespace()
            let giveUp = JSONParseFailure(offset: 0, message: "")
            do throws(JSONParseFailure) {
                guard parser.at(UInt8(ascii: "{")) else { return false }
                try parser.walkObject(checkingNames: false) { (name, _, parser) throws(JSONParseFailure) in
                    guard name.elementsEqual("shard".utf8), parser.at(UInt8(ascii: "{")) else { return try parser.checkValue() }
                    try parser.walkObject(checkingNames: false) { (name, _, parser) throws(JSONParseFailure) in
                        guard name.elementsEqual("matched".utf8), parser.at(UInt8(ascii: "[")) else { return try parser.checkValue() }
                        try parser.walkArray { (_, parser) throws(JSONParseFailure) in
                            guard case .array(let pair) = try parser.parseValue(), pair.count >= 3, let j = integer(pair[1]) else {
                                throw giveUp
                            }
                            if keys[j] != nil { keys[j] = pair[2] }
                        }
                    }
                }
                try parser.end()
                return true
            } catch {
                return false
            }
        }
    }

    static func integer(_ value: Value) -> Int? {
        if case .number(let n) = value, let i = Int(n.text) { return i }
        return nil
    }
}

/// A shard's changeset: the changes of the records in the shard, at their positions in the
/// whole documents, without moves; and the part the join needs.
public struct ShardChangeset: Sendable {
    /// The shard's changes; its counts and fingerprints (when known) are the whole
    /// documents'.
    public internal(set) var changeset: Changeset
    var part: ShardPart

    /// Which shard this is.
    public var shard: Shard { part.shard }

    /// Writes it as JSON: the changeset as `JSONChangesetRenderer` writes it, with a
    /// `shard` member added last.
    public func render(context: RenderContext, bytes out: (UnsafeRawBufferPointer) -> Void) throws(ListDiffError) {
        var text: [UInt8] = []
        try JSONChangesetRenderer(context: context).render(changeset) { text.append(contentsOf: $0) }
        // The changeset ends with "\n}\n": the shard member goes before the brace.
        text.removeLast(3)
        var buffer = JSONBytes(capacity: 1 << 16)
        buffer.append(",\n  \"shard\": {\"index\": ", int: part.shard.index)
        buffer.append(", \"count\": ", int: part.shard.count)
        if part.unplaced { buffer.append(", \"placed\": false") }
        let sectioned = changeset.layout.isSectioned
        func side(_ name: StaticString, _ positions: [Int], _ hashes: [Hash128], _ sum: Hash128?, _ sections: [ShardPart.SectionFrame]) {
            buffer.append(",\n    \"")
            buffer.append(name)
            buffer.append("\": {\"positions\": [")
            for (k, p) in positions.enumerated() {
                if k > 0 { buffer.append(",") }
                buffer.append(int: p)
            }
            buffer.append("]")
            if let sum {
                buffer.append(", \"sum\": ", string: sum.hex)
            } else {
                buffer.append(", \"hashes\": \"")
                for h in hashes { buffer.append(raw: h.hex) }
                buffer.append("\"")
            }
            if sectioned {
                buffer.append(", \"sections\": [")
                for (k, section) in sections.enumerated() {
                    buffer.append(k == 0 ? "{\"records\": " : ", {\"records\": ", int: section.records)
                    if let header = section.header { buffer.append(", \"header\": ", value: header) }
                    buffer.append("}")
                }
                buffer.append("]")
            }
            buffer.append("}")
        }
        side("old", part.oldPositions, part.oldHashes, part.oldSum, part.oldSections)
        side("new", part.newPositions, part.newHashes, part.newSum, part.newSections)
        buffer.append(",\n    \"matched\": [")
        for (k, m) in part.matched.enumerated() {
            buffer.append(k == 0 ? "[" : ",[")
            buffer.append(int: m.old)
            buffer.append(",", int: m.new)
            buffer.append(",", value: m.key ?? .null)
            if let occurrence = m.occurrence { buffer.append(",", int: occurrence) }
            buffer.append("]")
        }
        buffer.append("]}\n}\n")
        text.append(contentsOf: buffer.bytes)
        text.withUnsafeBytes { out($0) }
    }

    /// Reads a shard's changeset written by `render`; `name` stands for it in errors.
    public init(json bytes: [UInt8], name: String) throws(ListDiffError) {
        var reader = ChangesetReader()
        reader.acceptsShards = true
        let (changeset, root, cursor) = try reader.readWithRoot(bytes, name: name)
        guard case .object(let object) = root, let (value, at) = cursor.fields(of: object)["shard"], case .object(let o) = value
        else {
            throw cursor.error("this changeset is not a shard's (it has no \"shard\" member): only --partition writes shards to join")
        }
        let fields = at.fields(of: o)
        guard let index = fields["index"].flatMap({ ShardPart.integer($0.0) }),
            let count = fields["count"].flatMap({ ShardPart.integer($0.0) })
        else { throw at.error("\"shard\" needs \"index\" and \"count\"") }
        var part = ShardPart(shard: try Shard(index: index, of: count))
        if let (placed, placedAt) = fields["placed"] {
            guard case .bool(let b) = placed else { throw placedAt.error("\"placed\" is true or false") }
            part.unplaced = !b
        }
        func side(_ which: String) throws(ListDiffError) -> ([Int], [Hash128], Hash128?, [ShardPart.SectionFrame]) {
            guard let (v, sideAt) = fields[which], case .object(let s) = v, let (list, listAt) = sideAt.fields(of: s)["positions"],
                case .array(let items) = list
            else { throw at.error("\"shard\" needs \"\(which)\": {\"positions\": [...], ...}") }
            var positions: [Int] = []
            positions.reserveCapacity(items.count)
            for (item, itemAt) in listAt.elements(of: items) {
                guard let p = ShardPart.integer(item), p >= 0 else { throw itemAt.error("a position is a whole number from 0") }
                positions.append(p)
            }
            let members = sideAt.fields(of: s)
            var sections: [ShardPart.SectionFrame] = []
            if changeset.layout.isSectioned {
                let shape = "\"\(which)\" needs \"sections\": [{\"records\": N, \"header\": {...}}, ...], one for each of its sections"
                guard let (list, sectionsAt) = members["sections"], case .array(let items) = list else { throw sideAt.error(shape) }
                for (item, itemAt) in sectionsAt.elements(of: items) {
                    guard case .object(let o) = item, let n = o["records"].flatMap(ShardPart.integer), n >= 0 else {
                        throw itemAt.error(shape)
                    }
                    sections.append(ShardPart.SectionFrame(records: n, header: o["header"]))
                }
            }
            if let (sum, sumAt) = members["sum"] {
                guard case .string(let hex) = sum, let h = Self.hashes(hex), h.count == 1 else {
                    throw sumAt.error("\"sum\" is 32 hex digits")
                }
                return (positions, [], h[0], sections)
            }
            guard let (text, _) = members["hashes"], case .string(let hex) = text, let hashes = Self.hashes(hex),
                hashes.count == positions.count
            else { throw sideAt.error("\"\(which)\" needs \"hashes\": 32 hex digits for each position") }
            return (positions, hashes, nil, sections)
        }
        (part.oldPositions, part.oldHashes, part.oldSum, part.oldSections) = try side("old")
        (part.newPositions, part.newHashes, part.newSum, part.newSections) = try side("new")
        if let (list, listAt) = fields["matched"] {
            guard case .array(let items) = list else { throw listAt.error("\"matched\" is an array") }
            part.matched.reserveCapacity(items.count)
            for (item, itemAt) in listAt.elements(of: items) {
                guard case .array(let e) = item, e.count == 3 || e.count == 4, let i = ShardPart.integer(e[0]),
                    let j = ShardPart.integer(e[1])
                else { throw itemAt.error("a matched pair is [old, new, key] or [old, new, key, occurrence]") }
                part.matched.append((i, j, e[2], e.count == 4 ? ShardPart.integer(e[3]) : nil))
            }
        }
        self.changeset = changeset
        self.part = part
    }

    init(changeset: Changeset, part: ShardPart) {
        self.changeset = changeset
        self.part = part
    }

    /// Hashes from their hex digits, 32 each; nil for anything else.
    static func hashes(_ hex: String) -> [Hash128]? {
        let bytes = Array(hex.utf8)
        guard bytes.count % 32 == 0 else { return nil }
        var out: [Hash128] = []
        out.reserveCapacity(bytes.count / 32)
        var k = 0
        while k < bytes.count {
            var words: [UInt64] = [0, 0]
            for w in 0..<2 {
                for d in bytes[(k + 16 * w)..<(k + 16 * w + 16)] {
                    let v: UInt8
                    switch d {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): v = d - UInt8(ascii: "0")
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): v = d - UInt8(ascii: "a") + 10
                    default: return nil
                    }
                    words[w] = words[w] << 4 | UInt64(v)
                }
            }
            out.append(Hash128(a: words[0], b: words[1]))
            k += 32
        }
        return out
    }
}

extension FileDiffer {
    /// Each record's key hash (`KeyHash`), in the order of the records, for the file at
    /// `path` read as a diff reads an input (its keys checked as the diff checks them).
    public func keyHashes(_ path: String) throws(ListDiffError) -> [UInt64] {
        let side = try checkedSide(path)
        if side.hashing == KeyHashing(), side.table.keyHashes.count == side.count, side.layout.shape != .pattern {
            return (0..<side.count).map { side.table.keyHashes[$0] }
        }
        return try Self.read(side, reader.key)
    }

    /// Each record's key hash, from its key read again.
    static func read(_ side: Engine.Side, _ key: IdentityKey) throws(ListDiffError) -> [UInt64] {
        var hashes: [UInt64] = []
        hashes.reserveCapacity(side.count)
        for r in 0..<side.count { hashes.append(KeyHash.of(try side.records.key(r, key))) }
        return hashes
    }

    /// Each record's key hash (`KeyHash`) on both sides of a diff: the scan's, when it made
    /// them with the documented hash (a NEW record's is its OLD match's, or the one it kept
    /// for a record with none); else from each record's key, read again. (Under a `*` path
    /// the scan mixes each list's name into its keys' hashes: the keys are read again.)
    static func keyHashes(_ old: Engine.Side, _ new: Engine.Side, _ key: IdentityKey) throws(ListDiffError) -> ([UInt64], [UInt64]) {
        guard old.hashing == KeyHashing(), new.hashing == KeyHashing(), old.table.keyHashes.count == old.count,
            new.table.matches.count == new.count, old.layout.shape != .pattern
        else { return (try read(old, key), try read(new, key)) }
        let oldHashes = (0..<old.count).map { old.table.keyHashes[$0] }
        var strangers: [Int: UInt64] = [:]
        for k in 0..<new.table.strangers.count { strangers[new.table.strangers[k].record] = new.table.strangers[k].keyHash }
        var newHashes: [UInt64] = []
        newHashes.reserveCapacity(new.count)
        for j in 0..<new.count {
            let m = Int(new.table.matches[j])
            if m >= 0 {
                newHashes.append(oldHashes[m])
            } else if let h = strangers[j] {
                newHashes.append(h)
            } else {
                newHashes.append(KeyHash.of(try new.records.key(j, key)))
            }
        }
        return (oldHashes, newHashes)
    }

    /// The changeset of one shard: the changes of the records whose keys fall in `shard`.
    ///
    /// Without `positions`, OLD and NEW are the whole documents: they are read and checked
    /// whole (so every error is the whole diff's), and the shard's records are picked from
    /// them. With `positions`, they hold only the shard's records, which are checked to fall
    /// in it, and `positions` says where they stand in the whole documents.
    ///
    /// - Throws: the whole diff's errors; a `.usage` error for what a shard cannot do yet
    ///   (sections, `--key .`, `--sorted`, `--renames`, an algorithm other than Heckel's); a `.key` error
    ///   for a record of a pre-split input outside the shard.
    public func diffShard(old: String, new: String, shard: Shard, positions: ShardPositions? = nil) throws(ListDiffError)
        -> ShardChangeset
    {
        if sorted { throw ListDiffError(.usage, "--partition reads its inputs whole; --sorted does not go with it") }
        if differ.renames != nil {
            throw ListDiffError(
                .usage, "--partition splits records by key; --renames pairs records whose keys differ, which may fall in two shards")
        }
        if reader.key.isWholeRecord {
            throw ListDiffError(.usage, "--partition splits records by key; --key . diffs a sequence, which needs the whole list")
        }
        if !(differ.algorithm is HeckelDiff) {
            throw ListDiffError(
                .usage,
                "--partition leaves the moves to 'listdiff join', which pairs records as Heckel's algorithm does; --algorithm \(differ.algorithm.name) does not go with it"
            )
        }
        if positions?.isUnplaced == true, !differ.comparison.unorderedRecords {
            throw ListDiffError(
                .usage,
                "--pre-split shards carry no positions, which only --unordered can do without: the moves and OLD's fingerprint need every record's place (give --shard-positions)"
            )
        }
        var files = self
        files.forShard = true
        // (A shard reads its inputs whole: a cluster hands it a part that fits.)
        files.memoryLimit = nil
        return try shardChangeset(files.diff(old: old, new: new), shard: shard, positions: positions, names: (old, new))
    }

    /// The shard's changeset from a diff run for it (`forShard`), as `diffShard` describes.
    /// `keys`: whether its matched pairs carry their keys (a spill reads them again).
    /// `sections`: a spill's partition of records in sections, which holds the records
    /// alone: the whole documents' sections, which `positions` (counted over each whole
    /// document) fall in.
    func shardChangeset(
        _ result: Result, shard: Shard, positions: ShardPositions?, names: (old: String, new: String), keys: Bool = true,
        sections spilled: SpilledSections? = nil
    ) throws(ListDiffError) -> ShardChangeset {
        let (old, new) = names
        guard let (oldSide, _) = result.old, let newSide = result.new else {
            throw ListDiffError(.usage, "--partition needs both inputs scanned whole")
        }
        // Records in sections are placed by the sections of the whole documents, which a
        // pre-split input does not hold. (Two empty objects hold no section: nothing to place.)
        let layout = result.changeset.layout
        let sectioned = layout.isSectioned || spilled != nil
        guard positions == nil || !layout.isSectioned || oldSide.sections.isEmpty && newSide.sections.isEmpty else {
            throw ListDiffError(
                .usage,
                "shard positions place the records of one list; records in sections (\(layout)) are split from the whole inputs (leave out --shard-positions and --pre-split)"
            )
        }
        let newToOld = newSide.newToOld ?? PageBuffer<Int32>(zeroed: 0)
        let key = reader.key
        let (oldKeyHashes, newKeyHashes) = try Self.keyHashes(oldSide, newSide, key)
        func holds(_ hash: UInt64) -> Bool { KeyHash.shard(hash, of: shard.count) == shard.index }
        let oldHashes = try oldSide.recordHashes(), newHashes = try newSide.recordHashes()
        // Which records are the shard's, and where each stands in the whole document.
        var oldPick: [Int] = [], newPick: [Int] = []
        var oldAt: (Int) -> Int = { $0 }, newAt: (Int) -> Int = { $0 }
        var changeset = result.changeset
        if var positions {
            if positions.isUnplaced {
                // (The shard's records alone, at 0 onward: the join places them.)
                positions = ShardPositions(
                    oldCount: oldSide.count, newCount: newSide.count, old: Array(0..<oldSide.count), new: Array(0..<newSide.count))
            }
            for (side, hashes, given, name) in [(oldSide, oldKeyHashes, positions.old, old), (newSide, newKeyHashes, positions.new, new)] {
                guard given.count == hashes.count else {
                    throw ListDiffError(
                        .usage, "the shard positions give \(given.count) positions for \(name), which holds \(hashes.count) records")
                }
                if let r = hashes.firstIndex(where: { !holds($0) }) {
                    let written = KeyFormatter(key).format(try side.records.key(r, key), selfKeyed: false, occurrence: nil)
                    throw ListDiffError(
                        .key, file: side.file.name, location: side.records.location(r),
                        "the key \(written) falls in shard \(KeyHash.shard(hashes[r], of: shard.count)) of \(shard.count), not in shard \(shard.index)"
                    )
                }
            }
            oldPick = Array(0..<oldSide.count)
            newPick = Array(0..<newSide.count)
            oldAt = { positions.old[$0] }
            newAt = { positions.new[$0] }
            changeset.oldCount = positions.oldCount
            changeset.newCount = positions.newCount
            changeset.oldSections = .plain(positions.oldCount)
            changeset.newSections = .plain(positions.newCount)
            // Only the shard's records were read: the whole documents' fingerprints are the join's.
            changeset.fingerprints = nil
        } else {
            oldPick = oldKeyHashes.indices.filter { holds(oldKeyHashes[$0]) }
            newPick = newKeyHashes.indices.filter { holds(newKeyHashes[$0]) }
        }
        // The shard's changes, at their places in the whole documents.
        // A change is the shard's when its record is: picked by the hash the scan gave its
        // key (under a `*` path, a key's hash is its list's too), counted over the whole
        // document when records sit in sections.
        var picked = [Bool](repeating: positions != nil, count: newSide.count),
            oldPicked = [Bool](repeating: positions != nil, count: oldSide.count)
        if positions == nil {
            for j in newPick { picked[j] = true }
            for i in oldPick { oldPicked[i] = true }
        }
        func record(_ p: RecordPosition, _ side: Engine.Side) -> Int { side.sectionStarts[p.section] + p.index }
        var updated = [Bool](repeating: false, count: newSide.count)
        var changes: [Change] = []
        var summary = Changeset.Summary()
        for var change in changeset.changes {
            if let p = change.new {
                guard picked[record(p, newSide)] else { continue }
            } else if let p = change.old {
                guard oldPicked[record(p, oldSide)] else { continue }
            }
            if change.operation == .update, let p = change.new { updated[record(p, newSide)] = true }
            switch change.operation {
            case .insert: summary.inserted += 1
            case .delete: summary.deleted += 1
            case .update: summary.updated += 1
            case .move: summary.moved += 1
            case .rename: summary.renamed += 1  // (never: a shard refuses --renames)
            }
            if let p = change.old { change.old = RecordPosition(section: p.section, index: oldAt(p.index)) }
            if let p = change.new { change.new = RecordPosition(section: p.section, index: newAt(p.index)) }
            if let spilled {
                change.old = change.old.map { RecordPosition.of($0.index, starts: spilled.oldStarts) }
                change.new = change.new.map { RecordPosition.of($0.index, starts: spilled.newStarts) }
            }
            changes.append(change)
        }
        var part = ShardPart(shard: shard)
        part.unplaced = positions?.isUnplaced ?? false
        part.oldPositions = oldPick.map(oldAt)
        part.newPositions = newPick.map(newAt)
        // The hash of what the result holds at each NEW position: OLD's record where the
        // record did not change (under comparison rules they may differ in bytes), else NEW's.
        func resulting(_ j: Int) -> Hash128 {
            let i = Int(newToOld[j])
            return i >= 0 && !updated[j] ? oldHashes[i] : newHashes[j]
        }
        var matched = 0
        for j in newPick where newToOld[j] >= 0 { matched += 1 }
        summary.unchanged = matched - summary.updated
        if let names = oldSide.records.names, let newNames = newSide.records.names {
            // A map: its members add up, in any order.
            var a = CanonicalHash.ObjectHasher(), b = CanonicalHash.ObjectHasher()
            for r in oldPick { a.add(key: names.hashes[r], value: oldHashes[r]) }
            for j in newPick { b.add(key: newNames.hashes[j], value: resulting(j)) }
            part.oldSum = a.sum
            part.newSum = b.sum
        } else {
            part.oldHashes = oldPick.map { oldHashes[$0] }
            if let spilled {
                (part.oldSections, part.newSections) = (spilled.oldFrames, spilled.newFrames)
            } else if sectioned {
                part.oldSections = oldSide.sections.map { ShardPart.SectionFrame(records: $0.records.count, header: $0.header) }
                part.newSections = newSide.sections.map { ShardPart.SectionFrame(records: $0.records.count, header: $0.header) }
            }
            // (Under `--unordered` a record that changes section moves: sections need the pairs.)
            if differ.comparison.unorderedRecords, !sectioned {
                // NEW's order means nothing: its records are a bag, which adds up.
                var bag = CanonicalHash.BagHasher()
                for j in newPick { bag.add(resulting(j)) }
                part.newSum = bag.sum
            } else {
                part.newHashes = newPick.map(resulting)
                part.matched.reserveCapacity(matched)
                for j in newPick where newToOld[j] >= 0 {
                    let i = Int(newToOld[j])
                    part.matched.append((oldAt(i), newAt(j), keys ? try newSide.records.key(j, key) : nil, oldSide.occurrence(i)))
                }
            }
        }
        changeset.changes = changes
        changeset.summary = summary
        if let spilled {
            changeset.layout = spilled.layout
            changeset.sections = spilled.changes
            (changeset.oldSections, changeset.newSections) = (spilled.oldOutline, spilled.newOutline)
        }
        return ShardChangeset(changeset: changeset, part: part)
    }
}

extension Changeset {
    /// Joins the changesets of every shard of one diff into the changeset of the whole diff,
    /// as a diff of the whole documents writes it: the shards' changes in order, the fewest
    /// moves found over every matched pair, and both fingerprints.
    ///
    /// - Parameter shards: each shard's changeset and the name that stands for it in errors,
    ///   in any order.
    /// - Throws: a `.changeset` error, naming a shard, when a shard is missing or given twice,
    ///   when two shards come from different diffs (their settings, record counts or
    ///   fingerprints differ), when their records do not cover the documents once, or when
    ///   the fingerprints they name are not those of their records.
    public static func joined(_ shards: [(ShardChangeset, name: String)]) throws(ListDiffError) -> Changeset {
        let shards = try placed(shards)
        return try joined(count: shards.count, { shards[$0] }, keys: { k, keys in shards[k].0.part.fillKeys(&keys) })
    }

    /// Joins the shards' changesets in the files at `paths` (`-` for standard input), as
    /// `joined(_:)` does, holding one shard at a time: each file is read to be added, and
    /// read again for the keys of the records the join finds moved. (Shards that carry no
    /// positions are placed by those before them, and read all at once: they hold no
    /// matched pairs.)
    ///
    /// - Throws: `joined(_:)`'s errors, and a file's read or syntax error.
    public static func joined(files paths: [String]) throws(ListDiffError) -> Changeset {
        var standardInput: ShardChangeset? = nil
        // Each file's hash as first read: read again, it must be the same text.
        var digests = [Hash128?](repeating: nil, count: paths.count)
        func digest(_ bytes: [UInt8]) -> Hash128 { bytes.withUnsafeBytes { CanonicalHash.string($0) } }
        func read(_ k: Int) throws(ListDiffError) -> (ShardChangeset, name: String) {
            // (Standard input is read once, and kept.)
            if paths[k] == "-", let standardInput { return (standardInput, paths[k]) }
            let bytes = try InputFile.read(paths[k])
            let shard = try ShardChangeset(json: bytes, name: paths[k])
            if paths[k] == "-" { standardInput = shard } else { digests[k] = digest(bytes) }
            return (shard, paths[k])
        }
        guard !paths.isEmpty else { throw ListDiffError(.usage, "join needs the changeset of every shard") }
        var first: (ShardChangeset, name: String)? = try read(0)
        if first!.0.part.unplaced { return try joined(try paths.indices.map { k throws(ListDiffError) in try read(k) }) }
        return try joined(
            count: paths.count,
            { k throws(ListDiffError) in
                if k == 0, let shard = first {
                    first = nil
                    return shard
                }
                return try read(k)
            },
            keys: { k, keys throws(ListDiffError) in
                if paths[k] == "-", let standardInput {
                    standardInput.part.fillKeys(&keys)
                } else {
                    let bytes = try InputFile.read(paths[k])
                    guard digest(bytes) == digests[k] else {
                        throw ListDiffError(.io, file: paths[k], "the file changed while it was being read: join it again")
                    }
                    // (Only the matched pairs are read, when the text is as listdiff writes it.)
                    if !ShardPart.fillKeys(&keys, fromJSON: bytes) { try ShardChangeset(json: bytes, name: paths[k]).part.fillKeys(&keys) }
                }
            })
    }

    /// Joins `count` shards, each given by `shard(k)` to be added to the join; then
    /// `keys(k, &keys)` gives the keys of shard k's records the join finds moved (by their
    /// NEW position), when any moved.
    static func joined(
        count: Int, _ shard: (Int) throws(ListDiffError) -> (ShardChangeset, name: String),
        keys shardKeys: (Int, inout [Int: Value]) throws(ListDiffError) -> Void
    ) throws(ListDiffError) -> Changeset {
        guard count > 0 else { throw ListDiffError(.usage, "join needs the changeset of every shard") }
        var join: ShardJoin? = nil
        for k in 0..<count {
            let (next, name) = try shard(k)
            if join == nil { join = ShardJoin(next, name: name) }
            try join!.add(next, name: name)
        }
        return try join!.finish { (moved: [(old: Int, new: Int)]) throws(ListDiffError) -> [ShardJoin.MovedKey] in
            guard !moved.isEmpty else { return [] }
            var keys: [Int: Value] = [:]
            for m in moved { keys[m.new] = .null }
            for k in 0..<count { try shardKeys(k, &keys) }
            // (A shard's matched pair carries its key, not whether its record is a scalar.)
            return moved.map { ShardJoin.MovedKey(key: keys[$0.new] ?? .null, bySelf: false) }
        }
    }

    /// Shards that carry no positions (`ShardPositions.unplaced`), placed one after another
    /// in shard order: each shard's records after those of the shards before it, the
    /// documents' counts the sums of theirs. Others as they are.
    static func placed(_ shards: [(ShardChangeset, name: String)]) throws(ListDiffError) -> [(ShardChangeset, name: String)] {
        guard let unplaced = shards.first(where: { $0.0.part.unplaced }) else { return shards }
        if let placed = shards.first(where: { !$0.0.part.unplaced }) { throw mixedPlacing(unplaced: unplaced.name, placed: placed.name) }
        let ordered = shards.sorted { $0.0.shard.index < $1.0.shard.index }
        let oldTotal = ordered.reduce(0) { $0 + $1.0.changeset.oldCount }
        let newTotal = ordered.reduce(0) { $0 + $1.0.changeset.newCount }
        var oldOffset = 0, newOffset = 0
        var out: [(ShardChangeset, name: String)] = []
        for (shard, name) in ordered {
            var c = shard.changeset, part = shard.part
            func shifted(_ p: RecordPosition?, by offset: Int) -> RecordPosition? {
                p.map { RecordPosition(section: $0.section, index: $0.index + offset) }
            }
            for k in c.changes.indices {
                c.changes[k].old = shifted(c.changes[k].old, by: oldOffset)
                c.changes[k].new = shifted(c.changes[k].new, by: newOffset)
            }
            part.oldPositions = part.oldPositions.map { $0 + oldOffset }
            part.newPositions = part.newPositions.map { $0 + newOffset }
            part.matched = part.matched.map { ($0.old + oldOffset, $0.new + newOffset, $0.key, $0.occurrence) }
            oldOffset += c.oldCount
            newOffset += c.newCount
            c.oldCount = oldTotal
            c.newCount = newTotal
            c.oldSections = .plain(oldTotal)
            c.newSections = .plain(newTotal)
            out.append((ShardChangeset(changeset: c, part: part), name))
        }
        return out
    }

    /// The error for shards that carry positions joined with shards that carry none.
    static func mixedPlacing(unplaced: String, placed: String) -> ListDiffError {
        ListDiffError(
            .changeset, file: unplaced, "this shard carries no positions (--pre-split) and \(placed) does: the shards are not of one split")
    }

    /// What differs between two shards' settings, or nil when they are of one diff.
    static func difference(_ a: Changeset, _ b: Changeset) -> String? {
        if a.key.spellings != b.key.spellings { return "key" }
        if a.algorithm != b.algorithm { return "algorithm" }
        if a.duplicates != b.duplicates { return "duplicates policy" }
        if a.comparison.value != b.comparison.value { return "comparison" }
        if a.memberOrderSignificant != b.memberOrderSignificant { return "member order" }
        if a.layout != b.layout { return "layout" }
        if a.oldSections.names != b.oldSections.names || a.newSections.names != b.newSections.names { return "list of sections" }
        if a.sections != b.sections { return "list of section changes" }
        if a.oldCount != b.oldCount || a.newCount != b.newCount { return "record count" }
        if a.fingerprints != b.fingerprints { return "fingerprint" }
        if a.configurationFiles != b.configurationFiles { return "configuration" }
        if a.inputNames?.old != b.inputNames?.old || a.inputNames?.new != b.inputNames?.new { return "input names" }
        return nil
    }
}

/// The whole diff's changeset, made from its shards one at a time. It keeps each record's
/// hash and match, and the shards' changes; the rest of a shard can go once it is added.
struct ShardJoin {
    private let first: Changeset
    private let firstName: String, firstShard: Shard
    /// Whether the first shard carries no positions: every shard must agree.
    private let unplaced: Bool
    private var byIndex: [String?]
    private let oldCount: Int, newCount: Int
    private var oldHashes: [Hash128], newHashes: [Hash128]
    private var oldSeen: [Bool], newSeen: [Bool]
    private var oldSum = Hash128(a: 0, b: 0), newSum = Hash128(a: 0, b: 0)
    /// Each OLD record's NEW match, or -1.
    private var oldToNew: [Int32]
    /// Under `--duplicates match`: the occurrence of each matched NEW record's key.
    private var occurrences: [Int32: Int] = [:]
    private var deletes: [(position: Int, change: Change)] = [], others: [(position: Int, rank: Int, change: Change)] = []
    private var summary = Changeset.Summary()
    private var updatedAt = Set<Int>()
    /// When records sit in sections: each side's sections (the first shard's, which every
    /// shard must give), and where each starts in the whole document's records.
    private let oldSections: [ShardPart.SectionFrame], newSections: [ShardPart.SectionFrame]
    private let oldStarts: [Int], newStarts: [Int]
    /// Whether the shards are a spill's partitions, made in this run: they hold the records
    /// alone, so they name no fingerprints.
    private let spilled: Bool

    /// A join whose first shard (named `name` in errors) is `first`.
    init(_ first: ShardChangeset, name: String, spilled: Bool = false) {
        self.spilled = spilled
        self.first = first.changeset
        firstName = name
        firstShard = first.shard
        unplaced = first.part.unplaced
        byIndex = [String?](repeating: nil, count: first.shard.count)
        oldCount = first.changeset.oldCount
        newCount = first.changeset.newCount
        oldSections = first.part.oldSections
        newSections = first.part.newSections
        oldStarts = RecordPosition.starts(oldSections.map(\.records))
        newStarts = RecordPosition.starts(newSections.map(\.records))
        oldHashes = [Hash128](repeating: Hash128(a: 0, b: 0), count: oldCount)
        newHashes = [Hash128](repeating: Hash128(a: 0, b: 0), count: newCount)
        oldSeen = [Bool](repeating: false, count: oldCount)
        newSeen = [Bool](repeating: false, count: newCount)
        oldToNew = [Int32](repeating: -1, count: oldCount)
    }

    /// Takes in one shard, after checking it belongs to the same diff.
    mutating func add(_ shard: ShardChangeset, name: String) throws(ListDiffError) {
        func refuse(_ message: String) -> ListDiffError { ListDiffError(.changeset, file: name, message) }
        guard shard.shard.count == byIndex.count else {
            throw refuse("this is shard \(shard.shard) but \(firstName) is shard \(firstShard): the shards are of different splits")
        }
        if let other = byIndex[shard.shard.index] {
            throw refuse("shard \(shard.shard) is given twice (also as \(other))")
        }
        byIndex[shard.shard.index] = name
        if shard.part.unplaced != unplaced {
            throw unplaced
                ? Changeset.mixedPlacing(unplaced: firstName, placed: name) : Changeset.mixedPlacing(unplaced: name, placed: firstName)
        }
        if let difference = Changeset.difference(first, shard.changeset)
            ?? (shard.part.oldSections != oldSections || shard.part.newSections != newSections ? "list of sections" : nil)
        {
            throw refuse("this shard is not of the diff \(firstName) is a shard of: its \(difference) differs")
        }
        if first.layout.isSectioned,
            oldSections.count != first.oldSections.names.count || newSections.count != first.newSections.names.count
                || oldSections.reduce(0, { $0 + $1.records }) != oldCount || newSections.reduce(0, { $0 + $1.records }) != newCount
        {
            throw refuse("its sections do not hold the documents' records, or are not the sections it names")
        }
        let part = shard.part
        try Self.cover(part.oldPositions, part.oldHashes, &oldSeen, &oldHashes, "OLD", name)
        try Self.cover(part.newPositions, part.newHashes, &newSeen, &newHashes, "NEW", name)
        if let s = part.oldSum { oldSum = Hash128(a: oldSum.a &+ s.a, b: oldSum.b &+ s.b) }
        if let s = part.newSum { newSum = Hash128(a: newSum.a &+ s.a, b: newSum.b &+ s.b) }
        for m in part.matched {
            guard m.old < oldCount, m.new < newCount, oldToNew[m.old] < 0 else {
                throw ListDiffError(.changeset, "the matched pair [\(m.old), \(m.new)] is out of place: the shards are not of one diff")
            }
            oldToNew[m.old] = Int32(m.new)
            if let occurrence = m.occurrence { occurrences[Int32(m.new)] = occurrence }
        }
        // The changes in the whole diff's order: deletes by old position, then inserts,
        // moves and updates by new position (a record's move before its update).
        summary.unchanged += shard.changeset.summary.unchanged
        // (Positions in sections are ordered as the records they name, counted over the document.)
        func old(_ change: Change) -> Int { change.old.map { oldStarts.isEmpty ? $0.index : oldStarts[$0.section] + $0.index } ?? 0 }
        func new(_ change: Change) -> Int { change.new.map { newStarts.isEmpty ? $0.index : newStarts[$0.section] + $0.index } ?? 0 }
        for change in shard.changeset.changes {
            guard change.old.map({ oldStarts.isEmpty || $0.section < oldStarts.count }) ?? true,
                change.new.map({ newStarts.isEmpty || $0.section < newStarts.count }) ?? true
            else { throw refuse("a change names a section the shard's sections do not hold") }
            switch change.operation {
            case .delete:
                deletes.append((old(change), change))
                summary.deleted += 1
            case .insert:
                others.append((new(change), 0, change))
                summary.inserted += 1
            case .update:
                others.append((new(change), 1, change))
                summary.updated += 1
                updatedAt.insert(new(change))
            case .move:
                throw ListDiffError(.changeset, "a shard's changeset holds a move: shards leave the moves to the join")
            case .rename:
                throw ListDiffError(.changeset, "a shard's changeset holds a rename: shards pair records by key alone")
            }
        }
    }

    /// Takes in a shard that holds no record on either side (a spill does not diff it).
    mutating func addEmpty(_ index: Int) {
        if byIndex[index] == nil { byIndex[index] = "an empty partition" }
    }

    /// Marks each of `positions` seen, once, and puts its hash in its place.
    private static func cover(
        _ positions: [Int], _ hashes: [Hash128], _ seen: inout [Bool], _ out: inout [Hash128], _ side: String, _ name: String
    ) throws(ListDiffError) {
        for (k, p) in positions.enumerated() {
            guard p < seen.count else {
                throw ListDiffError(
                    .changeset, file: name, "position \(p) is beyond \(side)'s \(seen.count) records: the shards are not of one diff")
            }
            guard !seen[p] else {
                throw ListDiffError(.changeset, file: name, "\(side)'s record \(p) is in two shards: the shards are not of one diff")
            }
            seen[p] = true
            if !hashes.isEmpty { out[p] = hashes[k] }
        }
    }

    /// A moved record's key, and whether the record is a scalar keyed by itself (which
    /// the patch then names by its value alone).
    struct MovedKey {
        var key: Value
        var bySelf: Bool
    }

    /// The whole diff's changeset. `keys` gives the key of each moved record (OLD and NEW
    /// positions, in NEW's order).
    ///
    /// - Throws: a `.changeset` error when a shard is missing, when the shards' records do
    ///   not cover the documents once, or do not give the fingerprints they name.
    func finish(keys: ([(old: Int, new: Int)]) throws(ListDiffError) -> [MovedKey]) throws(ListDiffError) -> Changeset {
        if let missing = byIndex.firstIndex(of: nil) {
            throw ListDiffError(.changeset, "shard \(missing)/\(byIndex.count) is missing: join needs all \(byIndex.count) shards")
        }
        if let p = oldSeen.firstIndex(of: false) {
            throw ListDiffError(.changeset, "no shard holds OLD's record \(p): the shards are not of one diff")
        }
        if let p = newSeen.firstIndex(of: false) {
            throw ListDiffError(.changeset, "no shard holds NEW's record \(p): the shards are not of one diff")
        }
        // A shard of sections reads the whole inputs, so it names their fingerprints.
        if first.layout.isSectioned, first.fingerprints == nil, !spilled {
            throw ListDiffError(
                .changeset, file: firstName,
                "this shard of records in sections names no fingerprints: it is not a shard that --partition wrote")
        }
        try checkMatches()
        var joined = first
        let fingerprints = try self.fingerprints()
        if let named = joined.fingerprints, named != fingerprints {
            throw ListDiffError(
                .changeset, file: firstName, "the shards' records do not give the fingerprints the shards name: they are not of one diff")
        }
        // The moves: the matched pairs off the longest run that keeps its order (within each
        // pair of matched sections, when records sit in sections).
        var stays = [Bool](repeating: false, count: oldCount)
        if first.layout.isSectioned {
            func ranges(_ starts: [Int], _ sections: [ShardPart.SectionFrame]) -> [Range<Int>] {
                zip(starts, sections).map { $0..<$0 + $1.records }
            }
            let oldToNew = self.oldToNew
            stays = Engine.sectionStays(
                old: ranges(oldStarts, oldSections), new: ranges(newStarts, newSections), targets: first.oldSectionTargets,
                unordered: first.comparison.unorderedRecords, match: { Int(oldToNew[$0]) })
        } else {
            visitLongestIncreasingSubsequence(count: oldCount, value: { Int(oldToNew[$0]) }) { stays[$0] = true }
        }
        var moved: [(old: Int, new: Int)] = []
        for i in 0..<oldCount where oldToNew[i] >= 0 && !stays[i] { moved.append((i, Int(oldToNew[i]))) }
        moved.sort { $0.new < $1.new }
        let movedKeys = try keys(moved)
        var summary = self.summary
        var others = self.others
        for (k, m) in moved.enumerated() {
            let change = Change(
                .move, key: movedKeys[k].key, keyedBySelf: movedKeys[k].bySelf, old: RecordPosition.of(m.old, starts: oldStarts),
                new: RecordPosition.of(m.new, starts: newStarts), occurrence: occurrences[Int32(m.new)])
            others.append((m.new, 0, change))
            summary.moved += 1
            if !updatedAt.contains(m.new) { summary.unchanged -= 1 }
        }
        let deletes = self.deletes.sorted { $0.position < $1.position }
        others.sort { ($0.position, $0.rank) < ($1.position, $1.rank) }
        joined.changes = deletes.map(\.change) + others.map(\.change)
        joined.summary = summary
        joined.fingerprints = fingerprints
        if joined.layout.isSectioned {
            joined.oldSections.sizes = oldSections.map(\.records)
            joined.newSections.sizes = newSections.map(\.records)
        }
        joined.origin = nil
        return joined
    }

    /// Checks the matched pairs against the records' hashes, where each record has its own:
    /// each NEW record matched once, and a matched record that is not updated holds the
    /// hash of its OLD match (NEW's hash is the record the result holds there).
    private func checkMatches() throws(ListDiffError) {
        guard first.layout.shape != .map, !first.comparison.unorderedRecords || first.layout.isSectioned else { return }
        var matched = [Bool](repeating: false, count: newCount)
        for i in 0..<oldCount where oldToNew[i] >= 0 {
            let j = Int(oldToNew[i])
            guard !matched[j], updatedAt.contains(j) || oldHashes[i] == newHashes[j] else {
                throw ListDiffError(
                    .changeset, "the matched pair [\(i), \(j)] does not match the records' hashes: the shards are not of one diff")
            }
            matched[j] = true
        }
    }

    /// Both fingerprints, as the whole diff computes them.
    private func fingerprints() throws(ListDiffError) -> Changeset.Fingerprints {
        if first.layout.isSectioned {
            // Each section's list, in the document's frame (as the whole diff hashes it).
            func document(
                _ sections: [ShardPart.SectionFrame], _ names: [Value?], _ starts: [Int], _ hashes: [Hash128], unordered: Bool
            ) -> Hash128 {
                let content = sections.indices.map { s -> SectionContent<Hash128> in
                    let records = hashes[starts[s]..<starts[s] + sections[s].records]
                    var list = CanonicalHash.ListHasher(unordered: unordered)
                    for h in records { list.add(h) }
                    return (name: names[s], header: sections[s].header, records: [list.finish()])
                }
                return first.layout.hash(content) { $0[0] }
            }
            return Changeset.Fingerprints(
                old: Fingerprint.string(document(oldSections, first.oldSections.names, oldStarts, oldHashes, unordered: false)),
                new: Fingerprint.string(
                    document(newSections, first.newSections.names, newStarts, newHashes, unordered: first.comparison.unorderedRecords)))
        }
        if first.layout.shape == .map {
            var a = CanonicalHash.ObjectHasher(), b = CanonicalHash.ObjectHasher()
            (a.sum, a.count, b.sum, b.count) = (oldSum, UInt64(oldCount), newSum, UInt64(newCount))
            return Changeset.Fingerprints(old: Fingerprint.string(a.finish()), new: Fingerprint.string(b.finish()))
        }
        var a = CanonicalHash.ArrayHasher()
        for h in oldHashes { a.add(h) }
        let new: Hash128
        if first.comparison.unorderedRecords {
            var bag = CanonicalHash.BagHasher()
            (bag.sum, bag.count) = (newSum, UInt64(newCount))
            new = bag.finish()
        } else {
            var b = CanonicalHash.ArrayHasher()
            for h in newHashes { b.add(h) }
            new = b.finish()
        }
        return Changeset.Fingerprints(old: Fingerprint.string(a.finish()), new: Fingerprint.string(new))
    }
}
