import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Random pairs of documents in every layout, with every kind of key and both duplicates
/// policies: records in a plain list, an object of lists or a list of section objects,
/// at the top or at a `--path`, keyed by a field, a nested path or two fields.
struct DocumentPairs {
    enum Shape: CaseIterable { case list, objectOfLists, sectionList, map, pattern }
    enum KeyKind: CaseIterable { case field, nested, composite }

    struct Case {
        var shape: Shape
        var keyKind: KeyKind
        var duplicates: DuplicatePolicy
        var atPath: Bool

        var key: [String] {
            switch keyKind {
            case .field: return ["id"]
            case .nested: return ["user.id"]
            case .composite: return ["r", "/n"]
            }
        }

        var options: LayoutOptions {
            // A pattern names the `items` of every group.
            if shape == .pattern { return LayoutOptions(path: try! FieldPath(atPath ? "/data/users/*/items" : "/groups/*/items")) }
            return LayoutOptions(path: atPath ? try! FieldPath("/data/users") : nil)
        }
    }

    var rng: SplitMix64
    var values: RecordPairs

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
        values = RecordPairs(rng: SplitMix64(seed: seed &+ 1))
    }

    mutating func record(_ n: Int, _ c: Case) -> Value {
        var members: [Object.Member] = []
        switch c.keyKind {
        case .field: members.append(.init(key: "id", value: .number(Number(exactly: n))))
        case .nested:
            members.append(
                .init(
                    key: "user",
                    value: .object(
                        Object([
                            .init(key: "id", value: .string("u\(n)")),
                            .init(key: "x", value: values.scalar()),
                        ]))))
        case .composite:
            members.append(.init(key: "r", value: .string(n % 2 == 0 ? "eu" : "us")))
            members.append(.init(key: "n", value: .number(Number(exactly: n / 2))))
        }
        for name in ["name", "tags", "v"] where Bool.random(using: &rng) {
            members.append(.init(key: name, value: values.value(depth: 0)))
        }
        members.shuffle(using: &rng)
        return .object(Object(members))
    }

    /// Edits a record's content, keeping its key.
    mutating func edit(_ value: Value) -> Value {
        guard case .object(var o) = value else { return value }
        if Bool.random(using: &rng) {
            o.members.append(.init(key: "added", value: values.scalar()))
        } else if let k = o.members.indices.filter({ !["id", "user", "r", "n"].contains(o.members[$0].key) }).randomElement(using: &rng) {
            o.members[k].value = values.value(depth: 0)
        } else {
            o.members.reverse()
        }
        return .object(o)
    }

    /// Sections of records, OLD and NEW.
    mutating func sections(_ c: Case) -> ([(String, [Value])], [(String, [Value])]) {
        let names = ["A", "B", "C", "D", "E"]
        // (A pattern that names no list in either document is refused: it has one at least.)
        let sectionCount = c.shape == .list || c.shape == .map ? 1 : Int.random(in: c.shape == .pattern ? 1...4 : 0...4, using: &rng)
        var next = 0
        func key() -> Int {
            // (A map's member names are its keys: they never repeat.)
            if c.duplicates == .match, c.shape != .map { return Int.random(in: 0..<8, using: &rng) }
            next += 1
            return next
        }
        var old: [(String, [Value])] = []
        for s in 0..<sectionCount {
            old.append((names[s], (0..<Int.random(in: 0..<7, using: &rng)).map { _ in record(key(), c) }))
        }
        var new = old
        // Sections come, go and move.
        if c.shape != .list && c.shape != .map {
            if !new.isEmpty, Int.random(in: 0..<4, using: &rng) == 0 { new.remove(at: Int.random(in: 0..<new.count, using: &rng)) }
            if Int.random(in: 0..<4, using: &rng) == 0 { new.insert(("F", []), at: Int.random(in: 0...new.count, using: &rng)) }
            if new.count > 1, Bool.random(using: &rng) { new.swapAt(0, new.count - 1) }
        }
        guard !new.isEmpty else { return (old, new) }
        // Records are deleted, inserted, updated and moved, within and across sections.
        for _ in 0..<Int.random(in: 0..<4, using: &rng) {
            let s = Int.random(in: 0..<new.count, using: &rng)
            if !new[s].1.isEmpty { new[s].1.remove(at: Int.random(in: 0..<new[s].1.count, using: &rng)) }
        }
        for _ in 0..<Int.random(in: 0..<4, using: &rng) {
            let s = Int.random(in: 0..<new.count, using: &rng)
            new[s].1.insert(record(key(), c), at: Int.random(in: 0...new[s].1.count, using: &rng))
        }
        for _ in 0..<Int.random(in: 0..<4, using: &rng) {
            let s = Int.random(in: 0..<new.count, using: &rng)
            if !new[s].1.isEmpty {
                let k = Int.random(in: 0..<new[s].1.count, using: &rng)
                new[s].1[k] = edit(new[s].1[k])
            }
        }
        for _ in 0..<Int.random(in: 0..<4, using: &rng) {
            let s = Int.random(in: 0..<new.count, using: &rng), t = Int.random(in: 0..<new.count, using: &rng)
            if !new[s].1.isEmpty {
                let r = new[s].1.remove(at: Int.random(in: 0..<new[s].1.count, using: &rng))
                new[t].1.insert(r, at: Int.random(in: 0...new[t].1.count, using: &rng))
            }
        }
        return (old, new)
    }

    /// The document holding `sections` in the case's shape.
    mutating func document(_ sections: [(String, [Value])], _ c: Case, flag: Bool) -> Value {
        let container: Value
        switch c.shape {
        case .list:
            container = .array(sections.flatMap(\.1))
        case .map:
            // Each record under a name made from its key (a composite key's parts joined).
            container = .object(
                Object(
                    sections.flatMap(\.1).map { record in
                        guard case .object(let o) = record else { return .init(key: "?", value: record) }
                        let parts = ["id", "user", "r", "n"].compactMap { name -> String? in
                            guard let value = o[name] else { return nil }
                            if case .object(let user) = value { return JSONWriter.compact(user["id"] ?? .null) }
                            return JSONWriter.compact(value)
                        }
                        return .init(key: "k" + parts.joined(separator: "/"), value: record)
                    }))
        case .objectOfLists:
            container = .object(Object(sections.map { .init(key: $0.0, value: .array($0.1)) }))
        case .pattern:
            // Groups with a field of their own beside their records, found by `*`.
            let groups = Object(
                sections.map { name, records in
                    .init(
                        key: name,
                        value: .object(Object([.init(key: "meta", value: .string(name)), .init(key: "items", value: .array(records))])))
                })
            container = c.atPath ? .object(groups) : .object(Object([.init(key: "groups", value: .object(groups))]))
        case .sectionList:
            container = .array(
                sections.map { name, records in
                    var members: [Object.Member] = [.init(key: "name", value: .string(name)), .init(key: "items", value: .array(records))]
                    if flag, name == "B" { members.append(.init(key: "collapsed", value: true)) }
                    if Bool.random(using: &rng) { members.reverse() }
                    return .object(Object(members))
                })
        }
        guard c.atPath else { return container }
        return .object(
            Object([
                .init(key: "meta", value: .object(Object([.init(key: "v", value: 1)]))),
                .init(
                    key: "data",
                    value: .object(
                        Object([
                            .init(key: "x", value: [1, 2]),
                            .init(key: "users", value: container),
                        ]))),
            ]))
    }

    mutating func next(_ c: Case) -> (Value, Value) {
        let (old, new) = sections(c)
        return (document(old, c, flag: false), document(new, c, flag: Bool.random(using: &rng)))
    }
}

