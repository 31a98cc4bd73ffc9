import Foundation
import Testing

@testable import ListDiffKit
import ListDiffKitTestSupport

/// A stream of YAML documents (Kubernetes manifests) read as a list of records, and
/// composite keys with absent parts.
@Suite struct YAMLStreamTests {
    static let manifestKey = ["kind", "metadata.namespace", "metadata.name"]

    /// A random manifest: a cluster-scoped kind has no namespace.
    static func manifest(_ rng: inout SplitMix64) -> Value {
        let kinds = ["Deployment", "Service", "ConfigMap", "ClusterRole", "Namespace"]
        let kind = kinds[Int.random(in: 0..<kinds.count, using: &rng)]
        var metadata: [Object.Member] = [.init(key: "name", value: .string("app\(Int.random(in: 0..<4, using: &rng))"))]
        if kind != "ClusterRole", kind != "Namespace" {
            metadata.append(.init(key: "namespace", value: .string(["shop", "ops"][Int.random(in: 0..<2, using: &rng)])))
        }
        return .object(
            Object([
                .init(key: "apiVersion", value: "v1"), .init(key: "kind", value: .string(kind)),
                .init(key: "metadata", value: .object(Object(metadata))),
                .init(
                    key: "spec",
                    value: .object(Object([.init(key: "replicas", value: .number(Number(exactly: Int.random(in: 1...3, using: &rng))))]))),
            ]))
    }

    /// Manifests with distinct keys.
    static func manifests(_ rng: inout SplitMix64) -> [Value] {
        var seen = Set<String>(), out: [Value] = []
        for _ in 0..<Int.random(in: 2...12, using: &rng) {
            let m = manifest(&rng)
            let key = (try? IdentityKey(parsing: manifestKey).written(in: m)).map(JSONWriter.compact) ?? ""
            if seen.insert(key).inserted { out.append(m) }
        }
        return out
    }

    /// The documents of a stream, `---` between them, now and then an empty one.
    static func stream(_ records: [Value], _ rng: inout SplitMix64) throws -> String {
        var text = Bool.random(using: &rng) ? "---\n" : ""
        for (k, record) in records.enumerated() {
            if k > 0 { text += "---\n" }
            if Int.random(in: 0..<6, using: &rng) == 0 { text += "---\n" }
            text += try YAMLWriter.document(record)
        }
        return text
    }

    @Test func aStreamIsAListOfItsDocumentsLessTheEmptyOnes() throws {
        let (value, _) = try YAMLReader().read(Array("a: 1\n---\n---\nb: 2\n...\n".utf8), name: "s.yaml")
        #expect(value == .array([.object(Object([.init(key: "a", value: 1)])), .object(Object([.init(key: "b", value: 2)]))]))
        let (single, _) = try YAMLReader().read(Array("a: [1]\n".utf8), name: "s.yaml")
        #expect(single == .object(Object([.init(key: "a", value: .array([1]))])))
        #expect(throws: ListDiffError.self) { try YAMLReader().read(Array("# nothing\n".utf8), name: "s.yaml") }
    }

