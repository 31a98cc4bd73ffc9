import Foundation
import ListDiffKit
import Testing

/// The library as a program that embeds it uses it. This target imports ListDiffKit without
/// `@testable`, so it compiles only against the public API: a test here that needs
/// something internal fails to build.
@Suite struct PublicAPITests {
    let key = try! IdentityKey(parsing: ["id"])

    @Test func listsDiffAndApply() throws {
        let old: [Value] = [["id": 1, "v": "a"], ["id": 2, "v": "b"], ["id": 3, "v": "c"]]
        let new: [Value] = [["id": 3, "v": "c"], ["id": 1, "v": "A"], ["id": 4, "v": "d"]]
        let changeset = try Differ().diff(old: old, new: new, key: key)
        #expect(changeset.summary == Changeset.Summary(inserted: 1, deleted: 1, moved: 1, updated: 1, unchanged: 1))
        #expect(try changeset.apply(to: old) == new)
        #expect(changeset.fingerprints?.old != changeset.fingerprints?.new)
        #expect(try Differ().diff(old: old, new: old, key: key).isEmpty)
        let update = try #require(changeset.changes.first { $0.operation == .update })
        #expect(update.key == 1 && update.old == Changeset.Position(index: 0) && update.new == Changeset.Position(index: 1))
        #expect(update.fields == [Changeset.FieldChange(path: "/v", old: "a", new: "A")])
    }

    /// Values written as Swift literals are the values JSON text gives.
    /// Elements of a nested list matched by key: the fields name them by key.
    @Test func arrayKeysNameNestedElements() throws {
        let old: [Value] = [["id": 1, "env": [["name": "A", "value": "1"], ["name": "B", "value": "2"]]]]
        let new: [Value] = [["id": 1, "env": [["name": "B", "value": "2"], ["name": "A", "value": "3"]]]]
        var rules = Comparison()
        rules.arrayKeys = try Comparison.ArrayKey.parsing(["/env=name"])
        let changeset = try Differ(comparison: rules).diff(old: old, new: new, key: key)
        let fields = changeset.changes[0].fields
        #expect(fields.map(\.keyedPath) == [["env", ["name": "A"], "value"], ["env", ["name": "A"]]])
        #expect(fields.map(\.path) == ["/env/0/value", "/env/1"])
        #expect(fields[1].from == "/env/0")
        #expect(try changeset.apply(to: old) == new)
    }

    @Test func literalsAreJSONValues() throws {
        let built: Value = ["id": 7, "price": 9.99, "tiny": 1e-5, "ok": true, "tags": ["a"], "note": nil]
        #expect(built.description == #"{"id":7,"price":9.99,"tiny":1e-05,"ok":true,"tags":["a"],"note":null}"#)
        let parsed = try Differ().diff(
            old: [built], new: [["id": 7, "price": 9.990, "tiny": 0.00001, "ok": true, "tags": ["a"], "note": nil]], key: key)
        #expect(parsed.isEmpty)
        let cheaper = try Differ().diff(
            old: [built], new: [["id": 7, "price": 8.5, "tiny": 1e-5, "ok": true, "tags": ["a"], "note": nil]], key: key)
        #expect(cheaper.changes.first?.fields == [Changeset.FieldChange(path: "/price", old: 9.99, new: 8.5)])
    }

    /// Each algorithm, and comparison rules, through `Differ`'s public options.
    @Test func algorithmsAndRulesArePublicOptions() throws {
        let old: [Value] = [["id": 1, "at": "x"], ["id": 2, "at": "y"], ["id": 3, "at": "z"]]
        let new: [Value] = [["id": 3, "at": "z"], ["id": 1, "at": "X"], ["id": 2, "at": "y"]]
        for algorithm: any DiffAlgorithm in [HeckelDiff(), MyersDiff(), LCSDiff()] {
            let changeset = try Differ(algorithm: algorithm).diff(old: old, new: new, key: key)
            #expect(changeset.algorithm == algorithm.name)
            #expect(try changeset.apply(to: old) == new, "\(algorithm.name)")
            #expect(changeset.summary.moved == 1 && changeset.summary.updated == 1, "\(algorithm.name)")
        }
        var rules = Comparison()
        rules.ignore = [try Comparison.Pattern("/at")]
        let ignoring = try Differ(comparison: rules).diff(old: old, new: new, key: key)
        #expect(ignoring.summary.updated == 0 && ignoring.summary.moved == 1)
    }

