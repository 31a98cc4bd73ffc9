import Foundation
import Testing

/// `--memory-limit`, run as users run it: the spilled diff writes what the diff in memory
/// writes, and its folder is gone after a normal end, an interrupt and a full disk.
@Suite struct SpillCommandTests {
    /// An OLD and a NEW of `count` NDJSON records in a shuffled order, NEW with 1% of them
    /// changed, deleted, inserted and moved.
    static func inputs(_ count: Int, in dir: URL) throws -> (String, String) {
        var rng = SystemRandomNumberGenerator()
        var ids = Array(0..<count)
        ids.shuffle(using: &rng)
        func line(_ id: Int, _ salt: Int) -> String {
            "{\"id\":\(id),\"name\":\"person \(id)\",\"team\":\"team \(id % 17)\",\"score\":\(id * 7 % 1000 + salt)}\n"
        }
        let old = ids.map { line($0, 0) }.joined()
        var newIDs = ids.filter { $0 % 100 != 1 }
        for k in stride(from: 0, to: newIDs.count, by: 100) { newIDs.swapAt(k, (k * 7919) % newIDs.count) }
        newIDs += (count..<(count + count / 100))
        let new = newIDs.map { line($0, $0 % 100 == 2 ? 1 : 0) }.joined()
        let oldURL = dir.appendingPathComponent("old.ndjson"), newURL = dir.appendingPathComponent("new.ndjson")
        try old.write(to: oldURL, atomically: true, encoding: .utf8)
        try new.write(to: newURL, atomically: true, encoding: .utf8)
        return (oldURL.path, newURL.path)
    }

    /// `inputs`' records placed in a JSON document by `text` (given the side and the
    /// records), written as old.json and new.json.
    static func documents(_ count: Int, in dir: URL, _ text: (String, [Substring]) -> String) throws -> [String] {
        let (oldLines, newLines) = try inputs(count, in: dir)
        var paths: [String] = []
        for (side, lines) in [("old", oldLines), ("new", newLines)] {
            let records = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n")
            let url = dir.appendingPathComponent("\(side).json")
            try text(side, records).write(to: url, atomically: true, encoding: .utf8)
            paths.append(url.path)
        }
        return paths
    }

    static func folder(_ dir: URL, _ name: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func spilledOutputIsTheOutputInMemory() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (old, new) = try Self.inputs(120_000, in: dir)
        let spill = try Self.folder(dir, "tmp")
        for format in ["json", "patch", "markdown", "jsonpatch"] {
            let memory = try Binary.run(["-f", format, "--key", "id", old, new], in: dir)
            let spilled = try Binary.run(
                ["--memory-limit", "16M", "-f", format, "--key", "id", old, new], environment: ["TMPDIR": spill.path], in: dir)
            #expect(memory.status == 1)
            #expect(spilled.status == memory.status, "\(spilled.stderr)")
            #expect(spilled.stdout == memory.stdout, "\(format)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty)
        }
        // Annotations point at each record's line, as in memory; an update at its record's
        // start, where the diff in memory points at the changed field (here on the same line).
        let github = try Binary.run(
            ["--memory-limit", "16M", "-f", "github", "--key", "id", old, new], environment: ["TMPDIR": spill.path], in: dir)
        let githubInMemory = try Binary.run(["-f", "github", "--key", "id", old, new], in: dir)
        #expect(github.status == 1)
        #expect(github.stdout.contains("::notice file=\(old),line="), "\(github.stdout.prefix(300))")
        func lines(_ text: String) -> [String] {
            text.split(separator: "\n").map { String($0).replacing(/,col=[0-9]+/, with: "") }
        }
        #expect(lines(github.stdout) == lines(githubInMemory.stdout))
        #expect(github.stdout != githubInMemory.stdout, "the updates' columns differ")
        // What needs OLD whole is refused before anything is split, with the reason.
        for arguments in [["-f", "mergepatch"], ["-f", "replay", "--record", "r.cast"]] {
            let refused = try Binary.run(
                ["--memory-limit", "16M", "--key", "id"] + arguments + [old, new],
                environment: ["TMPDIR": spill.path, "LISTDIFF_TIMINGS": "1"], in: dir)
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("do not spill: the output is made from OLD whole"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("split OLD"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("r.cast").path))
        }
        // The phases say it spilled.
        let timed = try Binary.run(
            ["--memory-limit", "16M", "-f", "json", "--key", "id", old, new],
            environment: ["TMPDIR": spill.path, "LISTDIFF_TIMINGS": "1"], in: dir)
        #expect(timed.stderr.contains("split OLD"), "\(timed.stderr)")
        #expect(timed.stderr.contains("partitions"), "\(timed.stderr)")
    }

