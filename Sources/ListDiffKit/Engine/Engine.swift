import Dispatch
import Synchronization

/// The one engine every diff runs on, whatever the format, layout, key or duplicates policy.
///
/// Its stages: each input is scanned into a `RecordTable` (each record's place, the hash of
/// its value and of its key), with no value tree; OLD's keys are indexed; NEW's records are
/// matched to OLD's by key (a JSON NEW is scanned against the index, and a record that is
/// byte for byte the OLD record after the last one found is taken as it is); sections are
/// matched by name; the fewest moves are chosen (a longest increasing subsequence, within
/// each pair of sections); matched records whose bytes differ are read and compared as
/// values, so that no hash collision can hide an update; and changes are built only for the
/// records that changed, their values read only when they are written.
///
/// It gives exactly the changeset, fingerprints and errors that `Differ` gives on the
/// documents `DocumentReader` reads, which the tests check on random inputs of every shape.
struct Engine: Sendable {
    var key: IdentityKey
    var differ: Differ
    var duplicates: DuplicatePolicy
    var options: LayoutOptions
    var maxDepth = NestingLimit.standard
    var yaml = YAMLReader()
    var progress: Progress?
    /// Parts a large input is scanned in and compared in: one per core.
    var parts = Machine.cores
    var splitsFrom = 1 << 20
    var keyHashing = KeyHashing()
    /// Whether a scan of an input on its own hands its pages back as it goes (apply, which
    /// reads OLD's records again in order when it writes).
    var releasesPages = false
    /// For a shard of a diff (`--partition`): no record moves here, since the moves are
    /// chosen once the shards are joined, from every matched pair; each record's hash is
    /// kept, and NEW's side keeps its matches (`Side.newToOld`).
    var forShard = false
    /// Called when a YAML input this engine scans goes to libyaml (`YAMLScan.toLibYAML`).
    var toLibYAML: (@Sendable () -> Void)? = nil

    init(key: IdentityKey, differ: Differ, duplicates: DuplicatePolicy, options: LayoutOptions, progress: Progress? = nil) {
        self.key = key
        self.differ = differ
        // A record that is its own key repeats whenever it is written twice: always numbered.
        self.duplicates = key.isWholeRecord ? .match : duplicates
        self.options = options
        self.progress = progress
    }

    /// The changeset from `old` to `new`.
    ///
    /// - Throws: the error `DocumentReader` and `Differ` give, at the same place: malformed
    ///   input, a layout that holds no records, a record without a usable key, a key found
    ///   twice, two inputs of different shapes; or an algorithm's refusal.
    func diff(old: MappedFile, _ oldFormat: InputFormat, new: MappedFile, _ newFormat: InputFormat) throws(ListDiffError) -> Changeset {
        try diffKeepingSides(old: old, oldFormat, new: new, newFormat).changeset
    }

    /// The changeset, and both inputs as scanned: OLD's records can be read again afterwards
    /// (for what a replay shows), and either's records located (for annotations).
    func diffKeepingSides(old: MappedFile, _ oldFormat: InputFormat, new: MappedFile, _ newFormat: InputFormat)
        throws(ListDiffError) -> (changeset: Changeset, old: Side, new: Side)
    {
        try diffsKeepingSides(old: old, oldFormat, news: [(new, newFormat)])[0]
    }

    /// The changesets from `old` to each of `news`, each as `diffKeepingSides` gives it,
    /// with OLD scanned and indexed once (a merge diffs BASE to two files).
    func diffsKeepingSides(old: MappedFile, _ oldFormat: InputFormat, news: [(MappedFile, InputFormat)])
        throws(ListDiffError) -> [(changeset: Changeset, old: Side, new: Side)]
    {
        try differ.check(key: key, duplicates: duplicates)
        var hashing = keyHashing
        do throws(ListDiffError) {
            while true {
                if let results = try attempt(old, oldFormat, news, hashing) {
                    try old.checkIntact()
                    for (new, _) in news { try new.checkIntact() }
                    return results
                }
                // Two different keys met with one hash: again, with other hashes.
                hashing = try hashing.nextAttempt()
            }
        } catch {
            // A file that shrank as it was read: that is the error, not what its zeros read as.
            try old.checkIntact()
            for (new, _) in news { try new.checkIntact() }
            throw error
        }
    }

    /// One input, scanned and laid out.
    final class Side: @unchecked Sendable {
        let file: MappedFile
        let format: InputFormat
        var table: RecordTable
        private(set) var layout: Layout
        private(set) var sections: [Section]
        /// The document's fingerprint (NEW's, under comparison rules: the fingerprint of the
        /// document that applying the changeset to OLD makes).
        var fingerprint: Hash128
        /// The fingerprint of this document with each section's list hash given.
        private(set) var fingerprintOf: ([Hash128]) -> Hash128
        let records: RecordSource
        let recordDepth: Int
        let firstUnkeyed: Int?
        /// Where the records' container starts (the list, the object of lists, ...).
        let containerOffset: Int
        /// The first record of each section.
        private(set) var sectionStarts: [Int]
        /// Under `--duplicates match`: each record's occurrence of its key.
        var occurrences: PageBuffer<UInt32>?
        /// A JSON object read as one record: a result of one record is written alone.
        let lone: Bool
        /// NEW's, for a shard (`Engine.forShard`): each record's OLD match, or -1.
        var newToOld: PageBuffer<Int32>?
        /// The key hashes the scan gave the records.
        var hashing = KeyHashing()

        init(
            file: MappedFile, format: InputFormat, scanned: ScannedDocument, layout: Layout, sections: [Section],
            records: RecordSource
        ) {
            self.file = file
            self.format = format
            table = scanned.table
            self.layout = layout
            self.sections = sections
            fingerprint = scanned.fingerprint(layout, sections)
            fingerprintOf = { scanned.fingerprint(layout, sections, lists: $0) }
            self.records = records
            recordDepth = scanned.recordDepth
            firstUnkeyed = scanned.firstUnkeyed
            containerOffset = scanned.containerOffset
            sectionStarts = sections.map(\.records.lowerBound)
            lone = scanned.lone
        }

        var count: Int { table.count }

        /// The section and index of record `r`.
        func position(_ r: Int) -> RecordPosition { RecordPosition.of(r, starts: sectionStarts) }

        func occurrence(_ r: Int) -> Int? { occurrences.map { Int($0[r]) } }

        /// Each record's `CanonicalHash`: as the scan kept them, or from the values.
        func recordHashes() throws(ListDiffError) -> PageBuffer<Hash128> {
            if table.keepsHashes, table.hashes.count == count { return table.hashes }
            let out = PageBuffer<Hash128>(zeroed: count)
            for r in 0..<count { out[r] = CanonicalHash.of(try records.value(r)) }
            return out
        }

        /// Whether this is an empty object (an object of lists with none), which beside a
        /// map of records is an empty map.
        var isEmptyObject: Bool { layout.shape == .objectOfLists && sections.isEmpty }