    /// Sections in memory: a move across sections, and the changeset applied to the value.
    @Test func sectionsDiffAndApply() throws {
        let old: Value = ["a": [["id": 1]], "b": [["id": 2]]]
        let new: Value = ["a": [["id": 2]], "b": [["id": 1]]]
        let changeset = try Differ().diff(old: old, new: new, key: key)
        #expect(changeset.summary.moved == 2)
        #expect(
            changeset.changes.compactMap(\.old).sorted() == [
                Changeset.Position(section: 0, index: 0), Changeset.Position(section: 1, index: 0),
            ])
        #expect(try changeset.apply(to: old) == new)
        // A list of section objects, found by the names `LayoutOptions` gives.
        let listed: Value = [["title": "a", "rows": [["id": 1], ["id": 2]]], ["title": "b", "rows": []]]
        let moved: Value = [["title": "a", "rows": [["id": 2]]], ["title": "b", "rows": [["id": 1]]]]
        let options = LayoutOptions(sectionKey: "title", items: "rows")
        let sectioned = try Differ().diff(old: listed, new: moved, key: key, options: options)
        #expect(sectioned.summary.moved == 1)
        #expect(try sectioned.apply(to: listed) == moved)
        // The value must be laid out as the diff's OLD was.
        #expect(throws: ListDiffError.self) { try changeset.apply(to: listed) }
    }

    /// UIKit's batch updates: deletes and updates at old positions, inserts at new ones.
    @Test func stagesAreBatchUpdates() throws {
        let old: [Value] = [["id": 1], ["id": 2, "v": 0], ["id": 3]]
        let new: [Value] = [["id": 2, "v": 1], ["id": 4], ["id": 3]]
        let stages = try Differ().diff(old: old, new: new, key: key).stages
        func places(_ kind: Changeset.Stage.Kind) -> [String] {
            stages.filter { $0.kind == kind }.flatMap(\.changes).map {
                "\($0.operation.rawValue) \($0.old.map { "\($0.index)" } ?? "-") \($0.new.map { "\($0.index)" } ?? "-")"
            }
        }
        #expect(places(.deletes) == ["delete 0 -"])
        #expect(places(.updates) == ["update 1 -"])
        #expect(places(.insertsAndMoves) == ["insert - 1"])
    }

    /// Files and byte buffers give one changeset, and `FileApplier` writes NEW from it.
    @Test func filesAndBytesDiffAndApply() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listdiff-public-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [(String, String, String)] = [
            ("json", #"[{"id": 1, "n": "a"}, {"id": 2, "n": "b"}]"#, #"[{"id": 2, "n": "B"}, {"id": 3, "n": "c"}]"#),
            ("ndjson", "{\"id\":1,\"n\":\"a\"}\n{\"id\":2,\"n\":\"b\"}\n", "{\"id\":2,\"n\":\"B\"}\n{\"id\":3,\"n\":\"c\"}\n"),
            ("yaml", "- id: 1\n  n: a\n- id: 2\n  n: b\n", "- id: 2\n  n: B\n- id: 3\n  n: c\n"),
            ("csv", "id,n\n1,a\n2,b\n", "id,n\n2,B\n3,c\n"),
        ]
        for (format, old, new) in cases {
            let oldURL = directory.appendingPathComponent("old.\(format)"), newURL = directory.appendingPathComponent("new.\(format)")
            try old.write(to: oldURL, atomically: true, encoding: .utf8)
            try new.write(to: newURL, atomically: true, encoding: .utf8)
            let differ = FileDiffer(key: key, csvInfersTypes: true)
            let fromFiles = try differ.diff(oldPath: oldURL.path, newPath: newURL.path)
            let fromBytes = try differ.diff(old: Array(old.utf8), new: Array(new.utf8), oldName: "old.\(format)", newName: "new.\(format)")
            #expect(fromFiles.summary == Changeset.Summary(inserted: 1, deleted: 1, moved: 0, updated: 1, unchanged: 0), "\(format)")
            #expect(fromBytes.changes.map(\.key) == fromFiles.changes.map(\.key), "\(format)")
            #expect(fromBytes.fingerprints == fromFiles.fingerprints, "\(format)")
            // The same records as values give the same fingerprints.
            let values = try Differ().diff(
                old: [["id": 1, "n": "a"], ["id": 2, "n": "b"]], new: [["id": 2, "n": "B"], ["id": 3, "n": "c"]], key: key)
            #expect(values.fingerprints == fromFiles.fingerprints, "\(format)")
            // A change's record, which a diff of files may read only when asked for, is the
            // record the values give.
            #expect(try fromFiles.changes.map { try $0.value() } == values.changes.map { try $0.value() }, "\(format)")

            let applier = try FileApplier(changeset: fromFiles, oldPath: oldURL.path, csvInfersTypes: true)
            #expect(applier.fingerprint == fromFiles.fingerprints?.old)
            #expect(applier.newFingerprint == fromFiles.fingerprints?.new)
            var written = ""
            try applier.write(.json, to: &written)
            #expect(try differ.diff(old: Array(written.utf8), new: Array(new.utf8), oldName: "a.json", newName: "new.\(format)").isEmpty)
        }
    }

    /// `FileApplier` checks both fingerprints itself: a changeset made from another file is
    /// refused, with the hint that `force` gets past it; with `force` it applies, as long as
    /// each change finds its key at its old position. A changeset without fingerprints is
    /// refused too, and one whose changes do not fit the file is refused even with `force`.
    @Test func theApplierRefusesAChangesetMadeForAnotherFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listdiff-applier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
        let old = try file("old.json", #"[{"id": 1, "n": "a"}, {"id": 2, "n": "b"}]"#)
        let new = try file("new.json", #"[{"id": 2, "n": "B"}, {"id": 1, "n": "a"}]"#)
        // The same keys in the same places, another content: only the fingerprint tells.
        let other = try file("other.json", #"[{"id": 1, "n": "x"}, {"id": 2, "n": "y"}]"#)
        let changeset = try FileDiffer(key: key).diff(oldPath: old, newPath: new)

        var written = ""
        try FileApplier(changeset: changeset, oldPath: old).write(.json, to: &written)
        #expect(
            try FileDiffer(key: key).diff(old: Array(written.utf8), new: Array(try String(contentsOfFile: new, encoding: .utf8).utf8))
                .isEmpty)

        do {
            _ = try FileApplier(changeset: changeset, oldPath: other)
            Issue.record("a changeset made from another file was applied")
        } catch {
            #expect(error.kind == .changeset && error.hint == .force && error.file == other, "\(error)")
            #expect(error.message.hasPrefix("this is not the document the changeset was made from"), "\(error)")
            #expect(!error.message.contains("--"), "a library message names no option: \(error)")
        }
        var forced = ""
        try FileApplier(changeset: changeset, oldPath: other, force: true).write(.json, to: &forced)
        let expected = #"[{"id": 2, "n": "B"}, {"id": 1, "n": "x"}]"#
        #expect(try FileDiffer(key: key).diff(old: Array(forced.utf8), new: Array(expected.utf8)).isEmpty, "\(forced)")

        // Read back without its fingerprints: refused unless forced.
        var json = ""
        try JSONChangesetRenderer(context: RenderContext(oldName: "old", newName: "new")).render(changeset, to: &json)
        let bare = try Changeset(json: Array(json.replacingOccurrences(of: "\"fingerprints\"", with: "\"unknown\"").utf8))
        #expect(bare.fingerprints == nil)
        #expect(throws: ListDiffError.self) { try FileApplier(changeset: bare, oldPath: old) }
        _ = try FileApplier(changeset: bare, oldPath: old, force: true)

        // A file whose records are not where the changes say: refused even with force.
        let shuffled = try file("shuffled.json", #"[{"id": 2, "n": "b"}, {"id": 1, "n": "a"}]"#)
        do {
            _ = try FileApplier(changeset: changeset, oldPath: shuffled, force: true)
            Issue.record("a changeset whose keys do not fit was applied")
        } catch {
            #expect(
                error.kind == .changeset && error.hint == nil && error.message.contains("the changeset was not made from this file"),
                "\(error)")
        }
    }

    /// The JSON changeset reads back into the same changes, which apply as the original's do.
    @Test func theJSONChangesetReadsBack() throws {
        let old: Value = ["a": [["id": 1, "v": [1, 2]]], "b": [["id": 2]]]
        let new: Value = ["a": [["id": 2]], "b": [["id": 1, "v": [2]]], "c": [["id": 3]]]
        let changeset = try Differ().diff(old: old, new: new, key: key)
        var json = ""
        try JSONChangesetRenderer(context: RenderContext(oldName: "old", newName: "new")).render(changeset, to: &json)
        let read = try Changeset(json: Array(json.utf8))
        #expect(read.summary == changeset.summary && read.fingerprints == changeset.fingerprints)
        #expect(read.changes.map(\.operation) == changeset.changes.map(\.operation))
        #expect(read.sections == changeset.sections)
        #expect(try read.apply(to: old) == new)
        // Rendered again, it is the same changeset: the same JSON, the same patch.
        let context = RenderContext(oldName: "old", newName: "new")
        var again = "", patch = "", patchAgain = ""
        try JSONChangesetRenderer(context: context).render(read, to: &again)
        #expect(again == json)
        try PatchRenderer(context: context).render(changeset, to: &patch)
        try PatchRenderer(context: context).render(read, to: &patchAgain)
        #expect(patchAgain == patch)
        #expect(patch.contains(#"> id=1 #0.0 → #1.0 (from "a")"#))
        // A changeset written without `section_names` (before 0.3.0) reads too, with the
        // same batch updates.
        let lines = json.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("\"section_names\"") }
        let older = try Changeset(json: Array(lines.joined(separator: "\n").utf8))
        func plan(_ c: Changeset) -> [String] {
            c.stages.map { stage in
                "\(stage.kind): \(stage.sections.map { "\($0.operation) \($0.old ?? -1) \($0.new ?? -1)" }) "
                    + "\(stage.changes.map { "\($0.operation) \($0.old?.description ?? "-") \($0.new?.description ?? "-")" })"
            }
        }
        #expect(plan(older) == plan(changeset))
        #expect(
            plan(changeset) == [
                #"updates: [] ["update [0, 0] -"]"#, "deletes: [] []", #"sections: ["insert -1 2"] []"#,
                #"insertsAndMoves: [] ["move [1, 0] [0, 0]", "move [0, 0] [1, 0]", "insert - [2, 0]"]"#,
            ])
        #expect(try older.apply(to: old) == new)
    }

    /// Every renderer writes to any `TextOutputStream`, and what each writes names the change.
    @Test func everyRendererWritesTheChange() throws {
        let changeset = try Differ().diff(old: [["id": 1, "v": "a"]], new: [["id": 1, "v": "b"]], key: key)
        let context = RenderContext(oldName: "old.json", newName: "new.json")
        let renderers: [any ChangesetRenderer] = [
            PatchRenderer(context: context), PatchRenderer(context: context, style: .ansi), JSONChangesetRenderer(context: context),
            JSONPatchRenderer(), MarkdownRenderer(context: context), GitHubRenderer(context: context, level: .warning),
            StatRenderer(context: context),
        ]
        let outputs = try renderers.map { renderer in
            var out = ""
            try renderer.render(changeset, to: &out)
            return out
        }
        #expect(
            outputs[0] == "--- old.json\n+++ new.json\n~ id=1 /v: \"a\" → \"b\"\n0 inserted, 0 deleted, 0 moved, 1 updated, 0 unchanged\n")
        #expect(outputs[1].contains("\u{1B}[31m\"a\"\u{1B}[0m → \u{1B}[32m\"b\"\u{1B}[0m") && !outputs[0].contains("\u{1B}"))
        #expect(
            outputs[2].contains(
                #"{"op": "update", "key": 1, "old": [0, 0], "new": [0, 0], "fields": [{"path": "/v", "old": "a", "new": "b"}], "value": {"id":1,"v":"b"}}"#
            ))
        #expect(outputs[3] == "[\n  {\"op\": \"replace\", \"path\": \"/0/v\", \"value\": \"b\"}\n]\n")
        #expect(
            outputs[4].contains(
                "#### Updated (1)\n\n**id=1** (at 0)\n\n| field | old | new |\n| --- | --- | --- |\n| /v | \"a\" | \"b\" |\n"))
        #expect(outputs[5] == "::warning file=new.json,title=listdiff%3A updated id=1::/v: \"a\" → \"b\"\n")
        #expect(outputs[6].hasSuffix("updated     1\nunchanged   0\nfields updated:\n  /v  1\n"))
    }

    /// Each kind of error, from a real failure: what a caller switches on.
    @Test func errorsSayWhatKindOfTroubleTheyAre() throws {
        func kind(_ body: () throws -> Void) -> ListDiffError.Kind? {
            do { try body() } catch { return (error as? ListDiffError)?.kind }
            return nil
        }
        let files = FileDiffer(key: key)
        func diff(_ text: String) throws(ListDiffError) {
            _ = try files.diff(old: Array(text.utf8), new: Array("[]".utf8), oldName: "a.json", newName: "b.json")
        }
        #expect(kind { try diff("[{\"id\": 1,}]") } == .syntax)
        #expect(kind { try diff("[{\"id\": 1, \"id\": 2}]") } == .syntax)
        #expect(kind { try diff("42") } == .shape)
        #expect(kind { try diff("[{\"name\": 1}]") } == .key)
        #expect(kind { try diff(String(repeating: "[", count: 1001) + String(repeating: "]", count: 1001)) } == .limit)
        #expect(kind { _ = try files.diff(oldPath: "/nonexistent/a.json", newPath: "/nonexistent/b.json") } == .io)
        #expect(kind { _ = try IdentityKey(parsing: ["/a~2"]) } == .usage)
        #expect(kind { _ = try Changeset(json: Array("{\"version\": 9}".utf8)) } == .changeset)
        let changeset = try Differ().diff(old: [["id": 1]], new: [["id": 2]], key: key)
        #expect(kind { _ = try changeset.apply(to: [["id": 3]]) } == .changeset)
        // The place: the file, and the line and column where the text went wrong.
        do {
            try diff("[\n  {\"id\": 1,}\n]")
            Issue.record("no error")
        } catch {
            #expect(error.file == "a.json" && error.location == ListDiffError.Location(line: 2, column: 12))
            #expect(error.description.hasPrefix("a.json:2:12: error: "))
        }
    }

    /// A missing key's error names the fields that would key both inputs, from bytes as
    /// from files.
    @Test func aMissingKeyNamesTheFieldsThatWouldDo() throws {
        let old = #"[{"sku": "a", "n": 1}, {"sku": "b", "n": 1}]"#, new = #"[{"sku": "b", "n": 2}]"#
        #expect(
            throws: ListDiffError(
                .key, file: "old.json", location: ListDiffError.Location(line: 1, column: 2),
                #"record 0 has no key field 'id'; unique in both files: "sku""#, hint: .key(["sku"]))
        ) {
            try FileDiffer(key: key).diff(old: Array(old.utf8), new: Array(new.utf8), oldName: "old.json", newName: "new.json")
        }
    }

    @Test func errorsNameTheListAndRecordButNoLine() throws {
        #expect(throws: ListDiffError(.key, file: "old", "record 1 has no key field 'id'")) {
            try Differ().diff(old: [["id": 1], ["name": "x"]], new: [], key: key)
        }
        #expect(
            throws: ListDiffError(
                .key, file: "new",
                "duplicate key id=1 (records 0 and 1)", hint: .matchDuplicates)
        ) {
            try Differ().diff(old: [], new: [["id": 1], ["id": 1]], key: key)
        }
        #expect(try Differ().diff(old: [], new: [["id": 1], ["id": 1]], key: key, duplicates: .match).summary.inserted == 2)
    }
}
