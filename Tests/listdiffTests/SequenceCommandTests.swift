import Foundation
import Testing

/// `--key .` from the command line: the shipped playlist pair, where the three adaptors
/// give three different changesets.
@Suite struct SequenceCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    @Test(arguments: ["heckel", "myers", "lcs"])
    func eachAdaptorHasItsGoldenPatch(algorithm: String) throws {
        let run = try Binary.run(["--key", ".", "--algorithm", algorithm, "playlist-old.json", "playlist-new.json"], in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stderr == "")
        let golden = try String(contentsOf: CommandTests.goldens.appendingPathComponent("playlist-\(algorithm).patch"), encoding: .utf8)
        #expect(run.stdout == golden)
    }

    @Test(arguments: ["heckel", "myers", "lcs"])
    func eachAdaptorsChangesetAppliesByteForByte(algorithm: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let changes = dir.appendingPathComponent("c.json").path, out = dir.appendingPathComponent("out.json").path
        let diff = try Binary.run(
            ["--key", ".", "--algorithm", algorithm, "-f", "json", "-o", changes, "playlist-old.json", "playlist-new.json"],
            in: Self.examples)
        #expect(diff.status == 1, "\(diff.stderr)")
        let applied = try Binary.run(["apply", "-o", out, "playlist-old.json", changes], in: Self.examples)
        #expect(applied.status == 0, "\(applied.stderr)")
        let again = try Binary.run(["--key", ".", out, "playlist-new.json"], in: Self.examples)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
    }

    @Test func theWholeRecordKeyRefusesWhatCannotGoWithIt() throws {
        let cases: [([String], String)] = [
            (["--key", ".", "--key", "id"], "--key . (the whole record) cannot be combined with other key fields"),
            (["--key", ".", "--ignore", "/track"], "comparison rules cannot be used with --key . (the whole record is the identity)"),
        ]
        for (options, message) in cases {
            let run = try Binary.run(options + ["playlist-old.json", "playlist-new.json"], in: Self.examples)
            #expect(run.status == 2)
            #expect(run.stdout == "")
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
    }
}

