import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// A diff split into shards (`--partition`) and joined (`listdiff join`) is the whole diff,
/// byte for byte, errors included; and the join refuses shards that are not of one diff.
@Suite struct ShardTests {
    static let context = RenderContext(oldName: "old", newName: "new")

    /// The changeset as the JSON changeset renders it, or the error.
    static func rendered(_ body: () throws(ListDiffError) -> Changeset) -> String {
        do throws(ListDiffError) {
            var out = StringStream()
            try JSONChangesetRenderer(context: context).render(try body(), to: &out)
            return out.text
        } catch {
            return "error: \(error)"
        }
    }

    /// Each shard's changeset of `n`, written and read back, in a shuffled order.
    static func shards(
        _ files: FileDiffer, _ old: URL, _ new: URL, count n: Int, positions: [ShardPositions]? = nil,
        inputs: [(URL, URL)]? = nil, rng: inout SplitMix64
    ) throws(ListDiffError) -> [(ShardChangeset, name: String)] {
        var out: [(ShardChangeset, name: String)] = []
        for i in 0..<n {
            let (a, b) = inputs?[i] ?? (old, new)
            let shard = try files.diffShard(old: a.path, new: b.path, shard: try Shard(index: i, of: n), positions: positions?[i])
            var bytes: [UInt8] = []
            try shard.render(context: context) { bytes.append(contentsOf: $0) }
            out.append((try ShardChangeset(json: bytes, name: "shard-\(i).json"), "shard-\(i).json"))
        }
        out.shuffle(using: &rng)
        return out
    }

    /// A random pair of NDJSON lists for a round (none when a value has no JSON spelling),
    /// written in `dir`.
    static func ndjsonLists(_ pairs: inout DocumentPairs, round: Int, in dir: URL) throws
        -> (DocumentPairs.Case, [Value], [Value], URL, URL)?
    {
        let c = DocumentPairs.Case(
            shape: .list, keyKind: DocumentPairs.KeyKind.allCases[round % 3], duplicates: round % 4 == 3 ? .match : .error,
            atPath: false)
        let (oldValue, newValue) = pairs.next(c)
        guard case .array(let oldRecords) = oldValue, case .array(let newRecords) = newValue,
            oldValue.firstNonFiniteNumber == nil, newValue.firstNonFiniteNumber == nil
        else { return nil }
        let old = dir.appendingPathComponent("old-\(round).ndjson"), new = dir.appendingPathComponent("new-\(round).ndjson")
        try lines(oldRecords).write(to: old, atomically: true, encoding: .utf8)
        try lines(newRecords).write(to: new, atomically: true, encoding: .utf8)
        return (c, oldRecords, newRecords, old, new)
    }

    /// Records as NDJSON.
    static func lines(_ records: [Value]) -> String { records.map { JSONWriter.compact($0) + "\n" }.joined() }

    /// The settings a round diffs under: plain, under rules, unordered, member order kept.
    static func differ(_ round: Int) throws -> Differ {
        var comparison = Comparison()
        switch round % 4 {
        case 1: comparison.ignore = [try Comparison.Pattern("/name")]
        case 2: comparison.unorderedRecords = true
        default: break
        }
        return Differ(memberOrder: round % 4 == 3 ? .significant : .ignore, comparison: comparison)
    }

