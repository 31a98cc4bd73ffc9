import Foundation
import Testing

/// `listdiff invert` and `listdiff compose` through the built binary: on random chains of
/// documents (inserts, deletes, updates and moves of records, and of elements of a keyed
/// list inside them under --array-key), the inverse applied to NEW gives OLD, and each
/// result is the changeset a direct diff writes; and what they refuse, with its place and
/// status.
@Suite struct AlgebraCommandTests {
    /// A seeded xorshift generator, so that a failing chain can be replayed from its seed.
    struct Random {
        var state: UInt64
        init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
        mutating func below(_ n: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(n))
        }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    /// A record: its members in order, each written as JSON text.
    typealias Record = [(name: String, json: String)]

    /// A record with key `id`, some members sometimes there and an array of varying length.
    static func record(_ id: Int, _ random: inout Random) -> Record {
        var members: Record = [("id", "\(id)"), ("v", "\(random.below(5))")]
        if random.chance(50) { members.append(("s", "\"s\(random.below(3))\"")) }
        members.append(("list", "[" + (0..<random.below(4)).map { _ in "\(random.below(3))" }.joined(separator: ", ") + "]"))
        members.append(("obj", random.chance(50) ? "{\"x\": \(random.below(3))}" : "{\"x\": 0, \"y\": [\(random.below(2))]}"))
        // A list keyed by sku (under --array-key /lines=sku): some of six skus, in any order.
        var skus = (0..<6).filter { _ in random.chance(50) }
        for k in skus.indices.reversed() { skus.swapAt(k, random.below(k + 1)) }
        let lines = skus.map { "{\"sku\": \"k\($0)\", \"q\": \(random.below(2))}" }
        members.append(("lines", "[" + lines.joined(separator: ", ") + "]"))
        return members
    }

    /// The next version of a list: deletes, updates, moves and inserts at random; an insert
    /// takes a fresh key or, now and then, one deleted before (`gone`).
    static func changed(_ old: [Record], _ random: inout Random, nextID: inout Int, gone: inout [Int]) -> [Record] {
        var records: [Record] = []
        for record in old {
            if random.chance(15) {
                gone.append(Int(record[0].json)!)
                continue
            }
            guard random.chance(25) else {
                records.append(record)
                continue
            }
            var fresh = Self.record(Int(record[0].json)!, &random)
            if random.chance(50) { fresh = fresh.filter { $0.name != "v" } }
            records.append(fresh)
        }
        for _ in 0..<random.below(4) where !records.isEmpty {
            let moved = records.remove(at: random.below(records.count))
            records.insert(moved, at: random.below(records.count + 1))
        }
        for _ in 0..<random.below(4) {
            let id: Int
            if !gone.isEmpty, random.chance(40) {
                id = gone.remove(at: random.below(gone.count))
            } else {
                id = nextID
                nextID += 1
            }
            records.insert(Self.record(id, &random), at: random.below(records.count + 1))
        }
        return records
    }

    static func text(_ records: [Record]) -> String {
        "[\n" + records.map { "  {" + $0.map { "\"\($0.name)\": \($0.json)" }.joined(separator: ", ") + "}" }.joined(separator: ",\n")
            + "\n]\n"
    }

