import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Renamed keys (`--renames`): found when records are alike, never when they are not, and
/// applied, inverted and read back as the delete and insert they stand for.
@Suite struct RenameTests {
    static let key = try! IdentityKey(parsing: ["id"])

    static func differ(threshold: Int = RenameRule.defaultThreshold) throws -> Differ {
        var differ = Differ()
        differ.renames = try RenameRule(threshold: threshold)
        return differ
    }

    /// A record of five random fields besides its key.
    static func record(_ id: Int, _ rng: inout SplitMix64) -> Value {
        var members = [Value.Object.Member(key: "id", value: num(id))]
        for name in ["name", "email", "team", "city", "score"] {
            members.append(.init(key: name, value: .string("\(name)-\(rng.next() % 1_000_000_007)")))
        }
        return .object(Value.Object(members))
    }

    static func num(_ n: Int) -> Value { try! json(String(n)) }

    static func setting(_ value: Value, _ name: String, _ to: Value) -> Value {
        guard case .object(var o) = value, let k = o.members.firstIndex(where: { $0.key == name }) else { return value }
        o.members[k].value = to
        return .object(o)
    }

    static func key(of value: Value) -> Value {
        guard case .object(let o) = value else { return .null }
        return o.members.first { $0.key == "id" }!.value
    }

    /// Changeset text, read back as apply and invert read it.
    static func readBack(_ changeset: Changeset) throws -> Changeset {
        let text = try ApplyTests.changesetJSON(changeset)
        return try ChangesetReader().read(Array(text.utf8), name: "changeset.json")
    }

    /// Random lists where some records are re-keyed with at most one of five fields changed
    /// (80% alike), some deleted and some inserted that are unlike anything: every re-keyed
    /// record is found as a rename, no other pair is made, and the changeset applies, reads
    /// back, inverts and goes through JSON Patch.
    @Test func reKeyedRecordsAreFoundAndApply() throws {
        var rng = SplitMix64(seed: 4242)
        for round in 0..<40 {
            let count = 20 + Int(rng.next() % 80)
            var old: [Value] = []
            for id in 0..<count { old.append(Self.record(id, &rng)) }
            var new = old
            var expected: [String: String] = [:]  // new key -> old key
            var nextID = 10_000
            for i in new.indices {
                switch rng.next() % 6 {
                case 0:
                    // Re-keyed, and perhaps one field changed.
                    var value = Self.setting(new[i], "id", Self.num(nextID))
                    if rng.next() % 2 == 0 { value = Self.setting(value, "city", .string("moved-\(rng.next())")) }
                    expected[String(nextID)] = JSONWriter.compact(Self.key(of: new[i]))
                    new[i] = value
                    nextID += 1
                case 1:
                    // Deleted, and a record unlike it inserted in its place.
                    new[i] = Self.record(nextID, &rng)
                    nextID += 1
                default: break
                }
            }
            if round % 2 == 1 { new.reverse() }
            let changeset = try Self.differ().diff(old: .array(old), new: .array(new), key: Self.key)
            var found: [String: String] = [:]
            for change in changeset.changes where change.operation == .rename {
                found[JSONWriter.compact(change.key)] = JSONWriter.compact(change.oldKey!)
            }
            #expect(found == expected, "round \(round)")
            #expect(changeset.summary.renamed == expected.count)

            let read = try Self.readBack(changeset)
            #expect(read.summary.renamed == expected.count)
            #expect(try read.apply(to: .array(old)) == .array(new))
            #expect(try RFC6902.apply(JSONPatchTests.patch(changeset), to: .array(old)) == .array(new))
            let inverse = try read.inverted()
            #expect(inverse.summary.renamed == expected.count)
            for change in inverse.changes where change.operation == .rename {
                #expect(expected[JSONWriter.compact(change.oldKey!)] == JSONWriter.compact(change.key))
            }
            #expect(try Self.readBack(inverse).apply(to: .array(new)) == .array(old))
        }
    }