@Suite struct EngineTests {
    /// Writes a pair in random spellings, as JSON or (a list) NDJSON.
    static func write(
        _ oldValue: Value, _ newValue: Value, in dir: URL, round: Int, lines: Bool, yaml: Bool = false,
        _ spelling: inout RandomSpelling
    ) throws -> (URL, URL) {
        let ext = yaml ? "yaml" : lines ? "ndjson" : "json"
        let old = dir.appendingPathComponent("old-\(round).\(ext)"), new = dir.appendingPathComponent("new-\(round).\(ext)")
        for (value, url) in [(oldValue, old), (newValue, new)] {
            let text: String
            if yaml {
                text = try YAMLWriter.document(value)
            } else if lines, case .array(let items) = value {
                text = spelling.document(items, lines: true)
            } else {
                text = spelling.write(value)
            }
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return (old, new)
    }

    static func run(
        _ old: URL, _ new: URL, engine: Bool, key: [String], duplicates: DuplicatePolicy = .error,
        options: LayoutOptions = LayoutOptions(), differ: Differ = Differ(),
        configure: (inout FileDiffer) -> Void = { _ in }
    ) -> String {
        do throws(ListDiffError) {
            let reader = DocumentReader(key: try IdentityKey(parsing: key), duplicates: duplicates, layout: options)
            var files = FileDiffer(reader: reader, differ: differ)
            configure(&files)
            let changeset =
                engine
                ? try files.diff(old: old.path, new: new.path).changeset
                : try ReferenceDiffer(files).diff(old: old.path, new: new.path).changeset
            var out = StringStream()
            try JSONChangesetRenderer(context: RenderContext(oldName: "old", newName: "new")).render(changeset, to: &out)
            return out.text
        } catch {
            return "error: \(error)" + (error.hint.map { " (hint: \($0))" } ?? "")
        }
    }

    /// Writes each case's pair and diffs it under both duplicates policies on the engine and
    /// on the reference, which must agree; `check` looks at the reference's result too.
    static func againstTheReference(
        _ cases: [(String, String, [String], LayoutOptions)], ext: String, in dir: URL,
        _ check: (Int, DuplicatePolicy, String) -> Void
    ) throws {
        for (k, (oldText, newText, key, options)) in cases.enumerated() {
            let old = dir.appendingPathComponent("old-\(k).\(ext)"), new = dir.appendingPathComponent("new-\(k).\(ext)")
            try oldText.write(to: old, atomically: true, encoding: .utf8)
            try newText.write(to: new, atomically: true, encoding: .utf8)
            for duplicates in DuplicatePolicy.allCases {
                let engine = Self.run(old, new, engine: true, key: key, duplicates: duplicates, options: options)
                let reference = Self.run(old, new, engine: false, key: key, duplicates: duplicates, options: options)
                #expect(engine == reference, "case \(k), \(duplicates): \(oldText)")
                check(k, duplicates, reference)
            }
        }
    }

    /// A document as `listdiff apply` writes it in `format`, or the error.
    static func written(_ result: Value, _ format: InputFormat) -> String {
        do throws(ListDiffError) {
            if format != .yaml, let bad = result.firstNonFiniteNumber { return "non-finite \(bad.text)" }
            switch format {
            case .json:
                var out = ""
                JSONWriter.writePretty(result, to: &out)
                return out + "\n"
            case .ndjson:
                guard case .array(let items) = result else { return "not a list" }
                return items.map { JSONWriter.compact($0) + "\n" }.joined()
            case .yaml:
                return try YAMLWriter.document(result)
            case .csv, .tsv:
                return "CSV is checked in CSVTests"
            }
        } catch {
            return "error: \(error)"
        }
    }

    static func written(_ applier: FileApplier, _ format: InputFormat) -> String {
        var out = StringStream()
        do throws(ListDiffError) {
            try applier.write(format, to: &out)
            return out.text
        } catch {
            let message = error.message
            if message.contains("which JSON cannot write") { return "non-finite " + message.split(separator: " ")[4] }
            if message.contains("the result is not a list") { return "not a list" }
            return "error: \(error)"
        }
    }

    /// Every layout, key kind, duplicates policy and algorithm, in JSON and NDJSON: the
    /// engine gives the reference's changeset byte for byte, fingerprints included, and the
    /// changeset applies.
    @Test(arguments: DocumentPairs.Shape.allCases) func sameChangesetAsTheReference(shape: DocumentPairs.Shape) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: UInt64(DocumentPairs.Shape.allCases.firstIndex(of: shape)!) &+ 11)
        var spelling = RandomSpelling(rng: SplitMix64(seed: 3), pretty: false)
        var rng = SplitMix64(seed: 4)
        var changes = 0, errors = 0
        for round in 0..<240 {
            let c = DocumentPairs.Case(
                shape: shape, keyKind: DocumentPairs.KeyKind.allCases[round % 3],
                duplicates: round % 4 == 3 ? .match : .error, atPath: round % 5 == 4)
            let (oldValue, newValue) = pairs.next(c)
            let lines = !c.atPath && (shape == .list || shape == .sectionList) && round % 3 == 1
            spelling.pretty = round % 4 == 1
            let (old, new) = try Self.write(oldValue, newValue, in: dir, round: round, lines: lines, yaml: round % 3 == 2, &spelling)
            let algorithm: any DiffAlgorithm = [HeckelDiff(), MyersDiff(), LCSDiff()][Int.random(in: 0..<3, using: &rng)]
            let order = Differ.MemberOrder.allCases[round % 2]
            let differ = Differ(algorithm: algorithm, memberOrder: order)
            let engine = Self.run(old, new, engine: true, key: c.key, duplicates: c.duplicates, options: c.options, differ: differ)
            let reference = Self.run(old, new, engine: false, key: c.key, duplicates: c.duplicates, options: c.options, differ: differ)
            #expect(engine == reference, "round \(round) \(c)")
            if engine.hasPrefix("error") { errors += 1; continue }
            changes += engine.components(separatedBy: "\"op\"").count - 1
            guard engine == reference else { continue }
            // The changeset applies to OLD and gives NEW.
            let changeset = try ChangesetReader().read(Array(engine.utf8), name: "changes.json")
            let reader = DocumentReader(key: changeset.key, duplicates: changeset.duplicates, layout: changeset.layout.options)
            let result = try changeset.apply(to: try reader.read(old.path))
            let expected = try reader.read(new.path).root
            // (A map's own members have no order to keep: they are compared by name. Under a
            // pattern, only the lists it names are NEW's: what is around them stays OLD's.)
            func byName(_ root: Value) -> Value {
                if shape == .pattern, case .object(var lists) = changeset.layout.diffed(in: root) {
                    lists.members.sort { $0.key < $1.key }
                    return .object(lists)
                }
                guard shape == .map, let path = c.options.path, case .object(var map)? = path.value(in: root) else {
                    guard shape == .map, case .object(var map) = root else { return root }
                    map.members.sort { $0.key < $1.key }
                    return .object(map)
                }
                map.members.sort { $0.key < $1.key }
                return .object(map)
            }
            #expect(
                order == .significant ? byName(result).isIdentical(to: byName(expected)) : byName(result) == byName(expected),
                "round \(round)")
            // The engine's apply writes what the reference's apply and writers write.
            let applier = try FileApplier(changeset: changeset, old: old.path, reader: DocumentReader(key: changeset.key))
            #expect(applier.fingerprint == changeset.fingerprints?.old, "round \(round)")
            #expect(applier.newFingerprint == changeset.fingerprints?.new, "round \(round)")
            // (CSV holds flat records only: CSVTests checks what apply writes as CSV.)
            for format in InputFormat.allCases where format != .csv && format != .tsv {
                #expect(Self.written(applier, format) == Self.written(result, format), "round \(round) \(format)")
            }
        }
        #expect(changes > 400)
        #expect(errors < 40)
    }

    /// The replay from the engine, which reads OLD's records only as frames show them,
    /// plays what the replay of the documents read in full plays, frame by frame.
    @Test(arguments: DocumentPairs.Shape.allCases) func sameReplayAsTheReference(shape: DocumentPairs.Shape) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: UInt64(DocumentPairs.Shape.allCases.firstIndex(of: shape)!) &+ 21)
        var spelling = RandomSpelling(rng: SplitMix64(seed: 5), pretty: false)
        var films = 0
        for round in 0..<60 {
            let c = DocumentPairs.Case(
                shape: shape, keyKind: DocumentPairs.KeyKind.allCases[round % 3],
                duplicates: round % 4 == 3 ? .match : .error, atPath: round % 5 == 4)
            let (oldValue, newValue) = pairs.next(c)
            let (old, new) = try Self.write(oldValue, newValue, in: dir, round: round, lines: false, yaml: round % 3 == 2, &spelling)
            func film(engine: Bool) -> String {
                do throws(ListDiffError) {
                    let reader = DocumentReader(key: try IdentityKey(parsing: c.key), duplicates: c.duplicates, layout: c.options)
                    let files = FileDiffer(reader: reader)
                    let limit = round % 2 == 0 ? 1000 : 4
                    let replay =
                        engine
                        ? try files.diff(old: old.path, new: new.path).replay(oldName: "old", newName: "new", limit: limit)
                        : try ReferenceDiffer(files).diff(old: old.path, new: new.path).replay(oldName: "old", newName: "new", limit: limit)
                    return ReplayTests.film(replay, Replay.Options(width: 70, height: 14, context: 1))
                } catch {
                    return "error: \(error)"
                }
            }
            let engine = film(engine: true)
            #expect(engine == film(engine: false), "round \(round) \(c)")
            if !engine.hasPrefix("error") { films += 1 }
        }
        #expect(films > 30)
    }

    /// The places `-f github` points at, from the engine (each updated record walked once,
    /// for all its changed fields) are the reference's (each field found by walking the
    /// record's value, counting values), in JSON, NDJSON and YAML, indented or not.
    @Test(arguments: DocumentPairs.Shape.allCases) func sameAnnotationsAsTheReference(shape: DocumentPairs.Shape) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: UInt64(DocumentPairs.Shape.allCases.firstIndex(of: shape)!) &+ 31)
        var spelling = RandomSpelling(rng: SplitMix64(seed: 7), pretty: false)
        var fields = 0
        for round in 0..<120 {
            let c = DocumentPairs.Case(
                shape: shape, keyKind: DocumentPairs.KeyKind.allCases[round % 3],
                duplicates: round % 4 == 3 ? .match : .error, atPath: round % 5 == 4)
            let (oldValue, newValue) = pairs.next(c)
            let lines = !c.atPath && shape != .objectOfLists && shape != .map && round % 3 == 1
            spelling.pretty = round % 2 == 0
            let (old, new) = try Self.write(oldValue, newValue, in: dir, round: round, lines: lines, yaml: round % 3 == 2, &spelling)
            func annotations(engine: Bool) -> String {
                do throws(ListDiffError) {
                    let reader = DocumentReader(key: try IdentityKey(parsing: c.key), duplicates: c.duplicates, layout: c.options)
                    let files = FileDiffer(reader: reader)
                    let changeset: Changeset
                    let locate: ([RecordPlace], Bool) -> [ListDiffError.Location?]
                    if engine {
                        let result = try files.diff(old: old.path, new: new.path)
                        (changeset, locate) = (result.changeset, result.locations)
                    } else {
                        let result = try ReferenceDiffer(files).diff(old: old.path, new: new.path)
                        (changeset, locate) = (result.changeset, result.locations)
                    }
                    var out = StringStream()
                    GitHubRenderer(context: RenderContext(oldName: "old", newName: "new"), locate: locate).render(changeset, to: &out)
                    return out.text
                } catch {
                    return "error: \(error)"
                }
            }
            let engine = annotations(engine: true)
            #expect(engine == annotations(engine: false), "round \(round) \(c)")
            fields += engine.split(separator: "\n").filter { $0.contains("%3A updated") && $0.contains("line=") }.count
        }
        #expect(fields > 40)
    }

    /// `FileApplier.open` scans OLD with the key and layout read before the changes, at once
    /// with the rest: a changeset whose later members say otherwise (a second "key") is
    /// refused, as any object with a name given twice is, and so is a broken changeset.
    @Test func openingReadsTheHeaderFirst() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        try #"[{"id": 1, "sku": "b", "n": 1}, {"id": 2, "sku": "a", "n": 2}]"#.write(to: old, atomically: true, encoding: .utf8)
        try #"[{"id": 2, "sku": "a", "n": 3}, {"id": 1, "sku": "b", "n": 1}]"#.write(to: new, atomically: true, encoding: .utf8)
        let text = Self.run(old, new, engine: true, key: ["sku"])
        let reader = DocumentReader(key: try IdentityKey(parsing: []))
        func applied(_ changes: String) -> String {
            do throws(ListDiffError) {
                let applier = try FileApplier.open(changeset: Array(changes.utf8), name: "changes.json", old: old.path, reader: reader)
                return Self.written(applier, .json)
            } catch {
                return "error: \(error)"
            }
        }
        let expected = Self.written(try reader.read(new.path).root, .json)
        #expect(applied(text) == expected)
        // The same changes keyed by "sku" after a first "key" of "id": refused, although the
        // header read first gave a key that OLD could be scanned with.
        let rekeyed = text.replacingOccurrences(of: "\"key\": [\"sku\"],", with: "\"key\": [\"id\"],")
            .replacingOccurrences(of: "\"sections\": [],", with: "\"sections\": [], \"key\": [\"sku\"],")
        #expect(rekeyed != text)
        let refusal = applied(rekeyed)
        #expect(
            refusal.hasPrefix("error: changes.json:") && refusal.contains("duplicate member name \"key\" in one object (first at line"),
            "\(refusal)")
        #expect(applied("{\"version\": 1, \"key\": [\"sku\"], \"changes\": [").hasPrefix("error: changes.json:1:"))
    }

    /// A file that shrinks after it was mapped (another program rewriting it) gives an
    /// error naming it, not a crash (SIGBUS) and not what its missing bytes read as.
    @Test func aFileThatShrinksIsAnErrorNotACrash() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let records = (0..<20_000).map { "{\"id\":\($0),\"name\":\"record number \($0)\"}" }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        try ("[\n" + records.joined(separator: ",\n") + "\n]\n").write(to: old, atomically: true, encoding: .utf8)
        try ("[\n" + records.reversed().joined(separator: ",\n") + "\n]\n").write(to: new, atomically: true, encoding: .utf8)
        let oldFile = try MappedFile(old.path), newFile = try MappedFile(new.path)
        #expect(oldFile.bytes.count > 3 * 4096)
        #expect(truncate(old.path, 4096) == 0)
        let engine = Engine(key: try IdentityKey(parsing: ["id"]), differ: Differ(), duplicates: .error, options: LayoutOptions())
        #expect(throws: ListDiffError.self) { try engine.diff(old: oldFile, .json, new: newFile, .json) }
        do {
            _ = try engine.diff(old: oldFile, .json, new: newFile, .json)
        } catch {
            #expect(
                error.description
                    == "\(old.path): error: the file shrank while it was read (another program changed it); run again once it is complete")
        }
        try newFile.checkIntact()
    }

    /// A change from the engine holds its record's text, read when the change is written. A
    /// text that no longer reads (here spoilt by hand, as a file changed during the diff
    /// would leave it) is an error from `value()` and from every writer of values, not a
    /// change without a value.
    @Test func aRecordThatNoLongerReadsIsAnErrorWhenWritten() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        try "[{\"id\":1,\"name\":\"Ada\"}]\n".write(to: old, atomically: true, encoding: .utf8)
        try "[{\"id\":1,\"name\":\"Ada\"}, {\"id\":2,\"name\":\"Alan\"}]\n".write(to: new, atomically: true, encoding: .utf8)
        let result = try FileDiffer(key: try IdentityKey(parsing: ["id"])).diff(old: old.path, new: new.path)
        let insert = try #require(result.changeset.changes.first { $0.operation == .insert })
        #expect(try insert.value() == ["id": 2, "name": "Alan"])
        let reference = try #require(insert.reference)
        reference.chunk.base[Int(reference.start)] = UInt8(ascii: "]")

        func expectReadError(_ what: String, _ body: () throws(ListDiffError) -> Void) {
            do {
                try body()
                Issue.record("\(what) did not throw")
            } catch {
                #expect(error.kind == .io && error.message.hasPrefix("the file changed while it was being read"), "\(what): \(error)")
            }
        }
        expectReadError("value()") { () throws(ListDiffError) in _ = try insert.value() }
        let context = RenderContext(oldName: "old", newName: "new")
        var out = ""
        expectReadError("the patch") { () throws(ListDiffError) in try PatchRenderer(context: context).render(result.changeset, to: &out) }
        expectReadError("Markdown") { () throws(ListDiffError) in try MarkdownRenderer(context: context).render(result.changeset, to: &out)
        }
        expectReadError("JSON Patch") { () throws(ListDiffError) in try JSONPatchRenderer().render(result.changeset, to: &out) }
        expectReadError("the replay") { () throws(ListDiffError) in _ = try result.replay(oldName: "old", newName: "new", limit: 300) }
    }

    /// Key hashes cut to 4 bits, so that different keys share hashes all the time: every
    /// match on a hash is checked, and the engine runs again with other hashes. The mask
    /// stays on every attempt, as when the first halves of two keys' hashes truly collide:
    /// the later attempts must part them by the second half.
    @Test func keyHashCollisionsAreCaught() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: 99)
        var spelling = RandomSpelling(rng: SplitMix64(seed: 98), pretty: false)
        for round in 0..<120 {
            let c = DocumentPairs.Case(
                shape: DocumentPairs.Shape.allCases[round % DocumentPairs.Shape.allCases.count],
                keyKind: DocumentPairs.KeyKind.allCases[round % 3],
                duplicates: round % 2 == 0 ? .match : .error, atPath: false)
            let (oldValue, newValue) = pairs.next(c)
            let old = dir.appendingPathComponent("old-\(round).json"), new = dir.appendingPathComponent("new-\(round).json")
            try spelling.write(oldValue).write(to: old, atomically: true, encoding: .utf8)
            try spelling.write(newValue).write(to: new, atomically: true, encoding: .utf8)
            let engine = Self.run(old, new, engine: true, key: c.key, duplicates: c.duplicates, options: c.options) {
                $0.keyHashing = KeyHashing(seed: 0, mask: 0xF)
            }
            let reference = Self.run(old, new, engine: false, key: c.key, duplicates: c.duplicates, options: c.options)
            #expect(engine == reference, "round \(round)")
            // The whole record as its key, its hash the record's content hash.
            if round % 4 == 0 {
                let engine = Self.run(old, new, engine: true, key: ["."], duplicates: .match) {
                    $0.keyHashing = KeyHashing(seed: 0, mask: 0xF)
                }
                #expect(engine == Self.run(old, new, engine: false, key: ["."], duplicates: .match), "round \(round), --key .")
            }
        }
    }

    /// The same through `keyedSide`, the scan of one input on its own that apply and the key
    /// search make: two keys that share a hash are caught there too, and the side (its
    /// sections, each record's occurrence, or the error) is the one full hashes give.
    @Test func keyHashCollisionsAreCaughtOnOneSide() throws {
        var pairs = DocumentPairs(seed: 97)
        var spelling = RandomSpelling(rng: SplitMix64(seed: 96), pretty: false)
        var collided = 0
        for round in 0..<120 {
            let c = DocumentPairs.Case(
                shape: DocumentPairs.Shape.allCases[round % DocumentPairs.Shape.allCases.count],
                keyKind: DocumentPairs.KeyKind.allCases[round % 3],
                duplicates: round % 2 == 0 ? .match : .error, atPath: false)
            let file = MappedFile(name: "old", bytes: Array(spelling.write(pairs.next(c).0).utf8))
            for duplicates in DuplicatePolicy.allCases {
                func side(_ hashing: KeyHashing) -> String {
                    do throws(ListDiffError) {
                        var engine = Engine(
                            key: try IdentityKey(parsing: c.key), differ: Differ(), duplicates: duplicates, options: c.options)
                        engine.keyHashing = hashing
                        let (side, used) = try engine.keyedSide(file, .json)
                        if used.attempt > 0 { collided += 1 }
                        return "\(side.layout) \(side.sections.map(\.records)) \((0..<side.count).map { side.occurrence($0) ?? -1 })"
                    } catch {
                        return "error: \(error)"
                    }
                }
                #expect(side(KeyHashing(seed: 0, mask: 0xF)) == side(KeyHashing()), "round \(round), \(duplicates)")
            }
        }
        #expect(collided > 0)
    }

    /// Inputs large enough to be scanned in parts, in every layout: the same as in one part.
    @Test(arguments: DocumentPairs.Shape.allCases) func partsGiveWhatOnePassGives(shape: DocumentPairs.Shape) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: 7)
        var spelling = RandomSpelling(rng: SplitMix64(seed: 8), pretty: false)
        for round in 0..<40 {
            let c = DocumentPairs.Case(
                shape: shape, keyKind: DocumentPairs.KeyKind.allCases[round % 3],
                duplicates: round % 4 == 3 ? .match : .error, atPath: round % 2 == 1)
            let (oldValue, newValue) = pairs.next(c)
            let lines = round % 4 == 0 && !c.atPath && (shape == .list || shape == .sectionList)
            spelling.pretty = round % 3 == 0
            let (old, new) = try Self.write(oldValue, newValue, in: dir, round: round, lines: lines, &spelling)
            let whole = Self.run(old, new, engine: true, key: c.key, duplicates: c.duplicates, options: c.options) {
                $0.parts = 1
            }
            for parts in [2, 3, 7] {
                let split = Self.run(old, new, engine: true, key: c.key, duplicates: c.duplicates, options: c.options) {
                    $0.parts = parts
                    $0.splitsFrom = 0
                }
                #expect(split == whole, "round \(round), \(parts) parts")
            }
        }
    }

    /// Layout and key errors of every shape, as the reader words and places them.
    @Test func sameErrorsAsTheReference() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let good = #"[{"id":1}]"#
        let cases: [(String, String, [String], LayoutOptions)] = [
            (#"{"a":[{"id":1}],"b":3}"#, good, ["id"], LayoutOptions()),  // member not a list
            (#"{"a":[{"id":1}],"a":[{"id":2}]}"#, good, ["id"], LayoutOptions()),  // two sections one name
            (#"{"a":[{"id":1}],"b":[{"id":1}]}"#, good, ["id"], LayoutOptions()),  // key twice across sections
            (#"{"a":[{"id":1}],"b":[{"x":1}]}"#, good, ["id"], LayoutOptions()),  // no key in a section
            (#"[{"name":"A","items":[{"id":1}]},{"name":"A","items":[]}]"#, good, ["id"], LayoutOptions()),
            (#"[{"name":"A","items":[{"id":1}]},{"title":"B","items":[]}]"#, good, ["id"], LayoutOptions()),  // no shared name
            (#"[{"name":"A","items":[{"id":1}]},{"name":"B","rows":[]}]"#, good, ["id"], LayoutOptions()),  // no shared list
            (#"[{"name":"A","items":[{"id":1}]},3]"#, good, ["id"], LayoutOptions()),  // not all objects: a list
            (#"[{"name":"A","items":{}}]"#, good, ["id"], LayoutOptions(items: "items")),  // items not a list
            (#"[{"name":"A"}]"#, good, ["id"], LayoutOptions(items: "items")),  // no items
            (#"[{"name":"A","items":[]},"x"]"#, good, ["id"], LayoutOptions(sectionKey: "name")),
            (#"{"name":"A"}"#, good, ["id"], LayoutOptions(items: "items")),  // not a list at all
            (#""x""#, good, ["id"], LayoutOptions()),  // a scalar
            (#"{"data":{"users":[{"id":1}]}}"#, good, ["id"], LayoutOptions(path: try FieldPath("/data/people"))),
            (#"{"data":[[{"id":1}]]}"#, good, ["id"], LayoutOptions(path: try FieldPath("/data/3"))),
            (#"{"data":5}"#, good, ["id"], LayoutOptions(path: try FieldPath("data.users"))),
            (#"{"data":{"users":[{"id":1}]}} x"#, good, ["id"], LayoutOptions(path: try FieldPath("/data/people"))),  // syntax first
            (#"[{"user":{"id":1}},{"user":{"id":[1]}}]"#, good, ["user.id"], LayoutOptions()),  // nested key not a scalar
            (#"[{"user":{"id":1}},{"user":{"id":1.0}}]"#, good, ["user.id"], LayoutOptions()),  // nested key twice
            (#"[{"r":"eu","n":1},{"r":"eu"}]"#, good, ["r", "n"], LayoutOptions()),  // a composite part missing
            (#"[{"id":1}]"#, #"{"a":[{"id":1}]}"#, ["id"], LayoutOptions()),  // two shapes
            (#"[{"id":1},{"x":2},{"id":1}]"#, good, ["id"], LayoutOptions()),  // no key before a repeat
            (#"[{"id":1},{"id":1},{"x":2}]"#, good, ["id"], LayoutOptions()),  // a repeat before no key
            (#"[{"x":1},{"x":2}]"#, good, ["id"], LayoutOptions()),  // no record has the key
        ]
        try Self.againstTheReference(cases, ext: "json", in: dir) { k, _, reference in
            #expect(k >= 23 || reference.hasPrefix("error"), "case \(k) should fail")
        }
    }

    /// Maps of records and lone objects, in JSON and YAML: what the engine finds, and its
    /// errors, are the reader's; `check` holds what each case must give.
    @Test func mapsAndLoneObjectsAsTheReference() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let path = LayoutOptions(path: try FieldPath("/m"))
        let map = #"{"a":{"x":1},"b":{"x":2}}"#
        let cases: [(String, String, [String], LayoutOptions, String)] = [
            (map, #"{"b":{"x":3},"c":{"x":4}}"#, ["id"], LayoutOptions(), "\"shape\": \"map\""),
            (#"{"m":\#(map)}"#, #"{"m":{"a":{"x":1}},"z":0}"#, ["id"], path, "\"op\": \"delete\", \"key\": \"b\""),
            (#"{"a":{"x":1},"b":3}"#, map, ["id"], LayoutOptions(), "is a map of records whose member \"b\" is a number"),
            (#"{"a":[{"id":1}],"b":{"x":1}}"#, map, ["id"], LayoutOptions(), "whose member \"b\" is an object, not a list"),
            (#"{"m":{"a":{"x":1},"a":{"x":2}}}"#, map, ["id"], path, "error"),  // a name twice
            (#"{"m":\#(map)}"#, #"{"m":\#(map)}"#, ["."], path, "a whole-record key does not apply"),
            (map, "[]", ["id"], LayoutOptions(), "both must have one shape"),
            ("{}", map, ["id"], LayoutOptions(), "\"op\": \"insert\", \"key\": \"a\""),  // an empty object is an empty map
            (map, "{}", ["id"], LayoutOptions(), "\"op\": \"delete\", \"key\": \"a\""),
            // One object with the key is one record, whatever its members; without the key,
            // a map or an error.
            (#"{"id":1,"x":{"a":1}}"#, #"[{"id":1,"x":{"a":2}},{"id":2}]"#, ["id"], LayoutOptions(), "\"shape\": \"list\""),
            (#"{"id":{"a":1},"x":{"a":1}}"#, map, ["id"], LayoutOptions(), "\"shape\": \"map\""),
            (#"{"kind":"A","metadata":{"name":"n"}}"#, #"[]"#, ["kind", "metadata.name"], LayoutOptions(), "\"op\": \"delete\""),
            (
                #"{"metadata":{"name":"n"},"spec":{"a":1}}"#, #"[]"#, ["metadata.name"], LayoutOptions(),
                "\"op\": \"delete\", \"key\": \"n\""
            ),
            (#"{"metadata":{"x":1},"spec":{"a":1}}"#, "{}", ["metadata.name"], LayoutOptions(), "\"key\": \"spec\""),
            (map, map, ["."], LayoutOptions(), "\"shape\": \"list\""),  // the whole object as its own key
            (#"{"id":1,"a":[1]}"#, #"{"id":1,"a":[2]}"#, ["id"], LayoutOptions(), "\"path\": \"/a/0\""),
            (#"{"id":1}"#, #"{"id":1}"#, ["id"], path, "there is no /m here"),
        ]
        for ext in ["json", "yaml"] {
            let spelled = try cases.map { old, new, key, options, _ in
                if ext == "json" { return (old, new, key, options) }
                // (A name given twice is no JSON a writer writes: that one is spelled here.)
                let twice = old.contains(#""a":{"x":1},"a""#)
                return (twice ? "m:\n  a: {x: 1}\n  a: {x: 2}\n" : try Self.yaml(old), try Self.yaml(new), key, options)
            }
            try Self.againstTheReference(spelled, ext: ext, in: dir) { k, _, reference in
                #expect(reference.contains(cases[k].4), "case \(k) \(ext): \(reference)")
            }
        }
        // A result of one record is written as that object again; of two, as a list.
        for (new, written) in [(#"[{"id":1,"x":2}]"#, "{\n  \"id\": 1,\n  \"x\": 2\n}\n"), (#"[{"id":1},{"id":2}]"#, "[")] {
            let old = dir.appendingPathComponent("one.json"), next = dir.appendingPathComponent("next.json")
            try #"{"id":1,"x":1}"#.write(to: old, atomically: true, encoding: .utf8)
            try new.write(to: next, atomically: true, encoding: .utf8)
            let reader = DocumentReader(key: try IdentityKey(parsing: ["id"]))
            let changeset = try FileDiffer(reader: reader).diff(old: old.path, new: next.path).changeset
            let applier = try FileApplier(changeset: changeset, old: old.path, reader: reader)
            #expect(Self.written(applier, .json).hasPrefix(written), "\(new)")
        }
    }

    /// JSON text as YAML (flow style is YAML too, but block style is what people write).
    static func yaml(_ json: String) throws -> String {
        try YAMLWriter.document(try JSONReader().read(Array(json.utf8), name: "j").0)
    }

    /// YAML as people write it: anchors and aliases (in records, as records, in keys),
    /// tags, flow style, block scalars, and its errors; the engine reads what the reader reads.
    @Test func yamlAsTheReaderReadsIt() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let base = "- id: 1\n  name: Ada\n- id: 2\n  name: Alan\n"
        let cases: [(String, String, [String], LayoutOptions)] = [
            (base, "- id: 2\n  name: Alan\n- id: 1\n  name: Ada L.\n- id: 3\n", ["id"], LayoutOptions()),
            ("- &a {id: 1, tags: [x, y]}\n- id: 2\n  tags: *t\n", "- &t [x, y]\n", ["id"], LayoutOptions()),
            ("- &r\n  id: 1\n  v: 0o14\n- *r\n", base, ["id"], LayoutOptions(path: nil)),  // the alias repeats a key
            (
                "defaults: &d {team: a}\nusers:\n  - id: 1\n    <<: *d\n  - id: 2\n    t: *d\n",
                "defaults: {team: b}\nusers:\n  - id: 2\n    t: {team: a}\n  - {id: 1, '<<': {team: a}}\n", ["id"],
                LayoutOptions(path: try FieldPath("/users"))
            ),
            (
                "- id: !!str 1\n  x: !!float 3\n- {id: 2, note: |\n    two\n    lines\n  }\n",
                "- id: \"1\"\n  x: 3.0\n- id: 2\n  note: \"two\\nlines\\n\"\n", ["id"], LayoutOptions()
            ),
            ("- id: 1\n  k: &k 5\n- id: 2\n  k: *k\n", "- id: 2\n  k: 5\n- id: 1\n  k: 6\n", ["id"], LayoutOptions()),
            ("A:\n  - id: 1\n  - id: 2\nB: []\n", "B:\n  - id: 2\nA:\n  - id: 1\n  - id: 3\n", ["id"], LayoutOptions()),
            ("- name: A\n  items:\n    - id: 1\n- name: B\n  items: []\n", "- name: B\n  items: [{id: 1}]\n", ["id"], LayoutOptions()),
            ("- user: {id: u1}\n- user: {id: u2, x: 1}\n", "- user: {id: u2, x: 2}\n", ["user.id"], LayoutOptions()),
            ("- &u {id: u1}\n- user: *u\n", "- user: {id: u1}\n", ["user.id"], LayoutOptions()),
            // Errors, in the reader's words and places.
            ("- id: 1\n  id: 2\n", base, ["id"], LayoutOptions()),
            ("- id: 1\n- id: 1\n", base, ["id"], LayoutOptions()),
            ("- id: 1\n- name: x\n", base, ["id"], LayoutOptions()),
            ("- id: *nope\n", base, ["id"], LayoutOptions()),
            ("- id: !!int abc\n", base, ["id"], LayoutOptions()),
            ("- [1, 2]: x\n", base, ["id"], LayoutOptions()),
            ("- id: 1\n---\n- id: 2\n", base, ["id"], LayoutOptions()),
            ("", base, ["id"], LayoutOptions()),
            ("- id: 1\n  a: [\n", base, ["id"], LayoutOptions()),
            ("a: 1\n", base, ["id"], LayoutOptions()),
            ("x: {y: [1]}\n", base, ["id"], LayoutOptions(path: try FieldPath("/x/z"))),
            ("x: [[1]]\n", base, ["id"], LayoutOptions(path: try FieldPath("/x/3"))),
            ("x: 5\n", base, ["id"], LayoutOptions(path: try FieldPath("/x/y"))),
            (String(repeating: "- ", count: 1002) + "1\n", base, ["id"], LayoutOptions()),
            ("a: &a [1, [2, [3]]]\nb: [[[[*a]]]]\n", base, ["id"], LayoutOptions()),
        ]
        try Self.againstTheReference(cases, ext: "yaml", in: dir) { k, duplicates, reference in
            #expect(k < 10 || reference.hasPrefix("error") || duplicates == .match, "case \(k) should fail")
        }
        // A smaller nesting limit through an alias.
        let deep = dir.appendingPathComponent("deep.yaml")
        try "a: &a [[[1]]]\nb: [*a]\n".write(to: deep, atomically: true, encoding: .utf8)
        var reader = YAMLReader()
        reader.maxDepth = 4
        let limited = { (engine: Bool) -> String in
            Self.run(deep, deep, engine: engine, key: ["id"]) { $0.reader.yaml = reader }
        }
        #expect(limited(true) == limited(false))
        #expect(limited(true).contains("nesting is deeper than the limit of 4"))
    }

    /// A YAML record is read back from its own text, in block or flow style, at any depth:
    /// the whole document is read only when a record holds an alias.
    @Test func yamlRecordsReadAlone() throws {
        let text = """
            users:
              - id: 1
                name: Ada
                note: |
                  two
                  lines
              - {id: 2, tags: [a, b], o: {x: 1}}
              - id: 3
                list:
                  - a
                  - {b: 2}
              -   id: 4
                  deep: [[1], {c: [2]}]
              - id: "5"   # a comment
            ...
            """
        let file = MappedFile(name: "in.yaml", bytes: Array(text.utf8))
        let key = try IdentityKey(parsing: ["id"])
        let options = LayoutOptions(path: try FieldPath("users"))
        let scan = YAMLScan(
            file: file, key: key, keys: KeyTrie(key)!, options: options, reader: YAMLReader(),
            keyHashing: KeyHashing(), progress: nil)
        let scanned = try scan.scan()
        let records = YAMLRecords(file: file, scanned: scanned, reader: YAMLReader(), options: options)
        let expected = try DocumentReader(format: .yaml, key: key, layout: options).parse(Array(text.utf8), name: "in.yaml").values
        #expect(records.count == expected.count)
        for r in 0..<records.count { #expect(try records.value(r).isIdentical(to: expected[r]), "record \(r)") }
        #expect(!records.readWhole)
        // With an alias to an anchor defined elsewhere, the record is still read right.
        let aliased = "a: &x {k: 1}\nusers:\n  - id: 1\n    v: *x\n"
        let file2 = MappedFile(name: "in.yaml", bytes: Array(aliased.utf8))
        let scan2 = YAMLScan(
            file: file2, key: key, keys: KeyTrie(key)!, options: options, reader: YAMLReader(),
            keyHashing: KeyHashing(), progress: nil)
        let records2 = YAMLRecords(file: file2, scanned: try scan2.scan(), reader: YAMLReader(), options: options)
        #expect(try records2.value(0) == json(#"{"id":1,"v":{"k":1}}"#))
    }

    /// A YAML record that does not read alone is taken from the whole document, found there
    /// by the layout the scan saw: in every shape, the records the reader gives.
    @Test func yamlRecordsFromTheWholeDocument() throws {
        let key = try IdentityKey(parsing: ["id"])
        let documents: [(String, LayoutOptions)] = [
            ("- {id: 1}\n- {id: 2, v: [x]}\n", LayoutOptions()),
            ("meta: 1\nusers:\n  - {id: 1}\n  - {id: 2}\n", LayoutOptions(path: try FieldPath("users"))),
            ("a:\n  - {id: 1}\nb: []\nc:\n  - {id: 2}\n  - {id: 3}\n", LayoutOptions()),
            ("- name: a\n  items: [{id: 1}]\n- name: b\n  items: [{id: 2}, {id: 3}]\n", LayoutOptions()),
            ("id: 1\nkind: lone\n", LayoutOptions()),
            ("id: 1\n---\nid: 2\n---\n", LayoutOptions()),
        ]
        for (text, options) in documents {
            let file = MappedFile(name: "in.yaml", bytes: Array(text.utf8))
            let engine = Engine(key: key, differ: Differ(), duplicates: .error, options: options)
            let side = try engine.side(file, .yaml, against: nil, KeyHashing())
            let records = try #require(side.records as? YAMLRecords)
            let expected = try DocumentReader(format: .yaml, key: key, layout: options).parse(Array(text.utf8), name: "in.yaml").values
            #expect(records.count == expected.count, "\(text)")
            for r in 0..<min(records.count, expected.count) {
                #expect(try records.fromWhole(r).isIdentical(to: expected[r]), "\(text): record \(r)")
            }
        }
    }
}

/// git names the missing side of an added or deleted file /dev/null: it reads as the other
/// input with no records, its sections and the document around them kept, so that the diff
/// is only the records inserted or deleted.
@Suite struct MissingSideTests {
    @Test func theMissingSideIsTheOtherWithNoRecords() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let documents: [(String, String, Int)] = [
            ("list.json", #"[{"id":1},{"id":2}]"#, 2),
            ("path.json", #"{"meta":{"v":1},"data":{"users":[{"id":1}]}}"#, 1),
            ("objects.json", #"{"a":[{"id":1}],"b":[],"c":[{"id":2},{"id":3}]}"#, 3),
            ("sections.json", #"[{"name":"a","note":"x","items":[{"id":1}]},{"name":"b","items":[{"id":2}]}]"#, 2),
            ("people.yaml", "- id: 1\n- id: 2\n- id: 3\n", 3),
            ("lone.yaml", "id: 1\nkind: lone\n", 1),
            ("stream.yaml", "id: 1\n---\nid: 2\n", 2),
            ("table.csv", "id,v\n1,a\n2,b\n", 2),
            ("lines.ndjson", "{\"id\":1}\n{\"id\":2}\n", 2),
        ]
        for (name, text, count) in documents {
            let path = dir.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let layout = name == "path.json" ? LayoutOptions(path: try FieldPath("/data/users")) : LayoutOptions()
            var files = FileDiffer(reader: DocumentReader(key: try IdentityKey(parsing: ["id"]), layout: layout))
            files.emptyPaths = ["/dev/null"]
            let added = try files.diff(old: "/dev/null", new: path).changeset
            #expect(added.summary == Changeset.Summary(inserted: count), "\(name)")
            #expect(added.sections.isEmpty, "\(name)")
            let deleted = try files.diff(old: path, new: "/dev/null").changeset
            #expect(deleted.summary == Changeset.Summary(deleted: count), "\(name)")
            #expect(deleted.sections.isEmpty, "\(name)")
        }
    }
}