/// Two streams of Kubernetes manifests, keyed by kind, namespace and name.
@Suite struct ManifestCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")
    static let key = ["--key", "kind", "--key", "metadata.namespace", "--key", "metadata.name"]

    @Test func theManifestsDiffByTheirCompositeKey() throws {
        let run = try Binary.run(Self.key + ["manifests-old.yaml", "manifests-new.yaml"], in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stderr == "")
        let golden = try String(contentsOf: CommandTests.goldens.appendingPathComponent("manifests.patch"), encoding: .utf8)
        #expect(run.stdout == golden)
    }

    static let arrayKeys = [
        "--array-key", "/spec/template/spec/containers=name", "--array-key", "/spec/template/spec/containers/*/env=name",
    ]

    /// With the containers and their env vars keyed by name, the reordered containers are one
    /// move and the changed env var one update, named by key.
    @Test func keyedContainersReadAsWhatHappened() throws {
        let run = try Binary.run(Self.key + Self.arrayKeys + ["manifests-old.yaml", "manifests-new.yaml"], in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stderr == "")
        let golden = try String(contentsOf: CommandTests.goldens.appendingPathComponent("manifests-keyed.patch"), encoding: .utf8)
        #expect(run.stdout == golden)
        // The changeset applies, and reads back: version 2, with the array keys.
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let changes = dir.appendingPathComponent("c.json").path, out = dir.appendingPathComponent("out.yaml").path
        let diff = try Binary.run(
            Self.key + Self.arrayKeys + ["-f", "json", "-o", changes, "manifests-old.yaml", "manifests-new.yaml"], in: Self.examples)
        #expect(diff.status == 1, "\(diff.stderr)")
        #expect(
            try String(contentsOfFile: changes, encoding: .utf8).contains(
                #""keyed_path": ["spec","template","spec","containers",{"name":"web"},"env",{"name":"LOG_LEVEL"},"value"]"#))
        let applied = try Binary.run(["apply", "-o", out, "manifests-old.yaml", changes], in: Self.examples)
        #expect(applied.status == 0, "\(applied.stderr)")
        let again = try Binary.run(Self.key + ["--member-order", "significant", out, "manifests-new.yaml"], in: Self.examples)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
    }

    /// `--preset kubernetes` sets the key and keys the lists the Kubernetes API keys: the same
    /// diff as the options written out, its comparison named by the preset.
    @Test func theKubernetesPresetKeysWhatTheAPIKeys() throws {
        let run = try Binary.run(["--preset", "kubernetes", "manifests-old.yaml", "manifests-new.yaml"], in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stderr == "")
        var lines = try String(contentsOf: CommandTests.goldens.appendingPathComponent("manifests-keyed.patch"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        lines[2] = "# compared under --preset kubernetes"
        #expect(run.stdout == lines.joined(separator: "\n"))
        // A key given as well takes precedence over the preset's.
        let keyed = try Binary.run(
            ["--preset", "kubernetes", "--key", "metadata.name", "--duplicates", "match", "manifests-old.yaml", "manifests-new.yaml"],
            in: Self.examples)
        #expect(keyed.status == 1, "\(keyed.stderr)")
        #expect(keyed.stdout.contains(#"~ metadata.name="web"#))
    }

    /// `--array-key auto` keys the containers and their env vars by name, and says so on
    /// standard error, once per list.
    @Test func automaticArrayKeysAreNamed() throws {
        let run = try Binary.run(Self.key + ["--array-key", "auto", "manifests-old.yaml", "manifests-new.yaml"], in: Self.examples)
        #expect(run.status == 1)
        #expect(
            run.stderr
                == "listdiff: keyed /spec/template/spec/containers by name\nlistdiff: keyed /spec/template/spec/containers/*/env by name\n")
        #expect(run.stdout.contains("/spec/template/spec/containers[name=web]/env[name=LOG_LEVEL]/value: \"info\" → \"debug\""))
        let quiet = try Binary.run(Self.key + ["-q", "--array-key", "auto", "manifests-old.yaml", "manifests-new.yaml"], in: Self.examples)
        #expect(quiet.stderr == "")
    }

    /// The Kubernetes preset reads YAML as Kubernetes does: a file mode written in octal is
    /// the same number in decimal, `12:30` the same string quoted or not (YAML 1.1 reads it
    /// in base 60), and `on` names the member `true`. The changeset says so, and apply reads
    /// OLD so.
    @Test func theKubernetesPresetReadsYAMLAsKubernetesDoes() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let manifest = "kind: ConfigMap\nmetadata:\n  name: a\nspec:\n  mode: %@\n  enabled: %@\n  time: %@\n  %@: x\n  replicas: %@\n"
        let old = dir.appendingPathComponent("old.yaml"), new = dir.appendingPathComponent("new.yaml")
        try String(format: manifest, "0644", "yes", "12:30", "on", "1").write(to: old, atomically: true, encoding: .utf8)
        try String(format: manifest, "420", "true", "\"12:30\"", "\"true\"", "2").write(to: new, atomically: true, encoding: .utf8)
        let run = try Binary.run(["--preset", "kubernetes", old.path, new.path])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains("/spec/replicas: 1 → 2"), "\(run.stdout)")
        for path in ["/spec/mode", "/spec/enabled", "/spec/time", "/spec/true", "/spec/on"] {
            #expect(!run.stdout.contains(path), "\(run.stdout)")
        }
        // The same without the preset's keys.
        let plain = try Binary.run(["--yaml-version", "kubernetes", "--key", "metadata.name", old.path, new.path])
        #expect(
            plain.stdout.hasSuffix("~ metadata.name=\"a\" /spec/replicas: 1 → 2\n0 inserted, 0 deleted, 0 moved, 1 updated, 0 unchanged\n"),
            "\(plain.stdout)")
        let yaml11 = try Binary.run(["--preset", "kubernetes", "--yaml-version", "1.1", old.path, new.path])
        #expect(yaml11.stdout.contains(#"/spec/time: 750 → "12:30""#) && yaml11.stdout.contains("/spec/on"), "\(yaml11.stdout)")
        let strict = try Binary.run(["--preset", "kubernetes", "--yaml-version", "1.2", old.path, new.path])
        #expect(strict.stdout.contains(#"/spec/mode: 644 → 420"#), "\(strict.stdout)")
        let changes = dir.appendingPathComponent("c.json").path
        _ = try Binary.run(["--preset", "kubernetes", "-f", "json", "-o", changes, old.path, new.path])
        #expect(try String(contentsOfFile: changes, encoding: .utf8).contains(#""yaml_version": "kubernetes""#))
        let applied = try Binary.run(["apply", old.path, changes])
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(
            applied.stdout.contains("mode: 420") && applied.stdout.contains("time: \"12:30\"") && applied.stdout.contains("\"true\": x")
                && applied.stdout.contains("replicas: 2"), "\(applied.stdout)")
    }

    /// An --array-key that keys no list in the records that changed is a warning, not silence.
    @Test func anArrayKeyThatKeysNothingIsAWarning() throws {
        let run = try Binary.run(
            Self.key + ["--array-key", "/spec/template/spec/contianers=name", "manifests-old.yaml", "manifests-new.yaml"], in: Self.examples
        )
        #expect(run.status == 1)
        #expect(
            run.stderr
                == "listdiff: warning: --array-key /spec/template/spec/contianers=name names no list in the records that changed\n")
    }

    /// A key whose list is there, in a record that changed elsewhere, is no warning.
    @Test func anArrayKeyOfAnUnchangedListIsNoWarning() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        try #"[{"id": 1, "v": 1, "tags": [{"name": "a"}]}]"#.write(to: old, atomically: true, encoding: .utf8)
        try #"[{"id": 1, "v": 2, "tags": [{"name": "a"}]}]"#.write(to: new, atomically: true, encoding: .utf8)
        let run = try Binary.run(["--array-key", "/tags=name", "--array-key", "/*/x=name", old.path, new.path])
        #expect(run.status == 1)
        #expect(run.stderr == "listdiff: warning: --array-key /*/x=name names no list in the records that changed\n")
    }

    /// A nested key found twice is an error at the second element that holds it, in its
    /// file; an element without its key, at that element. An element of a keyed list above
    /// is found by its key, wherever it moved.
    @Test func aNestedKeyFoundTwiceIsAnError() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        try #"[{"id": 1, "env": [{"name": "A", "v": 1}]}]"#.write(to: old, atomically: true, encoding: .utf8)
        try "[\n  {\"id\": 1, \"env\": [{\"name\": \"A\", \"v\": 2}, {\"name\": \"A\"}]}\n]".write(
            to: new, atomically: true, encoding: .utf8)
        let run = try Binary.run(["--array-key", "/env=name", old.path, new.path])
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(run.stderr == "\(new.path):2:44: error: in record 0, the list at /env holds the key name=\"A\" twice (elements 0 and 1)\n")
        let bad = try Binary.run(["--array-key", "/env", old.path, new.path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("write POINTER=FIELD"))

        // YAML, the lists inside the elements of a keyed list that moved: in OLD, an element
        // without its key; in NEW (OLD fixed), a key twice.
        let oldYAML = dir.appendingPathComponent("old.yaml"), newYAML = dir.appendingPathComponent("new.yaml")
        let keys = ["--array-key", "/containers=name", "--array-key", "/containers/*/env=name"]
        func writeOld(_ more: String) throws {
            try "- id: 1\n  containers:\n    - name: web\n      env:\n        - name: A\n\(more)    - name: log\n".write(
                to: oldYAML, atomically: true, encoding: .utf8)
        }
        try writeOld("        - value: \"1\"\n")
        try """
        - id: 1
          containers:
            - name: log
            - name: web
              env:
                - name: A
                - name: B
                - name: A
        """.write(to: newYAML, atomically: true, encoding: .utf8)
        let missing = try Binary.run(keys + [oldYAML.path, newYAML.path])
        #expect(missing.status == 2)
        #expect(
            missing.stderr
                == "\(oldYAML.path):6:11: error: in record 0, element 1 of the list at /containers/0/env has no key field 'name'\n")
        try writeOld("")
        let twice = try Binary.run(keys + [oldYAML.path, newYAML.path])
        #expect(twice.status == 2)
        #expect(
            twice.stderr
                == "\(newYAML.path):8:11: error: in record 0, the list at /containers/0/env holds the key name=\"A\" twice"
                + " (elements 0 and 2)\n")
    }

    @Test func applyWritesAStreamThatDiffsTheSameAsNew() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let changes = dir.appendingPathComponent("c.json").path, out = dir.appendingPathComponent("out.yaml").path
        let diff = try Binary.run(Self.key + ["-f", "json", "-o", changes, "manifests-old.yaml", "manifests-new.yaml"], in: Self.examples)
        #expect(diff.status == 1, "\(diff.stderr)")
        let applied = try Binary.run(["apply", "-o", out, "manifests-old.yaml", changes], in: Self.examples)
        #expect(applied.status == 0, "\(applied.stderr)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.components(separatedBy: "\n---\n").count == 5)
        let again = try Binary.run(Self.key + ["--member-order", "significant", out, "manifests-new.yaml"], in: Self.examples)
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
    }

    /// A manifest file cut down to one object diffs against a stream, and apply turns it into
    /// the stream.
    @Test func aSingleManifestIsAStreamOfOne() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let one = dir.appendingPathComponent("one.yaml").path
        try "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n".write(toFile: one, atomically: true, encoding: .utf8)
        let new = Self.examples.appendingPathComponent("manifests-new.yaml").path
        let diff = try Binary.run(Self.key + [one, new], in: dir)
        #expect(diff.status == 1 && diff.stderr == "", "\(diff.stderr)")
        #expect(diff.stdout.hasSuffix("4 inserted, 0 deleted, 0 moved, 0 updated, 1 unchanged\n"), "\(diff.stdout)")
        let changes = dir.appendingPathComponent("c.json").path, out = dir.appendingPathComponent("out.yaml").path
        #expect(try Binary.run(Self.key + ["-f", "json", "-o", changes, one, new], in: dir).status == 1)
        let applied = try Binary.run(["apply", "-o", out, one, changes], in: dir)
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(try Binary.run(Self.key + [out, new], in: dir).status == 0)
        // Without its key, the object is what it was: not a list of records.
        let unkeyed = try Binary.run([one, new], in: dir)
        #expect(unkeyed.status == 2)
        #expect(unkeyed.stderr.contains(#"one.yaml:1:13: error: the top level is an object whose member "apiVersion" is a string"#))
    }

    @Test func aKeyWithNoPartIsAnErrorAtItsRecord() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.yaml")
        try "kind: A\nmetadata: {name: a}\n---\napiVersion: v1\n---\nkind: B\n".write(to: bad, atomically: true, encoding: .utf8)
        let run = try Binary.run(Self.key + [bad.path, "manifests-new.yaml"], in: Self.examples)
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(
            run.stderr.hasPrefix(
                "\(bad.path):4:1: error: record 1 has none of the key fields 'kind', 'metadata.namespace', 'metadata.name'; "),
            "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
    }
}