        /// Makes this empty object an empty map of records.
        func becomeEmptyMap() {
            layout.shape = .map
            sections = [Section(name: nil, header: nil, records: 0..<0, offset: containerOffset)]
            sectionStarts = [0]
            fingerprint = ScannedDocument.emptyMap
            fingerprintOf = { $0.first ?? ScannedDocument.emptyMap }
            records.names = MemberNames(capacity: 1)
        }

        /// Finds the line and column of places in records (a record, or a value inside one),
        /// in one pass over the file; each record with a path is read once for all its paths,
        /// and no other is read. It holds the records' places, not the rest of the side.
        var locator: @Sendable ([RecordPlace]) -> [SourceLocation?] {
            let records = records, starts = sectionStarts, count = count
            return { places in
                let indexes = places.map { place -> Int? in
                    let p = place.position
                    let start = starts.isEmpty ? (p.section == 0 ? 0 : nil) : p.section < starts.count ? starts[p.section] : nil
                    guard let start, p.index >= 0, start + p.index < count else { return nil }
                    return start + p.index
                }
                var offsets = indexes.map { $0.map { records.starts[$0] } }
                // The places with a path, by record, so that each record is walked once.
                var paths: [Int: [Int]] = [:]
                for (k, place) in places.enumerated() where !place.path.isEmpty {
                    if let r = indexes[k] { paths[r, default: []].append(k) }
                }
                if !paths.isEmpty, !records.file.placesHidden {
                    let order = paths.keys.sorted()
                    let found = records.offsets(order.map { r in (r, paths[r]!.map { places[$0].path }) })
                    for (r, inRecord) in zip(order, found) {
                        for (k, offset) in zip(paths[r]!, inRecord) { offsets[k] = offset }
                    }
                }
                return records.file.locations(of: offsets)
            }
        }

        /// An error about record `record`, at the value `path` leads to in it (the record
        /// itself when the path is empty).
        func error(at record: Int, path: [Value] = [], _ message: String) -> ListDiffError {
            let location =
                path.isEmpty || file.placesHidden
                ? records.location(record) : records.file.location(of: records.offsets(of: [path], in: record)[0])
            return ListDiffError(.key, file: file.name, location: location, message)
        }
    }

    /// OLD to each of `news`, OLD scanned and indexed once. Nil when two different keys
    /// turn out to share a hash (the caller tries again with other hashes).
    func attempt(
        _ old: MappedFile, _ oldFormat: InputFormat, _ news: [(MappedFile, InputFormat)], _ hashing: KeyHashing
    ) throws(ListDiffError) -> [(Changeset, Side, Side)]? {
        progress?.begin(total: 2 * news.reduce(old.bytes.count) { $0 + $1.0.bytes.count })
        // A YAML input is parsed on one core: then OLD and a single NEW are scanned at once,
        // unless both are YAML (NEW is then scanned against OLD, which finds most records
        // again byte for byte). Either way OLD's errors come first, as the reader reads OLD
        // before NEW.
        var pending: Result<Side, ListDiffError>? = nil
        let oldSide: Side
        if news.count == 1, case let (new, newFormat) = news[0], (oldFormat == .yaml) != (newFormat == .yaml) {
            let (a, b) = Concurrently.both(
                { () throws(ListDiffError) -> Side in try self.side(old, oldFormat, against: nil, hashing) },
                { () throws(ListDiffError) -> Side in try self.side(new, newFormat, against: nil, hashing) })
            oldSide = try a.get()
            pending = b
        } else if news.count == 1, case let (new, newFormat) = news[0], oldFormat == .yaml, newFormat == .yaml {
            // Both YAML: NEW waits for OLD, to be scanned against it; but if libyaml reads
            // OLD, no record can be found again, and NEW is scanned at once beside it.
            let gate = Gate()
            var engine = self
            engine.toLibYAML = { gate.open(true) }
            let first = engine
            let (a, b) = Concurrently.both(
                { () throws(ListDiffError) -> Side in
                    defer { gate.open(false) }
                    return try first.side(old, oldFormat, against: nil, hashing)
                },
                { () throws(ListDiffError) -> Side? in gate.wait() ? try self.side(new, newFormat, against: nil, hashing) : nil })
            oldSide = try a.get()
            switch b {
            case .success(let side?): pending = .success(side)
            case .success(nil): pending = nil
            case .failure(let error): pending = .failure(error)
            }
        } else {
            oldSide = try side(old, oldFormat, against: nil, hashing)
        }
        progress?.lap("scan OLD")
        guard let (keys, chains) = try indexed(oldSide) else { return nil }
        progress?.lap("index OLD")
        var results: [(Changeset, Side, Side)] = []
        for (k, (new, newFormat)) in news.enumerated() {
            // (OLD's hashes and index are let go after the last NEW is matched.)
            let releasing = k == news.count - 1
            let result =
                if let chains {
                    try attemptMatching(oldSide, keys: keys, chains: chains, new, newFormat, pending, hashing, releasing: releasing)
                } else {
                    try attempt(oldSide, keys: keys, new, newFormat, pending, hashing, releasing: releasing)
                }
            guard let result else { return nil }
            results.append(result)
        }
        return results
    }

    /// The rest of `attempt` for one NEW, once OLD is scanned and indexed. `releasing`: no
    /// other NEW is matched to OLD after this one, so OLD's hashes and index may go.
    func attempt(
        _ oldSide: Side, keys: OldKeys, _ new: MappedFile, _ newFormat: InputFormat, _ pending: Result<Side, ListDiffError>?,
        _ hashing: KeyHashing, releasing: Bool
    ) throws(ListDiffError) -> (Changeset, Side, Side)? {
        let newSide = try newSide(new, newFormat, pending, against: oldRecords(oldSide, keys: keys, newFormat), keys, hashing)
        progress?.lap("scan NEW")
        // (Under rules, NEW's fingerprint is made of both sides' record hashes.) OLD's key
        // hashes and index are read no more: their pages serve the matching's tables.
        defer { SpareMappings.handBack() }
        if releasing {
            if !differ.comparison.hasRules, !forShard { oldSide.table.dropHashes(keeping: true) }
            keys.discard()
        }
        let claims = Claims(new: newSide.table, oldCount: oldSide.count)
        if let collision = try keyedErrors(newSide, repeated: claims.repeated), collision { return nil }
        try sameShape(oldSide, newSide)
        if !isJSON(newFormat) || pending != nil { fillCopies(oldSide, newSide, claims.newToOld) }
        progress?.lap("index NEW")
        return try finish(oldSide, newSide, newToOld: claims.newToOld, oldToNew: claims.oldToNew, copies: newSide.table.copies)
    }

