import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

@Suite struct FingerprintTests {
    /// Equal values, equal fingerprints; different values, different ones.
    @Test func followsValueEquality() throws {
        let f = { (text: String) throws -> String in Fingerprint.of(try json(text)) }
        #expect(try f(#"{"a":1,"b":[1.0,"x"]}"#) == f(#"{"b":[1,"x"],"a":1e0}"#))
        #expect(try f("[1]") != f(#"["1"]"#))
        #expect(try f("[true]") != f("[1]"))
        #expect(try f("[null]") != f("[]"))
        #expect(try f(#"["ab","c"]"#) != f(#"["a","bc"]"#))
        #expect(try f(#"[["a"],[]]"#) != f(#"[[],["a"]]"#))
        #expect(try f(#"{"é":1}"#) != f(#"{"e\u0301":1}"#))  // NFC and NFD keys are different keys
        #expect(try f("[12345678901234567890]") != f("[12345678901234567891]"))
        #expect(try f("[-0]") == f("[0]"))
        // Plain integers take a shortcut; it must agree with the exact decimal value.
        #expect(try f("[10, -120, 7]") == f("[1e1, -1.2e2, 7.000]"))
        #expect(try f("[100]") != f("[10]"))
        #expect(try f(#"{"a":1}"#) == f(#"{"a":1.0}"#))
        #expect(try f("[1]").hasPrefix("h128:"))
        #expect(try f("[1]").count == 5 + 32)
    }
}

@Suite struct ApplyTests {
    static let key = try! IdentityKey(parsing: [])

    static func changesetJSON(_ changeset: Changeset) throws -> String {
        var out = StringStream()
        try JSONChangesetRenderer(context: RenderContext(oldName: "old.json", newName: "new.json")).render(changeset, to: &out)
        return out.text
    }

    static func diff(_ old: Document, _ new: Document, _ differ: Differ = Differ()) throws -> Changeset {
        var changeset = try differ.diff(old: old, new: new, key: key)
        changeset.fingerprints = .init(old: Fingerprint.of(old.root), new: Fingerprint.of(new.root))
        return changeset
    }

    /// Reverses the members of some records, so that member order is exercised too.
    static func shuffleMembers(_ values: [Value], _ rng: inout SplitMix64) -> [Value] {
        values.map { value in
            guard Int.random(in: 0..<5, using: &rng) == 0, case .object(var o) = value else { return value }
            o.members.reverse()
            return .object(o)
        }
    }

    /// As jd tests itself: random pairs, every algorithm and both machine formats, rendered,
    /// parsed back and applied, give the new document, every time.
    @Test(arguments: AlgorithmContractTests.names)
    func roundTrip(name: String) throws {
        var generator = RecordListGenerator(rng: SplitMix64(seed: 2718))
        var rng = SplitMix64(seed: 1414)
        var cases = 0
        for order in Differ.MemberOrder.allCases {
            let differ = Differ(algorithm: AlgorithmContractTests.algorithms[name]!, memberOrder: order)
            for _ in 0..<1000 {
                let (o, n) = generator.pair()
                let old = try document(o), new = try document(Self.shuffleMembers(n, &rng))
                let changeset = try Self.diff(old, new, differ)
                // JSON changeset: render, read back, apply to the old document.
                let text = try Self.changesetJSON(changeset)
                let read = try ChangesetReader().read(Array(text.utf8), name: "changeset.json")
                let result = try read.apply(to: old)
                #expect(result == new.root)
                #expect(Fingerprint.of(result) == read.fingerprints?.new)
                if order == .significant {
                    #expect(result.isIdentical(to: new.root), "members must come in the new file's order")
                }
                // JSON Patch: render, parse, apply with the RFC's own rules.
                #expect(try RFC6902.apply(JSONPatchTests.patch(changeset), to: old.root) == new.root)
                cases += 2
            }
        }
        #expect(cases == 4000)
    }

    @Test func diffOfADocumentWithItselfIsEmptyAndApplies() throws {
        var generator = RecordListGenerator(rng: SplitMix64(seed: 99))
        for _ in 0..<200 {
            let x = try document(generator.pair().old)
            for order in Differ.MemberOrder.allCases {
                let changeset = try Self.diff(x, x, Differ(memberOrder: order))
                #expect(changeset.isEmpty)
                #expect(changeset.fingerprints?.old == changeset.fingerprints?.new)
                let read = try ChangesetReader().read(Array(Self.changesetJSON(changeset).utf8), name: "c.json")
                #expect(try read.apply(to: x).isIdentical(to: x.root))
            }
        }
    }

