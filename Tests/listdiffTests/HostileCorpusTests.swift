import Foundation
import Testing

/// One case of the hostile corpus: the files it makes, the command, and what must come of it.
struct HostileCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// Files to make in an empty folder, by name; large ones are generated here, not shipped.
    var files: @Sendable () -> [String: [UInt8]]
    /// The arguments, or a bash command line where `$LISTDIFF` is the binary.
    var arguments: [String]
    var shell = false
    var environment: [String: String] = [:]
    var status: Int32 = 2
    /// The whole line on standard error (status 2), or a part of standard output (0 or 1).
    var expected: String
    /// Whether the line on standard error is the file's name, a place that varies, and then
    /// `expected`.
    var placed = false

    var testDescription: String { name }

    static func text(_ files: [String: String]) -> @Sendable () -> [String: [UInt8]] {
        { files.mapValues { Array($0.utf8) } }
    }
}

/// Hostile inputs, options and outputs, each with the status and the message it must get.
/// Each run must take under a few seconds and stay under a memory bound (the shell's data
/// limit), print one line on standard error and nothing on standard output, and leave no
/// file behind but the ones the case made.
@Suite struct HostileCorpusTests {
    static let record = #"[{"id": 1, "v": 1}]"#
    static let pair = ["old.json": record, "new.json": #"[{"id": 1, "v": 2}]"#]

    static func with(_ extra: [String: String]) -> @Sendable () -> [String: [UInt8]] {
        HostileCase.text(pair.merging(extra) { $1 })
    }

    static let cases: [HostileCase] = [
        // Malformed text: one positioned line.
        HostileCase(
            name: "unterminated array", files: with(["bad.json": "[{\"id\": 1},\n  {\"id\": 2"]),
            arguments: ["bad.json", "new.json"], expected: "bad.json:2:11: error: unterminated object; expected ',' or '}'"),
        HostileCase(
            name: "invalid escape then a newline", files: with(["bad.json": "[{\"id\": \"a\\q\nb\"}]"]),
            arguments: ["bad.json", "new.json"], expected: #"bad.json:1:11: error: invalid escape '\q' in string"#),
        HostileCase(
            name: "invalid UTF-8",
            files: { ["bad.json": Array(#"[{"id": ""#.utf8) + [0xC3, 0x28] + Array(#""}]"#.utf8), "new.json": Array(record.utf8)] },
            arguments: ["bad.json", "new.json"], expected: "bad.json:1:10: error: invalid UTF-8 sequence"),
        HostileCase(
            name: "malformed YAML", files: with(["bad.yaml": "- id: 1\n  v: [1, 2\n"]),
            arguments: ["bad.yaml", "new.json"],
            expected: "bad.yaml:3:1: error: did not find expected ',' or ']' while parsing a flow sequence"),
        HostileCase(
            name: "YAML duplicate key with a newline in it", files: with(["bad.yaml": "- id: 1\n  \"a\\nb\": 1\n  \"a\\nb\": 2\n"]),
            arguments: ["bad.yaml", "new.json"], expected: #"bad.yaml:3:3: error: duplicate mapping key 'a\nb' (first at line 2, column 3)"#
        ),
        // Duplicate member names, wherever they are.
        HostileCase(
            name: "duplicate member in a record", files: with(["dup.json": "[{\"id\": 1, \"id\": 2}]"]),
            arguments: ["dup.json", "new.json"],
            expected: #"dup.json:1:12: error: duplicate member name "id" in one object (first at line 1, column 3)"#),
        HostileCase(
            name: "duplicate member spelled with an escape", files: with(["dup.json": #"[{"id": 1, "v": 1, "\u0076": 2}]"#]),
            arguments: ["dup.json", "new.json"],
            expected: #"dup.json:1:20: error: duplicate member name "v" in one object (first at line 1, column 12)"#),
        HostileCase(
            name: "duplicate member deep in a record", files: with(["dup.json": #"[{"id": 1, "v": {"a": [{"b": 1, "b": 1}]}}]"#]),
            arguments: ["dup.json", "new.json"],
            expected: #"dup.json:1:33: error: duplicate member name "b" in one object (first at line 1, column 25)"#),
        HostileCase(
            name: "duplicate section name", files: with(["dup.json": #"{"a": [], "a": [{"id": 1}]}"#]),
            arguments: ["dup.json", "new.json"],
            expected: #"dup.json:1:11: error: duplicate member name "a" in one object (first at line 1, column 2)"#),
        HostileCase(
            name: "duplicate member around --path", files: with(["dup.json": #"{"data": [{"id": 1}], "data": []}"#]),
            arguments: ["--path", "data", "dup.json", "dup.json"],
            expected: #"dup.json:1:23: error: duplicate member name "data" in one object (first at line 1, column 2)"#),
        HostileCase(
            name: "duplicate member in a changeset",
            files: with(["changes.json": #"{"version": 1, "version": 1, "key": ["id"], "changes": []}"#]),
            arguments: ["apply", "old.json", "changes.json"],
            expected: #"changes.json:1:16: error: duplicate member name "version" in one object (first at line 1, column 2)"#),
        // Shapes and keys.
        HostileCase(
            name: "a record without the key", files: with(["nokey.json": #"[{"id": 1}, {"name": "x"}]"#]),
            arguments: ["nokey.json", "new.json"],
            expected:
                "nokey.json:1:13: error: record 1 has no key field 'id'; no field is present and unique in every record of both files (--key . diffs the lists as sequences)"
        ),
        HostileCase(
            name: "a duplicate key", files: with(["dupkey.json": #"[{"id": 1}, {"id": 1}]"#]),
            arguments: ["dupkey.json", "new.json"],
            expected:
                "dupkey.json:1:13: error: duplicate key id=1 (records 0 and 1; the first is at line 1, column 2); --duplicates match pairs repeated keys by occurrence"
        ),
        HostileCase(
            name: "a scalar at the top", files: with(["scalar.json": "42"]),
            arguments: ["scalar.json", "new.json"],
            expected:
                "scalar.json:1:1: error: the top level is a number; expected a list of records, a map of records, an object of lists, or a list of section objects"
        ),
        HostileCase(
            name: "nesting past the limit",
            files: with([
                "deep.json": "[{\"id\": 1, \"v\": " + String(repeating: "[", count: 1001) + String(repeating: "]", count: 1001) + "}]"
            ]),
            arguments: ["deep.json", "new.json"], expected: "deep.json:1:1015: error: nesting is deeper than the limit of 1000"),
        // A line counts one level, as in a list: written as a JSON list by apply, this record
        // would be 1,001 deep, which listdiff would refuse to read back.
        HostileCase(
            name: "an NDJSON line nested past the limit a list has",
            files: with([
                "deep.ndjson": "{\"id\": 1, \"v\": " + String(repeating: "[", count: 999) + String(repeating: "]", count: 999) + "}\n"
            ]),
            arguments: ["deep.ndjson", "new.json"], expected: "deep.ndjson:1:1014: error: nesting is deeper than the limit of 1000"),
        // Files that are not there, not readable, not files.
        HostileCase(
            name: "a missing file", files: with([:]), arguments: ["missing.json", "new.json"],
            expected: "missing.json: error: cannot open: No such file or directory"),
        HostileCase(
            name: "a folder", files: with([:]), arguments: [".", "new.json"],
            expected: "listdiff: error: . is a folder and new.json is not: give two files, or two folders"),
        HostileCase(
            name: "endless zeros", files: with([:]), arguments: ["/dev/zero", "new.json"],
            expected: "/dev/zero:1:1: error: holds a NUL byte, which no JSON, NDJSON, YAML or CSV text holds"),
        HostileCase(
            name: "endless random bytes", files: with([:]), arguments: ["/dev/urandom", "new.json"],
            expected: ": error: holds a NUL byte, which no JSON, NDJSON, YAML or CSV text holds", placed: true),
        HostileCase(
            name: "a changeset of zeros", files: with([:]), arguments: ["apply", "old.json", "/dev/zero"],
            expected: "/dev/zero:1:1: error: holds a NUL byte, which no JSON, NDJSON, YAML or CSV text holds"),
        HostileCase(
            name: "a sparse gigabyte", files: with([:]),
            arguments: ["truncate -s 1G sparse.json && \"$LISTDIFF\" sparse.json new.json; s=$?; rm sparse.json; exit $s"],
            shell: true, expected: "sparse.json:1:1: error: holds a NUL byte, which no JSON, NDJSON, YAML or CSV text holds"),
        HostileCase(
            name: "an input over the size limit", files: with([:]), arguments: ["old.json", "new.json"],
            environment: ["LISTDIFF_MAX_INPUT_SIZE": "10"],
            expected: "old.json: error: holds more than 10 bytes, the most listdiff reads (LISTDIFF_MAX_INPUT_SIZE sets it)"),
        // YAML budgets: they are refused by what they would expand to, or read in linear time.
        HostileCase(
            name: "an alias bomb", files: with(["bomb.yaml": bomb()]), arguments: ["bomb.yaml", "new.json"],
            expected: "bomb.yaml:7:23: error: aliases expand to more than 1000000 nodes; refusing (possible alias bomb)"),
        HostileCase(
            name: "aliases of a big scalar", files: with(["big.yaml": bigAliases()]), arguments: ["big.yaml", "big.yaml"],
            expected: "big.yaml:18:15: error: aliases expand to more than 16777216 bytes of text; refusing (possible alias bomb)"),
        // Shapes that were quadratic: a YAML mapping of many members, and a flow list of many
        // records on one line. Each ran for minutes at this size.
        HostileCase(
            name: "a YAML mapping of 40,000 members",
            files: {
                let members = (0..<40_000).map { "    k\($0): \($0)\n" }.joined()
                return [
                    "old.yaml": Array(("- id: 1\n  m:\n" + members).utf8),
                    "new.yaml": Array(("- id: 1\n  m:\n" + members + "    extra: 1\n").utf8),
                ]
            }, arguments: ["--stat", "old.yaml", "new.yaml"], status: 1, expected: "updated     1"),
        HostileCase(
            name: "a YAML flow list of 40,000 records on one line",
            files: {
                let records = (0..<40_000).map { "{id: \($0), v: \($0)}" }
                return [
                    "old.yaml": Array(("[" + records.joined(separator: ", ") + "]\n").utf8),
                    "new.yaml": Array(("[" + records.dropLast().joined(separator: ", ") + "]\n").utf8),
                ]
            }, arguments: ["--stat", "old.yaml", "new.yaml"], status: 1, expected: "deleted     1"),
        HostileCase(
            name: "a huge hexadecimal integer",
            files: with(["hex.yaml": "- {id: 1, v: 0x" + String(repeating: "f", count: 120_000) + "}\n"]),
            arguments: ["--stat", "hex.yaml", "new.json"], status: 1, expected: "updated     1"),
        // Options and the environment.
        HostileCase(
            name: "a tiny speed", files: with([:]),
            arguments: ["-f", "replay", "--record", "r.cast", "--speed", "1e-300", "old.json", "new.json"],
            expected: "listdiff: error: --speed must be a number from 0.01 to 100 (see 'listdiff diff --help')"),
        HostileCase(
            name: "a huge duration", files: with([:]),
            arguments: ["-f", "replay", "--record", "r.cast", "--duration", "1e308", "old.json", "new.json"],
            expected: "listdiff: error: --duration must be from 0.1 to 3600 seconds (see 'listdiff diff --help')"),
        // A COLUMNS or LINES that is no size is ignored, as other tools ignore it.
        HostileCase(
            name: "a huge LINES and a COLUMNS that is no number", files: with([:]), arguments: ["old.json", "new.json"],
            environment: ["LINES": "2000000000", "COLUMNS": "wide"], status: 1, expected: "~ id=1 /v: 1 → 2"),
        HostileCase(
            name: "an unknown option", files: with([:]), arguments: ["--bogus", "old.json", "new.json"],
            expected: "listdiff: error: Unknown option '--bogus' (see 'listdiff diff --help')"),
        // Outputs.
        HostileCase(
            name: "a full disk", files: with([:]), arguments: ["\"$LISTDIFF\" old.json new.json > /dev/full"], shell: true,
            expected: "listdiff: error: cannot write to standard output: No space left on device"),
        HostileCase(
            name: "apply onto a full disk", files: with(["changes.json": changeset]),
            arguments: ["\"$LISTDIFF\" apply old.json changes.json > /dev/full"],
            shell: true, expected: "listdiff: error: cannot write to standard output: No space left on device"),
        HostileCase(
            name: "-o into a folder that is not there", files: with([:]), arguments: ["-o", "nowhere/out.json", "old.json", "new.json"],
            expected: "nowhere/out.json: error: cannot create a temporary file in nowhere: No such file or directory"),
        // Tampered changesets.
        HostileCase(
            name: "an insert that brings another key",
            files: with(["changes.json": changeset.replacingOccurrences(of: #""value": {"id":2"#, with: #""value": {"id":9"#)]),
            arguments: ["apply", "old.json", "changes.json"],
            expected: "changes.json:15:5: error: the insert of id=2 brings a record keyed id=9: the changeset was edited or is inconsistent"
        ),
        HostileCase(
            name: "a changeset for another file",
            files: with(["changes.json": changeset, "other.json": #"[{"id": 1, "v": 5}]"#]),
            arguments: ["apply", "other.json", "changes.json"],
            expected:
                "other.json: error: this is not the document the changeset was made from (its fingerprint is h128:bd0a831c5afcdb…, the changeset's h128:dc697fe2c09748…; 1 records, the changeset's 1); --force applies it anyway"
        ),
        // Text that would act on a terminal is shown escaped.
        HostileCase(
            name: "a member name that retitles the terminal",
            files: with(["esc.json": "[{\"id\": 1, \"\\u001b]0;owned\\u0007\": 1}]"]),
            arguments: ["old.json", "esc.json"], status: 1, expected: #"~ id=1 /\u001b]0;owned\u0007: (none) → 1"#),
    ]

    /// Ten levels of ten aliases each: 10^10 nodes from a 1 kB file.
    static func bomb() -> String {
        var text = "- &a0 {id: 0}\n"
        for level in 1...10 {
            text += "- &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        return text
    }

    /// A 1 MB scalar and aliases of it: a 1 MB file that would expand to 17 MB and more.
    static func bigAliases() -> String {
        var text = "- {id: 1, v: &a \"" + String(repeating: "x", count: 1_000_000) + "\"}\n"
        for i in 2...20 { text += "- {id: \(i), v: *a}\n" }
        return text
    }

    /// The changeset from `old.json` to a NEW with one more record, as listdiff writes it.
    static let changeset: String = {
        let dir = try! temporaryDirectory()
        try! record.write(to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try! #"[{"id": 1, "v": 1}, {"id": 2, "v": 2}]"#.write(to: dir.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        let run = try! Binary.run(["-f", "json", "old.json", "new.json"], in: dir)
        try? FileManager.default.removeItem(at: dir)
        return run.stdout
    }()

    @Test(arguments: cases)
    func hostileInput(_ hostile: HostileCase) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = hostile.files()
        for (name, bytes) in files {
            #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: Data(bytes)))
        }
        // The data limit (private memory, in KiB) turns a runaway allocation into a crash,
        // which this test reports; each input here is under about 1 MB.
        let command =
            hostile.shell
            ? hostile.arguments[0]
            : "exec \"$LISTDIFF\"" + hostile.arguments.map { " '\($0)'" }.joined()
        let start = Date()
        let run = try Binary.run(
            ["-c", "ulimit -d \(Self.memoryLimit / 1024); " + command],
            environment: hostile.environment.merging(["LISTDIFF": Binary.url.path]) { $1 },
            in: dir, executable: "/bin/bash")
        let seconds = Date().timeIntervalSince(start)
        #expect(run.status == hostile.status, "\(run.stderr)")
        if hostile.status == 2 {
            if hostile.placed {
                #expect(run.stderr.hasPrefix(hostile.arguments[0] + ":") && run.stderr.hasSuffix(hostile.expected + "\n"), "\(run.stderr)")
                #expect(run.stderr.dropLast().contains("\n") == false)
            } else {
                #expect(run.stderr == hostile.expected + "\n")
            }
            #expect(run.stdout == "")
        } else {
            #expect(run.stderr == "")
            #expect(run.stdout.contains(hostile.expected), "\(run.stdout)")
        }
        // Generous, for a shared machine that may be building or testing beside it (an
        // alias bomb once took 13.6 s of wall time so): a runaway takes minutes.
        #expect(seconds < 30)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == files.keys.sorted())
    }

    /// The data limit each case runs under.
    static let memoryLimit = 100 << 20
}
