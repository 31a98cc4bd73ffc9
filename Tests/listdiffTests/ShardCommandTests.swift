import Foundation
import Testing

/// `listdiff --partition`, `listdiff join` and `listdiff hash` through the built binary, and
/// the Spark job of `Examples/spark` in local mode.
@Suite struct ShardCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    /// Lists of `count` records keyed by `id`, OLD and NEW: NEW deletes, inserts, updates and
    /// moves some, at random from `seed`.
    static func lists(count: Int, seed: UInt64) -> (String, String) {
        var random = AlgebraCommandTests.Random(seed: seed)
        func record(_ id: Int) -> String {
            "{\"id\": \(id), \"name\": \"n\(random.below(50))\", \"score\": \(random.below(1000)).5, \"ok\": \(random.chance(50))}"
        }
        let old = (0..<count).map(record)
        var new = old
        for _ in 0..<count / 20 { new.remove(at: random.below(new.count)) }
        for k in 0..<count / 20 { new.insert(record(count + k), at: random.below(new.count + 1)) }
        for _ in 0..<count / 20 {
            let k = random.below(new.count)
            new[k] = new[k].replacingOccurrences(of: "\"ok\": ", with: "\"ok\": !").replacingOccurrences(of: "!true", with: "false")
                .replacingOccurrences(of: "!false", with: "true")
        }
        for _ in 0..<count / 20 {
            let r = new.remove(at: random.below(new.count))
            new.insert(r, at: random.below(new.count + 1))
        }
        return (old.joined(separator: "\n") + "\n", new.joined(separator: "\n") + "\n")
    }

    /// The shards of a diff joined by the binary write what the diff writes, in CSV, JSON
    /// and NDJSON, with a shard count that does not divide the records evenly.
    @Test func partitionThenJoinWritesTheDiffsChangeset() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (old, new) = Self.lists(count: 200, seed: 3)
        try write(["old.ndjson": old, "new.ndjson": new], in: dir)
        let cases: [(String, String, [String])] = [
            (
                Self.examples.appendingPathComponent("products-old.csv").path,
                Self.examples.appendingPathComponent("products-new.csv").path, ["--key", "sku"]
            ),
            (
                Self.examples.appendingPathComponent("people-old.json").path, Self.examples.appendingPathComponent("people-new.json").path,
                ["--key", "id"]
            ),
            (dir.appendingPathComponent("old.ndjson").path, dir.appendingPathComponent("new.ndjson").path, ["--key", "id"]),
            // Records in sections, which move from one section to another.
            (
                Self.examples.appendingPathComponent("people-sections-old.yaml").path,
                Self.examples.appendingPathComponent("people-sections-new.yaml").path, ["--key", "id"]
            ),
        ]
        for (old, new, key) in cases {
            let whole = try Binary.run(["-f", "json", old, new] + key)
            #expect(whole.status == 1)
            var shards: [String] = []
            for i in 0..<3 {
                let path = dir.appendingPathComponent("shard-\(i).json").path
                let shard = try Binary.run(["--partition", "\(i)/3", "-f", "json", "-o", path, old, new] + key)
                #expect(shard.status == 0 && shard.stderr == "", "\(old) shard \(i): \(shard.stderr)")
                shards.append(path)
            }
            let joined = try Binary.run(["join"] + shards.reversed())
            #expect(joined.status == 0 && joined.stderr == "", "\(old): \(joined.stderr)")
            #expect(joined.stdout == whole.stdout, "\(old)")
            // One shard on standard input, which is read once (the join reads the files
            // twice when records moved: once to join, once for the moved records' keys).
            let piped = try Binary.run(
                ["join", shards[0], "-", shards[2]], stdin: try String(contentsOfFile: shards[1], encoding: .utf8))
            #expect(piped.status == 0 && piped.stdout == whole.stdout, "\(old): \(piped.stderr)")
            // Each record's shard, one line each, as --partition chose them.
            let hashes = try Binary.run(["hash", "--shards", "3", old] + key)
            #expect(hashes.status == 0)
            #expect(hashes.stdout.split(separator: "\n").allSatisfy { ["0", "1", "2"].contains($0) })
        }
        let hashes = try Binary.run(["hash", dir.appendingPathComponent("old.ndjson").path, "--key", "id"])
        let lines = hashes.stdout.split(separator: "\n")
        #expect(lines.count == 200 && lines.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
    }

    /// What --partition and join refuse: one line on standard error, exit 2, no output file.
    @Test func refusalsAreOneLineAndExitTwo() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = Self.examples.appendingPathComponent("people-old.json").path
        let new = Self.examples.appendingPathComponent("people-new.json").path
        let other = Self.examples.appendingPathComponent("people-theirs.json").path
        let out = dir.appendingPathComponent("out.json").path
        func refused(_ arguments: [String], _ expected: String) throws {
            let run = try Binary.run(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.hasSuffix("\n") && run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(expected), "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments)")
        }
        try refused(["--partition", "4/4", "-f", "json", "-o", out, old, new, "--key", "id"], "I from 0 to N-1")
        try refused(["--partition", "0/2", "-o", out, old, new, "--key", "id"], "goes with -f json")
        try refused(["--shard-positions", old, "-f", "json", "-o", out, old, new, "--key", "id"], "goes with --partition")
        try refused(
            ["--partition", "0/2", "--pre-split", "-f", "json", "-o", out, old, new, "--key", "id"], "only --unordered can do without")
        try refused(
            [
                "--partition", "0/2", "--pre-split", "--shard-positions", old, "--unordered", "-f", "json", "-o", out, old, new, "--key",
                "id",
            ],
            "give one or the other")
        try refused(["--pre-split", "-f", "json", "-o", out, old, new, "--key", "id"], "--pre-split goes with --partition")
        let sections = Self.examples.appendingPathComponent("people-sections-old.yaml").path
        let sectionsNew = Self.examples.appendingPathComponent("people-sections-new.yaml").path
        try refused(
            ["--partition", "0/2", "--pre-split", "--unordered", "-f", "json", "-o", out, sections, sectionsNew, "--key", "id"],
            "records in sections")
        try refused(["--partition", "0/2", "-f", "json", "-o", out, old, new, "--key", "id", "--algorithm", "myers"], "--algorithm myers")
        try refused(["--partition", "0/2", "-f", "json", "-o", out, old, new, "--key", "id", "--renames"], "--renames pairs records")
        var shards: [String] = []
        for (i, newPath) in [(0, new), (1, new), (1, other)] {
            let path = dir.appendingPathComponent("s\(shards.count).json").path
            let run = try Binary.run(["--partition", "\(i)/2", "-f", "json", "-o", path, old, newPath, "--key", "id"])
            #expect(run.status == 0, "\(run.stderr)")
            shards.append(path)
        }
        try refused(["join", "-o", out, shards[0]], "shard 1/2 is missing")
        try refused(["join", "-o", out, shards[0], shards[1], shards[1]], "is given twice")
        try refused(["join", "-o", out, shards[0], shards[2]], "is not of the diff")
        try refused(["join", "-o", out, Self.examples.appendingPathComponent("people-changes.json").path], "has no \"shard\" member")
        try refused(["apply", "-o", out, old, shards[0]], "join the shards with 'listdiff join' first")
        let joined = try Binary.run(["join", "-o", out, shards[1], shards[0]])
        #expect(joined.status == 0 && FileManager.default.fileExists(atPath: out))
    }

    /// The Spark job in local mode, 4 partitions, on Parquet and CSV: its changeset is the
    /// one `listdiff -f json` writes for the same records exported as NDJSON, and its summary
    /// holds that changeset's counts.
    @Test func theSparkJobWritesTheDiffsChangeset() throws {
        _ = try Programs.require("java", package: "openjdk-17-jre-headless")
        let python = try Programs.requirePython(module: "pyspark", package: "python3-pip, then pip install pyspark")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (old, new) = Self.lists(count: 400, seed: 5)
        try write(["old.ndjson": old, "new.ndjson": new], in: dir)
        // Parquet, written by Spark from the NDJSON.
        let convert = """
            import sys
            from pyspark.sql import SparkSession
            spark = SparkSession.builder.master("local[2]").getOrCreate()
            for side in ("old", "new"):
                spark.read.json(side + ".ndjson").write.parquet(side + ".parquet")
            spark.stop()
            """
        let converted = try Binary.run(["-c", convert], in: dir, executable: python)
        #expect(converted.status == 0, "\(converted.stderr.suffix(2000))")
        let job = Binary.repository.appendingPathComponent("Examples/spark/listdiff_spark.py").path
        let csvOld = Self.examples.appendingPathComponent("products-old.csv").path
        let csvNew = Self.examples.appendingPathComponent("products-new.csv").path
        // (Under --unordered the rows are not numbered: the shards are placed in shard order.)
        for (name, oldData, newData, key, options) in [
            ("parquet", "old.parquet", "new.parquet", "id", []), ("csv", csvOld, csvNew, "sku", []),
            ("unordered", "old.parquet", "new.parquet", "id", ["--unordered"]),
        ] {
            let export = dir.appendingPathComponent("export-\(name)")
            let run = try Binary.run(
                [
                    "-W", "ignore", job, "--old", oldData, "--new", newData, "--key", key, "--partitions", "4", "--listdiff",
                    Binary.url.path, "--output", "changes-\(name).json", "--summary", "summary-\(name).json", "--export-ndjson",
                    export.path, "--label-old", "OLD", "--label-new", "NEW", "--",
                ] + options, in: dir, executable: python)
            #expect(run.status == 0, "\(name): \(run.stderr.suffix(3000))")
            let direct = try Binary.run(
                [
                    "-f", "json", "--label", "OLD", "--label", "NEW", "--key", key, export.appendingPathComponent("old.ndjson").path,
                    export.appendingPathComponent("new.ndjson").path,
                ] + options, in: dir)
            #expect(direct.status == 1, "\(name): \(direct.stderr)")
            let changes = try String(contentsOf: dir.appendingPathComponent("changes-\(name).json"), encoding: .utf8)
            #expect(changes == direct.stdout, "\(name)")
            #expect(direct.stdout.contains("\"op\": \"move\"") == options.isEmpty, "\(name)")
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("summary-\(name).json")))
            let changeset = try JSONSerialization.jsonObject(with: Data(direct.stdout.utf8))
            let counts = (summary as? [String: Any])?["summary"] as? [String: Int]
            #expect(counts != nil && counts! == ((changeset as? [String: Any])?["summary"] as? [String: Int]), "\(name)")
            #expect(((summary as? [String: Any])?["shards"] as? Int) == 4)
        }
    }
}
