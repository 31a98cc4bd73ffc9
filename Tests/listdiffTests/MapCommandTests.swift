import Foundation
import Testing

/// Maps of records (objects whose members are records, keyed by name) and lone objects,
/// through the built binary: the shipped examples against their goldens, and apply.
@Suite struct MapCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    /// package-lock's `packages`: each package keyed by its path, the root package `""`.
    @Test func packageLockDiffsByPackage() throws {
        let run = try Binary.run(["--path", "/packages", "package-lock-old.json", "package-lock-new.json"], in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stderr == "")
        #expect(run.stdout == (try golden("package-lock.patch")))
        let patch = try Binary.run(
            ["-f", "jsonpatch", "--path", "/packages", "package-lock-old.json", "package-lock-new.json"], in: Self.examples)
        #expect(patch.stdout == (try golden("package-lock.jsonpatch.json")))
        // As a merge patch: the packages that went are null, the others only what changed.
        let merge = try Binary.run(
            ["-f", "mergepatch", "--path", "/packages", "package-lock-old.json", "package-lock-new.json"], in: Self.examples)
        #expect(merge.status == 1 && merge.stderr == "")
        #expect(merge.stdout == (try golden("package-lock.mergepatch.json")))
    }

    /// A merge patch cannot set a member to null, and says so: status 2, nothing written.
    /// A list is written whole; nothing changed in an object is `{}`.
    @Test func mergePatchesRefuseANullAndWriteListsWhole() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, text) in [
            ("a.json", #"{"a": {"id": 1, "x": 1}}"#), ("b.json", #"{"a": {"id": 1, "x": null}}"#),
            ("l.json", #"[{"id": 1}, {"id": 2}]"#), ("m.json", #"[{"id": 2}, {"id": 1}]"#),
        ] {
            try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let null = try Binary.run(["-f", "mergepatch", "-o", "out.json", "a.json", "b.json"], in: dir)
        #expect(null.status == 2)
        #expect(
            null.stderr
                == "listdiff: error: a JSON merge patch cannot set /a/x to null (RFC 7386 reads null as removing it); a JSON Patch can\n")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.json").path))
        let list = try Binary.run(["-f", "mergepatch", "l.json", "m.json"], in: dir)
        #expect(list.status == 1)
        #expect(list.stdout == "[\n  {\n    \"id\": 2\n  },\n  {\n    \"id\": 1\n  }\n]\n")
        #expect(try Binary.run(["-f", "mergepatch", "a.json", "a.json"], in: dir).stdout == "{}\n")
        let sorted = try Binary.run(["-f", "mergepatch", "--sorted", "l.json", "m.json"], in: dir)
        #expect(sorted.status == 2 && sorted.stderr.contains("needs them whole"))
    }

    /// OpenAPI's schemas, in YAML: applied, the map is NEW's, in YAML and in JSON.
    @Test func openAPISchemasDiffAndApply() throws {
        let args = ["--path", "/components/schemas", "openapi-old.yaml", "openapi-new.yaml"]
        let run = try Binary.run(args, in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stdout == (try golden("openapi-schemas.patch")))
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let changes = dir.appendingPathComponent("c.json").path
        #expect(try Binary.run(["-f", "json", "-o", changes] + args, in: Self.examples).status == 1)
        let json = try String(contentsOfFile: changes, encoding: .utf8)
        // The shipped changeset is this one.
        let shipped = try String(contentsOf: Self.examples.appendingPathComponent("openapi-changes.json"), encoding: .utf8)
        #expect(json == shipped)
        #expect(json.contains("\"key\": [],"))
        #expect(json.contains("\"layout\": {\"path\": \"/components/schemas\", \"format\": \"yaml\", \"shape\": \"map\"}"))
        for ext in ["yaml", "json"] {
            let out = dir.appendingPathComponent("out.\(ext)").path
            let applied = try Binary.run(["apply", "--output-format", ext, "-o", out, "openapi-old.yaml", changes], in: Self.examples)
            #expect(applied.status == 0, "\(applied.stderr)")
            let again = try Binary.run(["-q", "--path", "/components/schemas", out, "openapi-new.yaml"], in: Self.examples)
            #expect(again.status == 0, "\(ext): \(again.stderr)")
        }
        // A map is no list: NDJSON and CSV cannot hold the result.
        let ndjson = try Binary.run(["apply", "--output-format", "ndjson", "openapi-old.yaml", changes], in: Self.examples)
        #expect(ndjson.status == 2 && ndjson.stdout.isEmpty)
    }

    /// A member that is not a record is an error at its place; a map and a list do not mix.
    @Test func mapErrorsArePlaced() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "{\"a\": {\"x\": 1},\n \"b\": [1]}".write(to: dir.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        try #"{"a": {"x": 1}}"#.write(to: dir.appendingPathComponent("map.json"), atomically: true, encoding: .utf8)
        try #"[{"id": 1}]"#.write(to: dir.appendingPathComponent("list.json"), atomically: true, encoding: .utf8)
        let bad = try Binary.run(["bad.json", "map.json"], in: dir)
        #expect(bad.status == 2 && bad.stdout.isEmpty)
        #expect(
            bad.stderr.hasPrefix(
                #"bad.json:2:7: error: the top level is a map of records whose member "b" is an array, not a record (an object)"#),
            "\(bad.stderr)")
        let mixed = try Binary.run(["map.json", "list.json"], in: dir)
        #expect(mixed.status == 2)
        #expect(mixed.stderr.contains("map.json holds a map of records (keyed by member name), list.json holds a list of records"))
    }

    /// One JSON object with the key is one record: diffed against a list, and applied back
    /// as that object.
    @Test func aLoneObjectIsOneRecord() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "{\"id\": 4,\n \"name\": \"Ada\", \"tags\": {\"a\": 1}}\n".write(
            to: dir.appendingPathComponent("one.json"), atomically: true, encoding: .utf8)
        try #"[{"id": 4, "name": "Ada Lovelace", "tags": {"a": 1}}]"#.write(
            to: dir.appendingPathComponent("list.json"), atomically: true, encoding: .utf8)
        let run = try Binary.run(["one.json", "list.json"], in: dir)
        #expect(run.status == 1)
        #expect(run.stdout.contains("~ id=4 /name: \"Ada\" → \"Ada Lovelace\"\n"), "\(run.stdout)\(run.stderr)")
        #expect(try Binary.run(["-f", "json", "-o", "c.json", "one.json", "list.json"], in: dir).status == 1)
        let applied = try Binary.run(["apply", "one.json", "c.json"], in: dir)
        #expect(applied.status == 0)
        #expect(applied.stdout == "{\n  \"id\": 4,\n  \"name\": \"Ada Lovelace\",\n  \"tags\": {\n    \"a\": 1\n  }\n}\n")
    }
}

