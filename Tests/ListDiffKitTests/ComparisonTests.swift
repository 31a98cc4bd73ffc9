import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

extension Comparison {
    /// The record as the rules see it, for hashing: left-out paths removed, strings folded,
    /// unordered arrays sorted, numbers under a tolerance replaced by one placeholder.
    func projected(_ record: Value) -> Value {
        guard comparesContent else { return record }
        var path: [String] = []
        return project(record, &path)
    }
}

/// Comparison rules: the pieces (paths, decimals, strings, multisets), and random pairs in
/// every layout and format diffed under random rules, checked against the reference differ
/// and against a plain diff of the records projected through the rules, then applied.
@Suite struct ComparisonTests {
    static func pattern(_ s: String) -> Comparison.Pattern { try! Comparison.Pattern(s) }

    static func value(_ json: String) -> Value { try! JSONReader().read(Array(json.utf8), name: "test").0 }

    // MARK: Pieces

    @Test func patternsMatchAtAndBelowTheirPath() {
        let tags = Self.pattern("/tags/*/updated")
        #expect(tags.covers(["tags", "3", "updated"]))
        #expect(tags.covers(["tags", "0", "updated", "by"]))
        #expect(!tags.covers(["tags", "3", "name"]))
        #expect(!tags.covers(["tags"]))
        #expect(tags.leadsTo(["tags", "7"]))
        #expect(Self.pattern("/").covers(["anything"]))
        #expect(Self.pattern("/a~1b").segments == ["a/b"])
        #expect(throws: ListDiffError.self) { try Comparison.Pattern("updated_at") }
    }

    @Test func tolerancesCompareDecimalsExactly() {
        func within(_ a: String, _ b: String, abs: String? = nil, rel: String? = nil) -> Bool {
            DecimalTolerance.within(
                Number(text: a), Number(text: b), absolute: abs.map(Number.init(text:)), relative: rel.map(Number.init(text:)))
        }
        // 0.3 - 0.1 is 0.2 exactly: through Double it is 0.19999999999999998.
        #expect(within("0.3", "0.1", abs: "0.2"))
        #expect(!within("0.3", "0.1", abs: "0.19999999999999999"))
        #expect(within("-0.05", "0.05", abs: "0.1"))
        #expect(!within("-0.05", "0.06", abs: "0.1"))
        // Integers beyond a Double's 53 bits.
        #expect(within("9007199254740993", "9007199254740992", abs: "1"))
        #expect(!within("9007199254740993", "9007199254740991", abs: "1"))
        #expect(within("100", "101", rel: "0.01"))
        #expect(!within("100", "102", rel: "0.01"))
        #expect(within("1e3", "1000.4", abs: "0.5"))
        #expect(within("7", "7", abs: "0"))
        #expect(!within("7", "7.0001", abs: "0"))
        // Far apart in scale: compared exactly, never a long computation.
        #expect(!within("1e-90000", "1e90000", abs: "1"))
    }

    @Test func stringsFoldCaseAndWhitespace() {
        var rules = Comparison()
        rules.ignoreWhitespace = [Self.pattern("/name")]
        rules.ignoreCase = [Self.pattern("/email")]
        #expect(rules.same(Self.value(#"{"name":"  Ada \t Lovelace\n"}"#), Self.value(#"{"name":"Ada Lovelace"}"#)))
        #expect(!rules.same(Self.value(#"{"name":"AdaLovelace"}"#), Self.value(#"{"name":"Ada Lovelace"}"#)))
        #expect(rules.same(Self.value(#"{"email":"ADA@X.ORG"}"#), Self.value(#"{"email":"ada@x.org"}"#)))
        // Case is folded under /email only.
        #expect(!rules.same(Self.value(#"{"name":"ADA"}"#), Self.value(#"{"name":"ada"}"#)))
    }

