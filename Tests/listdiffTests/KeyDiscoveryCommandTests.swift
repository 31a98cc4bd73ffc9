import Foundation
import Testing

/// Finding the key: the candidates a missing key's error names, and `--key auto`.
@Suite struct KeyDiscoveryCommandTests {
    static func pair(_ old: String, _ new: String) throws -> URL {
        let dir = try temporaryDirectory()
        try old.write(to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try new.write(to: dir.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        return dir
    }

    static let old = #"[{"name": "Pen", "sku": "a1", "ean": 40, "price": 1}, {"name": "Ink", "sku": "a2", "ean": 41, "price": 1}]"#
    static let new = #"[{"name": "Pen", "sku": "a1", "ean": 40, "price": 2}, {"name": "Nib", "sku": "a3", "ean": 42, "price": 2}]"#

    @Test func aMissingKeyNamesTheFieldsThatWouldKeyBothFiles() throws {
        let dir = try Self.pair(Self.old, Self.new)
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Binary.run(["old.json", "new.json"], in: dir)
        #expect(run.status == 2)
        #expect(run.stdout == "")
        // In the order of preference (sku, ean, then name); price repeats in NEW.
        #expect(
            run.stderr
                == "old.json:1:2: error: record 0 has no key field 'id'; unique in both files: \"sku\", \"ean\", \"name\" (try --key sku)\n"
        )
    }

    /// Below the top level: a nested field (`meta.code`) is a candidate, after the
    /// record's own fields of its rank; and Kubernetes objects, which no single field keys,
    /// are keyed by kind, namespace and name, though the first object has no namespace.
    @Test func discoveryLooksBelowTheTopLevelAndTriesComposites() throws {
        let nested = try Self.pair(
            #"[{"meta": {"code": "a", "n": 1}, "v": 1}, {"meta": {"code": "b", "n": 1}, "v": 1}]"#,
            #"[{"meta": {"code": "a", "n": 1}, "v": 2}]"#)
        defer { try? FileManager.default.removeItem(at: nested) }
        let missing = try Binary.run(["old.json", "new.json"], in: nested)
        #expect(missing.stderr.hasSuffix(#"unique in both files: "meta.code" (try --key meta.code)"# + "\n"), "\(missing.stderr)")
        func object(_ kind: String, _ name: String, _ namespace: String?, _ replicas: Int) -> String {
            let scope = namespace.map { #", "namespace": ""# + $0 + #"""# } ?? ""
            return #"{"kind": ""# + kind + #"", "metadata": {"name": ""# + name + #"""# + scope + #"}, "spec": {"replicas": \#(replicas)}}"#
        }
        let manifests = try Self.pair(
            "["
                + [object("Namespace", "shop", nil, 0), object("Deployment", "web", "shop", 1), object("Deployment", "web", "test", 1)]
                .joined(separator: ", ") + "]",
            "["
                + [object("Namespace", "shop", nil, 0), object("Deployment", "web", "shop", 2), object("Service", "web", "shop", 1)]
                .joined(separator: ", ") + "]")
        defer { try? FileManager.default.removeItem(at: manifests) }
        let auto = try Binary.run(["--key", "auto", "old.json", "new.json"], in: manifests)
        #expect(auto.status == 1)
        #expect(auto.stderr == "listdiff: --key auto chose kind, metadata.namespace, metadata.name\n")
        #expect(auto.stdout.contains(#"~ kind="Deployment" metadata.namespace="shop" metadata.name="web" /spec/replicas: 1 → 2"#))
        let hint = try Binary.run(["old.json", "new.json"], in: manifests)
        #expect(
            hint.stderr.hasSuffix(
                #"unique in both files: "kind" + "metadata.namespace" + "metadata.name" (try --key kind --key metadata.namespace --key metadata.name)"#
                    + "\n"), "\(hint.stderr)")
    }

    @Test func noCandidateIsSaidSo() throws {
        let dir = try Self.pair(#"[{"a": 1}, {"a": 1}]"#, #"[{"a": 2}]"#)
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Binary.run(["--key", "sku", "old.json", "new.json"], in: dir)
        #expect(run.status == 2)
        #expect(
            run.stderr
                == "old.json:1:2: error: record 0 has no key field 'sku'; no field is present and unique in every record of both files (--key . diffs the lists as sequences)\n"
        )
        let auto = try Binary.run(["--key", "auto", "old.json", "new.json"], in: dir)
        #expect(auto.status == 2)
        #expect(auto.stdout == "")
        #expect(auto.stderr.hasPrefix("listdiff: error: --key auto found no field"), "\(auto.stderr)")
    }

    @Test func autoPicksTheBestCandidateAndSaysWhich() throws {
        let dir = try Self.pair(Self.old, Self.new)
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Binary.run(["--key", "auto", "-f", "json", "old.json", "new.json"], in: dir)
        #expect(run.status == 1)
        #expect(run.stderr == "listdiff: --key auto chose sku\n")
        #expect(run.stdout.contains(#""key": ["sku"],"#))
        #expect(run.stdout.contains(#""summary": {"inserted": 1, "deleted": 1, "moved": 0, "updated": 1, "unchanged": 0}"#))
        // `id` comes first when it keys both files; a name that is not unique is passed over.
        let ids = try Self.pair(#"[{"name": "x", "id": 1}, {"name": "x", "id": 2}]"#, #"[{"name": "y", "id": 1}]"#)
        defer { try? FileManager.default.removeItem(at: ids) }
        let withID = try Binary.run(["--key", "auto", "old.json", "new.json"], in: ids)
        #expect(withID.status == 1)
        #expect(withID.stderr == "listdiff: --key auto chose id\n")
        let quiet = try Binary.run(["--key", "auto", "--quiet", "old.json", "new.json"], in: ids)
        #expect(quiet.status == 1 && quiet.stderr == "" && quiet.stdout == "")
    }

    @Test func autoSpellsAStrangeFieldAsAPointerAndEscapesIt() throws {
        let dir = try Self.pair(#"[{"a.b\u001b": 1}, {"a.b\u001b": 2}]"#, #"[{"a.b\u001b": 2}]"#)
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Binary.run(["--key", "auto", "-f", "json", "old.json", "new.json"], in: dir)
        #expect(run.status == 1)
        #expect(run.stderr == "listdiff: --key auto chose /a.b\\u001b\n")
        // A field named auto is named so that --key does not take it as a request.
        let auto = try Self.pair(#"[{"auto": 1}]"#, #"[{"auto": 2}]"#)
        defer { try? FileManager.default.removeItem(at: auto) }
        let named = try Binary.run(["old.json", "new.json"], in: auto)
        #expect(named.stderr.hasSuffix("unique in both files: \"/auto\" (try --key /auto)\n"), "\(named.stderr)")
        #expect(run.stdout.contains(#""summary": {"inserted": 0, "deleted": 1, "moved": 0, "updated": 0, "unchanged": 1}"#))
    }

    @Test func autoRefusesWhatItCannotDo() throws {
        for (options, message) in [
            (["--key", "auto", "--key", "id", "a.json", "b.json"], "--key auto picks one field"),
            (["--key", "auto", "-", "b.json"], "--key auto reads the inputs twice"),
        ] {
            let run = try Binary.run(options)
            #expect(run.status == 2)
            #expect(run.stderr.contains(message), "\(run.stderr)")
        }
    }
}

/// `--sorted` with a composite key whose parts may be absent: absent sorts first, as jq's
/// null does, and the streaming diff gives what the full diff gives.
@Suite struct SortedAbsentPartTests {
    @Test func anAbsentPartSortsFirstAndMergesAsTheFullDiffDoes() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Sorted by [ns, name] as jq's sort_by([.ns, .name]): null first.
        let old = [
            #"{"name":"a","v":1}"#, #"{"name":"b","v":1}"#, #"{"ns":false,"name":"a","v":1}"#, #"{"ns":"x","name":"a","v":1}"#,
            #"{"ns":"y","name":"a","v":1}"#,
        ]
        let new = [
            #"{"name":"a","v":2}"#, #"{"ns":false,"name":"a","v":1}"#, #"{"ns":"x","name":"a","v":1}"#, #"{"ns":"x","name":"c","v":1}"#,
            #"{"ns":"y","name":"a","v":1}"#,
        ]
        try (old.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("old.ndjson"), atomically: true, encoding: .utf8)
        try (new.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("new.ndjson"), atomically: true, encoding: .utf8)
        let key = ["--key", "ns", "--key", "name", "-f", "json"]
        let sorted = try Binary.run(key + ["--sorted", "old.ndjson", "new.ndjson"], in: dir)
        let full = try Binary.run(key + ["old.ndjson", "new.ndjson"], in: dir)
        #expect(sorted.status == 1, "\(sorted.stderr)")
        #expect(full.status == 1)
        #expect(
            sorted.stdout.contains(#""summary": {"inserted": 1, "deleted": 1, "moved": 0, "updated": 1, "unchanged": 3}"#),
            "\(sorted.stdout)")
        let changes = { (s: String) in s.components(separatedBy: "\"changes\"").dropFirst().first ?? "" }
        #expect(changes(sorted.stdout) == changes(full.stdout))
    }
}