/// A path with `*`: every list it names is a section, named by its path, its records keyed
/// within it.
@Suite struct PatternCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    /// OpenAPI's parameters, operation by operation: a parameter named in two operations
    /// is two records, and operations that come and go are sections that come and go.
    @Test func openAPIParametersByOperation() throws {
        let args = ["--path", "/paths/*/get/parameters", "--key", "name", "openapi-old.yaml", "openapi-new.yaml"]
        let run = try Binary.run(args, in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stderr == "")
        #expect(
            run.stdout == (try String(contentsOf: CommandTests.goldens.appendingPathComponent("openapi-parameters.patch"), encoding: .utf8))
        )
        // Applied, the lists are NEW's, each at its path (what is around them stays OLD's).
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let changes = dir.appendingPathComponent("c.json").path
        #expect(try Binary.run(["-f", "json", "-o", changes] + args, in: Self.examples).status == 1)
        #expect(try String(contentsOfFile: changes, encoding: .utf8).contains("\"shape\": \"pattern\""))
        for ext in ["yaml", "json"] {
            let out = dir.appendingPathComponent("out.\(ext)").path
            let applied = try Binary.run(["apply", "--output-format", ext, "-o", out, "openapi-old.yaml", changes], in: Self.examples)
            #expect(applied.status == 0, "\(applied.stderr)")
            let again = try Binary.run(
                ["-q", "--path", "/paths/*/get/parameters", "--key", "name", out, "openapi-new.yaml"], in: Self.examples)
            #expect(again.status == 0, "\(ext): \(again.stderr)")
        }
    }

    /// What a pattern cannot do is refused, each with one line and status 2.
    @Test func patternErrors() throws {
        for (path, message) in [
            ("/paths/*", "error: a path with * must end with a member name, as /paths/*/get/parameters does: /paths/* does not"),
            ("/paths/*/get/params", "error: /paths/*/get/params names no list in openapi-old.yaml or in openapi-new.yaml"),
            (
                "/paths/*/get/summary",
                "openapi-old.yaml:8:16: error: the value at /paths/~1orders/get/summary is a string; /paths/*/get/summary must lead to lists of records"
            ),
        ] {
            let run = try Binary.run(["--path", path, "openapi-old.yaml", "openapi-new.yaml"], in: Self.examples)
            #expect(run.status == 2 && run.stdout.isEmpty)
            #expect(run.stderr.hasSuffix(message + "\n"), "\(path): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
    }

    /// Ten thousand lists named by one pattern: each a section, in linear time, and an
    /// output that reads back.
    @Test func tenThousandLists() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func document(_ changed: Int) -> String {
            "{\"groups\": {"
                + (0..<10_000).map { k in "\"g\(k)\": {\"n\": \(k), \"items\": [{\"id\": 1, \"v\": \(k == changed ? -1 : k)}]}" }
                .joined(separator: ",\n") + "}}\n"
        }
        try document(-1).write(to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try document(4_321).write(to: dir.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        let run = try Binary.run(["--path", "/groups/*/items", "old.json", "new.json"], in: dir)
        #expect(run.status == 1)
        #expect(run.stdout.contains("@ \"/groups/g4321/items\"\n~ id=1 /v: 4321 → -1\n"), "\(run.stdout.prefix(500))")
        #expect(run.stdout.contains("0 inserted, 0 deleted, 0 moved, 1 updated, 9999 unchanged"))
    }
}