    @Test func memberOrderIsAnUpdateOnlyWhenSignificant() throws {
        let old = try document([json(#"{"id":1,"a":1,"b":2}"#)])
        let new = try document([json(#"{"b":2,"id":1,"a":1}"#)])
        #expect(try Differ().diff(old: old, new: new, key: Self.key).isEmpty)
        let significant = try Differ(memberOrder: .significant).diff(old: old, new: new, key: Self.key)
        #expect(significant.summary.updated == 1)
        #expect(significant.changes.first?.fields == [])
        let patch = try RendererTests.render(PatchRenderer(context: RendererTests.people), significant)
        #expect(patch.contains("~ id=1 (member order)\n"))
    }

    // MARK: refusals, each with its reason and place

    static let peopleChangeset: String = {
        let c = try! RendererTests.changeset("people-old.json", "people-new.json")
        return try! changesetJSON(c)
    }()

    static func refusal(_ text: String, old: Document? = nil) throws -> ListDiffError? {
        try refusal(bytes: Array(text.utf8), old: old)
    }

    static func refusal(bytes text: [UInt8], old: Document? = nil) throws -> ListDiffError? {
        let oldDocument =
            try old
            ?? DocumentReader(key: key).parse(
                try bytes(Paths.repository.appendingPathComponent("Examples/people-old.json")), name: "people-old.json")
        func refusal(_ read: (ChangesetReader) throws(ListDiffError) -> Changeset) -> ListDiffError? {
            do {
                _ = try read(ChangesetReader()).apply(to: oldDocument)
                return nil
            } catch {
                return error
            }
        }
        let whole = refusal { reader throws(ListDiffError) in try reader.read(text, name: "c.json") }
        // The read for apply refuses alike, at the same place.
        let forApply = refusal { reader throws(ListDiffError) in try reader.readForApply(text, name: "c.json") }
        #expect(forApply?.description == whole?.description)
        return whole
    }

    static func edited(_ from: String, _ to: String) -> String {
        precondition(peopleChangeset.contains(from), from)
        return peopleChangeset.replacingOccurrences(of: from, with: to)
    }

    @Test func refusesForeignChangesets() throws {
        #expect(try Self.refusal(Self.peopleChangeset) == nil)
        let next = ChangesetReader.schemaVersion + 1
        #expect(
            try Self.refusal(Self.edited(#""version": 1"#, #""version": \#(next)"#))?.description
                == "c.json:2:14: error: unsupported changeset version \(next); this listdiff reads versions 1 to \(next - 1)")
        #expect(
            try Self.refusal("[]")?.description
                == "c.json:1:1: error: a changeset is a JSON object (made by listdiff --format json); this is an array")
        #expect(try Self.refusal(#"{"version": 1}"#)?.description == #"c.json:1:1: error: the changeset has no "key" member"#)
        #expect(
            try Self.refusal(Self.edited(#""op": "move""#, #""op": "swap""#))?.description
                == #"c.json:17:12: error: unknown op "swap"; expected "delete", "insert", "move", "update" or "rename""#)
        #expect(
            try Self.refusal(Self.edited(#""old": [0, 1], "new": [0, 3]"#, #""old": [0, 1], "new": [0, "3"]"#))?.description
                == #"c.json:17:52: error: "new" must be a position [section, index] of two whole numbers ≥ 0"#)
        #expect(
            try Self.refusal(Self.edited(#""old": [0, 1], "new": [0, 3]"#, #""new": [0, 3]"#))?.description
                == #"c.json:17:5: error: the move has no "old" position"#)
        #expect(
            try Self.refusal(Self.edited(#"{"op": "delete", "key": 4, "old": [0, 3]"#, #"{"op": "delete", "key": 4, "old": [0, 70]"#))?
                .description
                == "c.json:15:5: error: the delete names old position [0, 70], beyond the old file's 7 records")
    }

    @Test func readsForApplyWithoutWhatApplyDoesNotRead() throws {
        let text = Array(Self.peopleChangeset.utf8)
        let whole = try ChangesetReader().read(text, name: "c.json")
        let quick = try #require(ChangesetReader().quickRead(text, name: "c.json"), "a changeset listdiff wrote is read quickly")
        #expect(quick.changes.count == whole.changes.count)
        #expect(whole.changes.contains { $0.operation == .delete } && whole.changes.contains { !$0.fields.isEmpty })
        for (q, w) in zip(quick.changes, whole.changes) {
            #expect(q.operation == w.operation && q.key == w.key && q.old == w.old && q.new == w.new)
            // A delete's record and an update's fields are left out; the records apply places are kept.
            #expect(try q.value() == (w.operation == .delete ? nil : w.value()))
            #expect(q.fields.isEmpty)
        }
        #expect(quick.summary == whole.summary)
        #expect(quick.fingerprints == whole.fingerprints)
        #expect(quick.origin?.changeOffsets == whole.origin?.changeOffsets)
    }

    @Test func readsForApplyRefusingWhatItLeavesOutAsTheWholeReadDoes() throws {
        let delete = #"{"op": "delete", "key": 4, "old": [0, 3], "value": "#
        let update = #"{"op": "update", "key": 3, "old": [0, 2], "new": [0, 1], "fields": "#
        for (from, to) in [
            (delete, delete + #"{"id": 4, "a": [1,]}, "x": "#),  // a syntax error in a record left out
            (delete, delete + #"{"id": 4, "a": 1, "a": 2}, "x": "#),  // a name given twice
            (delete, delete + String(repeating: "[", count: 1100) + String(repeating: "]", count: 1100) + #", "x": "#),  // too deep
            (update, update + #"{"path": "/a"}, "x": "#),  // fields not a list
            (update, update + #"[{"old": 1}], "x": "#),  // a field without a path
            (update, update + #"[{"path": 1}], "x": "#),  // a path not a string
            (#""stages": ["#, #""stages": [{"stage": 1, "stage": 2}, "#),  // the stages, which apply does not read
        ] {
            let edited = Self.edited(from, to)
            #expect(ChangesetReader().quickRead(Array(edited.utf8), name: "c.json") == nil)
            #expect(try Self.refusal(edited) != nil)
        }
    }

    /// Bytes edited at random, each changeset read both ways: the same result or the same
    /// error, at the same place.
    @Test func readsForApplyAsTheWholeReadDoesAfterRandomEdits() throws {
        let text = Array(Self.peopleChangeset.utf8)
        let bytes = Array(#"{}[],:"0129-.e\u"#.utf8) + [0x20, 0x0A, 0x80, 0xFF]
        var rng = SplitMix64(seed: 33)
        var refused = 0
        for _ in 0..<2000 {
            var edited = text
            let i = Int.random(in: 0..<edited.count, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: edited.remove(at: i)
            case 1: edited.insert(bytes.randomElement(using: &rng)!, at: i)
            default: edited[i] = bytes.randomElement(using: &rng)!
            }
            if try Self.refusal(bytes: edited) != nil { refused += 1 }
        }
        // (Most edits break the changeset; some leave it as good.)
        #expect(refused > 1000 && refused < 2000)
    }

    @Test func refusesPositionsUsedTwiceOrOutOfPlace() throws {
        // Another record's place: its key says so.
        #expect(
            try Self.refusal(Self.edited(#""key": 4, "old": [0, 3]"#, #""key": 4, "old": [0, 4]"#))?.description
                == "c.json:15:5: error: the delete of id=4 names old position 4, which holds id=5: the changeset was not made from this file"
        )
        // The moved record deleted too.
        #expect(
            try Self.refusal(Self.edited(#"{"op": "delete", "key": 4, "old": [0, 3]"#, #"{"op": "delete", "key": 2, "old": [0, 1]"#))?
                .description
                == "c.json:17:5: error: old position [0, 1] is deleted or moved twice")
        // Two records into one place.
        #expect(
            try Self.refusal(Self.edited(#""key": 2, "old": [0, 1], "new": [0, 3]"#, #""key": 2, "old": [0, 1], "new": [0, 5]"#))?
                .description
                == "c.json:19:5: error: new position [0, 5] is filled twice (also by change 3)")
        // A place beyond the end.
        #expect(
            try Self.refusal(Self.edited(#""key": 2, "old": [0, 1], "new": [0, 3]"#, #""key": 2, "old": [0, 1], "new": [0, 9]"#))?
                .description
                == "c.json:17:5: error: new position [0, 9] is beyond the end of the new list (7 records)")
    }
}

@Suite struct YAMLWriterTests {
    /// Strings that a careless writer would let YAML read as something else.
    static let tricky: [String] = [
        "", "true", "False", "null", "~", "NULL", "1", "-1.5", "1e3", "0x1F", "0o17", ".inf", "-.Inf", ".nan",
        " lead", "trail ", "a: b", "- x", "#x", "x #y", "[1]", "{a}", "*a", "&a", "!tag", "%x", "@x", "`x",
        "|", ">", "'", "\"", "line\nbreak", "tab\there", "ünïcödé ✓", "\u{1}", "---", "...", "? x", "yes", "no",
    ]

    @Test func roundTripsTrickyValues() throws {
        var members = Self.tricky.enumerated().map { Object.Member(key: $1, value: .string($1)) }
        members.append(
            .init(
                key: "numbers",
                value: [
                    1, .number(Number(text: "1.50")), .number(Number(text: "-2e-5")),
                    .number(Number(text: ".inf")), .number(Number(text: ".nan")),
                ]))
        members.append(.init(key: "empty", value: .array([])))
        members.append(.init(key: "emptyObject", value: .object(Object())))
        members.append(.init(key: "nested", value: [[nil, true, false], .object(Object([.init(key: "k", value: "v")]))]))
        let value = Value.array([.object(Object(members)), .string("plain"), .number(Number(text: "12345678901234567890"))])
        let text = try YAMLWriter.document(value)
        let (read, _) = try YAMLReader().read(Array(text.utf8), name: "out.yaml")
        #expect(read.isIdentical(to: value), "\(text)")
    }

    @Test func writesBlockStyle() throws {
        let text = try YAMLWriter.document(try json(#"[{"id":1,"name":"Ada","tags":["x","true"]}]"#))
        #expect(
            text == """
                - id: 1
                  name: Ada
                  tags:
                  - x
                  - "true"

                """)
    }
}