    /// OLD's keys indexed, and its keyed errors thrown (`keyedErrors`). Under `--duplicates
    /// match`, the chains of each key's records give each record its occurrence. Nil when two
    /// different keys turn out to share a hash (the caller tries again with other hashes).
    func indexed(_ side: Side) throws(ListDiffError) -> (keys: OldKeys, chains: Chains?)? {
        // (A map's member names never repeat: one that does is an error whatever the policy.)
        let match = duplicates == .match && side.records.names == nil
        let chains = match ? Chains(count: side.count) : nil
        let (keys, repeated) = OldKeys.build(side.table, chains: chains)
        if let collision = try keyedErrors(side, repeated: match ? nil : repeated), collision { return nil }
        if let chains {
            side.occurrences = chains.occurrence
            // Records chained by hash must share their key.
            for k in 0..<side.count where chains.head[k] != Int32(k) && chains.head[k] >= 0 {
                if try !sameKey(side, Int(chains.head[k]), side, k) { return nil }
            }
        }
        return (keys, chains)
    }

    /// The rest of `attempt` under `--duplicates match`: the k-th occurrence of a key in NEW
    /// takes the k-th in OLD.
    func attemptMatching(
        _ oldSide: Side, keys: OldKeys, chains: Chains, _ new: MappedFile, _ newFormat: InputFormat,
        _ pending: Result<Side, ListDiffError>?, _ hashing: KeyHashing, releasing: Bool
    ) throws(ListDiffError) -> (Changeset, Side, Side)? {
        let newSide = try newSide(
            new, newFormat, pending, against: oldRecords(oldSide, keys: keys, newFormat),
            keys, hashing)
        progress?.lap("scan NEW")
        defer { SpareMappings.handBack() }
        if releasing { keys.discard() }
        if let collision = try keyedErrors(newSide, repeated: nil), collision { return nil }
        try sameShape(oldSide, newSide)
        // A map (beside an empty object) repeats no name, whatever the policy.
        if newSide.records.names != nil,
            let collision = try keyedErrors(newSide, repeated: Claims(new: newSide.table, oldCount: oldSide.count).repeated), collision
        {
            return nil
        }
        let newCount = newSide.count, oldCount = oldSide.count
        let newToOld = PageBuffer<Int32>(zeroed: newCount), oldToNew = PageBuffer<Int32>(zeroed: oldCount)
        let occurrences = PageBuffer<UInt32>(zeroed: newCount)
        // Per OLD key (its first record): NEW records of it seen, and the last OLD record taken.
        let seen = PageBuffer<UInt32>(zeroed: oldCount), last = PageBuffer<Int32>(zeroed: oldCount)
        var strangers: [UInt64: (first: Int, count: Int)] = [:]
        // A NEW record found byte for byte as an OLD one holds that record: its key's first
        // occurrence is that record's head. `copies` then says the bytes are that record's.
        let matches = newSide.table.matches.buffer, heads = chains.head.buffer
        let found = newSide.table.copies
        var strangerHashes: [Int: UInt64] = [:]
        for s in 0..<newSide.table.strangers.count {
            let stranger = newSide.table.strangers[s]
            strangerHashes[stranger.record] = stranger.keyHash
        }
        let copies = PageBuffer<Bool>(zeroed: newCount)
        let copied = copies.buffer
        for j in 0..<newCount {
            let head = matches[j] >= 0 ? Int(heads[Int(matches[j])]) : -1
            if head >= 0 {
                let occurrence = Int(seen[head])
                seen[head] += 1
                occurrences[j] = UInt32(occurrence)
                let taken = occurrence == 0 ? head : (last[head] > 0 ? Int(chains.next[Int(last[head]) - 1]) : -1)
                if taken >= 0 {
                    last[head] = Int32(taken + 1)
                    newToOld[j] = Int32(taken)
                    oldToNew[taken] = Int32(j + 1)
                    copied[j] = found.count > j && found[j] && Int(matches[j]) == taken
                } else {
                    last[head] = 0
                    newToOld[j] = -1
                    // More occurrences in NEW than in OLD: the key must still be the head's.
                    if try !sameKey(oldSide, head, newSide, j) { return nil }
                }
            } else {
                newToOld[j] = -1
                guard let hash = strangerHashes[j] else { continue }
                let entry = strangers[hash] ?? (j, 0)
                if entry.count > 0, try !sameKey(newSide, entry.first, newSide, j) { return nil }
                occurrences[j] = UInt32(entry.count)
                strangers[hash] = (entry.first, entry.count + 1)
            }
        }
        newSide.occurrences = occurrences
        if releasing, !differ.comparison.hasRules, !forShard { oldSide.table.dropHashes() }
        var stays: [Bool]? = nil
        if key.isWholeRecord {
            // A sequence: the algorithm pairs the records, repeats included, as it will.
            // OLD's records are their key's first record's symbol; NEW's their match's, or
            // a symbol of their own (no OLD record holds them).
            let oldSymbols = (0..<oldCount).map { Int(heads[$0]) }
            let newSymbols = (0..<newCount).map { j in matches[j] >= 0 ? Int(heads[Int(matches[j])]) : oldCount + j }
            let (pairs, kept) = try differ.matching(old: oldSymbols, new: newSymbols, symbolCount: oldCount + newCount, complete: false)
            for j in 0..<newCount { newToOld[j] = -1 }
            for i in 0..<oldCount {
                oldToNew[i] = 0
                guard let j = pairs[i] else { continue }
                newToOld[j] = Int32(i)
                oldToNew[i] = Int32(j + 1)
            }
            for j in 0..<newCount { copied[j] = found.count > j && found[j] && matches[j] == newToOld[j] }
            stays = kept
        }
        newSide.table.copies = copies
        fillCopies(oldSide, newSide, newToOld, only: false)
        progress?.lap("index NEW")
        return try finish(oldSide, newSide, newToOld: newToOld, oldToNew: oldToNew, copies: copies, stays: stays)
    }

    /// NEW: scanned already (at once with OLD), its matches then looked up; or scanned now,
    /// a JSON NEW against OLD's index.
    func newSide(
        _ new: MappedFile, _ newFormat: InputFormat, _ pending: Result<Side, ListDiffError>?, against old: OldRecords?,
        _ keys: OldKeys, _ hashing: KeyHashing
    ) throws(ListDiffError) -> Side {
        if let pending {
            let side = try pending.get()
            side.table.fillMatches(keys)
            return side
        }
        let side = try self.side(new, newFormat, against: old, hashing)
        // (A YAML NEW's table is one of its own, whether or not it was scanned against OLD.)
        if old == nil || !isJSON(newFormat) { side.table.fillMatches(keys) }
        return side
    }

