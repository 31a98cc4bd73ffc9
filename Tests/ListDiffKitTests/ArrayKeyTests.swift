import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Keyed lists inside records (`--array-key`): the changed fields name elements by key, and
/// applied in order to the old record they give the new one.
@Suite struct ArrayKeyTests {
    /// A record holding a keyed list of items, each holding a keyed list of parts.
    struct Generator {
        var rng: SplitMix64

        mutating func int(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }

        mutating func parts(_ count: Int) -> [Value] {
            var out: [Value] = []
            for p in 0..<count {
                let qty = Value.number(Number(exactly: int(4)))
                out.append(.object(Object([.init(key: "sku", value: .string("s\(p)")), .init(key: "qty", value: qty)])))
            }
            return out
        }

        mutating func items() -> [Value] {
            var out: [Value] = []
            for k in 0..<int(7) {
                let size = Value.number(Number(exactly: int(3)))
                let parts = Value.array(parts(int(5)))
                out.append(
                    .object(
                        Object([
                            .init(key: "name", value: .string("item \(k)")), .init(key: "size", value: size),
                            .init(key: "parts", value: parts),
                        ])))
            }
            return out
        }

        /// The list changed at random: elements dropped, added, changed and shuffled.
        mutating func change(_ list: [Value], fresh: (inout Generator) -> Value, inner: (inout Generator, Value) -> Value) -> [Value] {
            var out: [Value] = []
            for item in list where int(5) != 0 { out.append(int(3) == 0 ? inner(&self, item) : item) }
            for _ in 0..<int(3) { out.insert(fresh(&self), at: int(out.count + 1)) }
            if out.count > 1, int(2) == 0 { out.swapAt(int(out.count), int(out.count)) }
            if out.count > 2, int(2) == 0 { out.append(out.remove(at: int(out.count))) }
            return out
        }

        mutating func changedItems(_ items: [Value]) -> [Value] {
            var made = 100
            return change(
                items,
                fresh: { g in
                    made += 1
                    return .object(
                        Object([.init(key: "name", value: .string("item \(made)")), .init(key: "parts", value: .array(g.parts(2)))]))
                },
                inner: { g, item in
                    guard case .object(var o) = item else { return item }
                    for k in o.members.indices {
                        switch o.members[k].key {
                        case "size": o.members[k].value = .number(Number(exactly: g.int(3)))
                        case "parts":
                            guard case .array(let parts) = o.members[k].value else { continue }
                            var sku = 50
                            o.members[k].value = .array(
                                g.change(
                                    parts,
                                    fresh: { g in
                                        sku += 1
                                        return .object(Object([.init(key: "sku", value: .string("s\(sku)")), .init(key: "qty", value: 1)]))
                                    },
                                    inner: { g, part in
                                        guard case .object(var p) = part else { return part }
                                        p.members[1].value = .number(Number(exactly: 10 + g.int(3)))
                                        return .object(p)
                                    }))
                        default: break
                        }
                    }
                    return .object(o)
                })
        }
    }

    static let rules: Comparison = {
        var rules = Comparison()
        rules.arrayKeys = try! Comparison.ArrayKey.parsing(["/items=name", "/items/*/parts=sku"])
        return rules
    }()

    /// A record's fields as RFC 6902 operations on the record.
    static func operations(_ fields: [FieldChange]) -> Value {
        .array(
            fields.map { field in
                var members: [Object.Member] = []
                if let from = field.from {
                    members = [.init(key: "op", value: "move"), .init(key: "from", value: .string(from))]
                } else if field.old == nil {
                    members = [.init(key: "op", value: "add"), .init(key: "value", value: field.new!)]
                } else if field.new == nil {
                    members = [.init(key: "op", value: "remove")]
                } else {
                    members = [.init(key: "op", value: "replace"), .init(key: "value", value: field.new!)]
                }
                members.append(.init(key: "path", value: .string(field.path)))
                return .object(Object(members))
            })
    }

