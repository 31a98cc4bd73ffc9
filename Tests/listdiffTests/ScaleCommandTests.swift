import Foundation
import Testing

/// NDJSON, the streaming merge, and the progress bar, through the built binary.
@Suite struct ScaleCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    @Test func ndjsonInMemoryAndStreamedAgreeAndApply() throws {
        let inMemory = try Binary.run(["events-old.ndjson", "events-new.ndjson"], in: Self.examples)
        let streamed = try Binary.run(["--sorted", "events-old.ndjson", "events-new.ndjson"], in: Self.examples)
        #expect(inMemory.status == 1 && streamed.status == 1)
        #expect(inMemory.stdout == streamed.stdout)
        #expect(inMemory.stdout.hasSuffix("1 inserted, 1 deleted, 0 moved, 1 updated, 4 unchanged\n"))
        #expect(streamed.stderr == "")
        // Both changesets apply to OLD, written back as NDJSON: NEW, member order and all when it counts.
        let dir = try temporaryDirectory()
        for sorted in [[], ["--sorted"]] {
            let changes = dir.appendingPathComponent("changes.json")
            let diff = try Binary.run(
                sorted + [
                    "--member-order", "significant", "-f", "json", "-o", changes.path,
                    "events-old.ndjson", "events-new.ndjson",
                ], in: Self.examples)
            #expect(diff.status == 1)
            let applied = try Binary.run(["apply", "events-old.ndjson", changes.path], in: Self.examples)
            #expect(applied.status == 0)
            #expect(applied.stdout == (try String(contentsOf: Self.examples.appendingPathComponent("events-new.ndjson"), encoding: .utf8)))
        }
    }

    /// 40,000 records (more than the size where the scan splits over cores, and than the
    /// streaming merge's first block): every 100th deleted, every 50th updated, and a new
    /// record after every 200th. In memory and streamed, the counts are exactly those, the
    /// changes the same, and each changeset applies to give NEW.
    @Test func manyRecordsInMemoryAndStreamedAgree() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var old = "", new = ""
        for i in 0..<40_000 {
            let record = #"{"id":\#(i * 2),"name":"record \#(i)","tags":["a","b"],"n":\#(i % 7)}"#
            old += record + "\n"
            if i % 100 != 1 { new += (i % 50 == 3 ? record.replacingOccurrences(of: "\"n\":", with: "\"n\":-") : record) + "\n" }
            if i % 200 == 5 { new += #"{"id":\#(i * 2 + 1),"name":"inserted"}"# + "\n" }
        }
        try old.write(to: dir.appendingPathComponent("old.ndjson"), atomically: true, encoding: .utf8)
        try new.write(to: dir.appendingPathComponent("new.ndjson"), atomically: true, encoding: .utf8)
        // 400 deleted; 800 updated (every 50th, but those 0 is "-0", equal to 0); 200 inserted.
        let updated = (0..<40_000).filter { $0 % 50 == 3 && $0 % 100 != 1 && $0 % 7 != 0 }.count
        let summary = "200 inserted, 400 deleted, 0 moved, \(updated) updated, \(40_000 - 400 - updated) unchanged\n"
        let inMemory = try Binary.run(["old.ndjson", "new.ndjson"], in: dir)
        let streamed = try Binary.run(["--sorted", "old.ndjson", "new.ndjson"], in: dir)
        #expect(inMemory.status == 1 && streamed.status == 1)
        #expect(inMemory.stdout.hasSuffix(summary), "\(inMemory.stdout.suffix(100))")
        #expect(inMemory.stdout == streamed.stdout)
        for sorted in [[], ["--sorted"]] {
            #expect(try Binary.run(sorted + ["-f", "json", "-o", "changes.json", "old.ndjson", "new.ndjson"], in: dir).status == 1)
            let applied = try Binary.run(["apply", "-o", "applied.ndjson", "old.ndjson", "changes.json"], in: dir)
            #expect(applied.status == 0, "\(applied.stderr)")
            // Equal to NEW as content: a "-0" that equals OLD's 0 stays OLD's 0.
            #expect(try Binary.run(["-q", "--member-order", "significant", "new.ndjson", "applied.ndjson"], in: dir).status == 0)
        }
    }

    /// `apply -o` hands its file to the disk as it writes it, 8 MiB at a time, while the
    /// next blocks of records are formatted: a result of more than twice that is, byte for
    /// byte, the one written to standard output.
    @Test func applyToALargeFileWritesWhatStandardOutputGets() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var old = "[\n", new = "[\n"
        for i in 0..<150_000 {
            let record = #"{"id":\#(i),"name":"record \#(i)","email":"person\#(i)@example.com","team":"team \#(i % 9)","n":\#(i % 7)}"#
            old += (i > 0 ? ",\n" : "") + record
            new += (i > 0 ? ",\n" : "") + (i % 100 == 3 ? record.replacingOccurrences(of: "\"n\":", with: "\"n\":-1") : record)
        }
        try (old + "\n]\n").write(to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try (new + "\n]\n").write(to: dir.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        #expect(try Binary.run(["-f", "json", "-o", "changes.json", "old.json", "new.json"], in: dir).status == 1)
        let toFile = try Binary.run(["apply", "-o", "applied.json", "old.json", "changes.json"], in: dir)
        #expect(toFile.status == 0, "\(toFile.stderr)")
        let toOutput = try Binary.run(["apply", "old.json", "changes.json"], in: dir)
        #expect(toOutput.status == 0, "\(toOutput.stderr)")
        let written = try Data(contentsOf: dir.appendingPathComponent("applied.json"))
        #expect(written.count > 16 << 20, "\(written.count) bytes")
        #expect(written == Data(toOutput.stdout.utf8))
        #expect(try Binary.run(["-q", "new.json", "applied.json"], in: dir).status == 0)
    }

    @Test func sortedRefusesWhatItCannotStream() throws {
        let dir = try temporaryDirectory()
        try "{\"id\":2}\n{\"id\":1}\n".write(to: dir.appendingPathComponent("unsorted.ndjson"), atomically: true, encoding: .utf8)
        try "{\"id\":1}\n".write(to: dir.appendingPathComponent("one.ndjson"), atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.json")
        let unsorted = try Binary.run(["--sorted", "-o", out.path, "one.ndjson", "unsorted.ndjson"], in: dir)
        #expect(unsorted.status == 2 && unsorted.stdout == "")
        #expect(
            unsorted.stderr
                == "unsorted.ndjson:2:1: error: not sorted by key: record 1 (id=1) comes after id=2; --sorted needs both inputs in ascending key order, as jq's sort_by gives (false, true, numbers, strings)\n"
        )
        #expect(!FileManager.default.fileExists(atPath: out.path), "no partial output")
        let json = try Binary.run(["--sorted", "one.ndjson", "people-old.json"], in: dir)
        #expect(json.status == 2)
        #expect(json.stderr.contains("--sorted streams NDJSON: 'people-old.json' is not .ndjson or .jsonl (or use --input-format ndjson)"))
        // Without --sorted, order does not matter.
        let anyOrder = try Binary.run(["one.ndjson", "unsorted.ndjson"], in: dir)
        #expect(anyOrder.status == 1 && anyOrder.stdout.hasSuffix("1 inserted, 0 deleted, 0 moved, 0 updated, 1 unchanged\n"))
    }

    /// Standard error is not a terminal: no bar, even when it is due at once.
    @Test func noProgressBarWithoutATerminal() throws {
        let run = try Binary.run(
            ["-f", "json", "people-old.json", "people-new.json"], environment: ["LISTDIFF_PROGRESS_DELAY": "0"],
            in: Self.examples)
        #expect(run.status == 1 && run.stderr == "")
    }
}

