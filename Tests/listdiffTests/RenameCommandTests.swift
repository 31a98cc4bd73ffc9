import Foundation
import Testing

/// `--renames` from the command line, on the shipped catalog pair: two products get new
/// SKUs (one of them a new price too), one goes, one comes, one is updated.
@Suite struct RenameCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")
    static let pair = ["--key", "sku", "catalog-old.json", "catalog-new.json"]

    /// Each format shows the renames as their own kind; goldens.
    @Test(arguments: [
        ([String](), "catalog-renames.patch"),
        (["--format", "side", "--width", "100"], "catalog-renames.side100.txt"),
        (["--format", "markdown"], "catalog-renames.md"),
        (["--format", "github"], "catalog-renames.github"),
        (["--format", "jsonpatch"], "catalog-renames.jsonpatch.json"),
        (["--stat"], "catalog-renames.stat"),
    ])
    func formatsShowRenames(options: [String], goldenName: String) throws {
        let run = try Binary.run(["--renames"] + options + Self.pair, in: Self.examples)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr == "")
        #expect(run.stdout == (try golden(goldenName)))
    }

    /// The changeset reads back: apply gives NEW, invert and apply give OLD, and the JSON
    /// Patch gives NEW too (through apply's own reading of NEW, compared by diff).
    @Test func changesetAppliesAndInverts() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let changes = dir.appendingPathComponent("changes.json").path
        let made = try Binary.run(["--renames", "-f", "json", "-o", changes] + Self.pair, in: Self.examples)
        #expect(made.status == 1, "\(made.stderr)")
        let text = try String(contentsOf: URL(fileURLWithPath: changes), encoding: .utf8)
        #expect(text.contains(#""op": "rename", "key": "CHR-2024", "old_key": "CHR-200""#))
        #expect(text.contains(#""renamed": 2"#))
        #expect(text.contains(#""renames": {"threshold": 80}"#))
        let applied = dir.appendingPathComponent("applied.json").path
        #expect(try Binary.run(["apply", "-o", applied, "catalog-old.json", changes], in: Self.examples).status == 0)
        #expect(try Binary.run(["--key", "sku", applied, "catalog-new.json"], in: Self.examples).status == 0)
        let inverse = dir.appendingPathComponent("inverse.json").path
        let inverted = try Binary.run(["invert", "-o", inverse, changes])
        #expect(inverted.status == 0, "\(inverted.stderr)")
        #expect(try String(contentsOf: URL(fileURLWithPath: inverse), encoding: .utf8).contains(#""old_key": "CHR-2024""#))
        let back = dir.appendingPathComponent("back.json").path
        #expect(try Binary.run(["apply", "-o", back, "catalog-new.json", inverse], in: Self.examples).status == 0)
        #expect(try Binary.run(["--key", "sku", back, "catalog-old.json"], in: Self.examples).status == 0)
        // Compose has no rule for a key that changed: it says so, exit 2.
        let composed = try Binary.run(["compose", changes, inverse])
        #expect(composed.status == 2)
        #expect(composed.stderr.contains("with renamed keys (--renames)"), "\(composed.stderr)")
    }

    /// `--fail-on` and `--show` know the kind; without `--renames` there is none.
    @Test func failOnAndShowKnowRenames() throws {
        let failing = try Binary.run(["--renames", "--fail-on", "rename", "-q"] + Self.pair, in: Self.examples)
        #expect(failing.status == 1)
        let plain = try Binary.run(["--fail-on", "rename", "-q"] + Self.pair, in: Self.examples)
        #expect(plain.status == 0)
        let shown = try Binary.run(["--renames", "--show", "renamed"] + Self.pair, in: Self.examples)
        #expect(shown.status == 1)
        #expect(shown.stdout.split(separator: "\n").filter { $0.hasPrefix("% ") }.count == 3)
        #expect(!shown.stdout.contains("\n- ") && !shown.stdout.contains("\n+ ") && !shown.stdout.contains("\n~ "))
        // The threshold alone asks for renames; at 100% the changed price keeps SHF apart.
        let strict = try Binary.run(["--rename-threshold", "100%", "--stat"] + Self.pair, in: Self.examples)
        #expect(strict.stdout.contains("renamed     1\n"), "\(strict.stdout)")
    }

    /// Bad settings and keys renames cannot use: one line, exit 2.
    @Test func refusals() throws {
        for (arguments, message) in [
            (["--rename-threshold", "0"], "--rename-threshold must be a whole percentage from 1 to 100"),
            (["--rename-threshold", "eighty"], "--rename-threshold must be a whole percentage from 1 to 100"),
            (["--renames", "--key", "."], "--renames pairs records whose key changed; with --key . the key is the whole record"),
            (["--renames", "--duplicates", "match", "--key", "sku"], "--renames does not go with --duplicates match"),
        ] {
            let files = arguments.contains("--key") ? ["catalog-old.json", "catalog-new.json"] : Self.pair
            let run = try Binary.run(arguments + files, in: Self.examples)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.stdout == "")
        }
    }

    /// The streaming diff of sorted NDJSON, folders and a configuration file pair renames too.
    @Test func sortedFoldersAndConfiguration() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = #"{"id": 1, "a": "x", "b": "y"}"# + "\n" + #"{"id": 2, "a": "p", "b": "q"}"# + "\n"
        let new = #"{"id": 1, "a": "x", "b": "y"}"# + "\n" + #"{"id": 3, "a": "p", "b": "q"}"# + "\n"
        try write(["old.ndjson": old, "new.ndjson": new, "a/x/list.ndjson": old, "b/x/list.ndjson": new], in: dir)
        let sorted = try Binary.run(["--sorted", "--renames", "old.ndjson", "new.ndjson"], in: dir)
        #expect(sorted.status == 1)
        #expect(sorted.stdout.contains("% id=2 → id=3 #1 → #1\n"), "\(sorted.stdout)")

        let tree = try Binary.run(["--renames", "-f", "json", "-o", "tree.json", "a", "b"], in: dir)
        #expect(tree.status == 1, "\(tree.stderr)")
        #expect(try String(contentsOf: dir.appendingPathComponent("tree.json"), encoding: .utf8).contains(#""op": "rename""#))
        #expect(try Binary.run(["apply", "-o", "c", "a", "tree.json"], in: dir).status == 0)
        #expect(try Binary.run(["-q", "b", "c"], in: dir).status == 0)

        try write([".listdiff.yaml": "profiles:\n  - files: [\"*.ndjson\"]\n    renames: true\n"], in: dir)
        let configured = try Binary.run(["old.ndjson", "new.ndjson"], in: dir)
        #expect(configured.stdout.contains("% id=2 → id=3"), "\(configured.stdout) \(configured.stderr)")
        // renames: false keeps them off, though the file sets a threshold; the command
        // line's threshold turns them on.
        try write([".listdiff.yaml": "profiles:\n  - files: [\"*.ndjson\"]\n    renames: false\n    rename-threshold: 90\n"], in: dir)
        let off = try Binary.run(["old.ndjson", "new.ndjson"], in: dir)
        #expect(off.stdout.hasSuffix("1 inserted, 1 deleted, 0 moved, 0 updated, 1 unchanged\n"), "\(off.stdout)")
        let on = try Binary.run(["--rename-threshold", "90", "old.ndjson", "new.ndjson"], in: dir)
        #expect(on.stdout.hasSuffix("0 inserted, 0 deleted, 0 moved, 0 updated, 1 unchanged, 1 renamed\n"), "\(on.stdout)")
        // Asked for and none found: the count says 0.
        try write(["other.ndjson": #"{"id": 1, "a": "x", "b": "y"}"# + "\n" + #"{"id": 9, "a": "m", "b": "n"}"# + "\n"], in: dir)
        let none = try Binary.run(["--no-config", "--renames", "old.ndjson", "other.ndjson"], in: dir)
        #expect(none.stdout.hasSuffix("1 inserted, 1 deleted, 0 moved, 0 updated, 1 unchanged, 0 renamed\n"), "\(none.stdout)")
    }
}
