import Foundation
import Testing

/// Runs the built `listdiff` binary and checks stdout, stderr and the exit status.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Binary {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The binary sits beside the test bundle in the build folder (on macOS, the bundle is
    /// loaded into Xcode's runner; elsewhere, it is the running executable).
    static let url: URL = {
        let tests = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL ?? Bundle.main.executableURL!
        var dir = tests.resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("listdiff").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("listdiff")
    }()

    /// Runs the binary, or `executable` (a shell running it, say) when given.
    static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        in directory: URL = repository, executable: String? = nil
    ) throws -> Run {
        let process = Process()
        process.executableURL = executable.map(URL.init(fileURLWithPath:)) ?? url
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        // Output goes to files, so that neither stream can fill a pipe and block the child.
        let dir = try temporaryDirectory()
        let outURL = dir.appendingPathComponent("stdout"), errURL = dir.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let outData = try Data(contentsOf: outURL), errData = try Data(contentsOf: errURL)
        try? FileManager.default.removeItem(at: dir)
        return Run(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// Writes each file (by its path below `dir`, folders made as needed).
func write(_ files: [String: String], in dir: URL) throws {
    for (path, text) in files {
        let url = dir.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}

/// A golden file's text, from `Tests/ListDiffKitTests/Golden`.
func golden(_ name: String) throws -> String {
    try String(contentsOf: CommandTests.goldens.appendingPathComponent(name), encoding: .utf8)
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("listdiff-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite struct CommandTests {
    /// The folder of golden files.
    static let goldens = Binary.repository.appendingPathComponent("Tests/ListDiffKitTests/Golden")

    @Test func peopleExampleIsAPatchAndExitsOne() throws {
        let run = try Binary.run(["people-old.json", "people-new.json"], in: Binary.repository.appendingPathComponent("Examples"))
        #expect(run.status == 1)
        #expect(run.stderr == "")
        #expect(run.stdout == (try golden("people.patch")))
    }

    @Test func jsonFormatIsTheVersionedChangeset() throws {
        let run = try Binary.run(
            ["--format", "json", "people-old.json", "people-new.json"],
            in: Binary.repository.appendingPathComponent("Examples"))
        #expect(run.status == 1)
        #expect(run.stdout == (try golden("people.json")))
    }

    /// The release shown by `--version` is the one each changeset names as its generator.
    @Test func versionIsNamedInOnePlace() throws {
        let version = try Binary.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+\n$"#, options: .regularExpression) != nil, "\(version.stdout)")
        let changeset = try Binary.run(
            ["--format", "json", "people-old.json", "people-new.json"],
            in: Binary.repository.appendingPathComponent("Examples"))
        #expect(changeset.stdout.contains("\n  \"generator\": \"listdiff \(version.stdout.dropLast())\",\n"))
    }

    @Test func jsonPatchFormat() throws {
        let run = try Binary.run(
            ["--format", "jsonpatch", "people-old.json", "people-new.json"],
            in: Binary.repository.appendingPathComponent("Examples"))
        #expect(run.status == 1)
        #expect(run.stdout == (try golden("people.jsonpatch.json")))
        let same = try Binary.run(["--format", "jsonpatch", "Examples/people-old.json", "Examples/people-old.json"])
        #expect(same.status == 0 && same.stdout == "[]\n")
    }

    @Test func numbersExample() throws {
        let run = try Binary.run(
            ["--key", "number", "numbers-old.yaml", "numbers-new.yaml"],
            in: Binary.repository.appendingPathComponent("Examples"))
        #expect(run.status == 1)
        #expect(run.stdout == (try golden("numbers.patch")))
    }

    @Test func sameInputsExitZeroAndSayNothing() throws {
        let run = try Binary.run(["Examples/people-old.json", "Examples/people-old.json"])
        #expect(run.status == 0)
        #expect(run.stdout == "" && run.stderr == "")
    }

    @Test func colourIsAskedForOrNot() throws {
        let always = try Binary.run(["--color", "always", "Examples/people-old.json", "Examples/people-new.json"])
        #expect(always.stdout.contains("\u{1B}[31m- id=4"))
        let auto = try Binary.run(["Examples/people-old.json", "Examples/people-new.json"], environment: ["NO_COLOR": "1"])
        #expect(!auto.stdout.contains("\u{1B}["))
    }

    @Test func malformedInputIsOneLineWithAPlaceAndNoOutput() throws {
        let dir = try temporaryDirectory()
        try "[\n  {\"id\": 1,}\n]\n".write(to: dir.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        try "- id: 1\n- id: [\n".write(to: dir.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
        try "[{\"id\": 1}, {\"id\": 1}]".write(to: dir.appendingPathComponent("dup.json"), atomically: true, encoding: .utf8)
        try "[]".write(to: dir.appendingPathComponent("empty.json"), atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["bad.json", "empty.json"], "bad.json:2:12: error: expected a string key in object, found '}'\n"),
            (
                ["empty.json", "dup.json"],
                "dup.json:1:13: error: duplicate key id=1 (records 0 and 1; the first is at line 1, column 2); --duplicates match pairs repeated keys by occurrence\n"
            ),
            (["empty.json", "missing.json"], "missing.json: error: cannot open: No such file or directory\n"),
            // A folder and a file: folders are diffed in pairs only.
            (["empty.json", "."], "listdiff: error: . is a folder and empty.json is not: give two files, or two folders\n"),
        ]
        for (arguments, stderr) in cases {
            let run = try Binary.run(arguments, in: dir)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stdout == "")
            #expect(run.stderr == stderr)
        }
        let yaml = try Binary.run(["bad.yaml", "empty.json"], in: dir)
        #expect(yaml.status == 2)
        #expect(yaml.stderr.hasPrefix("bad.yaml:3:1: error: "))
        #expect(yaml.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func usageErrorsAreTroubleToo() throws {
        for arguments in [["--nope", "a", "b"], ["only-one"], ["--format", "xml", "a", "b"], ["-", "-"], ["--key", "a..b", "x", "y"]] {
            let run = try Binary.run(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stdout == "")
            #expect(run.stderr.hasPrefix("listdiff: error: "), "\(arguments): \(run.stderr)")
        }
        let help = try Binary.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: listdiff"))
    }

    @Test func standardInputFIFOsAndSniffing() throws {
        let dir = try temporaryDirectory()
        let oldText = try String(contentsOf: Binary.repository.appendingPathComponent("Examples/people-old.json"), encoding: .utf8)
        let viaStdin = try Binary.run(["-", "Examples/people-new.json"], stdin: oldText)
        #expect(viaStdin.status == 1)
        #expect(viaStdin.stdout.hasPrefix("--- -\n+++ Examples/people-new.json\n"))
        // A FIFO, as process substitution gives.
        let fifo = dir.appendingPathComponent("old.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo.path) {
                handle.write(Data(oldText.utf8))
                try? handle.close()
            }
        }
        writer.start()
        let viaFIFO = try Binary.run([fifo.path, "Examples/people-new.json"])
        #expect(viaFIFO.status == 1)
        #expect(viaFIFO.stdout.contains("1 inserted, 1 deleted, 1 moved, 2 updated, 3 unchanged"))
        // No extension: YAML found by sniffing; --input-format forces a reading.
        try "- 1\n- 2\n".write(to: dir.appendingPathComponent("a.txt"), atomically: true, encoding: .utf8)
        try "[2, 3]".write(to: dir.appendingPathComponent("b.txt"), atomically: true, encoding: .utf8)
        let sniffed = try Binary.run(["a.txt", "b.txt"], in: dir)
        #expect(sniffed.stdout == "--- a.txt\n+++ b.txt\n- 1 #0\n+ 3 #1\n1 inserted, 1 deleted, 0 moved, 0 updated, 1 unchanged\n")
        let forced = try Binary.run(["--input-format", "json", "a.txt", "b.txt"], in: dir)
        #expect(forced.status == 2)
        #expect(forced.stderr == "a.txt:1:2: error: invalid number: expected a digit\n")
    }

    @Test func outputFileIsAtomic() throws {
        let dir = try temporaryDirectory()
        let examples = Binary.repository.appendingPathComponent("Examples")
        let out = dir.appendingPathComponent("changes.json")
        let ok = try Binary.run([
            "-f", "json", "-o", out.path, examples.appendingPathComponent("people-old.json").path,
            examples.appendingPathComponent("people-new.json").path,
        ])
        #expect(ok.status == 1 && ok.stdout == "")
        #expect(FileManager.default.fileExists(atPath: out.path))
        // A failed run leaves no file and no temporary behind.
        let failed = dir.appendingPathComponent("failed.json")
        let bad = try Binary.run(["-o", failed.path, "nope.json", "Examples/people-new.json"])
        #expect(bad.status == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["changes.json"])
        // A symbolic link at the target is replaced, not written through.
        let victim = dir.appendingPathComponent("victim.txt")
        try "keep".write(to: victim, atomically: true, encoding: .utf8)
        let link = dir.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
        _ = try Binary.run(["-o", link.path, "Examples/people-old.json", "Examples/people-new.json"])
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == nil)
    }
}

@Suite struct AlgorithmCommandTests {
    @Test(arguments: ["heckel", "myers", "lcs"])
    func everyAlgorithmGivesTheSameChanges(algorithm: String) throws {
        let run = try Binary.run(
            ["--algorithm", algorithm, "-f", "json", "people-old.json", "people-new.json"],
            in: Binary.repository.appendingPathComponent("Examples"))
        #expect(run.status == 1)
        #expect(run.stdout.contains("\"algorithm\": \"\(algorithm)\""))
        let heckel = try String(
            contentsOf: Binary.repository.appendingPathComponent("Tests/ListDiffKitTests/Golden/people.json"), encoding: .utf8)
        #expect(run.stdout.replacingOccurrences(of: "\"\(algorithm)\"", with: "\"heckel\"") == heckel)
    }

    @Test func duplicatesPairByOccurrence() throws {
        let dir = try temporaryDirectory()
        try "[\"a\", \"b\", \"a\"]".write(to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try "[\"a\", \"a\", \"b\", \"a\"]".write(to: dir.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        let refused = try Binary.run(["old.json", "new.json"], in: dir)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--duplicates match"))
        let matched = try Binary.run(["--duplicates", "match", "old.json", "new.json"], in: dir)
        #expect(matched.status == 1)
        #expect(
            matched.stdout == """
                --- old.json
                +++ new.json
                > "b" #1 → #2
                + "a" (occurrence 2) #3
                1 inserted, 0 deleted, 1 moved, 0 updated, 2 unchanged

                """)
        let json = try Binary.run(["--duplicates", "match", "-f", "json", "old.json", "new.json"], in: dir)
        #expect(json.stdout.contains(#"{"op": "insert", "key": "a", "occurrence": 2, "new": [0, 3], "value": "a"}"#))
        #expect(json.stdout.contains(#""duplicates": "match""#))
    }

    @Test func quadraticAlgorithmsRefuseWithAClearMessage() throws {
        let dir = try temporaryDirectory()
        let old = (0..<400).map(String.init).joined(separator: ",")
        let new = (0..<400).reversed().map(String.init).joined(separator: ",")
        try "[\(old)]".write(to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try "[\(new)]".write(to: dir.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        for algorithm in ["lcs", "myers"] {
            let run = try Binary.run(["--algorithm", algorithm, "--cost-limit", "10000", "old.json", "new.json"], in: dir)
            #expect(run.status == 2)
            #expect(run.stdout == "")
            #expect(run.stderr.hasPrefix("listdiff: error: \(algorithm): "))
            #expect(run.stderr.contains("above the cost limit of 10000 steps; use --algorithm heckel"))
        }
        let raised = try Binary.run(["--algorithm", "lcs", "--cost-limit", "1000000", "old.json", "new.json"], in: dir)
        #expect(raised.status == 1)
        #expect(raised.stdout.hasSuffix("0 inserted, 0 deleted, 399 moved, 0 updated, 1 unchanged\n"))
    }
}

@Suite struct DocumentationTests {
    /// man(1) reads the page without a warning, and it says what each exit status means; the
    /// help it is made from holds only ASCII, which the page's generator would drop.
    @Test func manReadsThePageCleanly() throws {
        let page = Binary.repository.appendingPathComponent("man/listdiff.1").path
        let text = try String(contentsOfFile: page, encoding: .utf8)
        #expect(text.contains("exits 0 when the inputs hold the same records, 1 when they differ"))
        let help = try Binary.run(["diff", "--help"]).stdout + Binary.run(["apply", "--help"]).stdout
        let foreign = help.unicodeScalars.filter { !$0.isASCII }
        #expect(foreign.isEmpty, "\(foreign)")
        let man = try Programs.require("man", package: "man-db")
        let run = try Binary.run(["--warnings", "-l", page], environment: ["MANWIDTH": "80"], executable: man)
        #expect(run.status == 0)
        #expect(run.stderr == "", "\(run.stderr)")
        #expect(run.stdout.contains("EXIT STATUS"))
    }

    /// man/listdiff.1 is generated from the help (see README); every option the command
    /// takes must be in it, so that a new option without a regenerated page fails here.
    @Test func manPageCoversEveryOption() throws {
        let help = try Binary.run(["diff", "--help"]).stdout + Binary.run(["apply", "--help"]).stdout
        let man = try String(contentsOf: Binary.repository.appendingPathComponent("man/listdiff.1"), encoding: .utf8)
        // The option column of each help line that starts with a dash.
        var options: [String] = []
        for line in help.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("-") else { continue }
            let column = trimmed.split(separator: "  ").first ?? ""
            for word in column.split(whereSeparator: { $0 == " " || $0 == "," })
            where word.hasPrefix("--") && word.allSatisfy({ $0.isLetter || $0 == "-" }) {
                options.append(String(word))
            }
        }
        #expect(options.contains("--force") && options.contains("--algorithm"))
        for option in Set(options) {
            // mdoc writes --key as "Fl -key", and -f, --format as "Fl f , -format".
            #expect(man.contains("Fl " + option.dropFirst()) || man.contains(", " + option.dropFirst()), "man page lacks \(option)")
        }
    }

    /// The shipped changeset is what the command makes today.
    @Test func shippedChangesetIsCurrent() throws {
        let examples = Binary.repository.appendingPathComponent("Examples")
        let run = try Binary.run(["--format", "json", "people-old.json", "people-new.json"], in: examples)
        #expect(run.stdout == (try String(contentsOf: examples.appendingPathComponent("people-changes.json"), encoding: .utf8)))
    }

    /// Every command in Examples/README.md runs and exits as it says.
    /// The embedding example (Examples/Embedding) uses the library's public API alone: it
    /// diffs lists and sections built in code and applies the results, reads its JSON
    /// changeset back, diffs two byte buffers, switches on errors' kinds and acts on a hint.
    @Test func embeddingExampleRuns() throws {
        let example = Binary.url.deletingLastPathComponent().appendingPathComponent("listdiff-embedding-example")
        let run = try Binary.run([], executable: example.path)
        #expect(run.status == 0 && run.stderr == "")
        #expect(
            run.stdout == """
                --- old
                +++ new
                - id=4 #3 {"id":4,"name":"Edsger Dijkstra","role":"shortest paths"}
                > id=3 #2 → #0
                ~ id=3 /role: "admiral" → "rear admiral"
                + id=5 #3 {"id":5,"name":"Barbara Liskov","role":"substitution"}
                1 inserted, 1 deleted, 1 moved, 1 updated, 2 unchanged
                4 changes, to the records keyed 4, 3, 3, 5
                applied to old, it gives new
                updates: update old 2
                deletes: delete old 3
                inserts and moves: move old 2 → new 0, insert new 3
                --- old
                +++ new
                # sections as an object of lists
                @ "done"
                > id="a" #0.0 → #1.1 (from "todo")
                0 inserted, 0 deleted, 1 moved, 0 updated, 2 unchanged; sections: 0 inserted, 0 deleted, 0 moved, 0 updated
                  "done": 0 inserted, 0 deleted, 0 moved, 1 moved in, 0 updated
                applied to the old board, it gives the new
                read back from JSON: 1 updated; applied, it gives new: true
                --- old
                +++ new
                inserted    0
                deleted     1
                moved       0
                updated     1
                unchanged   0
                fields updated:
                  /qty  1
                a key error: record 0 has no key field 'id'
                syntax error at line 1, column 11: old.json:1:11: error: expected a string key in object, found ']'
                duplicate key id=1 (records 0 and 1); with duplicates: .match, 2 deleted

                """)
    }

    @Test func examplesReadmeCommandsRun() throws {
        let readme = try String(contentsOf: Binary.repository.appendingPathComponent("Examples/README.md"), encoding: .utf8)
        let commands = readme.split(separator: "\n").filter { $0.hasPrefix("    listdiff ") }
        #expect(commands.count >= 3)
        for line in commands {
            // Words as a shell splits these lines: at spaces, single quotes removed.
            let words = line.dropFirst(4).split(separator: " ").dropFirst().map { $0.replacingOccurrences(of: "'", with: "") }
            let run = try Binary.run(words, in: Binary.repository.appendingPathComponent("Examples"))
            // (apply, check, config, hash, and a merge whose conflicts a preference resolves, succeed; a
            // merge says how it went on standard error.)
            let succeeds =
                ["apply", "check", "config", "hash"].contains(words.first) || words.first == "merge" && words.contains("--prefer")
            #expect(run.status == (succeeds ? 0 : 1), "\(line): \(run.stderr)")
            #expect(run.stderr == "" || words.first == "merge")
        }
    }
}

@Suite struct ApplyCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    /// Makes a changeset with the real binary and returns its path.
    static func changeset(_ old: String, _ new: String, in dir: URL, _ extra: [String] = []) throws -> String {
        let path = dir.appendingPathComponent("changes.json").path
        let run = try Binary.run(["-f", "json", "-o", path] + extra + [old, new], in: examples)
        #expect(run.status == 1, "\(run.stderr)")
        return path
    }

    @Test func appliesToStandardOutputAsJSONOrYAML() throws {
        let dir = try temporaryDirectory()
        let changes = try Self.changeset("people-old.json", "people-new.json", in: dir)
        let applied = try Binary.run(["apply", "people-old.json", changes], in: Self.examples)
        #expect(applied.status == 0)
        #expect(applied.stderr == "")
        let out = dir.appendingPathComponent("out.json")
        try applied.stdout.write(to: out, atomically: true, encoding: .utf8)
        // The new file's records, with their members in the new file's order.
        #expect(try Binary.run(["--member-order", "significant", out.path, "people-new.json"], in: Self.examples).status == 0)

        let yaml = try Binary.run(["apply", "--output-format", "yaml", "people-old.json", changes], in: Self.examples)
        #expect(yaml.status == 0)
        #expect(yaml.stdout.hasPrefix("- id: 1\n  name: Ada Lovelace\n"))
        let outYAML = dir.appendingPathComponent("out.yaml")
        try yaml.stdout.write(to: outYAML, atomically: true, encoding: .utf8)
        #expect(try Binary.run([outYAML.path, "people-new.json"], in: Self.examples).status == 0)

        // The changeset from standard input.
        let text = try String(contentsOfFile: changes, encoding: .utf8)
        let piped = try Binary.run(["apply", "people-old.json", "-"], stdin: text, in: Self.examples)
        #expect(piped.stdout == applied.stdout)
    }

    @Test func yamlStaysYAMLUnlessTheOutputNameSaysJSON() throws {
        let dir = try temporaryDirectory()
        let changes = try Self.changeset("numbers-old.yaml", "numbers-new.yaml", in: dir, ["--key", "number"])
        let applied = try Binary.run(["apply", "numbers-old.yaml", changes], in: Self.examples)
        #expect(applied.status == 0)
        #expect(applied.stdout.hasPrefix("- number: 1\n  text: eins\n"))
        let json = dir.appendingPathComponent("result.json")
        #expect(try Binary.run(["apply", "-o", json.path, "numbers-old.yaml", changes], in: Self.examples).status == 0)
        #expect(try String(contentsOf: json, encoding: .utf8).hasPrefix("[\n  {\n    \"number\": 1,"))
        #expect(try Binary.run(["--key", "number", json.path, "numbers-new.yaml"], in: Self.examples).status == 0)
    }

    @Test func outputIsAtomicAndNeverWrittenThroughALink() throws {
        let dir = try temporaryDirectory()
        let changes = try Self.changeset("people-old.json", "people-new.json", in: dir)
        let before = try Data(contentsOf: Self.examples.appendingPathComponent("people-old.json"))
        let victim = dir.appendingPathComponent("victim.json")
        try Data("precious\n".utf8).write(to: victim)
        let link = dir.appendingPathComponent("out.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
        let run = try Binary.run(["apply", "-o", link.path, "people-old.json", changes], in: Self.examples)
        #expect(run.status == 0)
        #expect(run.stdout == "")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == nil)
        #expect(try Binary.run([link.path, "people-new.json"], in: Self.examples).status == 0)
        #expect(try Data(contentsOf: Self.examples.appendingPathComponent("people-old.json")) == before)
        // Only the result and the changeset: no temporary file left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["changes.json", "out.json", "victim.json"])
    }

    @Test func refusesAnotherOldFileUnlessForcedAndNeverScrambles() throws {
        let dir = try temporaryDirectory()
        let changes = try Self.changeset("people-old.json", "people-new.json", in: dir)
        // A different file altogether: refused, and --force cannot make its keys fit.
        let wrong = try Binary.run(
            ["apply", "-o", dir.appendingPathComponent("x.json").path, "people-new.json", changes], in: Self.examples)
        #expect(wrong.status == 2)
        #expect(
            wrong.stderr.hasPrefix("people-new.json: error: this is not the document the changeset was made from (its fingerprint is h128:")
        )
        #expect(wrong.stderr.hasSuffix("; 7 records, the changeset's 7); --force applies it anyway\n"))
        let forced = try Binary.run(["apply", "--force", "people-new.json", changes], in: Self.examples)
        #expect(forced.status == 2)
        #expect(forced.stdout == "")
        #expect(
            forced.stderr.contains(
                "error: the delete of id=4 names old position 3, which holds id=2: the changeset was not made from this file"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.json").path))

        // The old file with one unrelated edit: refused, then applied under --force.
        var text = try String(contentsOf: Self.examples.appendingPathComponent("people-old.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: "ada@example.com", with: "ada@lovelace.example")
        let edited = dir.appendingPathComponent("edited.json")
        try text.write(to: edited, atomically: true, encoding: .utf8)
        #expect(try Binary.run(["apply", edited.path, changes]).status == 2)
        let kept = try Binary.run(["apply", "--force", edited.path, changes])
        #expect(kept.status == 0)
        #expect(kept.stdout.contains("ada@lovelace.example"))
        #expect(kept.stdout.contains("grace.hopper@example.com"))
    }

    @Test func checksTheKeysOfAnotherOldFileAsADiffDoes() throws {
        // Apply checks OLD's keys only when OLD is not the changeset's (its fingerprint
        // differs) or under --force: then a key given twice is the diff's error, first.
        let dir = try temporaryDirectory()
        let changes = try Self.changeset("people-old.json", "people-new.json", in: dir)
        let text = try String(contentsOf: Self.examples.appendingPathComponent("people-old.json"), encoding: .utf8)
        let twice = dir.appendingPathComponent("twice.json")
        try text.replacingOccurrences(of: "\"id\": 2,", with: "\"id\": 1,").write(to: twice, atomically: true, encoding: .utf8)
        let diff = try Binary.run([twice.path, Self.examples.appendingPathComponent("people-new.json").path])
        #expect(diff.status == 2)
        #expect(diff.stderr.contains("error: duplicate key id=1 (records 0 and 1"))
        for force in [[], ["--force"]] {
            let output = dir.appendingPathComponent("out.json").path
            let run = try Binary.run(["apply"] + force + ["-o", output, twice.path, changes])
            #expect(run.status == 2)
            #expect(run.stderr == diff.stderr)
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        // OLD itself: applied, and the result is NEW.
        let output = dir.appendingPathComponent("new.json").path
        #expect(try Binary.run(["apply", "-o", output, "people-old.json", changes], in: Self.examples).status == 0)
        #expect(try Binary.run([output, "people-new.json"], in: Self.examples).status == 0)
    }

    @Test func refusesMalformedChangesets() throws {
        let dir = try temporaryDirectory()
        let changes = try Self.changeset("people-old.json", "people-new.json", in: dir)
        let text = try String(contentsOfFile: changes, encoding: .utf8)
        let cases: [(String, String)] = [
            (
                text.replacingOccurrences(of: "\"op\": \"move\"", with: "\"op\": \"swap\""),
                "bad.json:17:12: error: unknown op \"swap\"; expected \"delete\", \"insert\", \"move\", \"update\" or \"rename\"\n"
            ),
            (
                text.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 7"),
                "bad.json:2:14: error: unsupported changeset version 7; this listdiff reads versions 1 to 4\n"
            ),
            (String(text.dropLast(10)), ""),
        ]
        for (content, expected) in cases {
            let bad = dir.appendingPathComponent("bad.json")
            try content.write(to: bad, atomically: true, encoding: .utf8)
            let out = dir.appendingPathComponent("never.json")
            let run = try Binary.run(
                ["apply", "-o", out.path, Self.examples.appendingPathComponent("people-old.json").path, "bad.json"], in: dir)
            #expect(run.status == 2)
            #expect(run.stdout == "")
            if expected.isEmpty {
                #expect(run.stderr.hasPrefix("bad.json:"), "\(run.stderr)")
                #expect(run.stderr.filter { $0 == "\n" }.count == 1)
            } else {
                #expect(run.stderr == expected)
            }
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        let usage = try Binary.run(["apply", "-", "-"])
        #expect(usage.status == 2)
        #expect(usage.stderr.hasPrefix("listdiff: error: only one of OLD and CHANGESET"))
    }
}

@Suite struct SectionCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    static func golden(_ name: String) throws -> String {
        try String(contentsOf: Binary.repository.appendingPathComponent("Tests/ListDiffKitTests/Golden/" + name), encoding: .utf8)
    }

    @Test func sectionedExamples() throws {
        let people = try Binary.run(["people-sections-old.yaml", "people-sections-new.yaml"], in: Self.examples)
        #expect(people.status == 1)
        #expect(people.stderr == "")
        #expect(people.stdout == (try Self.golden("people-sections.patch")))
        let teams = try Binary.run(["-f", "json", "teams-old.json", "teams-new.json"], in: Self.examples)
        #expect(teams.status == 1)
        #expect(teams.stdout == (try Self.golden("teams.json")))
        let patch = try Binary.run(["-f", "jsonpatch", "teams-old.json", "teams-new.json"], in: Self.examples)
        #expect(patch.status == 2)
        #expect(patch.stdout == "")
        #expect(
            patch.stderr
                == "listdiff: error: --format jsonpatch writes plain lists only; for sections use --format json and 'listdiff apply'\n")
    }

    @Test func sectionedApplyRoundTrips() throws {
        let dir = try temporaryDirectory()
        for (old, new) in [("people-sections-old.yaml", "people-sections-new.yaml"), ("teams-old.json", "teams-new.json")] {
            let changes = dir.appendingPathComponent("c.json").path
            #expect(try Binary.run(["-f", "json", "-o", changes, old, new], in: Self.examples).status == 1)
            let result = dir.appendingPathComponent("result" + (old.hasSuffix(".yaml") ? ".yaml" : ".json")).path
            let apply = try Binary.run(["apply", "-o", result, old, changes], in: Self.examples)
            #expect(apply.status == 0, "\(apply.stderr)")
            let check = try Binary.run(["--member-order", "significant", result, new], in: Self.examples)
            #expect(check.status == 0, "\(check.stdout)")
        }
    }

    @Test func pathReachesIntoLargerDocuments() throws {
        let run = try Binary.run(["--path", "/data/users", "api-old.json", "api-new.json"], in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stdout.hasSuffix("1 inserted, 1 deleted, 0 moved, 1 updated, 1 unchanged\n"))
        let patch = try Binary.run(["--path", "data.users", "-f", "jsonpatch", "api-old.json", "api-new.json"], in: Self.examples)
        #expect(patch.stdout.contains(#"{"op": "remove", "path": "/data/users/1"}"#))
        // Without it, an object of objects is a map of records, and the patch says so.
        let without = try Binary.run(["api-old.json", "api-new.json"], in: Self.examples)
        #expect(without.status == 1)
        #expect(without.stdout.contains("\n# a map of records (keyed by member name)\n~ \"meta\" /generated: "), "\(without.stdout)")
        // An object with one list among other members: the hint names the list.
        let dir0 = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir0) }
        for (name, text) in [
            ("w.json", #"{"count": 1, "users": [{"id": 1}]}"#), ("w.yaml", "count: 1\nusers:\n  - id: 1\n"),
            ("q.json", #"{"count": 1, "the users": [{"id": 1}]}"#),
        ] {
            try text.write(to: dir0.appendingPathComponent(name), atomically: true, encoding: .utf8)
            let wrapped = try Binary.run([name, name], in: dir0)
            #expect(wrapped.status == 2)
            #expect(
                wrapped.stderr.hasSuffix(name == "q.json" ? "(try --path '/the users')\n" : "(try --path /users)\n"), "\(wrapped.stderr)")
        }
        // apply keeps what lies outside the path from OLD.
        let dir = try temporaryDirectory()
        let changes = dir.appendingPathComponent("c.json").path
        _ = try Binary.run(["--path", "/data/users", "-f", "json", "-o", changes, "api-old.json", "api-new.json"], in: Self.examples)
        let applied = try Binary.run(["apply", "api-old.json", changes], in: Self.examples)
        #expect(applied.status == 0)
        #expect(applied.stdout.contains("\"generated\": \"2026-11-20T09:00:00Z\""))
        #expect(applied.stdout.contains("\"u4\""))
    }
}

/// The replay in a real terminal: tmux runs the binary; `capture-pane` reads the screen,
/// `#{alternate_on}` and `#{cursor_flag}` say whether the terminal was restored.
///
/// One bash script drives each session from start to end: a tmux server started from a
/// Foundation `Process` does not outlive the process that started it.
enum Tmux {
    static func script(_ body: String, in directory: URL) throws -> String {
        _ = try Programs.require("tmux", package: "tmux")
        let prelude = """
            set -u
            export TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8; unset TMUX
            S=listdiff-$$-$RANDOM
            t() { tmux -u -L "$S" "$@"; }
            flags() { t display -p -t s '#{alternate_on} #{cursor_flag}'; }
            screen() { t capture-pane -p -t s; }
            # wait_for CONDITION [TENTHS]: polls every 0.05 s, up to 15 s by default.
            wait_for() { local n=0; while [ $n -lt ${2:-300} ]; do eval "$1" && return 0; sleep 0.05; n=$((n+1)); done; return 1; }
            trap 't kill-server 2>/dev/null' EXIT
            # Descriptors this process was given beyond 0-2 (the test's pipe among them) must
            # not reach the tmux server and the programs in its panes.
            for fd in $(seq 3 255); do eval "exec $fd>&-" 2>/dev/null; done

            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", prelude + body]
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The lines after `marker` up to the next line that starts with `==`.
    static func section(_ output: String, _ marker: String) -> [String] {
        let lines = output.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: marker) else { return [] }
        return Array(lines[(start + 1)...].prefix { !$0.hasPrefix("==") })
    }
}

@Suite(.serialized) struct ReplayCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")
    static let command = "'\(Binary.url.path)' -f replay"

    static func strip(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
    }

    static func start(_ arguments: String) -> String {
        // The server must not inherit the script's output pipe, or reading it waits for the server.
        "t new-session -d -s s -x 90 -y 20 \"\(command) \(arguments); echo EXIT=\\$?; sleep 60\" </dev/null >/dev/null 2>&1\n"
    }

    @Test func playsToTheNewListAndRestoresTheTerminal() throws {
        let out = try Tmux.script(
            Self.start("--duration 1.5 people-old.json people-new.json") + """
                wait_for '[ "$(flags)" = "1 0" ]' && echo "== playing on the alternate screen, cursor hidden"
                wait_for 'screen | grep -q EXIT='
                echo "== flags $(flags)"
                echo "== screen"; screen
                """, in: Self.examples)
        #expect(out.contains("== playing on the alternate screen, cursor hidden"))
        #expect(out.contains("== flags 0 1"), "main screen, cursor visible: \(out)")
        let screen = Tmux.section(out, "== screen")
        let rows = screen.filter { $0.hasPrefix("  id=") }
        #expect(rows.map { $0.prefix(7) } == ["  id=1 ", "  id=3 ", "  id=5 ", "  id=2 ", "  id=6 ", "  id=8 ", "  id=7 "])
        #expect(screen.contains("new: people-new.json · 1 inserted, 1 deleted, 1 moved, 2 updated, 3 unchanged"))
        #expect(screen.contains("EXIT=1"))
    }

    @Test func ctrlCInTheMiddleRestoresTheTerminal() throws {
        let out = try Tmux.script(
            Self.start("--duration 60 people-old.json people-new.json") + """
                wait_for '[ "$(flags)" = "1 0" ] && screen | grep -q "1/13"' && echo "== started"
                t resize-window -t s -x 40 -y 12
                wait_for 'screen | grep -q "^  id=1 {.*…$"' 100 && echo "== resized"; screen
                t send-keys -t s C-c
                wait_for 'screen | grep -q EXIT='
                echo "== flags $(flags)"
                echo "== screen"; screen
                """, in: Self.examples)
        #expect(out.contains("== started"))
        // Resized mid-replay, it draws again at the new width.
        #expect(out.contains("== resized"))
        #expect(Tmux.section(out, "== resized").filter { $0.hasPrefix("  id=") }.allSatisfy { $0.count == 40 })
        #expect(out.contains("== flags 0 1"), "main screen, cursor visible: \(out)")
        #expect(Tmux.section(out, "== screen").contains("EXIT=1"), "the diff's status, as for every format")
    }

    @Test func refusesWithoutATerminalButRecords() throws {
        let run = try Binary.run(["-f", "replay", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(
            run.stderr
                == "listdiff: error: --format replay needs a terminal on standard output; --record FILE.cast records it without one\n")

        let dir = try temporaryDirectory()
        let cast = dir.appendingPathComponent("people.cast")
        let recorded = try Binary.run(
            ["-f", "replay", "--record", cast.path, "people-old.json", "people-new.json"],
            environment: ["COLUMNS": "90", "LINES": "20"], in: Self.examples)
        #expect(recorded.status == 1)
        #expect(recorded.stdout == "" && recorded.stderr == "")
        let lines = try String(contentsOf: cast, encoding: .utf8).split(separator: "\n")
        // asciicast v2: a header object, then [time, "o", data] events in time order.
        let header = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(header?["version"] as? Int == 2 && header?["width"] as? Int == 90 && header?["height"] as? Int == 20)
        var last = -1.0
        var data = ""
        for line in lines.dropFirst() {
            let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any]
            let time = (event?[0] as? NSNumber)?.doubleValue ?? -2
            #expect(event?.count == 3 && event?[1] as? String == "o" && time >= last)
            last = time
            data = event?[2] as? String ?? ""
        }
        #expect(lines.count == 14)
        // Its last frame is what the terminal shows at the end of a live replay.
        let castRows = Self.strip(data).components(separatedBy: "\r\n").filter { $0.hasPrefix("  id=") }
        let out = try Tmux.script(
            Self.start("--speed 50 people-old.json people-new.json") + """
                wait_for 'screen | grep -q EXIT='
                echo "== screen"; screen
                """, in: Self.examples)
        let screenRows = Tmux.section(out, "== screen").filter { $0.hasPrefix("  id=") }
        #expect(castRows == screenRows && castRows.count == 7, "\(castRows)\n\(screenRows)")
    }
}
