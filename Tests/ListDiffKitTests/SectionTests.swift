import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Random sectioned documents: a list of section objects or an object of lists, with
/// records that move between sections, sections inserted, deleted, moved and updated.
struct SectionedGenerator {
    var rng: SplitMix64
    var records: RecordListGenerator

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
        records = RecordListGenerator(rng: SplitMix64(seed: seed &+ 1))
    }

    typealias Sections = [(name: String, header: Int, records: [Value])]

    mutating func pair() -> (old: Sections, new: Sections) {
        let sectionCount = Int.random(in: 0...5, using: &rng)
        var nextID = 0
        var old: Sections = []
        for s in 0..<sectionCount {
            let n = Int.random(in: 0...6, using: &rng)
            old.append(
                (
                    "S\(s)", Int.random(in: 0...1, using: &rng),
                    (0..<n).map { _ in
                        nextID += 1; return records.record(id: nextID)
                    }
                ))
        }
        var new = old
        for _ in 0..<Int.random(in: 0...8, using: &rng) {
            switch Int.random(in: 0..<9, using: &rng) {
            case 0 where !new.isEmpty: new.remove(at: Int.random(in: 0..<new.count, using: &rng))  // section delete
            case 1: new.insert(("N\(nextID)", 0, []), at: Int.random(in: 0...new.count, using: &rng)); nextID += 1
            case 2 where !new.isEmpty:  // section move
                let s = new.remove(at: Int.random(in: 0..<new.count, using: &rng))
                new.insert(s, at: Int.random(in: 0...new.count, using: &rng))
            case 3 where !new.isEmpty: new[Int.random(in: 0..<new.count, using: &rng)].header += 1
            case 4 where !new.isEmpty:  // insert a record
                let s = Int.random(in: 0..<new.count, using: &rng)
                nextID += 1
                new[s].records.insert(records.record(id: nextID), at: Int.random(in: 0...new[s].records.count, using: &rng))
            case 5, 6:  // move a record, maybe to another section
                let from = (0..<new.count).filter { !new[$0].records.isEmpty }
                guard let s = from.randomElement(using: &rng) else { break }
                let r = new[s].records.remove(at: Int.random(in: 0..<new[s].records.count, using: &rng))
                let t = Int.random(in: 0..<new.count, using: &rng)
                new[t].records.insert(r, at: Int.random(in: 0...new[t].records.count, using: &rng))
            case 7:  // delete a record
                let from = (0..<new.count).filter { !new[$0].records.isEmpty }
                guard let s = from.randomElement(using: &rng) else { break }
                new[s].records.remove(at: Int.random(in: 0..<new[s].records.count, using: &rng))
            case 8:  // update a record
                let from = (0..<new.count).filter { !new[$0].records.isEmpty }
                guard let s = from.randomElement(using: &rng) else { break }
                let i = Int.random(in: 0..<new[s].records.count, using: &rng)
                guard case .object(let o) = new[s].records[i], case .number(let n)? = o["id"] else { break }
                new[s].records[i] = records.record(id: Int(n.text)!)
            default: break
            }
        }
        return (old, new)
    }

    static func listOfSections(_ sections: Sections) -> Value {
        .array(
            sections.map { s in
                // The records list first, in the middle or last: apply must keep it where it was.
                var members: [Object.Member] = [
                    .init(key: "name", value: .string(s.name)), .init(key: "open", value: .number(Number(exactly: s.header))),
                ]
                members.insert(.init(key: "items", value: .array(s.records)), at: s.name.count % 3)
                return .object(Object(members))
            })
    }

    static func objectOfLists(_ sections: Sections) -> Value {
        .object(Object(sections.map { .init(key: $0.name, value: .array($0.records)) }))
    }
}

func sectionedDocument(_ root: Value, name: String = "mem.json", options: LayoutOptions = LayoutOptions()) throws -> Document {
    var text = ""
    JSONWriter.write(root, to: &text)
    let (parsed, source) = try JSONReader().read(Array(text.utf8), name: name)
    return try Document.keyed(parsed, source: source, key: try IdentityKey(parsing: []), options: options)
}

/// UIKit's batch-update rules, written from its documentation, independent of listdiff's
/// apply: a batch's deletes and reloads name positions before it, inserts positions after
/// it, moves go from before to after; sections first, then rows.
struct BatchSimulator {
    struct Violation: Error, CustomStringConvertible { let description: String }

    var names: [String]
    var rows: [[String]]

    static func id(_ key: Value) -> String { JSONWriter.compact(key) }