    /// Sections, moves, the compare and the changeset, once records are matched.
    func finish(
        _ oldSide: Side, _ newSide: Side, newToOld: PageBuffer<Int32>, oldToNew: PageBuffer<Int32>,
        copies: PageBuffer<Bool>, stays sequence: [Bool]? = nil
    ) throws(ListDiffError) -> (Changeset, Side, Side)? {
        progress?.enter(.comparing)
        // A map's names are unique: its records have no occurrence numbers.
        if oldSide.layout.shape == .map {
            oldSide.occurrences = nil
            newSide.occurrences = nil
        }
        // From here on the inputs are read here and there: a fault reads one page, not ahead.
        oldSide.file.adviseRandom()
        newSide.file.adviseRandom()
        var sectionChanges: [SectionChange] = []
        let stays: [Bool]
        if forShard {
            // The moves are the join's: it sees every shard's matched pairs.
            if oldSide.layout.isSectioned { sectionChanges = try differ.diffSections(old: oldSide.sections, new: newSide.sections).0 }
            stays = [Bool](repeating: true, count: oldSide.count)
            newSide.newToOld = newToOld
        } else if oldSide.layout.isSectioned {
            if !(differ.algorithm is HeckelDiff), sequence == nil { _ = try symbolMatching(oldToNew: oldToNew, newToOld: newToOld) }
            let targets: [Int?]
            (sectionChanges, targets) = try differ.diffSections(old: oldSide.sections, new: newSide.sections)
            stays =
                differ.comparison.unorderedRecords
                ? staysUnordered(oldSide, newSide, oldToNew: oldToNew, targets: targets)
                : staysWithinSections(oldSide, newSide, oldToNew: oldToNew, targets: targets)
        } else if differ.comparison.unorderedRecords || oldSide.layout.shape == .map {
            // The order means nothing (a map's members have none): nothing moves.
            if !(differ.algorithm is HeckelDiff) { _ = try symbolMatching(oldToNew: oldToNew, newToOld: newToOld) }
            stays = [Bool](repeating: true, count: oldSide.count)
        } else if let sequence {
            stays = sequence
        } else if differ.algorithm is HeckelDiff {
            // Keys are unique (or numbered by occurrence): the pairing is the claims',
            // whatever the algorithm; Heckel's is taken as it is.
            var result = [Bool](repeating: false, count: oldSide.count)
            let oldToNew = oldToNew.buffer
            visitLongestIncreasingSubsequence(count: oldSide.count, value: { Int(oldToNew[$0]) - 1 }) { result[$0] = true }
            stays = result
        } else {
            stays = try symbolMatching(oldToNew: oldToNew, newToOld: newToOld)
        }
        progress?.lap("matching")
        let kept = PageBuffer<Bool>(zeroed: differ.comparison.hasRules ? newSide.count : 0)
        guard
            let (changes, summary) = try compare(
                oldSide, newSide, newToOld: newToOld, oldToNew: oldToNew, copies: copies,
                stays: stays, kept: kept)
        else { return nil }
        if differ.comparison.hasRules { try resultFingerprint(oldSide, newSide, newToOld: newToOld, kept: kept) }
        // A map's records are keyed by their member names, not by fields.
        let key = oldSide.layout.shape == .map ? IdentityKey([]) : key
        var changeset = Changeset(
            algorithm: differ.algorithm.name, key: key, oldCount: oldSide.count, newCount: newSide.count,
            changes: changes, summary: summary)
        // (A map's names never repeat: no occurrence numbers.)
        changeset.duplicates = oldSide.layout.shape == .map ? .error : duplicates
        changeset.comparison = differ.comparison
        changeset.memberOrderSignificant = differ.memberOrder == .significant
        changeset.layout = oldSide.layout
        changeset.layout.note(yaml: yaml.version, formats: [oldSide.format, newSide.format])
        changeset.sections = sectionChanges
        changeset.oldSections = SectionOutline(names: oldSide.sections.map(\.name), sizes: oldSide.sections.map(\.records.count))
        changeset.newSections = SectionOutline(names: newSide.sections.map(\.name), sizes: newSide.sections.map(\.records.count))
        changeset.fingerprints = Changeset.Fingerprints(
            old: Fingerprint.string(oldSide.fingerprint),
            new: Fingerprint.string(newSide.fingerprint))
        progress?.lap("compare")
        if let rule = differ.renames {
            changeset = try changeset.pairingRenames(rule)
            progress?.lap("renames")
        }
        progress?.enter(.writing)
        return (changeset, oldSide, newSide)
    }

    /// The algorithm's matching over identities (every record its own symbol, a NEW record
    /// its match's), run for its cost and refusals as `Differ` runs it; which OLD records stay.
    func symbolMatching(oldToNew: PageBuffer<Int32>, newToOld: PageBuffer<Int32>) throws(ListDiffError) -> [Bool] {
        let oldCount = oldToNew.count, newCount = newToOld.count
        let symbols = (0..<newCount).map { j in newToOld[j] >= 0 ? Int(newToOld[j]) : oldCount + j }
        return try differ.matching(old: Array(0..<oldCount), new: symbols, symbolCount: oldCount + newCount).stays
    }

    /// Under comparison rules: NEW's fingerprint becomes that of the document `apply` makes,
    /// NEW's records where they changed and OLD's where they are the same under the rules
    /// (`kept`), each list hashed as a bag when the order of records means nothing.
    func resultFingerprint(_ old: Side, _ new: Side, newToOld: PageBuffer<Int32>, kept: PageBuffer<Bool>) throws(ListDiffError) {
        let oldHashes = try old.recordHashes(), newHashes = try new.recordHashes()
        let unordered = differ.comparison.unorderedRecords
        let names = new.records.names
        let lists = new.sections.map { section -> Hash128 in
            if let names {
                // A map: its members, each name with its record, in any order.
                var map = CanonicalHash.ObjectHasher()
                for j in section.records { map.add(key: names.hashes[j], value: kept[j] ? oldHashes[Int(newToOld[j])] : newHashes[j]) }
                return map.finish()
            }
            var list = CanonicalHash.ListHasher(unordered: unordered)
            for j in section.records { list.add(kept[j] ? oldHashes[Int(newToOld[j])] : newHashes[j]) }
            return list.finish()
        }
        new.fingerprint = new.fingerprintOf(lists)
    }

    /// Under `--unordered`, when records are grouped in sections: a matched record stays
    /// unless it changes section.
    func staysUnordered(_ old: Side, _ new: Side, oldToNew: PageBuffer<Int32>, targets: [Int?]) -> [Bool] {
        let oldToNew = oldToNew.buffer
        return Self.sectionStays(
            old: old.sections.map(\.records), new: new.sections.map(\.records), targets: targets, unordered: true,
            match: { Int(oldToNew[$0]) - 1 })
    }

    /// Which matched records stay put when records are grouped in sections: those on a
    /// longest run, within each pair of matched sections, of records that kept their order.
    func staysWithinSections(_ old: Side, _ new: Side, oldToNew: PageBuffer<Int32>, targets: [Int?]) -> [Bool] {
        let oldToNew = oldToNew.buffer
        return Self.sectionStays(
            old: old.sections.map(\.records), new: new.sections.map(\.records), targets: targets, unordered: false,
            match: { Int(oldToNew[$0]) - 1 })
    }