    /// Records that share less than the threshold are not paired, however many there are.
    @Test func unlikeRecordsAreNotPaired() throws {
        var rng = SplitMix64(seed: 77)
        let old = (0..<300).map { Self.record($0, &rng) }
        let new = (1000..<1300).map { Self.record($0, &rng) }
        let changeset = try Self.differ().diff(old: .array(old), new: .array(new), key: Self.key)
        #expect(changeset.summary.renamed == 0)
        #expect(changeset.summary.deleted == 300 && changeset.summary.inserted == 300)

        // Three of five fields equal is 60%: below 80, at or above 60.
        let a = try json(#"[{"id": 1, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5}]"#)
        let b = try json(#"[{"id": 2, "a": 1, "b": 2, "c": 3, "d": 0, "e": 0}]"#)
        #expect(try Self.differ().diff(old: a, new: b, key: Self.key).summary.renamed == 0)
        #expect(try Self.differ(threshold: 60).diff(old: a, new: b, key: Self.key).summary.renamed == 1)
        #expect(try Self.differ(threshold: 61).diff(old: a, new: b, key: Self.key).summary.renamed == 0)
    }

    /// Best first: the pair that shares more wins; among equals, the lower old position,
    /// then the lower new one.
    @Test func pairsAreTakenBestFirstWithTiesByPosition() throws {
        let old = try json(
            #"[{"id": 1, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5}, {"id": 2, "a": 1, "b": 2, "c": 3, "d": 4, "e": 9}]"#)
        let new = try json(
            #"[{"id": 3, "a": 1, "b": 2, "c": 3, "d": 4, "e": 8}, {"id": 4, "a": 1, "b": 2, "c": 3, "d": 4, "e": 9}]"#)
        let changeset = try Self.differ().diff(old: old, new: new, key: Self.key)
        let pairs = changeset.changes.filter { $0.operation == .rename }.map {
            [JSONWriter.compact($0.oldKey!), JSONWriter.compact($0.key)]
        }
        // 2 → 4 is equal (100%), so it goes first; then 1 → 3 (80%).
        #expect(Set(pairs) == [["2", "4"], ["1", "3"]])

        // Two identical records each side: the first with the first.
        let twins = try json(#"[{"id": 1, "v": "x"}, {"id": 2, "v": "x"}]"#)
        let others = try json(#"[{"id": 3, "v": "x"}, {"id": 4, "v": "x"}]"#)
        let tied = try Self.differ().diff(old: twins, new: others, key: Self.key)
        let tiedPairs = tied.changes.filter { $0.operation == .rename }.map {
            [JSONWriter.compact($0.oldKey!), JSONWriter.compact($0.key)]
        }
        #expect(tiedPairs == [["1", "3"], ["2", "4"]])
    }

    /// The key is left out of the share, and so are fields the rules ignore.
    @Test func keyAndIgnoredFieldsAreLeftOut() throws {
        let old = try json(#"[{"id": 1, "at": "monday", "a": 1, "b": 2, "c": 3, "d": 4}]"#)
        let new = try json(#"[{"id": 2, "at": "tuesday", "a": 1, "b": 2, "c": 3, "d": 4}]"#)
        // Four of five: 80%.
        #expect(try Self.differ().diff(old: old, new: new, key: Self.key).summary.renamed == 1)
        #expect(try Self.differ(threshold: 90).diff(old: old, new: new, key: Self.key).summary.renamed == 0)
        var ignoring = try Self.differ(threshold: 100)
        ignoring.comparison.ignore = [try Comparison.Pattern("/at")]
        let changeset = try ignoring.diff(old: old, new: new, key: Self.key)
        #expect(changeset.summary.renamed == 1)
        // The rename's fields are those the rules see: the key only.
        #expect(changeset.changes.first { $0.operation == .rename }?.fields.map(\.path) == ["/id"])
    }

    /// Under a tolerance numbers still compare exactly as leaves: records whose numbers all
    /// differ are not alike. An index is not a member name of the same digits.
    @Test func numbersAndIndexesAreLeavesOfTheirOwn() throws {
        let old = try json(#"[{"id": "a", "price": 10, "stock": 5, "weight": 1.5}]"#)
        let new = try json(#"[{"id": "b", "price": 99999, "stock": 0, "weight": -3}]"#)
        var tolerant = try Self.differ()
        tolerant.comparison.tolerances = [try Comparison.Tolerance(parsing: "0.01", relative: false)]
        #expect(try tolerant.diff(old: old, new: new, key: Self.key).summary.renamed == 0)
        let same = try json(#"[{"id": "b", "price": 10, "stock": 5, "weight": 1.5}]"#)
        #expect(try tolerant.diff(old: old, new: same, key: Self.key).summary.renamed == 1)

        let list = try json(#"[{"id": 1, "a": ["x", "y"], "b": {"0": 1}}]"#)
        let object = try json(#"[{"id": 2, "a": {"0": "x", "1": "y"}, "b": [1]}]"#)
        #expect(try Self.differ(threshold: 1).diff(old: list, new: object, key: Self.key).summary.renamed == 0)
    }

    /// A map of records: a member renamed is a rename, and the patches move it.
    @Test func mapMembersAreRenamed() throws {
        let old = try json(#"{"a": {"x": 1, "y": 2}, "b": {"x": 5, "y": 6}}"#)
        let new = try json(#"{"a": {"x": 1, "y": 2}, "c": {"x": 5, "y": 6}}"#)
        let changeset = try Self.differ().diff(old: old, new: new, key: Self.key)
        #expect(changeset.summary.renamed == 1)
        #expect(try Self.readBack(changeset).apply(to: old) == new)
        #expect(try RFC6902.apply(JSONPatchTests.patch(changeset), to: old) == new)
    }

    @Test func thresholdIsParsed() throws {
        #expect(try RenameRule(parsing: "80").threshold == 80)
        #expect(try RenameRule(parsing: "65%").threshold == 65)
        #expect(try RenameRule(parsing: "0.9").threshold == 90)
        #expect(try RenameRule(parsing: "1.0").threshold == 100)
        #expect(try RenameRule(parsing: "0.07").threshold == 7)
        #expect(try RenameRule(parsing: "1").threshold == 1)
        for bad in ["0", "101", "abc", "", "-5", "1.5", "0.5%", "1e0", "50.5", "0.505", "0.001", ".8", "8.", "+80"] {
            #expect(throws: ListDiffError.self, "\(bad)") { try RenameRule(parsing: bad) }
        }
    }

    @Test func refusesKeysRenamesCannotUse() throws {
        let list = try json(#"[{"id": 1}]"#)
        let whole = #expect(throws: ListDiffError.self) {
            try Self.differ().diff(old: list, new: list, key: .wholeRecord)
        }
        #expect(whole?.message.contains("--key .") == true)
        let numbered = #expect(throws: ListDiffError.self) {
            try Self.differ().diff(old: list, new: list, key: Self.key, duplicates: .match)
        }
        #expect(numbered?.message.contains("--duplicates match") == true)
    }

    /// A rename without its old key, or a section renamed, is refused where it is written.
    @Test func readerRefusesBrokenRenames() throws {
        let old = try json(#"[{"id": 1, "a": 1}]"#), new = try json(#"[{"id": 2, "a": 1}]"#)
        let text = try ApplyTests.changesetJSON(try Self.differ().diff(old: old, new: new, key: Self.key))
        #expect(text.contains(#""op": "rename", "key": 2, "old_key": 1"#))
        #expect(text.contains(#""version": 4"#))
        let broken = text.replacingOccurrences(of: #", "old_key": 1"#, with: "")
        let error = #expect(throws: ListDiffError.self) {
            try ChangesetReader().read(Array(broken.utf8), name: "c.json")
        }
        #expect(error?.message == #"the rename has no "old_key""#)
        #expect(error?.location != nil)
        // The op is version 4's: a changeset that says an older version may not hold it.
        let older = text.replacingOccurrences(of: #""version": 4"#, with: #""version": 3"#)
        let refused = #expect(throws: ListDiffError.self) {
            try ChangesetReader().read(Array(older.utf8), name: "c.json")
        }
        #expect(refused?.message == "a rename needs changeset version 4; this changeset says version 3")
        // The old key must be the record's in OLD: apply checks it.
        let wrong = text.replacingOccurrences(of: #""old_key": 1"#, with: #""old_key": 7"#)
        let read = try ChangesetReader().read(Array(wrong.utf8), name: "c.json")
        #expect(throws: ListDiffError.self) { try read.apply(to: old) }
    }

    /// Without `--renames` nothing changes: no rename, version and summary as before.
    @Test func offByDefault() throws {
        let old = try json(#"[{"id": 1, "a": 1}]"#), new = try json(#"[{"id": 2, "a": 1}]"#)
        let changeset = try Differ().diff(old: old, new: new, key: Self.key)
        #expect(changeset.summary.renamed == 0 && changeset.summary.deleted == 1)
        let text = try ApplyTests.changesetJSON(changeset)
        #expect(text.contains(#""version": 1"#))
        #expect(!text.contains("renamed"))
    }
}