    mutating func perform(_ stage: Stage) throws {
        func fail(_ s: String) -> Violation { Violation(description: "\(stage.kind.rawValue): \(s)") }
        // Sections.
        var sectionGone = Set<Int>(), sectionDeleted = Set<Int>(), sectionPlaced: [Int: Int?] = [:]  // new -> old (nil: inserted)
        for op in stage.sections {
            switch op.operation {
            case .update:
                guard let s = op.old, s < names.count, names[s] == Self.id(op.name) else { throw fail("reload of a section not there") }
            case .delete, .move:
                guard let s = op.old, s < names.count, names[s] == Self.id(op.name) else {
                    throw fail("section \(op.name) not at \(op.old ?? -1)")
                }
                guard sectionGone.insert(s).inserted else { throw fail("section \(s) deleted or moved twice") }
                if op.operation == .delete { sectionDeleted.insert(s) }
                if op.operation == .move {
                    guard sectionPlaced.updateValue(s, forKey: op.new!) == nil else { throw fail("section slot twice") }
                }
            case .insert:
                guard sectionPlaced.updateValue(nil, forKey: op.new!) == nil else { throw fail("section slot twice") }
            case .rename:
                throw fail("a section is renamed")
            }
        }
        let sectionCount = names.count - sectionGone.count + sectionPlaced.count
        guard sectionPlaced.keys.allSatisfy({ $0 < sectionCount }) else { throw fail("section index beyond the end") }
        var origin: [Int?] = []
        var remaining = (0..<names.count).filter { !sectionGone.contains($0) }.makeIterator()
        var newNames: [String] = []
        for t in 0..<sectionCount {
            if let o = sectionPlaced[t] { origin.append(o) } else { origin.append(remaining.next()!) }
            newNames.append(origin[t].map { names[$0] } ?? Self.id(stage.sections.first { $0.new == t && $0.operation == .insert }!.name))
        }
        // Rows.
        var removed = Set<RecordPosition>(), reloaded = Set<RecordPosition>()
        var placed: [RecordPosition: String] = [:]
        func check(_ p: RecordPosition?, _ key: Value) throws -> RecordPosition {
            guard let p, p.section < rows.count, p.index < rows[p.section].count else {
                throw fail("\(key) at \(String(describing: p)) is out of range")
            }
            guard rows[p.section][p.index] == Self.id(key) else { throw fail("\(key) is not at \(p)") }
            return p
        }
        for change in stage.changes {
            switch change.operation {
            case .update:
                reloaded.insert(try check(change.old, change.key))
            case .delete, .move:
                let p = try check(change.old, change.key)
                guard !sectionDeleted.contains(p.section), !(sectionGone.contains(p.section) && change.operation == .delete) || true else {
                    throw fail("row of a deleted section")
                }
                if sectionDeleted.contains(p.section) { throw fail("row \(p) of a deleted section is deleted or moved too") }
                guard removed.insert(p).inserted else { throw fail("\(p) deleted or moved twice") }
                if change.operation == .move {
                    guard let n = change.new, placed.updateValue(Self.id(change.key), forKey: n) == nil else {
                        throw fail("new position twice")
                    }
                }
            case .insert:
                guard let n = change.new, placed.updateValue(Self.id(change.key), forKey: n) == nil else {
                    throw fail("new position twice")
                }
            case .rename:
                throw fail("a batch holds a rename, which UIKit does not know")
            }
        }
        guard reloaded.isDisjoint(with: removed) else { throw fail("a reloaded row is deleted or moved in the same batch") }
        var newRows: [[String]] = []
        for t in 0..<sectionCount {
            let staying =
                origin[t].map { s in rows[s].indices.filter { !removed.contains(RecordPosition(section: s, index: $0)) }.map { rows[s][$0] }
                } ?? []
            let incoming = placed.filter { $0.key.section == t }
            let count = staying.count + incoming.count
            guard incoming.keys.allSatisfy({ $0.index < count }) else { throw fail("row beyond the end of section \(t)") }
            var it = staying.makeIterator()
            newRows.append((0..<count).map { j in incoming[RecordPosition(section: t, index: j)] ?? it.next()! })
        }
        guard placed.keys.allSatisfy({ $0.section < sectionCount }) else { throw fail("row in a section that does not exist") }
        names = newNames
        rows = newRows
    }
}