@Suite(.serialized) struct ProgressBarTests {
    /// On a terminal, a run still going after the delay shows a bar on standard error, and
    /// the bar is gone before the output is written. OLD is a FIFO, so the run waits, reading,
    /// until the test feeds it.
    @Test func showsWhileReadingAndClearsBeforeOutput() throws {
        let dir = try temporaryDirectory()
        let examples = Binary.repository.appendingPathComponent("Examples")
        try FileManager.default.copyItem(at: examples.appendingPathComponent("people-new.json"), to: dir.appendingPathComponent("new.json"))
        try FileManager.default.copyItem(
            at: examples.appendingPathComponent("people-old.json"), to: dir.appendingPathComponent("old-source.json"))
        let out = try Tmux.script(
            """
            mkfifo old.fifo
            t new-session -d -s s -x 160 -y 30 "LISTDIFF_PROGRESS_DELAY=0.2 '\(Binary.url.path)' --input-format json old.fifo new.json; echo EXIT=\\$?; sleep 60" </dev/null >/dev/null 2>&1
            wait_for 'screen | grep -q "listdiff reading"' && echo "== bar"; screen
            cat old-source.json > old.fifo
            wait_for 'screen | grep -q EXIT='
            echo "== screen"; screen
            """, in: dir)
        let bar = Tmux.section(out, "== bar")
        #expect(bar.contains { $0.hasPrefix("listdiff reading") && $0.contains("░") && $0.hasSuffix("0%") }, "\(out)")
        let screen = Tmux.section(out, "== screen")
        #expect(screen.first == "--- old.fifo", "the bar is erased before the patch: \(screen)")
        #expect(screen.contains("EXIT=1"))
        #expect(!screen.contains { $0.contains("listdiff reading") })
    }
}
