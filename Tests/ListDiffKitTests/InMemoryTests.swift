import Testing
import ListDiffKit

/// The library's public API on values held in memory, as an embedding program uses it
/// (no `@testable`).
@Suite struct InMemoryTests {
    let key = try! IdentityKey(parsing: ["id"])

    @Test func listsDiffAndApply() throws {
        let old: [Value] = [["id": 1, "v": "a"], ["id": 2, "v": "b"], ["id": 3, "v": "c"]]
        let new: [Value] = [["id": 3, "v": "c"], ["id": 1, "v": "A"], ["id": 4, "v": "d"]]
        let changeset = try Differ().diff(old: old, new: new, key: key)
        #expect(changeset.summary.inserted == 1 && changeset.summary.deleted == 1)
        #expect(changeset.summary.updated == 1 && changeset.summary.moved == 1)
        #expect(try changeset.apply(to: old) == new)
        #expect(changeset.fingerprints?.old != changeset.fingerprints?.new)
        #expect(try Differ().diff(old: old, new: old, key: key).isEmpty)
    }

    @Test func sectionsDiffAsAFileWould() throws {
        let old: Value = ["a": [["id": 1]], "b": [["id": 2]]]
        let new: Value = ["a": [["id": 2]], "b": [["id": 1]]]
        let changeset = try Differ().diff(old: old, new: new, key: key)
        #expect(changeset.summary.moved == 2)
        #expect(changeset.layout.shape == .objectOfLists)
    }

    /// Each kind of error, from a real failure: what a caller switches on.
    @Test func errorsSayWhatKindOfTroubleTheyAre() throws {
        func kind(_ body: () throws -> Void) -> ListDiffError.Kind? {
            do { try body() } catch { return (error as? ListDiffError)?.kind }
            return nil
        }
        let reader = DocumentReader(key: key)
        #expect(kind { _ = try reader.parse(Array("[{\"id\": 1,}]".utf8), name: "a.json") } == .syntax)
        #expect(kind { _ = try reader.parse(Array("[{\"id\": 1, \"id\": 2}]".utf8), name: "a.json") } == .syntax)
        #expect(kind { _ = try reader.parse(Array("42".utf8), name: "a.json") } == .shape)
        #expect(kind { _ = try reader.parse(Array("[{\"name\": 1}]".utf8), name: "a.json") } == .key)
        #expect(
            kind {
                _ = try reader.parse(
                    Array((String(repeating: "[", count: 1001) + String(repeating: "]", count: 1001)).utf8), name: "a.json")
            } == .limit)
        #expect(kind { _ = try reader.read("/nonexistent/a.json") } == .io)
        #expect(kind { _ = try IdentityKey(parsing: ["/a~2"]) } == .usage)
        #expect(kind { _ = try ChangesetReader().read(Array("{\"version\": 9}".utf8), name: "c.json") } == .changeset)
        let changeset = try Differ().diff(old: [["id": 1]], new: [["id": 2]], key: key)
        #expect(kind { _ = try changeset.apply(to: [["id": 3]]) } == .changeset)
    }

    @Test func errorsNameTheListAndRecordButNoLine() throws {
        #expect(throws: ListDiffError(.key, file: "old", "record 1 has no key field 'id'")) {
            try Differ().diff(old: [["id": 1], ["name": "x"]], new: [], key: key)
        }
        #expect(
            throws: ListDiffError(
                .key, file: "new",
                "duplicate key id=1 (records 0 and 1; --duplicates match pairs repeated keys by occurrence)")
        ) {
            try Differ().diff(old: [], new: [["id": 1], ["id": 1]], key: key)
        }
        #expect(try Differ().diff(old: [], new: [["id": 1], ["id": 1]], key: key, duplicates: .match).summary.inserted == 2)
    }
}