@Suite struct SectionTests {
    static func ids(_ document: Document) -> (names: [String], rows: [[String]]) {
        (
            document.sections.map { BatchSimulator.id($0.name ?? .null) },
            document.sections.map { s in document.records[s.records].map { BatchSimulator.id($0.key) } }
        )
    }

    /// Every algorithm, both sectioned shapes: the changeset read back and applied gives the
    /// new document, and its stages, each checked by the batch simulator, lead to it too.
    @Test(arguments: AlgorithmContractTests.names)
    func changesetsAndStagesApply(name: String) throws {
        var generator = SectionedGenerator(seed: 4242)
        let differ = Differ(algorithm: AlgorithmContractTests.algorithms[name]!, memberOrder: .significant)
        var crossSectionMoves = 0, sectionOps = 0
        for n in 0..<1500 {
            let (o, w) = generator.pair()
            let shape = n % 2 == 0 ? SectionedGenerator.listOfSections : SectionedGenerator.objectOfLists
            guard !o.isEmpty || n % 2 == 1 else { continue }  // an empty list is a plain list
            let old = try sectionedDocument(shape(o), options: LayoutOptions(items: n % 2 == 0 ? "items" : nil))
            let new = try sectionedDocument(shape(w), options: LayoutOptions(items: n % 2 == 0 ? "items" : nil))
            let changeset = try ApplyTests.diff(old, new, differ)
            let text = try ApplyTests.changesetJSON(changeset)
            let read = try ChangesetReader().read(Array(text.utf8), name: "c.json")
            let result = try read.apply(to: old)
            #expect(result.isIdentical(to: new.root), "case \(n): \(text)")

            var simulator = BatchSimulator(names: Self.ids(old).names, rows: Self.ids(old).rows)
            for stage in changeset.stages {
                do { try simulator.perform(stage) } catch { Issue.record("case \(n): \(error)\n\(text)"); break }
            }
            #expect(simulator.names == Self.ids(new).names && simulator.rows == Self.ids(new).rows, "case \(n): \(text)")
            crossSectionMoves += changeset.changes.filter { $0.operation == .move && $0.old?.section != $0.new?.section }.count
            sectionOps += changeset.sections.count
        }
        #expect(crossSectionMoves > 300 && sectionOps > 1000)  // the generator reaches what it should
    }

    /// Plain lists go through the same stages.
    @Test func stagesOfPlainLists() throws {
        var generator = RecordListGenerator(rng: SplitMix64(seed: 77))
        for _ in 0..<1000 {
            let (o, n) = generator.pair()
            let old = try document(o), new = try document(n)
            let changeset = try Differ().diff(old: old, new: new, key: ApplyTests.key)
            var simulator = BatchSimulator(names: ["null"], rows: [old.records.map { BatchSimulator.id($0.key) }])
            for stage in changeset.stages { try simulator.perform(stage) }
            #expect(simulator.rows == [new.records.map { BatchSimulator.id($0.key) }])
        }
    }

    /// The batch simulator is not a pushover: it catches what UIKit would reject.
    @Test func simulatorRejectsInvalidBatches() {
        func run(_ changes: [Change], sections: [SectionChange] = []) -> Bool {
            var sim = BatchSimulator(names: ["\"a\"", "\"b\""], rows: [["1", "2"], ["3"]])
            return (try? sim.perform(Stage(kind: .insertsAndMoves, sections: sections, changes: changes))) != nil
        }
        let p = { (s: Int, i: Int) in RecordPosition(section: s, index: i) }
        #expect(run([Change(.move, key: 1, old: p(0, 0), new: p(1, 1))]))
        #expect(!run([Change(.delete, key: 2, old: p(0, 0))]))  // wrong key at the place
        #expect(!run([Change(.delete, key: 1, old: p(0, 0)), Change(.move, key: 1, old: p(0, 0), new: p(1, 0))]))
        #expect(!run([Change(.update, key: 1, old: p(0, 0)), Change(.move, key: 1, old: p(0, 0), new: p(1, 0))]))
        #expect(!run([Change(.insert, key: 9, new: p(0, 5))]))  // beyond the end
        #expect(!run([Change(.delete, key: 3, old: p(1, 0))], sections: [SectionChange(.delete, name: "b", old: 1)]))
    }