    @Test func unorderedArraysNameWhatWasAddedAndRemoved() throws {
        var rules = Comparison()
        rules.unorderedArrays = [Self.pattern("/tags")]
        #expect(rules.same(Self.value(#"{"tags":["a","b","a"]}"#), Self.value(#"{"tags":["a","a","b"]}"#)))
        let changes = try rules.changes(old: Self.value(#"{"tags":["a","b","a"]}"#), new: Self.value(#"{"tags":["b","c","a"]}"#))
        #expect(changes.count == 1)
        #expect(changes.first?.path == "/tags")
        #expect(changes.first?.added == [.string("c")])
        #expect(changes.first?.removed == [.string("a")])
        // Arrays elsewhere keep their order.
        #expect(!rules.same(Self.value(#"{"other":[1,2]}"#), Self.value(#"{"other":[2,1]}"#)))
    }

    @Test func ignoredAndOnlyPathsLeaveFieldsOut() throws {
        var rules = Comparison()
        rules.ignore = [Self.pattern("/meta/*")]
        let changes = try rules.changes(
            old: Self.value(#"{"id":1,"meta":{"at":1,"by":"x"},"v":1}"#), new: Self.value(#"{"id":1,"meta":{"at":2},"v":2}"#))
        #expect(changes.map(\.path) == ["/v"])
        var only = Comparison()
        only.only = [Self.pattern("/meta/by")]
        let onlyChanges = try only.changes(
            old: Self.value(#"{"id":1,"meta":{"at":1,"by":"x"},"v":1}"#), new: Self.value(#"{"id":1,"meta":{"at":2,"by":"y"},"v":2}"#))
        #expect(onlyChanges.map(\.path) == ["/meta/by"])
        // The hash follows the rules: records the same under them hash alike.
        #expect(
            CanonicalHash.of(rules.projected(Self.value(#"{"id":1,"meta":{"at":1},"v":1}"#)))
                == CanonicalHash.of(rules.projected(Self.value(#"{"v":1,"id":1,"meta":{"at":9}}"#))))
    }

    /// Under `--unordered` each list is hashed as a bag: any order gives one hash, while
    /// the multiset itself (how many of each) still counts, and a bag is not an array.
    @Test func aBagHashIgnoresOrderButCountsRepeats() {
        func bag(_ values: [Value]) -> Hash128 {
            var hasher = CanonicalHash.BagHasher()
            for value in values { hasher.add(CanonicalHash.of(value)) }
            return hasher.finish()
        }
        let a = Self.value(#"{"id":1}"#), b = Self.value(#"{"id":2}"#), c = Self.value(#""c""#)
        #expect(bag([a, b, c]) == bag([c, a, b]))
        #expect(bag([a, a, b]) != bag([a, b, b]))
        #expect(bag([a, b]) != bag([a, b, c]))
        #expect(bag([a]) != bag([a, a]))
        #expect(bag([]) != CanonicalHash.of(.array([])))
        #expect(bag([a, b]) != CanonicalHash.of(.array([a, b])))
    }

    @Test func aRuleOnAKeyFieldIsRefused() throws {
        var rules = Comparison()
        rules.ignore = [Self.pattern("/user")]
        #expect(throws: ListDiffError.self) { try rules.check(key: IdentityKey(parsing: ["user.id"])) }
        rules.ignore = [Self.pattern("/*")]
        #expect(throws: ListDiffError.self) { try rules.check(key: IdentityKey(parsing: ["id"])) }
        rules.ignore = [Self.pattern("/user/name")]
        try rules.check(key: IdentityKey(parsing: ["user.id"]))
        // Rules over every value (no path) do not name the key, and are allowed.
        var everywhere = Comparison()
        everywhere.ignoreCase = [Self.pattern("/")]
        everywhere.tolerances = [Comparison.Tolerance(path: Self.pattern("/"), absolute: Number(text: "1"))]
        try everywhere.check(key: IdentityKey(parsing: ["id"]))
    }

    @Test func theChangesetRecordsItsRules() throws {
        var rules = Comparison()
        rules.ignore = [Self.pattern("/updated_at")]
        rules.only = [Self.pattern("/a"), Self.pattern("/b")]
        rules.unorderedRecords = true
        rules.unorderedArrays = [Self.pattern("/")]
        rules.tolerances = [
            try Comparison.Tolerance(parsing: "/score=0.01", relative: false), try Comparison.Tolerance(parsing: "1e-3", relative: true),
        ]
        rules.ignoreCase = [Self.pattern("/email")]
        rules.ignoreWhitespace = [Self.pattern("/")]
        let changeset = try Differ(comparison: rules).diff(
            old: [["id": 1, "a": "x"]], new: [["id": 1, "a": "y"]], key: IdentityKey(parsing: ["id"]))
        var out = StringStream()
        try JSONChangesetRenderer(context: RenderContext(oldName: "o", newName: "n")).render(changeset, to: &out)
        let read = try ChangesetReader().read(Array(out.text.utf8), name: "c.json")
        #expect(read.comparison == rules)
        #expect(
            out.text.contains(
                #""comparison": {"ignore":["/updated_at"],"only":["/a","/b"],"unordered":true,"unorderedArrays":["/"],"tolerances":[{"path":"/score","absolute":0.01},{"path":"/","relative":1e-3}],"ignoreCase":["/email"],"ignoreWhitespace":["/"]}"#
            ))
        var patch = StringStream()
        try PatchRenderer(context: RenderContext(oldName: "o", newName: "n")).render(changeset, to: &patch)
        #expect(
            patch.text.split(separator: "\n")[2]
                == "# compared under --ignore /updated_at --only /a --only /b --unordered --unordered-arrays / --tolerance /score=0.01 --relative-tolerance 1e-3 --ignore-case=/email --ignore-whitespace"
        )
        #expect(throws: ListDiffError.self) {
            try ChangesetReader().read(
                Array(out.text.replacingOccurrences(of: "\"unordered\":true", with: "\"sorted\":true").utf8), name: "c")
        }
    }

    // MARK: The hash under rules

    /// A small random record: the members the rules below name, strings that differ only in
    /// case or white space, numbers that differ only in how they are written or by a little.
    static func randomRecord(_ rng: inout SplitMix64, depth: Int = 0) -> Value {
        let strings = ["a", "A", " a  ", "b", "a b", "A  B "], numbers = ["1", "1.0", "1.2", "2", "-1"]
        func leaf() -> Value {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return .string(strings.randomElement(using: &rng)!)
            case 1: return .number(Number(text: numbers.randomElement(using: &rng)!))
            case 2: return .bool(Bool.random(using: &rng))
            default: return .null
            }
        }
        func any(_ depth: Int) -> Value {
            guard depth < 3, Int.random(in: 0..<3, using: &rng) == 0 else { return leaf() }
            return Bool.random(using: &rng) ? randomRecord(&rng, depth: depth + 1) : randomArray(depth + 1)
        }
        func randomArray(_ depth: Int) -> Value {
            .array((0..<Int.random(in: 0..<5, using: &rng)).map { _ in any(depth) })
        }
        var members: [Object.Member] = depth == 0 ? [.init(key: "id", value: .number(Number(text: "7")))] : []
        for name in ["name", "tags", "v", "x", "added"] where Bool.random(using: &rng) {
            members.append(.init(key: name, value: name == "tags" ? randomArray(depth + 1) : any(depth + 1)))
        }
        return .object(Object(members.shuffled(using: &rng)))
    }

    /// `value` with one random edit somewhere inside: a leaf replaced, an array shuffled, an
    /// element dropped or added, a member dropped or added.
    static func edited(_ value: Value, _ rng: inout SplitMix64) -> Value {
        switch value {
        case .object(var object) where !object.members.isEmpty && Int.random(in: 0..<4, using: &rng) > 0:
            let k = Int.random(in: 0..<object.members.count, using: &rng)
            if object.members[k].key == "id" { return value }
            if Int.random(in: 0..<5, using: &rng) == 0 {
                object.members.remove(at: k)
            } else {
                object.members[k].value = edited(object.members[k].value, &rng)
            }
            return .object(object)
        case .array(var items) where !items.isEmpty:
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: items.shuffle(using: &rng)
            case 1: items.remove(at: Int.random(in: 0..<items.count, using: &rng))
            case 2: items.insert(randomRecord(&rng, depth: 2), at: Int.random(in: 0...items.count, using: &rng))
            default:
                let k = Int.random(in: 0..<items.count, using: &rng)
                items[k] = edited(items[k], &rng)
            }
            return .array(items)
        default:
            let leaves: [Value] = [
                .string("a"), .string("A"), .string(" a "), .string("c"), .number(Number(text: "1.0")),
                .number(Number(text: "1.3")), .number(Number(text: "3")), .null,
            ]
            return leaves.randomElement(using: &rng)!
        }
    }

    /// The hash under the rules agrees with the field walk: two records hash alike, with no
    /// tolerance used, exactly when the rules find no change between them. Random records,
    /// random edits (many invisible under the rules) and random rules.
    @Test func theHashUnderRulesAgreesWithTheFieldWalk() throws {
        var rng = SplitMix64(seed: 41)
        let paths = ["/", "/name", "/tags", "/tags/*", "/tags/1", "/tags/*/v", "/v", "/v/*", "/v/*/x", "/x", "/added"]
        func some() -> [Comparison.Pattern] {
            (0..<Int.random(in: 0...2, using: &rng)).map { _ in Self.pattern(paths.randomElement(using: &rng)!) }
        }
        func hash(_ value: Value, _ rules: RuleHasher, _ used: inout Bool) throws -> Hash128 {
            let bytes = Array(JSONWriter.compact(value).utf8)
            return try bytes.withUnsafeBufferPointer { buffer in
                var parser = JSONParser(bytes: buffer, maxDepth: 100)
                return try parser.ruleHash(rules, rules.root, usedTolerance: &used)
            }
        }
        var same = 0, different = 0, tolerated = 0
        for _ in 0..<8000 {
            var comparison = Comparison()
            comparison.ignore = some().filter { $0.spelling != "/" }
            if Int.random(in: 0..<4, using: &rng) == 0 { comparison.only = some() }
            comparison.unorderedArrays = some()
            comparison.ignoreCase = some()
            comparison.ignoreWhitespace = some()
            if Int.random(in: 0..<4, using: &rng) == 0 {
                comparison.tolerances = some().map { Comparison.Tolerance(path: $0, absolute: Number(text: "0.5")) }
            }
            guard let rules = RuleHasher(comparison) else { continue }
            let a = Self.randomRecord(&rng)
            var b = a
            for _ in 0..<Int.random(in: 1...2, using: &rng) { b = Self.edited(b, &rng) }
            var used = false
            let equal = try hash(a, rules, &used) == hash(b, rules, &used)
            let unchanged = try comparison.changes(old: a, new: b).isEmpty
            if used {
                tolerated += 1
                // A tolerance is no equivalence: equal hashes prove nothing, but unequal
                // ones still prove a change outside the numbers it covers.
                if unchanged { #expect(equal, "\(comparison): \(JSONWriter.compact(a)) vs \(JSONWriter.compact(b))") }
            } else {
                #expect(equal == unchanged, "\(comparison): \(JSONWriter.compact(a)) vs \(JSONWriter.compact(b))")
            }
            if unchanged { same += 1 } else { different += 1 }
        }
        // Both outcomes are common, so that neither half of the claim goes untested.
        #expect(same > 300 && different > 300 && tolerated > 100, "\(same) same, \(different) different, \(tolerated) tolerated")
    }

    // MARK: Random pairs under random rules

    /// A rule set drawn at random: none, some or all of the rules, on the fields the random
    /// records hold (`name`, `tags`, `v`), never on a key.
    static func rules(_ rng: inout SplitMix64, tolerance: Bool) -> Comparison {
        var rules = Comparison()
        func coin() -> Bool { Bool.random(using: &rng) }
        if coin() { rules.ignore.append(pattern(["/name", "/tags/*", "/v/*/x", "/added"].randomElement(using: &rng)!)) }
        if Int.random(in: 0..<5, using: &rng) == 0 { rules.only = [pattern("/v"), pattern("/tags")] }
        rules.unorderedRecords = coin()
        if coin() { rules.unorderedArrays.append(pattern(["/", "/tags", "/v"].randomElement(using: &rng)!)) }
        if coin() { rules.ignoreCase.append(pattern(["/", "/name"].randomElement(using: &rng)!)) }
        if coin() { rules.ignoreWhitespace.append(pattern(["/", "/v"].randomElement(using: &rng)!)) }
        if tolerance, coin() {
            rules.tolerances.append(
                Comparison.Tolerance(
                    path: pattern(["/", "/v"].randomElement(using: &rng)!), absolute: Number(text: "0.5"),
                    relative: coin() ? Number(text: "0.1") : nil))
        }
        return rules
    }

    /// What a diff shows of its changes, values aside: each change's kind, key and places.
    static func outline(_ changeset: Changeset) -> [String] {
        changeset.changes.map {
            "\($0.operation) \(JSONWriter.compact($0.key)) \($0.old.map { "\($0)" } ?? "-") \($0.new.map { "\($0)" } ?? "-")"
        }
        .sorted()
    }

    /// Every layout, key kind and format under random rules: the engine gives the reference
    /// differ's changeset byte for byte (fingerprints too); without tolerances, that is the
    /// plain diff of the records projected through the rules (without moves when the order
    /// means nothing); and the changeset applies, on both, to a result equal to NEW under
    /// the rules.
    @Test(arguments: DocumentPairs.Shape.allCases) func rulesHoldOnEveryLayoutAndFormat(shape: DocumentPairs.Shape) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: UInt64(DocumentPairs.Shape.allCases.firstIndex(of: shape)!) &+ 71)
        var spelling = RandomSpelling(rng: SplitMix64(seed: 5), pretty: false)
        var rng = SplitMix64(seed: 6)
        var updatesHidden = 0, compared = 0
        for round in 0..<150 {
            let c = DocumentPairs.Case(
                shape: shape, keyKind: DocumentPairs.KeyKind.allCases[round % 3],
                duplicates: round % 4 == 3 ? .match : .error, atPath: round % 5 == 4)
            let (oldValue, newValue) = pairs.next(c)
            let lines = !c.atPath && (shape == .list || shape == .sectionList) && round % 3 == 1
            spelling.pretty = round % 4 == 1
            let (old, new) = try EngineTests.write(oldValue, newValue, in: dir, round: round, lines: lines, yaml: round % 3 == 2, &spelling)
            let rules = Self.rules(&rng, tolerance: round % 2 == 0)
            let differ = Differ(comparison: rules)
            let engine = EngineTests.run(old, new, engine: true, key: c.key, duplicates: c.duplicates, options: c.options, differ: differ)
            let reference = EngineTests.run(
                old, new, engine: false, key: c.key, duplicates: c.duplicates, options: c.options, differ: differ)
            #expect(engine == reference, "round \(round) \(c) \(rules)")
            guard engine == reference, !engine.hasPrefix("error") else { continue }
            let changeset = try ChangesetReader().read(Array(engine.utf8), name: "changes.json")
            #expect(changeset.comparison == rules)
            let reader = DocumentReader(key: changeset.key, duplicates: changeset.duplicates, layout: changeset.layout.options)
            let oldDocument = try reader.read(old.path), newDocument = try reader.read(new.path)

            // The plain diff of the projected records.
            if rules.tolerances.isEmpty {
                // The key fields stay (keys are never subject to rules; --only would drop them).
                var keeping = rules
                if !keeping.only.isEmpty {
                    keeping.only += changeset.key.fields.map { field in Self.pattern(field.components.map { "/" + $0 }.joined()) }
                }
                func projected(_ document: Document) throws -> Document {
                    let sections = document.sections.map { section in
                        (
                            name: section.name, header: section.header,
                            records: document.records[section.records].map { record -> Value in
                                let value = keeping.projected(record.value)
                                // (A map's record is given as its member.)
                                guard document.layout.shape == .map, case .string(let name) = record.key else { return value }
                                return .object(Object([.init(key: name, value: value)]))
                            }
                        )
                    }
                    let root = try document.layout.rebuild(document.root, sections: sections)
                    return try Document(root, name: document.source.name, key: changeset.key, duplicates: c.duplicates, options: c.options)
                }
                var plain = try Differ().diff(old: projected(oldDocument), new: projected(newDocument), key: changeset.key)
                if rules.unorderedRecords {
                    // Order means nothing: a move within its section is none.
                    let targets = plain.oldSectionTargets
                    let movedAway = Set(
                        plain.changes.filter { $0.operation == .move && targets[$0.old!.section] != $0.new!.section }.map {
                            JSONWriter.compact($0.key) + "\($0.occurrence ?? 0)"
                        })
                    plain.changes.removeAll {
                        $0.operation == .move && !movedAway.contains(JSONWriter.compact($0.key) + "\($0.occurrence ?? 0)")
                    }
                }
                #expect(Self.outline(plain) == Self.outline(changeset), "round \(round) \(rules)")
                compared += 1
            }
            let exact = try Differ().diff(old: oldDocument, new: newDocument, key: changeset.key)
            updatesHidden += exact.summary.updated - changeset.summary.updated

            // Applied: NEW's value for each record reported, OLD's for the rest (whose
            // fingerprint is the changeset's new one); equal to NEW under the rules.
            let result = try changeset.apply(to: oldDocument)
            let resultDocument = try Document(result, name: "result", key: changeset.key, duplicates: c.duplicates, options: c.options)
            #expect(try Fingerprint.ofResult(changeset, old: oldDocument) == changeset.fingerprints?.new, "round \(round) \(rules)")
            #expect(Fingerprint.of(oldDocument.diffed) == changeset.fingerprints?.old, "round \(round)")
            if changeset.summary.updated == exact.summary.updated, !rules.unorderedRecords {
                // Nothing hidden: what apply makes is NEW itself.
                #expect(Fingerprint.of(newDocument.diffed) == changeset.fingerprints?.new, "round \(round)")
            }
            #expect(resultDocument.records.count == newDocument.records.count)
            // (A map's members have no order: they are compared by name.)
            // (The lists of a pattern are placed by their paths: compared list by list.)
            func byName(_ document: Document) -> [Record] {
                if shape == .map { return document.records.sorted { JSONWriter.compact($0.key) < JSONWriter.compact($1.key) } }
                guard shape == .pattern else { return document.records }
                return document.sections.sorted { JSONWriter.compact($0.name ?? .null) < JSONWriter.compact($1.name ?? .null) }
                    .flatMap { document.records[$0.records] }
            }
            for (r, n) in zip(byName(resultDocument), byName(newDocument)) where !rules.unorderedRecords {
                #expect(r.id == n.id && rules.same(r.value, n.value), "round \(round) \(rules)")
            }
            let applier = try FileApplier(changeset: changeset, old: old.path, reader: DocumentReader(key: changeset.key))
            #expect(applier.fingerprint == changeset.fingerprints?.old, "round \(round)")
            #expect(applier.newFingerprint == changeset.fingerprints?.new, "round \(round)")
            #expect(EngineTests.written(applier, .json) == EngineTests.written(result, .json), "round \(round)")
        }
        // The rules did hide updates, and the projected diff was checked often.
        #expect(updatesHidden > 5)
        #expect(compared > 40)
    }

    /// `--sorted` streaming gives the engine's changeset under rules too.
    @Test func sortedStreamingFollowsTheRules() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.ndjson")
        let new = dir.appendingPathComponent("new.ndjson")
        try """
        {"id":1,"name":"Ann","at":1,"tags":["a","b"],"v":1.00}
        {"id":2,"name":"Bob","at":1,"tags":[],"v":5}
        {"id":3,"name":"Cy","at":1,"tags":["x"],"v":7}

        """.write(to: old, atomically: true, encoding: .utf8)
        try """
        {"id":1,"name":"ANN","at":2,"tags":["b","a"],"v":1.04}
        {"id":2,"name":"Bob","at":2,"tags":[],"v":6}
        {"id":3,"name":"Cy","at":1,"tags":["x","y"],"v":7}

        """.write(to: new, atomically: true, encoding: .utf8)
        var rules = Comparison()
        rules.ignore = [Self.pattern("/at")]
        rules.ignoreCase = [Self.pattern("/name")]
        rules.unorderedArrays = [Self.pattern("/tags")]
        rules.tolerances = [Comparison.Tolerance(path: Self.pattern("/v"), absolute: Number(text: "0.05"))]
        var merge = SortedMerge(key: try IdentityKey(parsing: ["id"]))
        merge.comparison = rules
        let streamed = try merge.diff(old: old.path, new: new.path)
        let engine = EngineTests.run(old, new, engine: true, key: ["id"], differ: Differ(comparison: rules))
        let read = try ChangesetReader().read(Array(engine.utf8), name: "c")
        #expect(Self.outline(streamed) == Self.outline(read))
        #expect(streamed.fingerprints == read.fingerprints)
        #expect(streamed.changes.filter { $0.operation == .update }.map { $0.fields.map(\.path) } == [["/v"], ["/tags"]])
    }

    /// JSON Patch under rules describes the changes reported: applied by an independent
    /// RFC 6902 applier it gives OLD with those changes, which equals NEW under the rules.
    @Test func jsonPatchUnderRulesApplies() throws {
        let old = Self.value(
            #"[{"id":1,"n":"a","at":1,"tags":["x","y"]},{"id":2,"n":"b","at":1,"tags":[]},{"id":3,"n":"c","at":1,"tags":["z"]}]"#)
        let new = Self.value(
            #"[{"id":1,"n":"A","at":2,"tags":["y","x"]},{"id":3,"n":"c","at":2,"tags":["z","w"]},{"id":2,"n":"bb","at":2,"tags":[]}]"#)
        var rules = Comparison()
        rules.ignore = [Self.pattern("/at")]
        rules.ignoreCase = [Self.pattern("/")]
        rules.unorderedArrays = [Self.pattern("/tags")]
        let changeset = try Differ(comparison: rules).diff(old: old, new: new, key: IdentityKey(parsing: ["id"]))
        #expect(changeset.summary.updated == 2)
        let patched = try RFC6902.apply(try JSONPatchTests.patch(changeset), to: old)
        guard case .array(let records) = patched, case .array(let expected) = new else {
            Issue.record("not a list")
            return
        }
        #expect(records.map { rules.projected($0) } == expected.map { rules.projected($0) })
        // What the rules ignore keeps OLD's value.
        #expect(records[0] == Self.value(#"{"id":1,"n":"a","at":1,"tags":["x","y"]}"#))
        #expect(records[1] == Self.value(#"{"id":3,"n":"c","at":1,"tags":["z","w"]}"#))
    }
}