    /// The fewest moves that reorder the elements both lists hold: those off a longest
    /// increasing run, found here by the quadratic textbook method.
    static func fewestMoves(old: [String], new: [String]) -> Int {
        let positions = old.compactMap { new.firstIndex(of: $0) }
        var longest = [Int](repeating: 1, count: positions.count)
        for i in positions.indices {
            for k in 0..<i where positions[k] < positions[i] { longest[i] = max(longest[i], longest[k] + 1) }
        }
        return positions.count - (longest.max() ?? 0)
    }

    static func member(_ value: Value, _ name: String) -> Value? {
        guard case .object(let o) = value else { return nil }
        return o[name]
    }

    static func names(_ record: Value, _ field: String) -> [String] {
        guard case .array(let items)? = member(record, "items") else { return [] }
        return items.compactMap { item in
            guard case .string(let s)? = member(item, field) else { return nil }
            return s
        }
    }

    @Test func fieldsApplyInOrderAndMoveTheFewest() throws {
        var g = Generator(rng: SplitMix64(seed: 31))
        var updates = 0, moves = 0
        for round in 0..<400 {
            let items = g.items()
            let old: Value = .object(Object([.init(key: "id", value: 1), .init(key: "items", value: .array(items))]))
            let new: Value = .object(Object([.init(key: "id", value: 1), .init(key: "items", value: .array(g.changedItems(items)))]))
            let fields = try Self.rules.changes(old: old, new: new)
            let applied = try RFC6902.apply(Self.operations(fields), to: old)
            #expect(applied == new, "round \(round): \(fields)")
            // One move per element off the longest run, in the outer list and in each inner one.
            let outer = fields.filter { $0.from != nil && $0.keyedPath?.count == 2 }.count
            #expect(outer == Self.fewestMoves(old: Self.names(old, "name"), new: Self.names(new, "name")))
            for field in fields where field.keyedPath != nil {
                #expect(field.keyedPath?.first == .string("items"))
            }
            // Every field is named by key: no index step under a keyed list.
            for field in fields {
                #expect(
                    !(field.keyedPath ?? []).contains {
                        if case .number = $0 { return true }; return false
                    })
            }
            updates += fields.isEmpty ? 0 : 1
            moves += fields.filter { $0.from != nil }.count
        }
        #expect(updates > 300 && moves > 100)
    }

    /// The same records on the engine (in memory), through a JSON Patch and a changeset
    /// read back.
    @Test func theEngineAndTheJSONPatchAgree() throws {
        var g = Generator(rng: SplitMix64(seed: 7))
        for _ in 0..<60 {
            var old: [Value] = [], new: [Value] = []
            for id in 0..<20 {
                let items = g.items()
                old.append(
                    .object(Object([.init(key: "id", value: .number(Number(exactly: id))), .init(key: "items", value: .array(items))])))
                new.append(
                    .object(
                        Object([
                            .init(key: "id", value: .number(Number(exactly: id))),
                            .init(key: "items", value: .array(g.changedItems(items))),
                        ])))
            }
            new.swapAt(g.int(20), g.int(20))
            let changeset = try Differ(comparison: Self.rules).diff(old: old, new: new, key: IdentityKey(parsing: ["id"]))
            #expect(try RFC6902.apply(JSONPatchTests.patch(changeset), to: .array(old)) == .array(new))
            #expect(try changeset.apply(to: old) == new)
            var text = StringStream()
            try JSONChangesetRenderer(context: RenderContext(oldName: "old.json", newName: "new.json")).render(changeset, to: &text)
            #expect(text.text.hasPrefix("{\n  \"version\": 2,"))
            let read = try Changeset(json: Array(text.text.utf8))
            #expect(read.comparison == Self.rules)
            var again = StringStream()
            try JSONChangesetRenderer(context: RenderContext(oldName: "old.json", newName: "new.json")).render(read, to: &again)
            #expect(again.text == text.text)
            var patch = StringStream(), patchAgain = StringStream()
            try PatchRenderer(context: RenderContext(oldName: "old.json", newName: "new.json")).render(changeset, to: &patch)
            try PatchRenderer(context: RenderContext(oldName: "old.json", newName: "new.json")).render(read, to: &patchAgain)
            #expect(patch.text == patchAgain.text)
        }
    }

    @Test func keyedPathsReadAsPeopleWriteThem() throws {
        let old = try json(#"{"id": 1, "items": [{"name": "a b", "v": 1}, {"name": "web", "v": 1}, {"name": "7", "v": 1}]}"#)
        let new = try json(#"{"id": 1, "items": [{"name": "a b", "v": 2}, {"name": "web", "v": 2}, {"name": "7", "v": 2}]}"#)
        var rules = Comparison()
        rules.arrayKeys = try Comparison.ArrayKey.parsing(["/items=name"])
        let paths = try rules.changes(old: old, new: new).map(\.readablePath)
        #expect(paths == [#"/items[name="a b"]/v"#, "/items[name=web]/v", #"/items[name="7"]/v"#])
    }

    @Test func composite() throws {
        let old = try json(#"{"ports": [{"port": 80, "protocol": "TCP", "n": 1}, {"port": 80, "protocol": "UDP", "n": 1}]}"#)
        let new = try json(#"{"ports": [{"port": 80, "protocol": "UDP", "n": 2}, {"port": 80, "protocol": "TCP", "n": 1}]}"#)
        var rules = Comparison()
        rules.arrayKeys = try Comparison.ArrayKey.parsing(["/ports=port", "/ports=protocol"])
        let fields = try rules.changes(old: old, new: new)
        #expect(fields.map(\.readablePath) == ["/ports[port=80,protocol=UDP]/n", "/ports[port=80,protocol=TCP]"])
        #expect(fields[1].movedIndexes! == ("0", "1"))
    }

    @Test func unorderedKeyedListsMatchByKeyWithoutMoves() throws {
        let old = try json(#"{"env": [{"name": "A", "value": 1}, {"name": "B", "value": 1}]}"#)
        let new = try json(#"{"env": [{"name": "B", "value": 1}, {"name": "A", "value": 2}]}"#)
        var rules = Comparison()
        rules.arrayKeys = try Comparison.ArrayKey.parsing(["/env=name"])
        rules.unorderedArrays = [try Comparison.Pattern("/env")]
        #expect(try rules.changes(old: old, new: new).map(\.readablePath) == ["/env[name=A]/value"])
    }

    /// The Kubernetes preset keys a Service's ports by port and protocol, a CronJob's
    /// containers by name, and leaves lists the API does not key by index.
    @Test func theKubernetesPresetKeysServicePortsAndCronJobContainers() throws {
        var rules = Comparison()
        rules.arrayKeys = Preset.kubernetes.arrayKeys
        let service = try rules.changes(
            old: try json(#"{"spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}, {"port": 443}]}}"#),
            new: try json(#"{"spec": {"ports": [{"port": 443}, {"port": 80, "protocol": "TCP", "targetPort": 9090}]}}"#))
        #expect(service.map(\.readablePath) == ["/spec/ports[port=80,protocol=TCP]/targetPort", "/spec/ports[port=80,protocol=TCP]"])
        let job = try rules.changes(
            old: try json(#"{"spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "a", "args": ["x"]}]}}}}}}"#),
            new: try json(#"{"spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "a", "args": ["y"]}]}}}}}}"#))
        #expect(job.map(\.readablePath) == ["/spec/jobTemplate/spec/template/spec/containers[name=a]/args/0"])
        #expect(Preset.kubernetes.key.spellings == ["kind", "metadata.namespace", "metadata.name"])
        #expect(rules.description == "--preset kubernetes")
    }

    /// `--array-key auto`: a list of objects is keyed by the best conventional field that
    /// keys both versions; a list it cannot key compares by index.
    @Test func automaticKeysTakeTheBestConventionalField() throws {
        var rules = Comparison()
        rules.automaticArrayKeys = true
        func paths(_ old: String, _ new: String) throws -> [String] {
            try rules.changes(old: try json(old), new: try json(new)).map(\.readablePath)
        }
        // id before name; both unique in both versions.
        #expect(
            try paths(
                #"{"l": [{"id": 1, "name": "a", "v": 1}, {"id": 2, "name": "b"}]}"#,
                #"{"l": [{"id": 2, "name": "b"}, {"id": 1, "name": "a", "v": 2}]}"#)
                == ["/l[id=1]/v", "/l[id=1]"])
        // A name found twice in one version: not a key; the next one is.
        #expect(
            try paths(
                #"{"l": [{"code": "x", "name": "a", "v": 1}, {"code": "y", "name": "a"}]}"#,
                #"{"l": [{"code": "x", "name": "a", "v": 2}, {"code": "y", "name": "a"}]}"#)
                == ["/l[code=x]/v"])
        // No key shared by both versions, a field missing in one element, scalars: by index.
        #expect(try paths(#"{"l": [{"name": "a"}]}"#, #"{"l": [{"name": "b"}]}"#) == ["/l/0/name"])
        #expect(try paths(#"{"l": [{"name": "a", "v": 1}, {"v": 2}]}"#, #"{"l": [{"name": "a", "v": 3}, {"v": 2}]}"#) == ["/l/0/v"])
        #expect(try paths(#"{"l": ["a", "b"]}"#, #"{"l": ["b", "a"]}"#) == ["/l/0", "/l/1"])
        // Inside an automatically keyed element, another list is keyed the same way.
        #expect(
            try paths(#"{"l": [{"name": "a", "e": [{"key": "k", "v": 1}]}]}"#, #"{"l": [{"name": "a", "e": [{"key": "k", "v": 2}]}]}"#)
                == ["/l[name=a]/e[key=k]/v"])
        // The keyed lists a changeset names, once each.
        let old: [Value] = [["id": 1, "l": [["name": "a", "v": 1]]], ["id": 2, "l": [["name": "a", "v": 1]]]]
        let new: [Value] = [["id": 1, "l": [["name": "a", "v": 2]]], ["id": 2, "l": [["name": "a", "v": 3]]]]
        let changeset = try Differ(comparison: rules).diff(old: old, new: new, key: IdentityKey(parsing: ["id"]))
        #expect(changeset.keyedLists.map(\.description) == ["/l=name"])
        #expect(rules.description == "--array-key auto")
    }

    /// Array keys never decide sameness: elements keyed exactly, but the same under the
    /// rules, leave the record unchanged (YAML, where no hash under the rules decides first).
    @Test func arrayKeysDoNotDecideSameness() throws {
        var rules = Comparison()
        rules.ignoreCase = [try Comparison.Pattern("/")]
        rules.arrayKeys = try Comparison.ArrayKey.parsing(["/tags=name"])
        let differ = FileDiffer(key: try IdentityKey(parsing: ["id"]), differ: Differ(comparison: rules))
        let old = "- id: 1\n  tags: [{name: A}]\n- id: 2\n  tags: [{name: B, v: 1}]\n"
        let new = "- id: 1\n  tags: [{name: a}]\n- id: 2\n  tags: [{name: B, v: 2}]\n"
        let changeset = try differ.diff(old: Array(old.utf8), new: Array(new.utf8), oldName: "old.yaml", newName: "new.yaml")
        #expect(changeset.summary.updated == 1 && changeset.summary.unchanged == 1)
        #expect(changeset.changes.first?.fields.map(\.readablePath) == ["/tags[name=B]/v"])
        // Automatic keys take no boolean, and no name that only ends like a key's.
        var auto = Comparison()
        auto.automaticArrayKeys = true
        let fields = try auto.changes(
            old: try json(#"{"l": [{"valid": true, "paid": 1, "v": 1}, {"valid": false, "paid": 2, "v": 2}]}"#),
            new: try json(#"{"l": [{"valid": true, "paid": 1, "v": 3}, {"valid": false, "paid": 2, "v": 2}]}"#))
        #expect(fields.map(\.readablePath) == ["/l/0/v"])
    }

    @Test func nestedKeysThatRepeatOrLackAreErrors() throws {
        var rules = Comparison()
        rules.arrayKeys = try Comparison.ArrayKey.parsing(["/env=name"])
        let good = try json(#"{"env": [{"name": "A"}]}"#)
        #expect(
            throws: NestedKeyProblem(
                inOld: false, message: "the list at /env holds the key name=\"A\" twice (elements 0 and 1)", path: ["env", 1])
        ) {
            try rules.changes(old: good, new: try json(#"{"env": [{"name": "A"}, {"name": "A"}]}"#))
        }
        #expect(throws: NestedKeyProblem(inOld: true, message: "element 1 of the list at /env has no key field 'name'", path: ["env", 1])) {
            try rules.changes(old: try json(#"{"env": [{"name": "B"}, {"value": 1}]}"#), new: good)
        }
        for bad in ["env=name", "/env", "/env=", "/env=.", "/=name"] {
            #expect(throws: ListDiffError.self) { try Comparison.ArrayKey.parsing([bad]) }
        }
    }
}

/// The field walk against the plain reference (`NestedFields`), on random records whose
/// lists are keyed at several depths, by one field, by two, or by the element itself; and
/// the engine's changesets from JSON and YAML against it, applied.
@Suite struct NestedFieldsDifferentialTests {
    static let specs = ["/a=k", "/a/*/b=x", "/a/*/b=y", "/c/d=name", "/tags=t"]
    static let listKeys: [NestedFields.ListKey] = [
        .init(steps: ["a"], fields: [["k"]]), .init(steps: ["a", "*", "b"], fields: [["x"], ["y"]]),
        .init(steps: ["c", "d"], fields: [["name"]]), .init(steps: ["tags"], fields: [["t"]]),
    ]

    struct Records {
        var rng: SplitMix64
        mutating func int(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }

        /// A list of `make(n)` for distinct n, shuffled, with a few dropped, added or changed.
        mutating func list(_ count: Int, _ make: (inout Records, Int) -> Value) -> [Value] {
            var ids = Array(0..<(count + 3))
            for k in ids.indices.reversed() { ids.swapAt(k, int(k + 1)) }
            return ids.prefix(count).map { make(&self, $0) }
        }

        mutating func inner(_ n: Int) -> Value {
            // Keyed by x and y together; y is sometimes absent (a value of its own).
            var members: [Object.Member] = [.init(key: "x", value: .number(Number(exactly: n % 3)))]
            if n % 4 != 0 { members.append(.init(key: "y", value: .string("y\(n / 3)"))) }
            members.append(.init(key: "v", value: .number(Number(exactly: int(3)))))
            return .object(Object(members))
        }

        mutating func record(_ id: Int) -> Value {
            let a = list(int(5)) { g, n in
                Value.object(
                    Object([
                        .init(key: "k", value: .string("k\(n)")), .init(key: "v", value: .number(Number(exactly: g.int(2)))),
                        .init(key: "b", value: .array(g.list(g.int(4)) { g, m in g.inner(m) })),
                    ]))
            }
            let d = list(int(4)) { g, n in
                Value.object(Object([.init(key: "name", value: .string("n\(n)")), .init(key: "on", value: .bool(g.int(2) == 0))]))
            }
            let tags = list(int(4)) { _, n in Value.string("t\(n)") }
            var members: [Object.Member] = [
                .init(key: "id", value: .number(Number(exactly: id))), .init(key: "a", value: .array(a)),
                .init(key: "c", value: .object(Object([.init(key: "d", value: .array(d))]))), .init(key: "tags", value: .array(tags)),
            ]
            // Now and then a list the keys cannot match: a key twice, or none.
            switch int(40) {
            case 0: members[1].value = .array(a + a.prefix(1))
            case 1: members[3].value = .array(tags + [.array([])])
            default: break
            }
            return .object(Object(members))
        }

        /// OLD and NEW lists of `count` records, each kept free of unmatchable lists (those
        /// are errors, tested on their own).
        mutating func lists(_ count: Int) -> ([Value], [Value]) {
            var old: [Value] = [], new: [Value] = []
            for id in 0..<count {
                var a = record(id), b = record(id)
                while case .failure = NestedFields.changes(old: a, new: a, keys: NestedFieldsDifferentialTests.listKeys) { a = record(id) }
                while case .failure = NestedFields.changes(old: b, new: b, keys: NestedFieldsDifferentialTests.listKeys) { b = record(id) }
                old.append(a)
                new.append(b)
            }
            return (old, new)
        }
    }

    static var rules: Comparison {
        var rules = Comparison()
        rules.arrayKeys = try! Comparison.ArrayKey.parsing(specs)
        return rules
    }

    @Test func theWalkMatchesTheReference() throws {
        var g = Records(rng: SplitMix64(seed: 2026))
        var compared = 0, failures = 0
        for _ in 0..<1500 {
            let old = g.record(1), new = g.record(1)
            let expected = NestedFields.changes(old: old, new: new, keys: Self.listKeys)
            do throws(NestedKeyProblem) {
                let fields = try Self.rules.changes(old: old, new: new)
                guard case .success(let reference) = expected else {
                    Issue.record("the reference refused what the walk took: \(expected)")
                    continue
                }
                #expect(fields == reference, "\(old) → \(new)")
                compared += fields.isEmpty ? 0 : 1
            } catch {
                failures += 1
                guard case .failure(let refusal) = expected else {
                    Issue.record("the walk refused what the reference took: \(error)")
                    continue
                }
                #expect(error.inOld == refusal.inOld)
                #expect(error.path == refusal.path, "\(error) \(refusal)")
                #expect(error.message.hasPrefix(refusal.message), "\(error) \(refusal)")
            }
        }
        #expect(compared > 1200 && failures > 20)
    }

    /// Whole files through the engine, as JSON and as YAML: each update's fields are the
    /// reference's, and the changeset applies.
    @Test(arguments: ["json", "yaml"]) func theEngineMatchesTheReference(format: String) throws {
        var g = Records(rng: SplitMix64(seed: format == "json" ? 11 : 12))
        for _ in 0..<25 {
            let (old, new) = g.lists(30)
            let text: (Value) throws -> String = { format == "json" ? JSONWriter.compact($0) : try YAMLWriter.document($0) }
            let differ = FileDiffer(key: try IdentityKey(parsing: ["id"]), differ: Differ(comparison: Self.rules))
            let changeset = try differ.diff(
                old: Array(try text(.array(old)).utf8), new: Array(try text(.array(new)).utf8), oldName: "old.\(format)",
                newName: "new.\(format)")
            for change in changeset.changes where change.operation == .update {
                let i = change.old!.index, j = change.new!.index
                let expected = try NestedFields.changes(old: old[i], new: new[j], keys: Self.listKeys).get()
                #expect(expected == change.fields, "\(expected.map(\.path)) vs \(change.fields.map(\.path))")
            }
            #expect(try changeset.apply(to: old) == new)
        }
    }

    /// The places of keyed fields, removed ones and moved elements, from the engine and from
    /// the reference, in files written indented (JSON) and in block style (YAML).
    @Test(arguments: ["json", "yaml"]) func theEnginePlacesFieldsAsTheReference(format: String) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var g = Records(rng: SplitMix64(seed: format == "json" ? 21 : 22))
        var annotations = 0
        for round in 0..<20 {
            let (old, new) = g.lists(20)
            func text(_ value: Value) throws -> String {
                guard format == "json" else { return try YAMLWriter.document(value) }
                var out = ""
                JSONWriter.writePretty(value, to: &out)
                return out
            }
            let oldURL = dir.appendingPathComponent("old-\(round).\(format)"), newURL = dir.appendingPathComponent("new-\(round).\(format)")
            try text(.array(old)).write(to: oldURL, atomically: true, encoding: .utf8)
            try text(.array(new)).write(to: newURL, atomically: true, encoding: .utf8)
            let files = FileDiffer(key: try IdentityKey(parsing: ["id"]), differ: Differ(comparison: Self.rules))
            let engine = try files.diff(old: oldURL.path, new: newURL.path)
            let reference = try ReferenceDiffer(files).diff(old: oldURL.path, new: newURL.path)
            // (The engine's fields, found in both: the walk is checked against the reference above.)
            let places = engine.changeset.changes.filter { $0.operation == .update }.flatMap { change in
                change.fields.map { RecordPlace(change.new!, path: $0.steps) }
            }
            #expect(engine.locations(of: places, new: true) == reference.locations(of: places, new: true), "round \(round)")
            annotations += places.count
        }
        #expect(annotations > 300)
    }
}
