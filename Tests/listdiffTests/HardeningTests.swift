import Foundation
import Testing

/// Hostile inputs, options and outputs: each gets exit status 2 and one line on standard
/// error, nothing on standard output, and nothing left on disk.
@Suite struct HardeningTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    func expectOneLine(_ run: Run, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 2, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stdout == "", sourceLocation: sourceLocation)
        #expect(
            run.stderr.hasSuffix("\n") && run.stderr.dropLast().contains("\n") == false, "\(run.stderr)",
            sourceLocation: sourceLocation)
        #expect(run.stderr.contains(message), "\(run.stderr)", sourceLocation: sourceLocation)
    }

    func bash(_ script: String, in directory: URL) throws -> Run {
        try Binary.run(["-c", script], environment: ["LISTDIFF": Binary.url.path], in: directory, executable: "/bin/bash")
    }

    @Test func optionsAndEnvironmentHaveRanges() throws {
        let pair = ["-f", "replay", "--record", "/tmp/unused.cast", "people-old.json", "people-new.json"]
        for (extra, message) in [
            (["--speed", "1e-300"], "--speed must be a number from 0.01 to 100"),
            (["--speed", "nan"], "--speed must be"),
            (["--duration", "1e308"], "--duration must be from 0.1 to 3600 seconds"),
            (["--animate-limit=-1"], "--animate-limit must be from 0 to 1000000"),
        ] {
            expectOneLine(try Binary.run(extra + pair, in: Self.examples), message)
        }
        // A COLUMNS or LINES that is no size is ignored, as other tools ignore it; one too
        // large is cut to the largest screen.
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (environment, size) in [(["COLUMNS": "wide"], "\"width\": 80"), (["LINES": "2000000000"], "\"height\": 1000")] {
            let cast = dir.appendingPathComponent("r.cast").path
            let run = try Binary.run(
                ["-f", "replay", "--record", cast, "people-old.json", "people-new.json"], environment: environment, in: Self.examples)
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stderr == "")
            #expect(try String(contentsOfFile: cast, encoding: .utf8).prefix(200).contains(size))
        }
        expectOneLine(try Binary.run(["--limit=-5", "people-old.json", "people-new.json"], in: Self.examples), "--limit must be")
        expectOneLine(
            try Binary.run(["people-old.json", "people-new.json"], environment: ["LISTDIFF_MAX_INPUT_SIZE": "lots"], in: Self.examples),
            "LISTDIFF_MAX_INPUT_SIZE must be a number of bytes")
    }

    @Test func usageErrorsAreOneLine() throws {
        for (arguments, message) in [
            (["--bogus", "a", "b"], "Unknown option '--bogus' (see 'listdiff diff --help')"),
            (["a"], "Missing expected argument '<new>'"),
            (["--format", "xx", "a", "b"], "Please provide one of the following: - patch - side - json"),
        ] {
            expectOneLine(try Binary.run(arguments, in: Self.examples), message)
        }
    }

    @Test func endlessAndBinaryInputsAreRefusedAtOnce() throws {
        let dir = try temporaryDirectory()
        let sparse = dir.appendingPathComponent("sparse.json")
        FileManager.default.createFile(atPath: sparse.path, contents: nil)
        let handle = try FileHandle(forWritingTo: sparse)
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        let new = Self.examples.appendingPathComponent("people-new.json").path
        for arguments in [["/dev/zero", new], ["/dev/urandom", new], ["apply", new, "/dev/zero"], [sparse.path, new]] {
            let start = Date()
            let run = try Binary.run(arguments, in: dir)
            expectOneLine(run, "error: holds a NUL byte, which no JSON, NDJSON, YAML or CSV text holds")
            #expect(Date().timeIntervalSince(start) < 5, "\(arguments)")
        }
        // From a file through the shell: the binary stops reading early, and a pipe written
        // from here would then end this process with SIGPIPE.
        try String(repeating: "[", count: 200_000).write(to: dir.appendingPathComponent("deep.json"), atomically: true, encoding: .utf8)
        let limited = try bash("LISTDIFF_MAX_INPUT_SIZE=100K \"$LISTDIFF\" - '\(new)' < deep.json", in: dir)
        expectOneLine(limited, "-: error: holds more than 102400 bytes, the most listdiff reads (LISTDIFF_MAX_INPUT_SIZE sets it)")
        let mapped = try Binary.run([new, new], environment: ["LISTDIFF_MAX_INPUT_SIZE": "100"], in: dir)
        expectOneLine(mapped, "holds more than 100 bytes")
        #expect(try Binary.run([new, new], environment: ["LISTDIFF_MAX_INPUT_SIZE": "1k"], in: dir).status == 0)
    }

    @Test func quotedInputIsCutToAReadableLength() throws {
        let dir = try temporaryDirectory()
        let key = String(repeating: "x", count: 100_000)
        try "[{\"id\": \"\(key)\"}, {\"id\": \"\(key)\"}]".write(
            to: dir.appendingPathComponent("big.json"), atomically: true, encoding: .utf8)
        let run = try Binary.run(["big.json", "big.json"], in: dir)
        expectOneLine(run, "big.json:1:")
        #expect(run.stderr.count < 1100)
        #expect(run.stderr.hasSuffix("xxx… (cut)\n"))
    }

    @Test func insertsAndUpdatesMustBringTheirKey() throws {
        let dir = try temporaryDirectory()
        let changes = try String(contentsOf: Self.examples.appendingPathComponent("people-changes.json"), encoding: .utf8)
        let old = Self.examples.appendingPathComponent("people-old.json").path
        for (from, to, message) in [
            (#""value": {"id":8,"#, #""value": {"id":99,"#, "19:5: error: the insert of id=8 brings a record keyed id=99"),
            (#""value": {"id":3,"#, #""value": {"ident":3,"#, "error: the update of id=3 brings a record without a usable key"),
        ] {
            let edited = changes.replacingOccurrences(of: from, with: to)
            #expect(edited != changes)
            try edited.write(to: dir.appendingPathComponent("edited.json"), atomically: true, encoding: .utf8)
            for force in [[], ["--force"]] {
                expectOneLine(try Binary.run(["apply"] + force + [old, "edited.json"], in: dir), message)
            }
        }
    }

    @Test func aliasesOfBigScalarsAreRefusedByTheirBytes() throws {
        let dir = try temporaryDirectory()
        // A 1 MB scalar and 2000 aliases of it: a 2 MB file that would expand to 2 GB.
        var text = "- {id: 1, v: &a \"" + String(repeating: "x", count: 1_000_000) + "\"}\n"
        for i in 2...2000 { text += "- {id: \(i), v: *a}\n" }
        try text.write(to: dir.appendingPathComponent("bomb.yaml"), atomically: true, encoding: .utf8)
        let start = Date()
        let run = try Binary.run(["bomb.yaml", "bomb.yaml"], in: dir)
        expectOneLine(run, "bomb.yaml:18:15: error: aliases expand to more than 16777216 bytes of text; refusing (possible alias bomb)")
        #expect(Date().timeIntervalSince(start) < 5)
    }

    /// The deepest record diff accepts comes back through apply: the changeset's own wrapping
    /// does not count against the limit.
    @Test func whateverDiffAcceptsApplyAccepts() throws {
        let dir = try temporaryDirectory()
        let deepest = String(repeating: "[", count: 998) + "1" + String(repeating: "]", count: 998)
        try #"[{"id": 1, "v": 0}]"#.write(to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try "[{\"id\": 1, \"v\": \(deepest)}]".write(to: dir.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        try "[{\"id\": 1, \"v\": [\(deepest)]}]".write(to: dir.appendingPathComponent("deeper.json"), atomically: true, encoding: .utf8)
        #expect(try Binary.run(["-f", "json", "-o", "changes.json", "old.json", "new.json"], in: dir).status == 1)
        let applied = try Binary.run(["apply", "-o", "result.json", "old.json", "changes.json"], in: dir)
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(try Binary.run(["-q", "new.json", "result.json"], in: dir).status == 0)
        // One level more is refused by diff itself.
        expectOneLine(
            try Binary.run(["old.json", "deeper.json"], in: dir), "deeper.json:1:1015: error: nesting is deeper than the limit of 1000")
    }

    /// An NDJSON line and a YAML stream's document count one level deep, as a record in a
    /// list does: the deepest record they accept, written by apply as a list (JSON or YAML),
    /// is read back, and one level more is refused when it is read, not after it is written.
    @Test func topLevelRecordsHaveAListsRoom() throws {
        let dir = try temporaryDirectory()
        func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth) }
        let files = [
            "old.ndjson": "{\"id\": 0, \"v\": 1}\n",
            "new.ndjson": "{\"id\": 0, \"v\": 1}\n{\"id\": 1, \"v\": \(nested(998))}\n",
            "deeper.ndjson": "{\"id\": 0, \"v\": 1}\n{\"id\": 1, \"v\": \(nested(999))}\n",
            "old.yaml": "id: 0\nv: 1\n---\nid: 2\n",
            "new.yaml": "id: 0\nv: 1\n---\n{id: 1, v: \(nested(998))}\n",
            "deeper.yaml": "id: 0\nv: 1\n---\n{id: 1, v: \(nested(999))}\n",
        ]
        try write(files, in: dir)
        for kind in ["ndjson", "yaml"] {
            let changes = "changes-\(kind).json"
            #expect(try Binary.run(["-f", "json", "-o", changes, "old.\(kind)", "new.\(kind)"], in: dir).status == 1)
            for written in ["result-\(kind).json", "result-\(kind).yaml"] {
                let applied = try Binary.run(["apply", "-o", written, "old.\(kind)", changes], in: dir)
                #expect(applied.status == 0, "\(applied.stderr)")
                let again = try Binary.run(["-q", "new.\(kind)", written], in: dir)
                #expect(again.status == 0, "\(written): \(again.stderr)")
            }
            let column = kind == "ndjson" ? 1014 : 1010
            let line = kind == "ndjson" ? 2 : 4
            expectOneLine(
                try Binary.run(["old.\(kind)", "deeper.\(kind)"], in: dir),
                "deeper.\(kind):\(line):\(column): error: nesting is deeper than the limit of 1000")
        }
        // A map whose member is named like the key is first tried as one record, one level
        // deeper: past the limit there, it is read as the map it is.
        let deep = nested(998)
        let maps = [
            "old-map.json": "{\"id\": {\"v\": \(deep)}, \"b\": {\"v\": 1}}\n",
            "new-map.json": "{\"id\": {\"v\": \(deep)}, \"b\": {\"v\": 2}}\n",
            "old-map.yaml": "id: {v: \(deep)}\nb: {v: 1}\n",
            "new-map.yaml": "id: {v: \(deep)}\nb: {v: 2}\n",
        ]
        try write(maps, in: dir)
        for kind in ["json", "yaml"] {
            let map = try Binary.run(["old-map.\(kind)", "new-map.\(kind)"], in: dir)
            #expect(map.status == 1 && map.stdout.contains("~ \"b\" /v: 1 → 2"), "\(kind): \(map.stdout)\(map.stderr)")
        }
        // The sorted merge reads NDJSON lines with the same room.
        #expect(try Binary.run(["--sorted", "-q", "old.ndjson", "new.ndjson"], in: dir).status == 1)
        expectOneLine(
            try Binary.run(["--sorted", "old.ndjson", "deeper.ndjson"], in: dir),
            "deeper.ndjson:2:1014: error: nesting is deeper than the limit of 1000")
    }

    @Test func failedWritesAreErrors() throws {
        for format in ["patch", "json", "markdown"] {
            let run = try bash("\"$LISTDIFF\" -f \(format) people-old.json people-new.json > /dev/full", in: Self.examples)
            expectOneLine(run, "listdiff: error: cannot write to standard output: No space left on device")
        }
        let apply = try bash("\"$LISTDIFF\" apply people-old.json people-changes.json > /dev/full", in: Self.examples)
        expectOneLine(apply, "cannot write to standard output")
        let closed = try bash("\"$LISTDIFF\" people-old.json people-new.json >&-", in: Self.examples)
        expectOneLine(closed, "cannot write to standard output")
    }

    @Test func outputOntoADeviceOrFIFOWritesInPlace() throws {
        let dir = try temporaryDirectory()
        let e = Self.examples.path
        let run = try bash(
            """
            "$LISTDIFF" -o /dev/null '\(e)/people-old.json' '\(e)/people-new.json'; echo "status $?"
            [ -c /dev/null ] && echo "/dev/null is a device"
            mkfifo pipe
            cat pipe > read.txt & reader=$!
            "$LISTDIFF" -o pipe '\(e)/people-old.json' '\(e)/people-new.json'; echo "status $?"
            wait $reader
            [ -p pipe ] && echo "pipe is a FIFO"
            ls -A | grep -c listdiff- || true
            """, in: dir)
        #expect(run.stdout == "status 1\n/dev/null is a device\nstatus 1\npipe is a FIFO\n0\n", "\(run.stderr)")
        let read = try String(contentsOf: dir.appendingPathComponent("read.txt"), encoding: .utf8)
        #expect(read.hasPrefix("--- "))
        #expect(read.hasSuffix("1 inserted, 1 deleted, 1 moved, 2 updated, 3 unchanged\n"))
    }

    @Test func outputFilesHonourTheUmaskAndKeepTheirMode() throws {
        let dir = try temporaryDirectory()
        let e = Self.examples.path
        let run = try bash(
            """
            (umask 077; "$LISTDIFF" -o new.txt '\(e)/people-old.json' '\(e)/people-new.json')
            (umask 022; "$LISTDIFF" -o open.txt '\(e)/people-old.json' '\(e)/people-new.json')
            printf x > kept.txt; chmod 640 kept.txt
            (umask 000; "$LISTDIFF" -o kept.txt '\(e)/people-old.json' '\(e)/people-new.json')
            stat -c '%n %a' new.txt open.txt kept.txt
            """, in: dir)
        #expect(run.stdout == "new.txt 600\nopen.txt 644\nkept.txt 640\n", "\(run.stderr)")
    }

    @Test func aSignalDuringTheWriteLeavesNoTemporary() throws {
        let dir = try temporaryDirectory()
        // Every record inserted: a changeset of tens of MB, long enough to catch mid-write.
        var text = "["
        for i in 0..<300_000 {
            text += (i == 0 ? "" : ",\n") + "{\"id\": \(i), \"name\": \"record number \(i)\", \"tags\": [\"a\", \"b\"]}"
        }
        try (text + "]").write(to: dir.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        try "[]".write(to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        let run = try bash(
            """
            "$LISTDIFF" -f json -o out.json old.json new.json & pid=$!
            n=0; until ls -A | grep -q '^\\.listdiff-'; do n=$((n+1)); [ $n -gt 20000 ] && break; done
            # Stopped at once, so that the write cannot end first; the signal waits for CONT.
            kill -STOP $pid
            ls -A | grep -c '^\\.listdiff-'
            kill -TERM $pid; kill -CONT $pid; wait $pid; echo "status $?"
            ls -A | grep -c '^\\.listdiff-'; [ -e out.json ] && echo "out.json exists" || echo "no out.json"
            """, in: dir)
        #expect(run.stdout == "1\nstatus 143\n0\nno out.json\n", "\(run.stderr)")
    }
}