    @Test func findsEveryShape() throws {
        let list = try sectionedDocument(json(#"[{"id":1},{"id":2}]"#))
        #expect(list.layout == Layout() && list.sections.count == 1)
        let object = try sectionedDocument(json(#"{"a":[{"id":1}],"b":[]}"#))
        #expect(object.layout.shape == .objectOfLists)
        #expect(object.sections.map(\.name) == ["a", "b"])
        #expect(object.records[0].position == RecordPosition(section: 0, index: 0))
        let sections = try sectionedDocument(json(#"[{"title":"x","rows":[{"id":1},{"id":2}]},{"title":"y","rows":[{"id":3}]}]"#))
        #expect(sections.layout.shape == .sectionList(sectionKey: "title", items: "rows"))
        #expect(sections.records[2].position == RecordPosition(section: 1, index: 0))
        #expect(sections.sections[1].header == (try json(#"{"title":"y","rows":[]}"#)))
        // Records that hold lists stay records: they have the key.
        let orders = try sectionedDocument(json(#"[{"id":1,"items":[1,2]},{"id":2,"items":[]}]"#))
        #expect(orders.layout == Layout())
        let nested = try sectionedDocument(
            json(#"{"meta":{"n":1},"data":{"users":[{"id":1}]}}"#),
            options: LayoutOptions(path: try FieldPath("/data/users")))
        #expect(nested.layout == Layout(path: try FieldPath("/data/users")))
        #expect(nested.records.count == 1)
        #expect(nested.layout.description == "a list of records at /data/users")
    }

    @Test func refusesWhatIsNotSections() throws {
        func message(_ text: String, _ options: LayoutOptions = LayoutOptions()) -> String {
            do {
                _ = try sectionedDocument(try json(text), name: "s.json", options: options)
                return "accepted"
            } catch {
                return "\(error)" + ((error as? ListDiffError)?.hint.map { " (hint: \($0))" } ?? "")
            }
        }
        #expect(
            message(#"{"a":[{"id":1}],"a2":[{"id":1}]}"#).hasPrefix("s.json:1:23: error: duplicate key id=1 (records [0, 0] and [1, 0]"))
        #expect(
            message(#"[{"name":"x","items":[]},{"name":"x","items":[]}]"#)
                == "s.json:1:26: error: two sections are named \"x\" (sections 0 and 1); section names must be unique")
        #expect(
            message(#"[{"items":[]},{"items":[]}]"#).hasSuffix(
                "share no name field (tried name, title, section, header, label, key, id) (hint: sectionKey)"))
        #expect(
            message(#"[{"name":"x","items":[1]}]"#, LayoutOptions(items: "rows")) == "s.json:1:2: error: section \"x\" has no \"rows\" list"
        )
        let missing = message(#"{"data":[]}"#, LayoutOptions(path: try FieldPath("/data/users")))
        #expect(missing == "s.json:1:9: error: there is no /data/users here: no index users in a list of 0", "\(missing)")
        #expect(
            message(#"[{"name":"x","items":[{"id":1},{"nope":2}]}]"#)
                == "s.json:1:32: error: record 1 of section \"x\" has no key field 'id'")
    }

    @Test func documentsOfDifferentShapesAreRefused() throws {
        let list = try sectionedDocument(json(#"[{"id":1}]"#), name: "a.json")
        let object = try sectionedDocument(json(#"{"s":[{"id":1}]}"#), name: "b.json")
        #expect(
            throws: ListDiffError(
                .shape, "a.json holds a list of records, b.json holds sections as an object of lists; both must have one shape")
        ) {
            try Differ().diff(old: list, new: object, key: ApplyTests.key)
        }
    }

    @Test func goldens() throws {
        let reader = DocumentReader(key: try IdentityKey(parsing: []))
        let examples = Paths.repository.appendingPathComponent("Examples")
        for (old, new, golden) in [
            ("people-sections-old.yaml", "people-sections-new.yaml", "people-sections"), ("teams-old.json", "teams-new.json", "teams"),
        ] {
            let o = try reader.parse(try bytes(examples.appendingPathComponent(old)), name: old)
            let n = try reader.parse(try bytes(examples.appendingPathComponent(new)), name: new)
            var c = try Differ().diff(old: o, new: n, key: try IdentityKey(parsing: []))
            // As the command does: both fingerprints, and how OLD was read.
            c.fingerprints = .init(old: Fingerprint.of(o.diffed), new: Fingerprint.of(n.diffed))
            reader.record(oldFormat: reader.format(for: old, bytes: []), in: &c.layout)
            let context = RenderContext(oldName: old, newName: new)
            try assertGolden(RendererTests.render(PatchRenderer(context: context), c), golden + ".patch")
            try assertGolden(RendererTests.render(JSONChangesetRenderer(context: context), c), golden + ".json")
        }
    }
}