    /// A list at --path inside a larger JSON document (as `kubectl get -o json` writes)
    /// spills, and its changeset applies to OLD.
    @Test func aListAtAPathSpills() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try Self.documents(60_000, in: dir) { side, records in
            "{\"apiVersion\": \"v1\", \"items\": [\n" + records.joined(separator: ",\n")
                + "\n], \"kind\": \"List\", \"metadata\": {\"side\": \"\(side)\"}}\n"
        }
        _ = try Self.spillsAsInMemory(paths, ["--path", "/items", "--key", "id"], in: dir)
    }

    /// The diff of `paths` with `options`, spilled under 8M: its JSON changeset and patch
    /// are those in memory, the changeset applies to OLD to give NEW, and the spill folder
    /// is gone. Returns the changeset.
    static func spillsAsInMemory(_ paths: [String], _ options: [String], in dir: URL) throws -> String {
        let spill = try Self.folder(dir, "tmp")
        for format in ["json", "patch"] {
            let memory = try Binary.run(["-f", format] + options + paths, in: dir)
            let spilled = try Binary.run(
                ["--memory-limit", "8M", "-f", format] + options + paths,
                environment: ["TMPDIR": spill.path, "LISTDIFF_TIMINGS": "1"], in: dir)
            #expect(memory.status == 1)
            #expect(spilled.status == 1, "\(spilled.stderr)")
            #expect(spilled.stderr.contains("split OLD"), "\(spilled.stderr)")
            #expect(spilled.stdout == memory.stdout, "\(format)")
        }
        let changeset = dir.appendingPathComponent("changes.json").path
        let made = try Binary.run(["--memory-limit", "8M", "-f", "json", "-o", changeset] + options + paths, in: dir)
        #expect(made.status == 1, "\(made.stderr)")
        let result = dir.appendingPathComponent("result.json").path
        let applied = try Binary.run(["apply", "-o", result, paths[0], changeset], in: dir)
        #expect(applied.status == 0, "\(applied.stderr)")
        let same = try Binary.run(options + [result, paths[1]], in: dir)
        #expect(same.status == 0, "\(same.stdout.prefix(300))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty)
        return try String(contentsOfFile: changeset, encoding: .utf8)
    }

    /// Records in sections: an object of lists, whose records move between lists.
    @Test func anObjectOfListsSpills() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Ten lists in OLD; nine in NEW, one of them new, so that records cross lists.
        let paths = try Self.documents(60_000, in: dir) { side, records in
            let size = (records.count + (side == "old" ? 9 : 8)) / (side == "old" ? 10 : 9)
            return "{\n"
                + stride(from: 0, to: records.count, by: size).map {
                    "\"\(side == "new" && $0 == 0 ? "fresh" : "s\($0 / size)")\": [\n"
                        + records[$0..<min(records.count, $0 + size)].joined(separator: ",\n") + "\n]"
                }.joined(separator: ",\n") + "\n}\n"
        }
        let text = try Self.spillsAsInMemory(paths, ["--key", "id"], in: dir)
        #expect(text.contains("\"op\": \"move\""))
        #expect(text.contains("\"name\": \"fresh\""))
    }

    /// A record that becomes a scalar and moves is named by the scalar, as in memory.
    @Test func aScalarThatMovesIsNamedByItself() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (old, new) = try Self.inputs(60_000, in: dir)
        var lines = try String(contentsOfFile: new, encoding: .utf8).split(separator: "\n").map(String.init)
        lines.removeAll { $0.hasPrefix("{\"id\":7,") }
        lines.append("7")
        try (lines.joined(separator: "\n") + "\n").write(toFile: new, atomically: true, encoding: .utf8)
        let spill = try Self.folder(dir, "tmp")
        let memory = try Binary.run(["--key", "id", old, new], in: dir)
        let spilled = try Binary.run(["--memory-limit", "8M", "--key", "id", old, new], environment: ["TMPDIR": spill.path], in: dir)
        #expect(memory.stdout.contains("> 7 #"), "\(memory.stdout.prefix(300))")
        #expect(spilled.status == memory.status, "\(spilled.stderr)")
        #expect(spilled.stdout == memory.stdout)
    }

    @Test func anInterruptLeavesNoSpillFolder() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (old, new) = try Self.inputs(400_000, in: dir)
        let spill = try Self.folder(dir, "tmp")
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = [
            "--memory-limit", "16M", "-f", "json", "--key", "id", "-o", dir.appendingPathComponent("out.json").path, old, new,
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": spill.path]) { $1 }
        try process.run()
        // Once its folder holds spill files, stop it.
        var seen = false
        for _ in 0..<2000 where process.isRunning {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: spill.path)) ?? []
            if let folder = entries.first(where: { $0.hasPrefix("listdiff-spill-") }),
                !((try? FileManager.default.contentsOfDirectory(atPath: spill.appendingPathComponent(folder).path)) ?? []).isEmpty
            {
                seen = true
                break
            }
            usleep(2000)
        }
        try #require(seen, "the diff ended before it spilled")
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.json").path))
    }

    @Test func aFullDiskIsACleanError() throws {
        let mount = try Programs.require("mount", package: "mount")
        let umount = try Programs.require("umount", package: "mount")
        try Programs.requireRoot("mounting a small file system needs root")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (old, new) = try Self.inputs(120_000, in: dir)
        let small = try Self.folder(dir, "small")
        try #require(try Programs.status(mount, ["-t", "tmpfs", "-o", "size=2m", "tmpfs", small.path]) == 0, "mount -t tmpfs failed")
        defer { _ = try? Programs.status(umount, [small.path]) }
        let out = dir.appendingPathComponent("out.json")
        let result = try Binary.run(
            ["--memory-limit", "16M", "-f", "json", "--key", "id", "-o", out.path, old, new],
            environment: ["TMPDIR": small.path], in: dir)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(small.path + "/listdiff-spill-"), "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(
                ": error: the disk is full: the spill files do not fit (set TMPDIR to a folder with room, or raise --memory-limit)\n"),
            "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func aBadLimitIsAUsageError() throws {
        let run = try Binary.run(["--memory-limit", "lots", "Examples/people-old.json", "Examples/people-new.json"])
        #expect(run.status == 2)
        #expect(
            run.stderr
                == "listdiff: error: --memory-limit takes a size: bytes, or a number with K, M, G or T (such as 512M or 2G); got 'lots'\n",
            "\(run.stderr)")
        let small = try Binary.run(["--memory-limit", "1000000", "Examples/people-old.json", "Examples/people-new.json"])
        #expect(small.status == 2)
        #expect(small.stderr.contains("--memory-limit must be at least 1M"), "\(small.stderr)")
    }
}