    /// A changeset with its members sorted, each update's fields by their text, and the inputs'
    /// names and generator left out: what must be equal, whatever order a record's members
    /// were rebuilt in (an update's fields follow its old record's members).
    /// `withoutMoves`: the moves, the stages and the count of unchanged records left out too,
    /// for a result whose moves are as few as the diff's, but not the same records'.
    static func canonical(_ json: String, withoutMoves: Bool = false) throws -> String {
        var object = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        for name in ["old", "new", "generator"] { object.removeValue(forKey: name) }
        // How OLD was read: an inverse does not know (its OLD is the diff's NEW).
        var layout = try #require(object["layout"] as? [String: Any])
        layout.removeValue(forKey: "format")
        object["layout"] = layout
        var changes = try #require(object["changes"] as? [[String: Any]])
        if withoutMoves {
            changes.removeAll { $0["op"] as? String == "move" }
            object.removeValue(forKey: "stages")
            var summary = try #require(object["summary"] as? [String: Any])
            summary.removeValue(forKey: "unchanged")
            object["summary"] = summary
        }
        object["changes"] = changes.map { change in
            var change = change
            if let fields = change["fields"] as? [[String: Any]] {
                let spelled = fields.map { field in
                    String(decoding: (try? JSONSerialization.data(withJSONObject: field, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
                }
                change["fields"] = zip(spelled, fields).sorted { $0.0 < $1.0 }.map(\.1)
            }
            return change
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// `result` is the direct diff's changeset; or, where that diff moves a record the
    /// changesets do not name (whose key they do not hold), it differs in which records
    /// move, not in how many, nor in anything else.
    static func expectDirect(_ result: String, _ direct: String, seed: Int) throws {
        if try canonical(result) == canonical(direct) { return }
        #expect(try canonical(result, withoutMoves: true) == canonical(direct, withoutMoves: true), "seed \(seed)")
        let count = { (json: String) in json.components(separatedBy: "\"op\": \"move\"").count }
        #expect(count(result) == count(direct), "seed \(seed): not as few moves as the direct diff")
    }

    /// Runs the binary in `dir`; a status other than 0 or 1 fails the test.
    static func run(_ arguments: [String], in dir: URL) throws -> String {
        let run = try Binary.run(arguments, in: dir)
        #expect(run.status <= 1, "\(arguments): \(run.stderr)")
        return run.stdout
    }

    /// A random chain A → B: the inverse of A's changeset to B, applied to B, gives A
    /// (apply checks the result's fingerprint against A's), and it equals B's diff to A.
    @Test(arguments: 0..<30, [[], ["--array-key", "/lines=sku"]])
    func invertUndoesTheChangeset(seed: Int, options: [String]) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var random = Random(seed: UInt64(seed))
        var nextID = 0, gone: [Int] = []
        let a = (0..<random.below(25)).map { _ in
            defer { nextID += 1 }; return Self.record(nextID, &random)
        }
        let b = Self.changed(a, &random, nextID: &nextID, gone: &gone)
        try Self.text(a).write(to: dir.appendingPathComponent("a.json"), atomically: true, encoding: .utf8)
        try Self.text(b).write(to: dir.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
        _ = try Self.run(["-f", "json", "-o", "ab.json"] + options + ["a.json", "b.json"], in: dir)
        _ = try Self.run(["invert", "ab.json", "-o", "ba.json"], in: dir)
        let back = try Binary.run(["apply", "b.json", "ba.json", "-o", "back.json"], in: dir)
        #expect(back.status == 0, "seed \(seed): \(back.stderr)")
        let same = try Binary.run(["-q", "back.json", "a.json"], in: dir)
        #expect(same.status == 0, "seed \(seed): the inverse applied to B is not A")
        let direct = try Self.run(["-f", "json"] + options + ["b.json", "a.json"], in: dir)
        let inverse = try String(contentsOf: dir.appendingPathComponent("ba.json"), encoding: .utf8)
        try Self.expectDirect(inverse, direct, seed: seed)
    }

    /// A random chain A → B → C: the composed changeset equals A's diff to C, and applied to
    /// A gives C; with --old A, it is the diff's changeset exactly, moves included.
    @Test(arguments: 0..<30, [[], ["--array-key", "/lines=sku"]])
    func composeEqualsTheDirectDiff(seed: Int, options: [String]) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var random = Random(seed: UInt64(seed) + 1000)
        var nextID = 0, gone: [Int] = []
        let a = (0..<random.below(25)).map { _ in
            defer { nextID += 1 }; return Self.record(nextID, &random)
        }
        let b = Self.changed(a, &random, nextID: &nextID, gone: &gone)
        let c = Self.changed(b, &random, nextID: &nextID, gone: &gone)
        for (name, records) in [("a", a), ("b", b), ("c", c)] {
            try Self.text(records).write(to: dir.appendingPathComponent(name + ".json"), atomically: true, encoding: .utf8)
        }
        _ = try Self.run(["-f", "json", "-o", "ab.json"] + options + ["a.json", "b.json"], in: dir)
        _ = try Self.run(["-f", "json", "-o", "bc.json"] + options + ["b.json", "c.json"], in: dir)
        let direct = try Self.run(["-f", "json"] + options + ["a.json", "c.json"], in: dir)
        // With A, the keys the changesets lack are read from it: the diff's own moves.
        let withOld = try Binary.run(["compose", "--old", "a.json", "ab.json", "bc.json"], in: dir)
        #expect(withOld.status == 0, "seed \(seed): \(withOld.stderr)")
        #expect(try Self.canonical(withOld.stdout) == Self.canonical(direct), "seed \(seed)")
        let run = try Binary.run(["compose", "ab.json", "bc.json", "-o", "ac.json"], in: dir)
        // A record neither changeset names may have to move: its key is then not known.
        if run.status == 2, run.stderr.contains("which neither changeset names") {
            #expect(direct.contains("\"op\": \"move\""), "seed \(seed): refused, but the direct diff moves nothing")
            return
        }
        #expect(run.status == 0, "seed \(seed): \(run.stderr)")
        let composed = try String(contentsOf: dir.appendingPathComponent("ac.json"), encoding: .utf8)
        try Self.expectDirect(composed, direct, seed: seed)
        let applied = try Binary.run(["apply", "a.json", "ac.json", "-o", "result.json"], in: dir)
        #expect(applied.status == 0, "seed \(seed): \(applied.stderr)")
        #expect(try Binary.run(["-q", "result.json", "c.json"], in: dir).status == 0, "seed \(seed)")
    }

    /// Where every fewest set of moves moves a record neither changeset names (3, which
    /// stays in B and in C while 1 and 2 move around it), compose refuses and names
    /// --old; with it, the result is the direct diff, and a document other than A is refused.
    @Test func composeReadsTheKeysItLacksFromA() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, ids) in [("a", [1, 2, 3]), ("b", [2, 3, 1]), ("c", [3, 1, 2])] {
            let text = "[" + ids.map { "{\"id\": \($0), \"v\": \"r\($0)\"}" }.joined(separator: ", ") + "]\n"
            try text.write(to: dir.appendingPathComponent(name + ".json"), atomically: true, encoding: .utf8)
        }
        _ = try Self.run(["-f", "json", "-o", "ab.json", "a.json", "b.json"], in: dir)
        _ = try Self.run(["-f", "json", "-o", "bc.json", "b.json", "c.json"], in: dir)
        let refused = try Binary.run(["compose", "ab.json", "bc.json", "-o", "ac.json"], in: dir)
        #expect(refused.status == 2)
        #expect(
            refused.stderr
                == "listdiff: error: the composed changes move old record 2, which neither changeset names, so its key is not known; --old FILE reads it from the document the first changeset was made from\n",
            "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("ac.json").path))
        let composed = try Binary.run(["compose", "--old", "a.json", "ab.json", "bc.json"], in: dir)
        #expect(composed.status == 0, "\(composed.stderr)")
        let direct = try Self.run(["-f", "json", "a.json", "c.json"], in: dir)
        #expect(composed.stdout == direct, "\(composed.stdout)")
        // A from standard input, as apply reads OLD.
        let a = try String(contentsOf: dir.appendingPathComponent("a.json"), encoding: .utf8)
        let piped = try Binary.run(["compose", "--old", "-", "ab.json", "bc.json"], stdin: a, in: dir)
        #expect(piped.stdout == direct, "\(piped.stderr)")
        // Another document is not A: refused, one line, no result written.
        let wrong = try Binary.run(["compose", "--old", "b.json", "ab.json", "bc.json", "-o", "ac.json"], in: dir)
        #expect(wrong.status == 2)
        #expect(
            wrong.stderr.hasPrefix("b.json: error: this is not the document the first changeset was made from (its fingerprint is "),
            "\(wrong.stderr)")
        #expect(wrong.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("ac.json").path))
    }

    /// Changesets that do not chain are refused, naming the second and both fingerprints.
    @Test func composeRefusesChangesetsThatDoNotChain() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "[{\"id\": 1}, {\"id\": 2}]\n".write(to: dir.appendingPathComponent("a.json"), atomically: true, encoding: .utf8)
        try "[{\"id\": 2}, {\"id\": 1, \"v\": 1}]\n".write(to: dir.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
        _ = try Self.run(["-f", "json", "-o", "ab.json", "a.json", "b.json"], in: dir)
        try FileManager.default.copyItem(at: dir.appendingPathComponent("ab.json"), to: dir.appendingPathComponent("again.json"))
        let run = try Binary.run(["compose", "ab.json", "again.json"], in: dir)
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr.hasPrefix("again.json: error: the changesets do not chain: the second was made from a document"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        // The same changeset after its inverse chains, and composes to nothing.
        _ = try Self.run(["invert", "-o", "ba.json", "ab.json"], in: dir)
        let back = try Binary.run(["compose", "ab.json", "ba.json"], in: dir)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout.contains("\"changes\": []"), "\(back.stdout)")
    }

    /// What invert and compose do not handle yet is refused with the reason, status 2.
    @Test(arguments: [
        (["--unordered"], "made under comparison rules"),
        (["--ignore", "/v"], "made under comparison rules"),
        (["--duplicates", "match"], "made with --duplicates match"),
        (["--key", "."], "of sequences (--key .)"),
    ])
    func refusesWhatItDoesNotHandle(options: [String], reason: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "[{\"id\": 1, \"v\": 0, \"tags\": []}, {\"id\": 2, \"v\": 0, \"tags\": []}]\n".write(
            to: dir.appendingPathComponent("a.json"), atomically: true, encoding: .utf8)
        try "[{\"id\": 2, \"v\": 1, \"tags\": []}]\n".write(to: dir.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
        _ = try Self.run(["-f", "json", "-o", "ab.json"] + options + ["a.json", "b.json"], in: dir)
        for command in [["invert", "ab.json"], ["compose", "ab.json", "ab.json"]] {
            let run = try Binary.run(command, in: dir)
            #expect(run.status == 2)
            #expect(run.stderr == "ab.json: error: \(command[0]) does not handle changesets \(reason) yet\n", "\(run.stderr)")
        }
    }

    /// A map's member that changed and stands elsewhere is one update (members have no
    /// moves); invert and compose place it where the update says.
    @Test func mapMemberThatMovedAndChanged() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try write(
            [
                "a.json": #"{"a": {"v": 1}, "b": {"v": 2}, "c": {"v": 3}}"#,
                "b.json": #"{"c": {"v": 4}, "a": {"v": 1}, "b": {"v": 2}}"#,
                "c.json": #"{"b": {"v": 5}, "c": {"v": 4}, "a": {"v": 1}}"#,
            ], in: dir)
        _ = try Self.run(["-f", "json", "-o", "ab.json", "a.json", "b.json"], in: dir)
        _ = try Self.run(["-f", "json", "-o", "bc.json", "b.json", "c.json"], in: dir)
        let inverted = try Binary.run(["invert", "-o", "ba.json", "ab.json"], in: dir)
        #expect(inverted.status == 0, "\(inverted.stderr)")
        #expect(try Binary.run(["apply", "-o", "back.json", "b.json", "ba.json"], in: dir).status == 0)
        #expect(try Binary.run(["-q", "back.json", "a.json"], in: dir).status == 0)
        let composed = try Binary.run(["compose", "-o", "ac.json", "ab.json", "bc.json"], in: dir)
        #expect(composed.status == 0, "\(composed.stderr)")
        #expect(try Binary.run(["apply", "-o", "end.json", "a.json", "ac.json"], in: dir).status == 0)
        #expect(try Binary.run(["-q", "end.json", "c.json"], in: dir).status == 0)
    }

    /// Sections are refused too; a changeset whose positions do not fit is an error at its change.
    @Test func refusesSectionsAndNamesTheChangeAtFault() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sections = "[{\"name\": \"s\", \"items\": [{\"id\": 1}]}, {\"name\": \"t\", \"items\": [{\"id\": 2}]}]\n"
        try sections.write(to: dir.appendingPathComponent("a.json"), atomically: true, encoding: .utf8)
        try sections.replacingOccurrences(of: "2}", with: "3}").write(
            to: dir.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
        _ = try Self.run(["-f", "json", "-o", "ab.json", "a.json", "b.json"], in: dir)
        let run = try Binary.run(["invert", "ab.json"], in: dir)
        #expect(run.status == 2)
        #expect(run.stderr == "ab.json: error: invert does not handle changesets of sections or of many lists yet\n", "\(run.stderr)")
        let bad = """
            {"version": 1, "key": ["id"], "records": {"old": 1, "new": 1},
              "changes": [
                {"op": "move", "key": 1, "old": [0, 5], "new": [0, 0]}
              ]}

            """
        try bad.write(to: dir.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        let placed = try Binary.run(["invert", "bad.json"], in: dir)
        #expect(placed.status == 2)
        #expect(
            placed.stderr == "bad.json:3:5: error: the move names old position [0, 5], beyond the 1 records of OLD\n", "\(placed.stderr)")
    }
}
