import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Folders diffed by `TreeDiffer` over generated trees: every pair's changeset is the one a
/// diff of that pair gives, and `TreeApplier` rebuilds NEW from OLD and the document.
@Suite struct TreeTests {
    /// A random tree pair: nested folders, files kept, changed, added and removed, in
    /// JSON, NDJSON, YAML, CSV and text.
    static func makeTrees(_ rng: inout SplitMix64, in root: URL) throws -> (old: URL, new: URL) {
        let old = root.appendingPathComponent("old"), new = root.appendingPathComponent("new")
        let fm = FileManager.default
        func write(_ text: String, _ url: URL) throws {
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        func records(_ ids: [Int], _ version: Int, ext: String) -> String {
            switch ext {
            case "csv": return "id,v\n" + ids.map { "\($0),\($0 % 3 == 0 ? version : 0)\n" }.joined()
            case "ndjson": return ids.map { "{\"id\":\($0),\"v\":\($0 % 3 == 0 ? version : 0)}\n" }.joined()
            case "yaml": return ids.map { "- id: \($0)\n  v: \($0 % 3 == 0 ? version : 0)\n" }.joined()
            case "txt": return ids.map { "line \($0) \(version)\n" }.joined()
            default: return "[" + ids.map { "{\"id\":\($0),\"v\":\($0 % 3 == 0 ? version : 0)}" }.joined(separator: ",") + "]\n"
            }
        }
        let folders = ["", "a", "a/b", "a/b/c", "d"]
        for n in 0..<24 {
            let ext = ["json", "ndjson", "yaml", "csv", "txt"][Int(rng.next() % 5)]
            let path = folders[Int(rng.next() % UInt64(folders.count))]
            let name = (path.isEmpty ? "" : path + "/") + "f\(n).\(ext)"
            let ids = (0..<Int(rng.next() % 12)).map { $0 * 2 + 1 }
            switch rng.next() % 4 {
            case 0:  // unchanged
                try write(records(ids, 1, ext: ext), old.appendingPathComponent(name))
                try write(records(ids, 1, ext: ext), new.appendingPathComponent(name))
            case 1:  // changed: some records updated, one added, one gone
                let newIDs = ids.dropFirst() + [100 + n]
                try write(records(ids, 1, ext: ext), old.appendingPathComponent(name))
                try write(records(Array(newIDs), 2, ext: ext), new.appendingPathComponent(name))
            case 2: try write(records(ids, 1, ext: ext), old.appendingPathComponent(name))
            default: try write(records(ids, 1, ext: ext), new.appendingPathComponent(name))
            }
        }
        try fm.createDirectory(at: old, withIntermediateDirectories: true)
        try fm.createDirectory(at: new, withIntermediateDirectories: true)
        return (old, new)
    }

    /// A random pair of trees under `root`, and their diff by `id`.
    static func diffTrees(seed: UInt64, in root: URL) throws -> (URL, URL, FileDiffer, TreeChangeset) {
        var rng = SplitMix64(seed: seed)
        let (old, new) = try makeTrees(&rng, in: root)
        let files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
        return (old, new, files, try TreeDiffer(files: files).diff(old: old.path, new: new.path))
    }

    /// Each pair of record files carries the changeset a diff of that pair gives, byte for
    /// byte as JSON; text files compare as bytes; one-sided files are counted.
    @Test(arguments: [1, 2, 3, 4, 5, 6]) func eachPairIsItsSingleFileDiff(seed: UInt64) throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let (old, new, files, tree) = try Self.diffTrees(seed: seed, in: root)
        #expect(tree.errors.isEmpty)
        #expect(!tree.files.isEmpty)
        // Walk order: sorted by component.
        #expect(tree.files.map(\.path) == tree.files.map(\.path).sorted(by: FolderWalk.precedes))
        for file in tree.files {
            let a = old.appendingPathComponent(file.path).path, b = new.appendingPathComponent(file.path).path
            let names = RenderContext(oldName: a, newName: b)
            switch file.outcome {
            case .records(let changeset):
                // An empty side holds no records, as git's /dev/null.
                var differ = files
                differ.emptyPaths = Set([a, b].filter { (try? Data(contentsOf: URL(fileURLWithPath: $0)).isEmpty) == true })
                let single = try differ.diff(old: a, new: b).changeset
                #expect(
                    try JSONChangesetRenderer(context: names).rendered(changeset)
                        == JSONChangesetRenderer(context: names).rendered(single), "\(file.path)")
            case .bytes(let same):
                let empty = try Data(contentsOf: URL(fileURLWithPath: a)).isEmpty
                #expect(file.path.hasSuffix(".txt") || empty)
                let equal = try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b))
                #expect(same == equal)
            case .added(.records(0)), .removed(.records(0)): break
            case .added(.records(let n)):
                #expect(
                    n
                        == (try files.diff(old: [UInt8]("[]".utf8), new: bytes(URL(fileURLWithPath: b)), oldName: "x.json", newName: b)
                            .summary.inserted))
            case .removed(.records(let n)):
                #expect(
                    n
                        == (try files.diff(old: bytes(URL(fileURLWithPath: a)), new: [UInt8]("[]".utf8), oldName: a, newName: "x.json")
                            .summary.deleted))
            case .added(.bytes), .removed(.bytes): #expect(file.path.hasSuffix(".txt"))
            default: Issue.record("unexpected outcome at \(file.path)")
            }
        }
    }

    /// The tree document applied to OLD gives NEW: the same records in each record file,
    /// the same bytes in the others, no file more or less.
    @Test(arguments: [7, 8, 9]) func applyingTheDocumentGivesNew(seed: UInt64) throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let (old, new, files, tree) = try Self.diffTrees(seed: seed, in: root)
        var document: [UInt8] = []
        try TreeJSONRenderer().render(tree) { document += $0 }
        let applier = try TreeApplier(
            document: document, name: "tree.json", old: old.path, reader: DocumentReader(key: try IdentityKey(parsing: [])),
            asked: nil, force: false)
        let out = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        for (path, content) in applier.files {
            try TreeApplier.makeFolders(for: path, in: out.path)
            let target = out.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            switch content {
            case .records(let applier, let format):
                var text = ""
                try applier.write(format, to: &text)
                try Data(text.utf8).write(to: target)
            case .bytes(let b): try Data(b).write(to: target)
            case .copy(let source): try FileManager.default.copyItem(atPath: source, toPath: target.path)
            case .link(let pointee): try FileManager.default.createSymbolicLink(atPath: target.path, withDestinationPath: pointee)
            }
        }
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let again = try TreeDiffer(files: files).diff(old: new.path, new: out.path)
        #expect(again.errors.isEmpty)
        #expect(!again.differs, "\(again.files.filter(\.differs).map(\.path))")
        #expect(again.files.map(\.path) == tree.files.filter { if case .removed = $0.outcome { false } else { true } }.map(\.path))
    }

    /// A malformed file, a FIFO, a link out of the tree and a loop: the malformed file and
    /// the FIFO are errors at their paths, the links compare as links and are never
    /// followed, and every other file is still diffed.
    @Test func troubleAtOnePathLeavesTheRest() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let fm = FileManager.default
        let old = root.appendingPathComponent("old"), new = root.appendingPathComponent("new")
        for side in [old, new] { try fm.createDirectory(at: side.appendingPathComponent("m"), withIntermediateDirectories: true) }
        try Data(#"[{"id":1,"v":1}]"#.utf8).write(to: old.appendingPathComponent("a.json"))
        try Data(#"[{"id":1,"v":2}]"#.utf8).write(to: new.appendingPathComponent("a.json"))
        try Data(#"[{"id":1"#.utf8).write(to: old.appendingPathComponent("m/broken.json"))
        try Data(#"[{"id":1}]"#.utf8).write(to: new.appendingPathComponent("m/broken.json"))
        try Data(#"[{"id":3}]"#.utf8).write(to: old.appendingPathComponent("z.json"))
        try Data(#"[{"id":4}]"#.utf8).write(to: new.appendingPathComponent("z.json"))
        #expect(mkfifo(old.appendingPathComponent("m/pipe").path, 0o600) == 0)
        try fm.createSymbolicLink(atPath: new.appendingPathComponent("m/passwd").path, withDestinationPath: "../../../../etc/passwd")
        for side in [old, new] { try fm.createSymbolicLink(atPath: side.appendingPathComponent("m/loop").path, withDestinationPath: "..") }
        let tree = try TreeDiffer(files: FileDiffer(key: try IdentityKey(parsing: ["id"]))).diff(old: old.path, new: new.path)
        #expect(tree.files.map(\.path) == ["a.json", "m/broken.json", "m/loop", "m/passwd", "m/pipe", "z.json"])
        #expect(tree.errors.count == 2)
        #expect(tree.errors[0].file == old.appendingPathComponent("m/broken.json").path && tree.errors[0].location != nil)
        #expect(tree.errors[1].message.contains("FIFO"))
        guard case .links(let a, let b) = tree.files[2].outcome else { throw Missing("loop is not a pair of links") }
        #expect(a == ".." && b == "..")
        guard case .added(.link(let target)) = tree.files[3].outcome else { throw Missing("passwd is not an added link") }
        #expect(target == "../../../../etc/passwd")
        guard case .records(let first) = tree.files[0].outcome, case .records(let last) = tree.files[5].outcome else {
            throw Missing("the record files were not diffed")
        }
        #expect(first.summary.updated == 1 && last.summary.inserted == 1 && last.summary.deleted == 1)
        #expect(tree.differs)
    }

    /// The walk never follows a link, so a link to a folder above cannot loop, and a folder
    /// met again below itself is named as a loop.
    @Test func walkNamesWhatItDoesNotFollow() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("x/y"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("x/y/up").path, withDestinationPath: "../..")
        try Data("a".utf8).write(to: root.appendingPathComponent("x/f"))
        let walk = FolderWalk(root: root.path)
        #expect(walk.problems.isEmpty)
        #expect(walk.entries.map(\.path) == ["x/f", "x/y/up"])
        #expect(walk.entries[1].entry == .link(target: "../.."))
        #expect(FolderWalk.precedes("a/b", "a-b") && !FolderWalk.precedes("a-b", "a/b"))
    }

    /// A path that would leave the target folder is refused before anything is written.
    @Test func applyRefusesPathsOutOfTheFolder() throws {
        for path in ["../x.json", "/etc/x", "a/../../x", "", "a//b", "./a"] {
            let document = """
                {"type": "listdiff-tree", "version": 1, "files": [{"path": \(JSONWriter.compact(.string(path))), "status": "added", "kind": "bytes", "text": "x"}]}
                """
            #expect(throws: ListDiffError.self) {
                _ = try TreeApplier(
                    document: Array(document.utf8), name: "t.json", old: "/nowhere",
                    reader: DocumentReader(key: try IdentityKey(parsing: [])),
                    asked: nil, force: false)
            }
        }
    }

    @Test func base64RoundTrips() {
        var rng = SplitMix64(seed: 12)
        for n in 0..<40 {
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let text = Base64.encode(bytes)
            #expect(Base64.decode(text) == bytes)
            #expect(text == Data(bytes).base64EncodedString())
        }
        #expect(Base64.decode("abc") == nil && Base64.decode("a=bc") == nil)
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String
        init(_ text: String) { description = text }
    }
}

extension JSONChangesetRenderer {
    func rendered(_ changeset: Changeset) throws -> String {
        var out = ""
        try render(changeset, to: &out)
        return out
    }
}

func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("listdiff-tree-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
