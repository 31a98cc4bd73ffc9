import Foundation
import Testing

/// CSV and TSV from the command line, on the shipped products pair.
@Suite struct CSVCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    @Test func diffsByExtensionAgainstTheGoldenPatch() throws {
        let run = try Binary.run(["--key", "sku", "Examples/products-old.csv", "Examples/products-new.csv"])
        #expect(run.status == 1)
        #expect(run.stderr == "")
        let golden = try String(
            contentsOf: CommandTests.goldens.appendingPathComponent("products-csv.patch"), encoding: .utf8)
        #expect(run.stdout == golden)
    }

    @Test func applyWritesTheCSVBackByteForByte() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let changes = dir.appendingPathComponent("c.json").path, out = dir.appendingPathComponent("out.csv").path
        let diff = try Binary.run(["--key", "sku", "-f", "json", "-o", changes, "products-old.csv", "products-new.csv"], in: Self.examples)
        #expect(diff.status == 1, "\(diff.stderr)")
        let applied = try Binary.run(["apply", "-o", out, "products-old.csv", changes], in: Self.examples)
        #expect(applied.status == 0, "\(applied.stderr)")
        let expected = try Data(contentsOf: Self.examples.appendingPathComponent("products-new.csv"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == expected)
        // The shipped changeset is the one the diff makes.
        let shipped = try String(contentsOf: Self.examples.appendingPathComponent("products-changes.json"), encoding: .utf8)
        #expect(try String(contentsOfFile: changes, encoding: .utf8) == shipped)
    }

    /// `--input-format tsv` on files without the extension; `--csv-types infer`.
    @Test func tsvAndInferredTypes() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "id\tn\tok\n1\t10\ttrue\n2\t007\tfalse\n".write(to: dir.appendingPathComponent("a"), atomically: true, encoding: .utf8)
        try "id\tn\tok\n1\t10.0\ttrue\n2\t7\tfalse\n".write(to: dir.appendingPathComponent("b"), atomically: true, encoding: .utf8)
        let strings = try Binary.run(["--input-format", "tsv", "a", "b"], in: dir)
        #expect(strings.status == 1)
        #expect(strings.stdout.contains(#"~ id="1" /n: "10" → "10.0""#))
        let inferred = try Binary.run(["--input-format", "tsv", "--csv-types", "infer", "a", "b"], in: dir)
        #expect(inferred.status == 1)
        // 10 and 10.0 are one number; 007 is no JSON number, so it stays a string.
        #expect(!inferred.stdout.contains("id=1 /n"))
        #expect(inferred.stdout.contains(#"~ id=2 /n: "007" → 7"#))
        // An exponent of more than 9 digits is no number listdiff reads: a string, not an error.
        try "id\tn\tok\n1\t1e10000000000\ttrue\n2\t7\tfalse\n".write(to: dir.appendingPathComponent("c"), atomically: true, encoding: .utf8)
        let huge = try Binary.run(["--input-format", "tsv", "--csv-types", "infer", "c", "b"], in: dir)
        #expect(huge.status == 1, "\(huge.stderr)")
        #expect(huge.stdout.contains(#"~ id=1 /n: "1e10000000000" → 10.0"#), "\(huge.stdout)")
    }

    /// A changeset records how OLD was read: made with `--csv-types infer` from a file
    /// without an extension, it applies with neither option repeated, from a file or from
    /// standard input; an option that agrees is accepted, one that contradicts it refused.
    @Test func theChangesetRecordsHowOLDWasRead() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let oldText = "id\tn\n1\t007\n2\t5\n", newText = "id\tn\n1\t8\n2\t5\n3\ttrue\n"
        try oldText.write(to: dir.appendingPathComponent("old"), atomically: true, encoding: .utf8)
        try newText.write(to: dir.appendingPathComponent("new"), atomically: true, encoding: .utf8)
        let diff = try Binary.run(
            ["--key", "id", "--input-format", "tsv", "--csv-types", "infer", "-f", "json", "-o", "c.json", "old", "new"], in: dir)
        #expect(diff.status == 1, "\(diff.stderr)")
        let changeset = try String(contentsOf: dir.appendingPathComponent("c.json"), encoding: .utf8)
        #expect(changeset.contains(#""format": "tsv", "csv_types": "infer""#), "\(changeset)")
        // Older readers would read the cells as strings: they must refuse it.
        #expect(changeset.hasPrefix("{\n  \"version\": 3,"))
        for (options, stdin) in [([], nil), (["--csv-types", "infer", "--input-format", "tsv"], nil), ([], oldText)] {
            let applied = try Binary.run(["apply"] + options + [stdin == nil ? "old" : "-", "c.json"], stdin: stdin, in: dir)
            #expect(applied.status == 0, "\(options): \(applied.stderr)")
            #expect(applied.stdout == newText, "\(options)")
        }
        for (option, given, recorded) in [("--csv-types", "string", "infer"), ("--input-format", "csv", "tsv")] {
            let refused = try Binary.run(["apply", option, given, "old", "c.json"], in: dir)
            #expect(refused.status == 2)
            #expect(refused.stdout == "")
            #expect(
                refused.stderr
                    == "listdiff: error: \(option) \(given) contradicts the changeset, which records \(option) \(recorded); apply reads OLD as the changeset says, so leave the option out\n"
            )
        }
        // Made with cells read as strings, the changeset keeps version 1, and refuses infer.
        let strings = try Binary.run(["--key", "id", "--input-format", "tsv", "-f", "json", "old", "new"], in: dir)
        #expect(strings.stdout.hasPrefix("{\n  \"version\": 1,"))
        #expect(!strings.stdout.contains("csv_types"))
        try strings.stdout.write(to: dir.appendingPathComponent("s.json"), atomically: true, encoding: .utf8)
        let infer = try Binary.run(["apply", "--csv-types", "infer", "old", "s.json"], in: dir)
        #expect(infer.status == 2)
        #expect(infer.stderr.contains("--csv-types infer contradicts the changeset, which records --csv-types string"))
    }

    /// Bad CSV: one line with the CSV's line and column, exit 2, nothing on standard output.
    @Test func badCSVIsOneLineWithItsPlace() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "id,v\n1,a\n".write(to: dir.appendingPathComponent("good.csv"), atomically: true, encoding: .utf8)
        let cases: [(String, String)] = [
            ("id,v\n1,a\n2,b,c\n", "bad.csv:3:5: error: this row has more fields than the header's 2"),
            ("id,v\n1,\"a\n", "bad.csv:2:3: error: this quoted field is never closed"),
            ("id,id\n", "bad.csv:1:4: error: the header names \"id\" twice"),
            ("id,v\n1,a\n1,\"x\ny\"\n", "bad.csv:3:1: error: duplicate key id=\"1\""),
            ("v\na\n", "bad.csv:2:1: error: record 0 has no key field 'id'"),
            ("id,v\n1,\u{1B}[31m\u{1B}]\n1,b\n", "bad.csv:3:1: error: duplicate key id=\"1\""),
        ]
        for (text, message) in cases {
            try text.write(to: dir.appendingPathComponent("bad.csv"), atomically: true, encoding: .utf8)
            let run = try Binary.run(["bad.csv", "good.csv"], in: dir)
            #expect(run.status == 2)
            #expect(run.stdout == "")
            #expect(run.stderr.hasPrefix(message), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
            #expect(!run.stderr.contains("\u{1B}"))
        }
    }
}