    /// Which OLD records stay put when records are grouped in sections, given each
    /// section's records (counted over the whole document), where each OLD section went
    /// (`targets`, nil when deleted) and each OLD record's NEW match (`match`, -1 for none).
    /// In order, those on a longest run, within each pair of matched sections, of records
    /// that kept their order; under `--unordered`, every record that keeps its section.
    /// (What it says of a record without a match means nothing: that record is deleted.)
    /// The join of a diff's shards uses it too.
    static func sectionStays(old: [Range<Int>], new: [Range<Int>], targets: [Int?], unordered: Bool, match: (Int) -> Int)
        -> [Bool]
    {
        let count = old.last?.upperBound ?? 0
        var stays = [Bool](repeating: unordered, count: count)
        for (s, section) in old.enumerated() {
            let range = targets[s].flatMap { $0 < new.count ? new[$0] : nil } ?? 0..<0
            if unordered {
                for i in section {
                    let j = match(i)
                    if j >= 0 { stays[i] = range.contains(j) }
                }
                continue
            }
            guard !range.isEmpty else { continue }
            let base = section.lowerBound
            visitLongestIncreasingSubsequence(
                count: section.count,
                value: { k in
                    let j = match(base + k)
                    return j >= 0 && range.contains(j) ? j : -1
                }
            ) { stays[base + $0] = true }
        }
        return stays
    }

    // MARK: - Scanning and layout

    func isJSON(_ format: InputFormat) -> Bool { format == .json || format == .ndjson }

    /// OLD's records for a JSON NEW's scan against them, or a YAML NEW's against a YAML OLD
    /// that listdiff's own scanner read.
    func oldRecords(_ oldSide: Side, keys: OldKeys, _ newFormat: InputFormat) -> OldRecords? {
        if newFormat == .yaml {
            guard let details = (oldSide.records as? YAMLRecords)?.details, details.ownScanner else { return nil }
            return OldRecords(
                bytes: oldSide.file.bytes.baseAddress ?? UnsafePointer(bitPattern: 8)!, table: oldSide.table, keys: keys,
                copies: true, depth: details.recordDepth, yaml: details)
        }
        guard isJSON(newFormat) else { return nil }
        return OldRecords(
            bytes: oldSide.file.bytes.baseAddress ?? UnsafePointer(bitPattern: 8)!, table: oldSide.table, keys: keys,
            copies: isJSON(oldSide.format), depth: oldSide.recordDepth, names: oldSide.records.names?.hashes)
    }

    /// Scans one input and decides its layout, scanning it again when the shape its start
    /// suggested turns out wrong.
    func side(_ file: MappedFile, _ format: InputFormat, against old: OldRecords?, _ hashing: KeyHashing) throws(ListDiffError) -> Side {
        var forced: ContainerShape? = nil
        var listScan: ScannedDocument? = nil
        while true {
            let scanned = try scan(file, format, against: old, hashing, as: forced)
            let verdict = scanned.layout(key: key, options: options, path: options.path)
            switch verdict {
            case .found(let layout, let sections):
                let side = Side(
                    file: file, format: format, scanned: scanned, layout: layout, sections: sections,
                    records: records(file, format, scanned))
                side.hashing = hashing
                return side
            case .problem(let problem):
                var error = ListDiffError(.shape, file: file.name, location: file.location(of: problem.offset), problem.message)
                error.hint = problem.hint
                error.ofSectionObjects = problem.ofSectionObjects
                throw error
            case .rescan(let shape):
                if case .list = scanned.shape { listScan = scanned }
                if case .list = shape, let listScan {
                    // Not sections after all: the list it was (its first record lacks the key).
                    let sections = [Section(name: nil, header: nil, records: 0..<listScan.table.count, offset: listScan.containerOffset)]
                    let side = Side(
                        file: file, format: format, scanned: listScan, layout: Layout(path: options.path, shape: .list),
                        sections: sections, records: records(file, format, listScan))
                    side.hashing = hashing
                    return side
                }
                forced = shape
            }
        }
    }

    func scan(
        _ file: MappedFile, _ format: InputFormat, against old: OldRecords?, _ hashing: KeyHashing,
        as shape: ContainerShape?
    ) throws(ListDiffError) -> ScannedDocument {
        guard let keys = KeyTrie(key) else {
            throw ListDiffError(.limit, "the key has more than 64 fields or path steps in all")
        }
        switch format {
        // (CSV and TSV come as the JSON text of their records: `DocumentReader.opened`.)
        case .json, .ndjson, .csv, .tsv:
            var scan = JSONScan(
                file: file, lines: format == .ndjson, key: key, keys: keys, options: options, maxDepth: maxDepth,
                keyHashing: hashing, old: old, release: old != nil || releasesPages, progress: progress)
            scan.parts = parts
            scan.splitsFrom = splitsFrom
            scan.keepsHashes = differ.comparison.hasRules || forShard
            do {
                return try scan.scan(as: shape)
            } catch {
                // The scan checks a member name given twice later than the reader, which
                // reads in order: where the reader meets a problem first, that is the error.
                guard error.kind == .syntax, file.csv == nil, !file.placesHidden, let at = error.location else { throw error }
                let reader = JSONReader(maxDepth: maxDepth)
                let text = Array(file.bytes)
                let read = Result { () throws(ListDiffError) in
                    _ = format == .ndjson ? try reader.readLines(text, name: file.name) : try reader.read(text, name: file.name)
                }
                if case .failure(let error) = read, case let first = file.placed(error), let place = first.location,
                    (place.line, place.column) < (at.line, at.column)
                {
                    throw first
                }
                throw error
            }
        case .yaml:
            var scan = YAMLScan(
                file: file, key: key, keys: keys, options: options, reader: yaml, keyHashing: hashing,
                progress: progress)
            scan.toLibYAML = toLibYAML
            scan.old = old?.yaml != nil ? old : nil
            scan.parts = parts
            scan.splitsFrom = splitsFrom
            // (A part of a stream is a stream, though it may hold one document.)
            if file.origin?.stream == true { scan = scan.asStream }
            return try scan.scan(as: shape)
        }
    }

    func records(_ file: MappedFile, _ format: InputFormat, _ scanned: ScannedDocument) -> RecordSource {
        let source: RecordSource
        switch format {
        case .json, .ndjson, .csv, .tsv:
            source = JSONRecords(file: file, table: scanned.table, depth: scanned.recordDepth, maxDepth: maxDepth)
        case .yaml: source = YAMLRecords(file: file, scanned: scanned, reader: yaml, options: options)
        }
        source.names = scanned.names
        return source
    }

    // MARK: - Errors