    /// A stream is a plain list, even of objects that look like section objects, and refuses
    /// the options that look for records elsewhere, on the engine and the reference alike.
    @Test func aStreamIsAlwaysAPlainList() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("s.yaml")
        try "items: [{a: 1}]\nname: x\n---\nitems: [{a: 2}]\nname: y\n".write(to: file, atomically: true, encoding: .utf8)
        for (key, options) in [(["name"], LayoutOptions()), (["id"], LayoutOptions()), (["name"], LayoutOptions(items: "items"))] {
            let engine = EngineTests.run(file, file, engine: true, key: key, options: options)
            #expect(engine == EngineTests.run(file, file, engine: false, key: key, options: options))
            if options.items != nil {
                #expect(engine.contains("1:1: error: a stream of YAML documents is read as a list of them"), "\(engine)")
            } else if key == ["name"] {
                #expect(engine.contains(#""layout": {"path": null, "format": "yaml", "shape": "list"}"#), "\(engine)")
            } else {
                #expect(engine.contains("1:1: error: record 0 has no key field 'id'"), "\(engine)")
            }
        }
    }

    /// A single mapping that holds no list of records but carries the key is one record (a
    /// stream of one document); without the key, or asked to look inside it, it is what it
    /// was: an object that is not an object of lists. An object of lists stays sections.
    @Test func aLoneMappingWithItsKeyIsOneRecord() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let one = dir.appendingPathComponent("one.yaml"), two = dir.appendingPathComponent("two.yaml")
        try "---\nkind: A\nname: x\nspec: {n: 1}\n".write(to: one, atomically: true, encoding: .utf8)
        try "kind: A\nname: x\nspec: {n: 2}\n---\nkind: B\nname: y\n".write(to: two, atomically: true, encoding: .utf8)
        let lists = dir.appendingPathComponent("lists.yaml")
        try "a: [{name: x}]\nb: []\n".write(to: lists, atomically: true, encoding: .utf8)
        for (old, new, key, options, expected) in [
            (one, two, ["name"], LayoutOptions(), #""summary": {"inserted": 1, "deleted": 0, "moved": 0, "updated": 1, "unchanged": 0}"#),
            (
                two, one, ["kind", "name"], LayoutOptions(),
                #""summary": {"inserted": 0, "deleted": 1, "moved": 0, "updated": 1, "unchanged": 0}"#
            ),
            (one, one, ["."], LayoutOptions(), #""layout": {"path": null, "format": "yaml", "shape": "list"}"#),
            (
                one, two, ["id"], LayoutOptions(),
                #"one.yaml:2:7: error: the top level is an object whose member "kind" is a string, not a list"#
            ),
            (
                one, one, ["name"], LayoutOptions(path: try FieldPath("spec")),
                #"one.yaml:4:11: error: the value at spec is an object whose member "n""#
            ),
            (lists, lists, ["name"], LayoutOptions(), #""layout": {"path": null, "format": "yaml", "shape": "object"}"#),
        ] {
            let engine = EngineTests.run(old, new, engine: true, key: key, options: options)
            #expect(engine == EngineTests.run(old, new, engine: false, key: key, options: options), "\(key)")
            #expect(engine.contains(expected), "\(key): \(engine)")
        }
    }

    /// The engine gives the reference's changeset on random streams under a composite key
    /// with absent parts, and the changeset applies: `apply` writes a stream again.
    @Test func theEngineAgreesOnStreamsAndApplyWritesAStream() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SplitMix64(seed: 77)
        var changes = 0
        for round in 0..<120 {
            var oldRecords = Self.manifests(&rng)
            // Now and then one side is a single manifest: a document alone, or with an empty one.
            if round % 5 == 1 { oldRecords = Array(oldRecords.prefix(1)) }
            var newRecords = oldRecords.shuffled(using: &rng).filter { _ in Int.random(in: 0..<5, using: &rng) > 0 }
            newRecords.append(contentsOf: Self.manifests(&rng).prefix(2))
            var seen = Set<String>()
            newRecords = newRecords.filter {
                seen.insert((try? IdentityKey(parsing: Self.manifestKey).written(in: $0)).map(JSONWriter.compact) ?? "").inserted
            }
            if round % 5 == 3 { newRecords = Array(newRecords.prefix(1)) }
            guard !newRecords.isEmpty else { continue }
            let old = dir.appendingPathComponent("old-\(round).yaml"), new = dir.appendingPathComponent("new-\(round).yaml")
            try Self.stream(oldRecords, &rng).write(to: old, atomically: true, encoding: .utf8)
            try Self.stream(newRecords, &rng).write(to: new, atomically: true, encoding: .utf8)
            let engine = EngineTests.run(old, new, engine: true, key: Self.manifestKey)
            let reference = EngineTests.run(old, new, engine: false, key: Self.manifestKey)
            #expect(engine == reference, "round \(round)")
            #expect(!engine.hasPrefix("error"), "round \(round): \(engine)")
            guard engine == reference, !engine.hasPrefix("error") else { continue }
            changes += engine.components(separatedBy: "\"op\"").count - 1
            // The same records as JSON lists: the same changes (the JSON scan finds absent parts too).
            let oldJSON = dir.appendingPathComponent("old-\(round).json"), newJSON = dir.appendingPathComponent("new-\(round).json")
            try JSONWriter.compact(.array(oldRecords)).write(to: oldJSON, atomically: true, encoding: .utf8)
            try JSONWriter.compact(.array(newRecords)).write(to: newJSON, atomically: true, encoding: .utf8)
            let json = EngineTests.run(oldJSON, newJSON, engine: true, key: Self.manifestKey)
            #expect(json == EngineTests.run(oldJSON, newJSON, engine: false, key: Self.manifestKey), "round \(round)")
            #expect(
                json.components(separatedBy: "\"changes\"")[1] == engine.components(separatedBy: "\"changes\"")[1], "round \(round)")
            let changeset = try ChangesetReader().read(Array(engine.utf8), name: "c.json")
            let applier = try FileApplier(changeset: changeset, old: old.path, reader: DocumentReader(key: changeset.key))
            var out = StringStream()
            try applier.write(.yaml, to: &out)
            #expect(out.text.components(separatedBy: "\n---\n").count == newRecords.count, "round \(round): one document per record")
            let (written, _) = try YAMLReader().read(Array(out.text.utf8), name: "result.yaml")
            #expect(written == (newRecords.count == 1 ? newRecords[0] : .array(newRecords)), "round \(round)")
        }
        #expect(changes > 200)
    }

    /// A composite key's absent part is a value of its own: equal to itself (and to null),
    /// unlike any other value; a key all of whose parts are absent is no key.
    @Test func anAbsentPartOfACompositeKeyIsAValueOfItsOwn() throws {
        let key = try IdentityKey(parsing: ["kind", "ns", "name"])
        func record(_ ns: Value?) -> Value {
            var members: [Object.Member] = [.init(key: "kind", value: "Role"), .init(key: "name", value: "r")]
            if let ns { members.append(.init(key: "ns", value: ns)) }
            return .object(Object(members))
        }
        let id = { (v: Value) throws -> RecordID in try key.identify(v).get().id }
        #expect(try id(record(nil)) == id(record(.null)))
        #expect(try id(record(nil)) != id(record("")))
        #expect(try id(record(nil)) != id(record("null")))
        #expect(key.written(in: record(nil)) == .array(["Role", .null, "r"]))
        #expect(KeyFormatter(key).format(.array(["Role", .null, "r"])) == #"kind="Role" name="r""#)
        guard case .failure(let failure) = key.identify(.object(Object([.init(key: "other", value: 1)]))) else {
            Issue.record("a record with no key part must fail")
            return
        }
        #expect(failure.message(place: "record 0") == "record 0 has none of the key fields 'kind', 'ns', 'name'")
        // An object part is still refused.
        #expect(throws: Never.self) { try key.identify(record(nil)).get() }
        if case .success = key.identify(record(.object(Object()))) { Issue.record("an object part must be refused") }
        // Two records whose keys differ only by an absent part are two records.
        let changeset = try Differ().diff(old: [record(nil), record("a")], new: [record("a"), record(nil)], key: key)
        #expect(changeset.summary.moved == 1 && changeset.summary.inserted == 0 && changeset.summary.deleted == 0)
    }
}