    /// Random lists, maps, objects of lists, lists of section objects and lists named by a
    /// `*` path, in JSON, NDJSON and YAML, with every key kind and both duplicates policies,
    /// split into 1 to 5 shards: the join is the whole diff.
    @Test(arguments: DocumentPairs.Shape.allCases) func shardedThenJoinedIsTheWholeDiff(shape: DocumentPairs.Shape) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: 71 + UInt64(DocumentPairs.Shape.allCases.firstIndex(of: shape)!))
        var spelling = RandomSpelling(rng: SplitMix64(seed: 5), pretty: false)
        var rng = SplitMix64(seed: 6)
        var compared = 0, moved = 0, crossed = 0
        for round in 0..<160 {
            let c = DocumentPairs.Case(
                shape: shape, keyKind: DocumentPairs.KeyKind.allCases[round % 3],
                duplicates: round % 4 == 3 ? .match : .error, atPath: round % 5 == 4)
            let (oldValue, newValue) = pairs.next(c)
            let lines = !c.atPath && shape == .list && round % 3 == 1
            spelling.pretty = round % 4 == 1
            let (old, new) = try EngineTests.write(oldValue, newValue, in: dir, round: round, lines: lines, yaml: round % 3 == 2, &spelling)
            let reader = DocumentReader(key: try IdentityKey(parsing: c.key), duplicates: c.duplicates, layout: c.options)
            let files = FileDiffer(reader: reader, differ: try Self.differ(round))
            let whole = Self.rendered { () throws(ListDiffError) in try files.diff(old: old.path, new: new.path).changeset }
            let n = Int.random(in: 1...5, using: &rng)
            let joined = Self.rendered { () throws(ListDiffError) in
                try Changeset.joined(try Self.shards(files, old, new, count: n, rng: &rng))
            }
            #expect(joined == whole, "round \(round) \(c), \(n) shards")
            compared += 1
            if whole.contains("\"op\": \"move\"") { moved += 1 }
            if whole.contains("\"op\": \"move\""),
                whole.range(of: #"\[(\d+), \d+\], "new": \[(?!\1,)\d+, \d+\]"#, options: .regularExpression) != nil
            {
                crossed += 1
            }
        }
        #expect(compared == 160)
        #expect(shape == .map || moved > 20)
        // (Records that move from one section to another.)
        #expect(shape == .map || shape == .list || crossed > 5, "\(crossed) rounds move a record across sections")
    }

    /// Shards handed only their own records with their positions (as a cluster job hands
    /// them out) join into the diff of the whole NDJSON lists.
    @Test func preSplitShardsJoinIntoTheWholeDiff() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: 73)
        var rng = SplitMix64(seed: 7)
        var moved = 0
        for round in 0..<120 {
            guard let (c, oldRecords, newRecords, old, new) = try Self.ndjsonLists(&pairs, round: round, in: dir) else { continue }
            let reader = DocumentReader(key: try IdentityKey(parsing: c.key), duplicates: c.duplicates)
            let files = FileDiffer(reader: reader, differ: try Self.differ(round))
            let whole = Self.rendered { () throws(ListDiffError) in try files.diff(old: old.path, new: new.path).changeset }
            // (A record written with a member twice does not read: the errors are checked apart.)
            if whole.hasPrefix("error") { continue }
            let n = Int.random(in: 1...4, using: &rng)
            let oldShards = try files.keyHashes(old.path).map { KeyHash.shard($0, of: n) }
            let newShards = try files.keyHashes(new.path).map { KeyHash.shard($0, of: n) }
            var positions: [ShardPositions] = [], inputs: [(URL, URL)] = []
            for i in 0..<n {
                let o = oldShards.indices.filter { oldShards[$0] == i }, w = newShards.indices.filter { newShards[$0] == i }
                let a = dir.appendingPathComponent("old-\(round)-\(i).ndjson"), b = dir.appendingPathComponent("new-\(round)-\(i).ndjson")
                try Self.lines(o.map { oldRecords[$0] }).write(to: a, atomically: true, encoding: .utf8)
                try Self.lines(w.map { newRecords[$0] }).write(to: b, atomically: true, encoding: .utf8)
                positions.append(ShardPositions(oldCount: oldRecords.count, newCount: newRecords.count, old: o, new: w))
                inputs.append((a, b))
            }
            let joined = Self.rendered { () throws(ListDiffError) in
                try Changeset.joined(try Self.shards(files, old, new, count: n, positions: positions, inputs: inputs, rng: &rng))
            }
            #expect(joined == whole, "round \(round) \(c), \(n) shards")
            if whole.contains("\"op\": \"move\"") { moved += 1 }
        }
        #expect(moved > 10)
    }

    /// Under --unordered, shards handed only their own records and no positions
    /// (`--pre-split`) join into the diff of the records in shard order: each shard's
    /// records after those of the shards before it. Mixed with placed shards, refused.
    @Test func unplacedShardsJoinUnderUnordered() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: 74)
        var rng = SplitMix64(seed: 8)
        var compared = 0
        for round in 0..<100 {
            guard let (c, oldRecords, newRecords, old, new) = try Self.ndjsonLists(&pairs, round: round, in: dir) else { continue }
            let reader = DocumentReader(key: try IdentityKey(parsing: c.key), duplicates: c.duplicates)
            var comparison = Comparison()
            comparison.unorderedRecords = true
            if round % 2 == 1 { comparison.ignore = [try Comparison.Pattern("/name")] }
            let files = FileDiffer(reader: reader, differ: Differ(comparison: comparison))
            if Self.rendered({ () throws(ListDiffError) in try files.diff(old: old.path, new: new.path).changeset }).hasPrefix("error") {
                continue
            }
            let n = Int.random(in: 1...4, using: &rng)
            let oldShards = try files.keyHashes(old.path).map { KeyHash.shard($0, of: n) }
            let newShards = try files.keyHashes(new.path).map { KeyHash.shard($0, of: n) }
            var inputs: [(URL, URL)] = []
            var inShardOrder: ([Value], [Value]) = ([], [])
            for i in 0..<n {
                let o = oldShards.indices.filter { oldShards[$0] == i }.map { oldRecords[$0] }
                let w = newShards.indices.filter { newShards[$0] == i }.map { newRecords[$0] }
                inShardOrder.0 += o
                inShardOrder.1 += w
                let a = dir.appendingPathComponent("old-\(round)-\(i).ndjson"), b = dir.appendingPathComponent("new-\(round)-\(i).ndjson")
                try Self.lines(o).write(to: a, atomically: true, encoding: .utf8)
                try Self.lines(w).write(to: b, atomically: true, encoding: .utf8)
                inputs.append((a, b))
            }
            // The whole diff of the records in shard order.
            let shardOrderOld = dir.appendingPathComponent("ordered-old.ndjson"),
                shardOrderNew = dir.appendingPathComponent("ordered-new.ndjson")
            try Self.lines(inShardOrder.0).write(to: shardOrderOld, atomically: true, encoding: .utf8)
            try Self.lines(inShardOrder.1).write(to: shardOrderNew, atomically: true, encoding: .utf8)
            let whole = Self.rendered { () throws(ListDiffError) in
                try files.diff(old: shardOrderOld.path, new: shardOrderNew.path).changeset
            }
            let named = try Self.shards(
                files, old, new, count: n, positions: Array(repeating: .unplaced, count: n), inputs: inputs, rng: &rng)
            let joined = Self.rendered { () throws(ListDiffError) in try Changeset.joined(named) }
            #expect(joined == whole, "round \(round) \(c), \(n) shards")
            compared += 1
            if n > 1 {
                var mixed = named
                let placed = try Self.shards(files, old, new, count: n, rng: &rng)
                mixed[0] = placed.first { $0.0.shard.index == mixed[0].0.shard.index }!
                let refused = Self.rendered { () throws(ListDiffError) in try Changeset.joined(mixed) }
                #expect(refused.contains("carries no positions"), "\(refused)")
            }
        }
        #expect(compared > 60)
    }

    /// CSV inputs, with cells read as strings or typed, under both duplicates policies.
    @Test func csvShardsJoinIntoTheWholeDiff() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var rng = SplitMix64(seed: 9)
        var moved = 0
        for round in 0..<80 {
            let duplicates: DuplicatePolicy = round % 2 == 0 ? .error : .match
            func row(_ id: Int) -> [String] {
                [String(id), ["ada", "alan", "grace"].randomElement(using: &rng)!, String(Int.random(in: 0..<3, using: &rng))]
            }
            let ids = duplicates == .match ? (0..<12).map { _ in Int.random(in: 0..<6, using: &rng) } : Array(0..<12).shuffled(using: &rng)
            let oldRows = ids.map(row)
            var newRows = oldRows
            for _ in 0..<Int.random(in: 0..<4, using: &rng) where !newRows.isEmpty {
                newRows.remove(at: Int.random(in: 0..<newRows.count, using: &rng))
            }
            for k in 0..<Int.random(in: 0..<4, using: &rng) {
                newRows.insert(row(100 + k), at: Int.random(in: 0...newRows.count, using: &rng))
            }
            for _ in 0..<Int.random(in: 0..<4, using: &rng) where !newRows.isEmpty {
                let k = Int.random(in: 0..<newRows.count, using: &rng)
                newRows[k][2] = "9"
                newRows.swapAt(k, Int.random(in: 0..<newRows.count, using: &rng))
            }
            func csv(_ rows: [[String]]) -> String { "id,name,v\n" + rows.map { $0.joined(separator: ",") + "\n" }.joined() }
            let old = dir.appendingPathComponent("old-\(round).csv"), new = dir.appendingPathComponent("new-\(round).csv")
            try csv(oldRows).write(to: old, atomically: true, encoding: .utf8)
            try csv(newRows).write(to: new, atomically: true, encoding: .utf8)
            var reader = DocumentReader(key: try IdentityKey(parsing: ["id"]), duplicates: duplicates)
            reader.csvInfersTypes = round % 3 == 0
            let files = FileDiffer(reader: reader, differ: try Self.differ(round))
            let whole = Self.rendered { () throws(ListDiffError) in try files.diff(old: old.path, new: new.path).changeset }
            let n = Int.random(in: 1...4, using: &rng)
            let joined = Self.rendered { () throws(ListDiffError) in
                try Changeset.joined(try Self.shards(files, old, new, count: n, rng: &rng))
            }
            #expect(joined == whole, "round \(round), \(n) shards")
            #expect(!whole.hasPrefix("error"), "round \(round)")
            if whole.contains("\"op\": \"move\"") { moved += 1 }
        }
        #expect(moved > 20)
    }

    /// A whole diff's error is every shard's, at the same place: a key repeated (its two
    /// records may fall in any shard), a record without its key, malformed text.
    @Test func everyShardGivesTheWholeDiffsError() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let cases = [
            ("[{\"id\": 1}, {\"id\": 2}, {\"id\": 1}]", "[{\"id\": 1}]"),
            ("[{\"id\": 1}, {\"name\": \"x\"}]", "[{\"id\": 1}]"),
            ("[{\"id\": 1}]", "[{\"id\": 1}, {\"id\": 3}, {\"id\": 3}]"),
            ("[{\"id\": 1}]", "[{\"id\": 1},"),
            // In sections: a key repeated in two sections, a record without its key, a
            // section named twice, a section object without its records.
            ("{\"a\": [{\"id\": 1}], \"b\": [{\"id\": 2}, {\"id\": 1}]}", "{\"a\": []}"),
            ("{\"a\": [{\"id\": 1}], \"b\": [{\"v\": 2}]}", "{\"a\": []}"),
            ("[{\"name\": \"a\", \"items\": [{\"id\": 1}]}, {\"name\": \"a\", \"items\": []}]", "[]"),
            ("[{\"name\": \"a\", \"items\": [{\"id\": 1}]}, {\"name\": \"b\"}]", "[]"),
        ]
        for (k, (oldText, newText)) in cases.enumerated() {
            let old = dir.appendingPathComponent("old-\(k).json"), new = dir.appendingPathComponent("new-\(k).json")
            try oldText.write(to: old, atomically: true, encoding: .utf8)
            try newText.write(to: new, atomically: true, encoding: .utf8)
            let files = FileDiffer(reader: DocumentReader(key: try IdentityKey(parsing: ["id"])))
            let whole = Self.rendered { () throws(ListDiffError) in try files.diff(old: old.path, new: new.path).changeset }
            #expect(whole.hasPrefix("error: "), "case \(k)")
            for i in 0..<3 {
                let shard = Self.rendered { () throws(ListDiffError) in
                    try files.diffShard(old: old.path, new: new.path, shard: try Shard(index: i, of: 3)).changeset
                }
                #expect(shard == whole, "case \(k), shard \(i)")
            }
        }
    }

    /// The join refuses a shard missing, given twice, of another split, or of other inputs.
    @Test func joinRefusesShardsThatAreNotOfOneDiff() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let records = (0..<40).map { "{\"id\": \($0), \"v\": \($0 % 7)}" }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        let other = dir.appendingPathComponent("other.json")
        try ("[" + records.joined(separator: ",") + "]").write(to: old, atomically: true, encoding: .utf8)
        try ("[" + records.reversed().joined(separator: ",") + "]").write(to: new, atomically: true, encoding: .utf8)
        try ("[" + records.dropFirst().joined(separator: ",") + ", {\"id\": 99}]").write(to: other, atomically: true, encoding: .utf8)
        let files = FileDiffer(reader: DocumentReader(key: try IdentityKey(parsing: ["id"])))
        var rng = SplitMix64(seed: 8)
        let four = try Self.shards(files, old, new, count: 4, rng: &rng).sorted { $0.0.shard.index < $1.0.shard.index }
        let three = try Self.shards(files, old, new, count: 3, rng: &rng)
        let elsewhere = try Self.shards(files, old, other, count: 4, rng: &rng).sorted { $0.0.shard.index < $1.0.shard.index }
        func refusal(_ shards: [(ShardChangeset, name: String)]) -> String {
            do throws(ListDiffError) {
                _ = try Changeset.joined(shards)
                return "joined"
            } catch {
                #expect(error.kind == .changeset)
                return error.description
            }
        }
        #expect(refusal(Array(four.dropLast())) == "error: shard 3/4 is missing: join needs all 4 shards")
        #expect(refusal(four + [four[1]]).hasSuffix("shard 1/4 is given twice (also as shard-1.json)"))
        #expect(refusal(four.dropLast() + [three[0]]).contains("the shards are of different splits"))
        #expect(refusal(four.dropLast() + [elsewhere[3]]).contains("its fingerprint differs"))
        #expect(refusal(Array(four)) == "joined")
        // Shards of pre-split inputs carry no fingerprints: their positions give them away.
        var a = four[0].0, b = four[1].0
        a.changeset.fingerprints = nil
        b.changeset.fingerprints = nil
        b.part.oldPositions = a.part.oldPositions
        var rest = four.dropFirst(2).map { ($0.0, $0.name) }
        for k in rest.indices { rest[k].0.changeset.fingerprints = nil }
        #expect(refusal([(a, "a.json"), (b, "b.json")] + rest).contains("is in two shards"))
        // A shard's changeset is not a changeset to apply.
        var bytes: [UInt8] = []
        try four[0].0.render(context: Self.context) { bytes.append(contentsOf: $0) }
        #expect(throws: ListDiffError.self) { try Changeset(json: bytes) }

        // Records in sections: every shard gives the documents' sections, which must agree
        // and hold their records.
        let sectioned = dir.appendingPathComponent("sectioned.json")
        try ("{\"a\": [" + records.prefix(25).joined(separator: ",") + "], \"b\": [" + records.dropFirst(25).joined(separator: ",") + "]}")
            .write(to: sectioned, atomically: true, encoding: .utf8)
        let regrouped = dir.appendingPathComponent("regrouped.json")
        try
            ("{\"b\": [" + records.prefix(10).joined(separator: ",") + "], \"a\": ["
            + records.dropFirst(10).reversed().joined(separator: ",") + "]}")
            .write(to: regrouped, atomically: true, encoding: .utf8)
        var two = try Self.shards(files, sectioned, regrouped, count: 2, rng: &rng).sorted { $0.0.shard.index < $1.0.shard.index }
        #expect(refusal(two) == "joined")
        two[1].0.part.oldSections[0].records -= 1
        two[1].0.part.oldSections[1].records += 1
        #expect(refusal(two).contains("its list of sections differs"))
        two[0].0.part.oldSections = two[1].0.part.oldSections
        #expect(refusal(two).contains("the shards' records do not give the fingerprints"))
        two[0].0.part.oldSections[1].records += 1
        two[1].0.part.oldSections = two[0].0.part.oldSections
        #expect(refusal(two).contains("its sections do not hold the documents' records"))
        // Shards of sections read the whole inputs: they name the fingerprints.
        var unnamed = try Self.shards(files, sectioned, regrouped, count: 2, rng: &rng)
        for k in unnamed.indices { unnamed[k].0.changeset.fingerprints = nil }
        #expect(refusal(unnamed).contains("names no fingerprints"))
        // Matched pairs that do not match the records' hashes (two swapped).
        var swapped = four
        let pairs = swapped[1].0.part.matched
        if pairs.count >= 2 {
            swapped[1].0.part.matched[0].new = pairs[1].new
            swapped[1].0.part.matched[1].new = pairs[0].new
        }
        #expect(pairs.count >= 2)
        #expect(refusal(swapped).contains("does not match the records' hashes"))
    }

    /// `join` of files reads each twice when records moved: a file whose text changed
    /// between the two reads (here a named pipe that gives other text the second time) is
    /// refused, not read for other keys.
    @Test func aShardFileThatChangesBetweenItsReadsIsRefused() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let records = (0..<20).map { "{\"id\": \($0)}" }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        try ("[" + records.joined(separator: ",") + "]").write(to: old, atomically: true, encoding: .utf8)
        try ("[" + records.reversed().joined(separator: ",") + "]").write(to: new, atomically: true, encoding: .utf8)
        let files = FileDiffer(reader: DocumentReader(key: try IdentityKey(parsing: ["id"])))
        var paths: [String] = []
        var texts: [String] = []
        for i in 0..<2 {
            var bytes: [UInt8] = []
            try files.diffShard(old: old.path, new: new.path, shard: try Shard(index: i, of: 2)).render(context: Self.context) {
                bytes.append(contentsOf: $0)
            }
            let path = dir.appendingPathComponent("shard-\(i).json").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        #expect(try Changeset.joined(files: paths).summary.moved > 0)
        // Shard 1 again, through a pipe that gives its text, then that text with a space more.
        let pipe = dir.appendingPathComponent("pipe.json").path
        #expect(mkfifo(pipe, 0o600) == 0)
        let versions = [texts[1], texts[1] + " "]
        let writer = Thread {
            for (k, text) in versions.enumerated() {
                if k > 0 {
                    // Not until the first read has let go of the pipe: a writer that opens
                    // it while a reader holds it adds to that read.
                    while true {
                        let fd = open(pipe, O_WRONLY | O_NONBLOCK)
                        if fd < 0 { break }
                        close(fd)
                        usleep(1000)
                    }
                }
                guard let handle = FileHandle(forWritingAtPath: pipe) else { return }
                handle.write(Data(text.utf8))
                try? handle.close()
            }
        }
        writer.start()
        do throws(ListDiffError) {
            _ = try Changeset.joined(files: [paths[0], pipe])
            Issue.record("joined a file that changed")
        } catch {
            #expect(error.kind == .io)
            #expect(error.description.contains("the file changed while it was being read"), "\(error)")
        }
    }

    /// The key hash is the engine's first-attempt key hash, and is pinned: shards made on
    /// one machine join with shards made on another, by another version of listdiff.
    @Test func theKeyHashIsTheEnginesAndIsPinned() throws {
        #expect(KeyHash.of(.number(Number(exactly: 7))) == KeyHash.of(try json("7.0")))
        #expect(KeyHash.of(try json("70e-1")) == KeyHash.of(try json("7")))
        #expect(KeyHash.hexDigits(KeyHash.of(.number(Number(exactly: 7)))) == "28d6e10a16d90d9f")
        #expect(KeyHash.hexDigits(KeyHash.of(.string("alice"))) == "8f122e8175a6be38")
        #expect(KeyHash.hexDigits(KeyHash.of(try json("[\"eu\", 4]"))) == "32d86243801db49d")
        #expect(KeyHash.hexDigits(KeyHash.of(.string("a string longer than sixteen bytes"))) == "e1b006be0da9bd22")
        for (key, text) in [
            (["id"], "[{\"id\": 1}, {\"id\": \"x\"}, {\"id\": 2.50}]"),
            (["r", "n"], "[{\"r\": \"eu\", \"n\": 1}, {\"n\": 2, \"r\": \"us\"}]"),
        ] {
            let files = FileDiffer(reader: DocumentReader(key: try IdentityKey(parsing: key)))
            let side = try files.engine(key: files.reader.key, duplicates: .error).side(
                MappedFile(name: "t.json", bytes: Array(text.utf8)), .json, against: nil, KeyHashing())
            #expect((0..<side.count).map { side.table.keyHashes[$0] } == (try FileDiffer.read(side, files.reader.key)), "\(text)")
        }
    }

    /// The key hashes a shard takes from the scans (a NEW record's from its OLD match, or
    /// the one its scan kept) are those of the keys read again, in JSON, YAML, lists and maps.
    @Test func theScansKeyHashesAreTheKeysHashes() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let cases: [(String, String, String, String?)] = [
            (
                "json", "[{\"id\": 1}, {\"id\": \"x\"}, {\"id\": 2.50}, {\"id\": 4}]",
                "[{\"id\": 2.5}, {\"id\": 9}, {\"id\": 1, \"v\": 2}]", nil
            ),
            ("yaml", "- id: 1\n- id: x\n- id: 3\n", "- id: 3\n- id: 7\n- id: x\n  v: 1\n", nil),
            ("json", "{\"a\": {\"v\": 1}, \"b\": {\"v\": 2}}", "{\"c\": {\"v\": 1}, \"a\": {\"v\": 3}}", nil),
            ("yaml", "a: {v: 1}\nb: {v: 2}\n", "b: {v: 2}\nc: {v: 5}\n", nil),
            ("json", "{\"a\": [{\"id\": 1}], \"b\": [{\"id\": 2}, {\"id\": 3}]}", "{\"b\": [{\"id\": 1}, {\"id\": 3}, {\"id\": 4}]}", nil),
            (
                "json", "{\"g\": {\"a\": {\"items\": [{\"id\": 1}]}, \"b\": {\"items\": [{\"id\": 1}, {\"id\": 3}]}}}",
                "{\"g\": {\"b\": {\"items\": [{\"id\": 1}, {\"id\": 3}, {\"id\": 4}]}}}", "/g/*/items"
            ),
        ]
        for (k, (ext, oldText, newText, path)) in cases.enumerated() {
            let old = dir.appendingPathComponent("old-\(k).\(ext)"), new = dir.appendingPathComponent("new-\(k).\(ext)")
            try oldText.write(to: old, atomically: true, encoding: .utf8)
            try newText.write(to: new, atomically: true, encoding: .utf8)
            var files = FileDiffer(
                reader: DocumentReader(
                    key: try IdentityKey(parsing: ["id"]), layout: LayoutOptions(path: try path.map { try FieldPath($0) })))
            files.forShard = true
            let result = try files.diff(old: old.path, new: new.path)
            let oldSide = try #require(result.old?.side), newSide = try #require(result.new)
            let (a, b) = try FileDiffer.keyHashes(oldSide, newSide, files.reader.key)
            #expect(a == (try FileDiffer.read(oldSide, files.reader.key)), "case \(k)")
            #expect(b == (try FileDiffer.read(newSide, files.reader.key)), "case \(k)")
            #expect(a.count == 2 || a.count > 2 && b.count == 3, "case \(k)")
        }
    }

    /// What a shard cannot do is refused, as a usage error: a sequence (`--key .`), another
    /// algorithm than Heckel's, and positions for records in sections (which the join places
    /// by the sections of the whole documents).
    @Test func sequencesAndPlacedSectionsAreRefused() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        try "{\"a\": [{\"id\": 1}], \"b\": []}".write(to: old, atomically: true, encoding: .utf8)
        try "{\"a\": [], \"b\": [{\"id\": 1}]}".write(to: new, atomically: true, encoding: .utf8)
        let placed = ShardPositions(oldCount: 1, newCount: 1, old: [0], new: [0])
        for (key, algorithm, positions) in [
            (["."], HeckelDiff() as any DiffAlgorithm, nil), (["id"], MyersDiff(), nil), (["id"], HeckelDiff(), placed),
            (["id"], HeckelDiff(), ShardPositions.unplaced),
        ] {
            let files = FileDiffer(reader: DocumentReader(key: try IdentityKey(parsing: key)), differ: Differ(algorithm: algorithm))
            do throws(ListDiffError) {
                _ = try files.diffShard(old: old.path, new: new.path, shard: try Shard(index: 0, of: 1), positions: positions)
                Issue.record("\(key) \(algorithm.name) \(String(describing: positions)): not refused")
            } catch {
                #expect(error.kind == .usage, "\(error)")
            }
        }
        // The whole inputs split: the record moves from one section to the other.
        let files = FileDiffer(reader: DocumentReader(key: try IdentityKey(parsing: ["id"])))
        let shards = try (0..<2).map { i throws(ListDiffError) in
            (try files.diffShard(old: old.path, new: new.path, shard: try Shard(index: i, of: 2)), name: "shard-\(i)")
        }
        let joined = try Changeset.joined(shards)
        #expect(joined.changes.map(\.operation) == [.move])
        #expect(joined.changes.first?.old == RecordPosition(section: 0, index: 0))
        #expect(joined.changes.first?.new == RecordPosition(section: 1, index: 0))
        for text in ["1/1", "4/4", "-1/3", "a/b", "3"] {
            #expect(throws: ListDiffError.self) { try Shard(parsing: text) }
        }
        #expect(try Shard(parsing: "3/4") == Shard(index: 3, of: 4))
    }
}