    /// Throws the first keyed error of a side, in the reader's order (a section named as an
    /// earlier one, before its records; a record without a usable key; the second record of
    /// a repeated key). Returns true when the repeated pair turns out to be two keys that
    /// share a hash (the caller tries again with other hashes).
    func keyedErrors(_ side: Side, repeated: (first: Int, second: Int)?) throws(ListDiffError) -> Bool? {
        // (record index, rank): a section's name is checked before its records.
        var earliest: (place: (Int, Int), error: () throws(ListDiffError) -> ListDiffError)? = nil
        var names: [String: Int] = [:]
        for (s, section) in side.sections.enumerated() {
            guard let name = section.name else { continue }
            if let earlier = names.updateValue(s, forKey: Fingerprint.of(name)) {
                let offset = section.offset
                earliest = (
                    (section.records.lowerBound, 0),
                    { () throws(ListDiffError) in
                        ListDiffError(
                            .shape,
                            file: side.file.name, location: side.file.location(of: offset),
                            Self.repeatedSection(name, earlier, s))
                    }
                )
                break
            }
        }
        if let r = side.firstUnkeyed, earliest.map({ (r, 1) < $0.place }) ?? true {
            earliest = ((r, 1), { () throws(ListDiffError) in try self.unkeyedError(side, r) })
        }
        if let (first, second) = repeated, earliest.map({ (second, 1) < $0.place }) ?? true {
            guard try sameKey(side, first, side, second) else { return true }
            // A map's name given twice: the document is not JSON listdiff reads, and its
            // reader says where (or what comes first).
            if side.records.names != nil, side.format != .yaml {
                do {
                    _ = try JSONReader(maxDepth: maxDepth).read(Array(side.file.bytes), name: side.file.name)
                } catch {
                    throw side.file.placed(error)
                }
            }
            throw try duplicateError(side, first, second)
        }
        if let earliest { throw try earliest.error() }
        return nil
    }

    /// The error for a section named as an earlier one (sections `earlier` and `s`).
    static func repeatedSection(_ name: Value, _ earlier: Int, _ s: Int) -> String {
        "two sections are named \(JSONWriter.compact(name)) (sections \(earlier) and \(s)); section names must be unique"
    }

    /// Every key problem of a side, in record order, up to `limit`: each record without a
    /// usable key, and each record whose key an earlier record holds (unless `duplicates`
    /// is false). For `listdiff check`, after the first problem: each record's key is read
    /// from its value, with the errors the diff gives.
    func keyProblems(_ side: Side, duplicates: Bool, limit: Int) throws(ListDiffError) -> [ListDiffError] {
        var problems: [ListDiffError] = []
        var seen: [String: Int] = [:]
        for r in 0..<side.count where problems.count < limit {
            let written: Value
            if side.records.names != nil {
                written = try side.records.key(r, key)
            } else {
                guard case .success(let identity) = key.identify(try side.records.value(r)) else {
                    problems.append(try unkeyedError(side, r))
                    continue
                }
                written = identity.written
            }
            guard duplicates else { continue }
            // (Keyed within their list where a path with * names the lists.)
            let list = side.layout.shape == .pattern ? side.sections[side.position(r).section].name.map(Fingerprint.of) ?? "" : ""
            let id = list + Fingerprint.of(written)
            if let first = seen[id] {
                problems.append(try duplicateError(side, first, r))
            } else {
                seen[id] = r
            }
        }
        return problems
    }

    /// The error for a record without a usable key, worded by `IdentityKey` on its value.
    func unkeyedError(_ side: Side, _ r: Int) throws(ListDiffError) -> ListDiffError {
        let value = try side.records.value(r)
        var position = side.position(r)
        var name = side.sections[position.section].name
        var number = side.file.origin == nil ? position.index : side.file.recordNumber(r)
        if let sections = side.file.origin?.sections {
            // (A part of a spill: the whole document's sections name the record.)
            position = RecordPosition.of(number, starts: sections.starts)
            (number, name) = (position.index, sections.names[position.section])
        }
        let place = name.map { "record \(number) of section \(JSONWriter.compact($0))" } ?? "record \(number)"
        guard case .failure(let failure) = key.identify(value) else { return side.error(at: r, "\(place) has no usable key") }
        var error = side.error(at: r, failure.message(place: place))
        error.keyMissing = failure.isMissing
        return error
    }

    func duplicateError(_ side: Side, _ first: Int, _ second: Int) throws(ListDiffError) -> ListDiffError {
        let value = try side.records.value(second)
        let written = (try? key.identify(value).get().written) ?? .null
        let places: String
        if let starts = side.file.origin?.sections?.starts {
            // (A part of a spill: the whole document's sections place the records.)
            let (a, b) = (side.file.recordNumber(first), side.file.recordNumber(second))
            places = "records \(RecordPosition.of(a, starts: starts)) and \(RecordPosition.of(b, starts: starts))"
        } else if side.layout.isSectioned {
            places = "records \(side.position(first)) and \(side.position(second))"
        } else {
            places = "records \(side.file.recordNumber(first)) and \(side.file.recordNumber(second))"
        }
        return side.error(
            at: second,
            KeyFormatter(key).duplicate(
                written, selfKeyed: value.isScalar, places: places,
                first: side.records.location(first))
        ).hinting(.matchDuplicates)
    }

    /// Whether record i of `a` and record j of `b`, whose key hashes agree, have one key,
    /// read again from their values (strings by their scalars, numbers by their value).
    func sameKey(_ a: Side, _ i: Int, _ b: Side, _ j: Int) throws(ListDiffError) -> Bool {
        if a.records.names != nil { return try sameName(a, i, b, j) }
        guard sameList(a, i, b, j) else { return false }
        return sameKey(try a.records.value(i), try b.records.value(j))
    }

    /// Whether two records share their list, where records are keyed within their list
    /// (the lists a path with `*` names); true elsewhere.
    func sameList(_ a: Side, _ i: Int, _ b: Side, _ j: Int) -> Bool {
        guard a.layout.shape == .pattern else { return true }
        return a.sections[a.position(i).section].name == b.sections[b.position(j).section].name
    }

    /// Whether the map records i of `a` and j of `b` have one member name (by its scalars).
    func sameName(_ a: Side, _ i: Int, _ b: Side, _ j: Int) throws(ListDiffError) -> Bool {
        Value.string(try a.records.memberName(i)) == Value.string(try b.records.memberName(j))
    }

    func sameKey(_ a: Value, _ b: Value) -> Bool {
        guard let keyA = key.written(in: a) else { return false }
        return keyA == key.written(in: b)
    }

    func sameShape(_ old: Side, _ new: Side) throws(ListDiffError) {
        // A pattern that names no list in either input is most likely mistyped.
        if old.layout.shape == .pattern, new.layout.shape == .pattern, old.sections.isEmpty, new.sections.isEmpty {
            throw ListDiffError(
                .shape, "\(old.layout.path?.spelling ?? "") names no list in \(old.file.name) or in \(new.file.name)")
        }
        // An empty object is an empty map beside a map.
        if old.layout.shape == .map, new.isEmptyObject { new.becomeEmptyMap() }
        if new.layout.shape == .map, old.isEmptyObject { old.becomeEmptyMap() }
        guard old.layout.shape == new.layout.shape else {
            throw Self.shapesDiffer(old.file.name, old.layout, new.file.name, new.layout)
        }
    }

    /// The error for two inputs whose records are laid out in two ways.
    static func shapesDiffer(_ old: String, _ oldLayout: Layout, _ new: String, _ newLayout: Layout) -> ListDiffError {
        ListDiffError(.shape, "\(old) holds \(oldLayout), \(new) holds \(newLayout); both must have one shape")
    }

    /// For matches made after the scan: whether each matched NEW record is byte for byte its
    /// OLD record (when the two inputs read alike, as `RecordSource.sameBytes` tells).
    func fillCopies(_ old: Side, _ new: Side, _ newToOld: PageBuffer<Int32>, only known: Bool = true) {
        nonisolated(unsafe) let copies = new.table.copies.buffer, matches = newToOld.buffer
        guard copies.count == matches.count else { return }
        let oldRecords = old.records, newRecords = new.records
        Machine.parallel(parts: parts, count: matches.count) { range in
            for j in range {
                let i = Int(matches[j])
                // (Without `known`, records already found to be copies are left as they are.)
                if !known, copies[j] { continue }
                copies[j] = i >= 0 && newRecords.sameBytes(j, as: oldRecords, i)
            }
        }
    }

    // MARK: - Compare

    /// The changes: NEW's records in parts at once, each building the changes of its records
    /// (inserts, moves, updates), and OLD's in as many parts, building the deletes; nil when
    /// two records matched by key hash turn out to have different keys.
    func compare(
        _ old: Side, _ new: Side, newToOld: PageBuffer<Int32>, oldToNew: PageBuffer<Int32>, copies: PageBuffer<Bool>,
        stays: [Bool], kept: PageBuffer<Bool>
    ) throws(ListDiffError) -> ([Change], Changeset.Summary)? {
        // More parts than cores, taken in order: each hands back its ranges of both inputs
        // when done, so that OLD's pages go as the compare goes.
        let count = max(1, min(parts * 8, (new.count + old.count) / 65536 + 1))
        // (The spare mappings the matching did not take go back before the changes are built.)
        SpareMappings.handBack()
        // OLD's pages, all still there from its scan, stay until their part is done: the
        // records that changed are spread over all of OLD, so handed back first they would
        // nearly all be mapped again, a fault for each block. (The peak memory is NEW's
        // scan's, with OLD's pages and index; the tables and index let go since then make
        // room for the changes.)
        let results = UnsafeMutableBufferPointer<Result<ChangeBuilder?, ListDiffError>>.allocate(capacity: count)
        results.initialize(repeating: .success(nil))
        defer { results.deinitialize(); results.deallocate() }
        nonisolated(unsafe) let out = results
        let significant = differ.memberOrder == .significant
        let comparison = differ.comparison
        let rules = RuleHasher(comparison)
        nonisolated(unsafe) let kept = kept.buffer
        nonisolated(unsafe) let newToOld = newToOld.buffer, oldToNew = oldToNew.buffer, copies = copies.buffer
        let progress = progress
        // Where exact equality alone decides, JSON records are compared member by member as
        // written, reading only the members whose bytes differ (`FieldDiff.written`).
        let written =
            !comparison.comparesContent && comparison.arrayKeysFree && !key.isWholeRecord && old.records.names == nil
            && old.records is JSONRecords && new.records is JSONRecords
        let fixed = key.fields.map { $0.components[0] }
        DispatchQueue.concurrentPerform(iterations: count) { k in
            out[k] = Result { () throws(ListDiffError) -> ChangeBuilder? in
                let arena = ByteArena()
                var strays = StrayPages(file: old.file)
                var scratch: [UInt8] = []
                var room = FieldDiff.WrittenMembers()
                let newRange = new.count * k / count..<new.count * (k + 1) / count
                let oldRange = old.count * k / count..<old.count * (k + 1) / count
                // An input read in batches (YAML) has the values this part needs read at once.
                var oldValues: [Int: Value] = [:], newValues: [Int: Value] = [:]
                if old.records.readsInBatches || new.records.readsInBatches {
                    var oldNeeded: [Int] = [], newNeeded: [Int] = []
                    for j in newRange {
                        let i = Int(newToOld[j])
                        if i < 0 || !copies[j] || !stays[i] { newNeeded.append(j) }
                        if i >= 0, !copies[j] { oldNeeded.append(i) }
                    }
                    for i in oldRange where oldToNew[i] == 0 { oldNeeded.append(i) }
                    if old.records.readsInBatches { oldValues = try old.records.values(oldNeeded) }
                    if new.records.readsInBatches { newValues = try new.records.values(newNeeded) }
                }
                var builder = ChangeBuilder(
                    old: self.side(old, arena, oldValues), new: self.side(new, arena, newValues), comparison: comparison)
                // JSON records, whose hashes under the rules are read from their bytes.
                let oldJSON = old.records as? JSONRecords, newJSON = new.records as? JSONRecords
                // Pages read again are handed back behind the walk.
                var floor = newRange.isEmpty ? 0 : new.table.starts[newRange.lowerBound]
                for j in newRange {
                    if j & 0x3FFF == 0x3FFF {
                        let here = new.table.starts[j]
                        new.file.release(floor..<here)
                        floor = here
                    }
                    let i = Int(newToOld[j])
                    guard i >= 0 else {
                        try builder.insert(j)
                        continue
                    }
                    if copies[j] {
                        try builder.matched(i, j, stays: stays[i], same: true)
                        continue
                    }
                    // An OLD record far from this part's (one that moved) is copied from the
                    // file rather than mapped.
                    let far = oldValues[i] == nil && !oldRange.contains(i)
                    if far {
                        let start = old.table.starts[i]
                        try old.file.copy(start..<start + Int(old.table.lengths[i]), into: &scratch)
                    }
                    // Under rules, a record whose bytes changed may still be the same: the
                    // hashes under the rules tell, without building either value.
                    if let rules, let oldRecords = oldJSON, let newRecords = newJSON {
                        var usedTolerance = false
                        let before =
                            far
                            ? try scratch.withUnsafeBufferPointer { bytes throws(ListDiffError) in
                                try oldRecords.ruleHash(in: bytes, at: 0, rules, usedTolerance: &usedTolerance)
                            }
                            : try oldRecords.ruleHash(in: old.file.bytes, at: old.table.starts[i], rules, usedTolerance: &usedTolerance)
                        let after = try newRecords.ruleHash(
                            in: new.file.bytes, at: new.table.starts[j], rules, usedTolerance: &usedTolerance)
                        // (The check that the keys are equal, which the values would make, is
                        // left out: the key hashes matched, and these hashes cover the keys too.)
                        if before == after, !usedTolerance {
                            kept[j] = true
                            try builder.matched(i, j, stays: stays[i], same: true)
                            continue
                        }
                    }
                    if written, let oldRecords = oldJSON, let newRecords = newJSON, self.sameList(old, i, new, j) {
                        let outcome =
                            far
                            ? try scratch.withUnsafeBufferPointer { bytes throws(ListDiffError) in
                                try FieldDiff.written(
                                    old: oldRecords, bytes, at: 0, new: newRecords, new.file.bytes, at: new.table.starts[j],
                                    fixed: fixed, significant: significant, room: &room)
                            }
                            : try FieldDiff.written(
                                old: oldRecords, old.file.bytes, at: old.table.starts[i], new: newRecords, new.file.bytes,
                                at: new.table.starts[j], fixed: fixed, significant: significant, room: &room)
                        if let outcome {
                            try builder.matched(i, j, stays: stays[i], same: outcome.same, fields: outcome.fields)
                            if outcome.same, kept.count > j { kept[j] = true }
                            continue
                        }
                    }
                    let a: Value, b: Value
                    if let value = oldValues[i] {
                        a = value
                        // Read before the walk: its page goes back soon.
                        if !oldRange.contains(i) { strays.add(old.table.starts[i], Int(old.table.lengths[i])) }
                    } else if far {
                        a = try scratch.withUnsafeBufferPointer { bytes throws(ListDiffError) in try old.records.value(copy: bytes) }
                    } else {
                        a = try old.records.value(i)
                    }
                    if let value = newValues[j] { b = value } else { b = try new.records.value(j) }
                    // Equal key hashes, different keys: again with other hashes.
                    let sameKey: Bool
                    if old.records.names == nil {
                        sameKey = self.sameList(old, i, new, j) && self.sameKey(a, b)
                    } else {
                        sameKey = try self.sameName(old, i, new, j)
                    }
                    guard sameKey else { return nil }
                    // (Same under the rules or `--unordered`, and so left as OLD's by apply.)
                    if try builder.compared(i, j, stays: stays[i], a, b, significant: significant), kept.count > j {
                        kept[j] = true
                    }
                }
                for i in oldRange where oldToNew[i] == 0 { try builder.delete(i) }
                new.file.release(floor..<Self.end(new, newRange))
                if !oldRange.isEmpty { old.file.release(old.table.starts[oldRange.lowerBound]..<Self.end(old, oldRange)) }
                strays.release()
                progress?.advance(by: Self.bytes(new, newRange) + Self.bytes(old, oldRange))
                return builder
            }
        }
        old.file.release(0..<old.file.bytes.count)
        new.file.release(0..<new.file.bytes.count)
        // Into one array, each part's changes let go once copied (so that they are not
        // held twice).
        var lists: [ChangeBuilder.Changes] = []
        var summary = Changeset.Summary()
        for k in 0..<count {
            guard let part = try results[k].get() else { return nil }
            lists.append(part.deletes)
            summary.deleted += part.summary.deleted
            summary.inserted += part.summary.inserted
            summary.moved += part.summary.moved
            summary.updated += part.summary.updated
            summary.unchanged += part.summary.unchanged
        }
        for k in 0..<count {
            lists.append(try results[k].get()!.others)
            results[k] = .success(nil)
        }
        let changes = ChangeBuilder.Changes.joined(&lists)
        return (changes, summary)
    }

    /// Progress units of a range of records (read, then compared).
    static func bytes(_ side: Side, _ range: Range<Int>) -> Int {
        guard !range.isEmpty else { return 0 }
        return 2 * (end(side, range) - side.table.starts[range.lowerBound])
    }

    /// Where the bytes of a range of records end.
    static func end(_ side: Side, _ range: Range<Int>) -> Int {
        range.upperBound < side.count ? side.table.starts[range.upperBound] : side.file.bytes.count
    }

    /// How the change builder sees a side: values read on demand, or left to be read when
    /// a change is written, from a copy of their bytes in `arena`.
    func side(_ side: Side, _ arena: ByteArena, _ values: [Int: Value]) -> RecordSide {
        let key = key
        let records = side.records
        let reader = records.copyReader
        let batches = records.readsInBatches
        var recordSide = RecordSide(
            count: side.count, position: side.position,
            value: { (i: Int) throws(ListDiffError) -> Value in
                if let value = values[i] { return value }
                return try records.value(i)
            },
            key: { (i: Int, value: Value?) throws(ListDiffError) -> Value in
                // (A map's record is keyed by its member name, not by anything in it.)
                if records.names == nil, let value = value ?? values[i] { return key.written(in: value) ?? .null }
                return try records.key(i, key)
            },
            isScalar: { i, value in key.isWholeRecord || (records.names == nil && (value?.isScalar ?? records.isScalar(i))) },
            occurrence: side.occurrence)
        recordSide.reference = { batches ? nil : records.reference($0, in: arena, reader: reader) }
        recordSide.error = { side.error(at: $0, path: $1, $2) }
        return recordSide
    }
}

/// A decision one thread makes once and another waits for.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let decision = Mutex<Bool?>(nil)

    /// Decides `value`, unless decided already.
    func open(_ value: Bool) {
        if decision.withLock({ (d: inout Bool?) -> Bool in
            guard d == nil else { return false }
            d = value
            return true
        }) {
            semaphore.signal()
        }
    }

    /// The decision, once made.
    func wait() -> Bool {
        semaphore.wait()
        return decision.withLock { $0 } ?? false
    }
}

extension RecordTable {
    /// For a NEW scanned on its own: each record's match in OLD's index, and the records
    /// that have none, as a scan against the index would have found them.
    mutating func fillMatches(_ keys: OldKeys) {
        matches = PageBuffer(zeroed: count)
        copies = PageBuffer(zeroed: count)
        strangers = PageBuffer(capacity: 16)
        for j in 0..<count {
            let match = keys.lookup(keyHashes[j])
            matches[j] = Int32(truncatingIfNeeded: match)
            if match < 0 { strangers.append(Stranger(record: j, keyHash: keyHashes[j])) }
        }
    }
}

/// Pages of an input read for a record or two away from where a part of the compare walks:
/// handed back in batches, so that each does not stay for the rest of the run.
struct StrayPages {
    let file: MappedFile
    var ranges: [Range<Int>] = []
    /// Ranges gathered before they are handed back.
    var limit = 256

    mutating func add(_ start: Int, _ length: Int) {
        ranges.append(start..<start + length)
        if ranges.count == limit { release() }
    }

    /// The kernel maps a page's neighbours in an aligned block of this size along with it
    /// when it is read (fault-around), so a stray record brings its whole block back.
    static let block = 64 << 10

    /// Hands the blocks back, neighbours merged into one call: each call makes every core
    /// drop the pages from its address cache, which costs far more than the call itself.
    mutating func release() {
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var run: Range<Int>? = nil
        for range in ranges {
            let block = range.lowerBound / Self.block * Self.block..<(range.upperBound + Self.block - 1) / Self.block * Self.block
            if let current = run, block.lowerBound <= current.upperBound {
                run = current.lowerBound..<max(current.upperBound, block.upperBound)
            } else {
                if let current = run { file.release(pages: current) }
                run = block
            }
        }
        if let run { file.release(pages: run) }
        ranges.removeAll(keepingCapacity: true)
    }
}
