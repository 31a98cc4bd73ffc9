import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `listdiff OLD_DIR NEW_DIR`, `KUBECTL_EXTERNAL_DIFF` and `listdiff apply` over folders,
/// run as the built binary.
@Suite struct TreeCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    /// kubectl runs `$KUBECTL_EXTERNAL_DIFF LIVE MERGED` with the variable's words after the
    /// folders, each file one object named group.version.Kind.namespace.name, an absent
    /// object an empty file.
    @Test func kubectlFoldersAsKubectlCallsUs() throws {
        let run = try Binary.run(["kubectl/LIVE", "kubectl/MERGED", "--preset", "kubernetes"], in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stderr == "")
        #expect(run.stdout == (try golden("kubectl.patch")))
        let brief = try Binary.run(["--brief", "--preset", "kubernetes", "kubectl/LIVE", "kubectl/MERGED"], in: Self.examples)
        let expected = try golden("kubectl.brief")
        #expect(brief.status == 1 && brief.stdout == expected)
        let same = try Binary.run(["kubectl/LIVE", "kubectl/LIVE", "--preset", "kubernetes"], in: Self.examples)
        #expect(same.status == 0 && same.stdout == "" && same.stderr == "")
    }

    /// Through kubectl's own splitting of the variable: a shell stands in for kubectl.
    @Test func kubectlExternalDiffVariable() throws {
        let script = """
            set -f; cmd=($KUBECTL_EXTERNAL_DIFF); "$LISTDIFF" kubectl/LIVE kubectl/MERGED "${cmd[@]:1}"
            """
        let run = try Binary.run(
            ["-c", script], environment: ["KUBECTL_EXTERNAL_DIFF": "listdiff --preset kubernetes", "LISTDIFF": Binary.url.path],
            in: Self.examples, executable: "/bin/bash")
        #expect(run.status == 1)
        #expect(run.stdout == (try golden("kubectl.patch")))
    }

    /// Formats made for two files are refused over folders; the cut of long values applies
    /// to each file's patch as it does to one pair's.
    @Test func foldersRefuseFormatsForTwoFilesAndCutLongValues() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let long = String(repeating: "word ", count: 100)
        try write(
            ["A/x.json": "[{\"id\": 1, \"s\": \"\(long)one\"}]\n", "B/x.json": "[{\"id\": 1, \"s\": \"\(long)two\"}]\n"], in: dir)
        for format in ["side", "html", "jsonpatch"] {
            let run = try Binary.run(["-f", format, "A", "B"], in: dir)
            #expect(run.status == 2 && run.stderr.contains("over folders use patch, json, markdown or github"), "\(run.stderr)")
        }
        let pair = try Binary.run(["--max-value-width", "40", "A/x.json", "B/x.json"], in: dir)
        let tree = try Binary.run(["--max-value-width", "40", "A", "B"], in: dir)
        let cutLine = pair.stdout.split(separator: "\n").first { $0.hasPrefix("~ id=1 /s:") }
        #expect(cutLine != nil && cutLine!.contains("chars]"), "\(pair.stdout)")
        #expect(tree.stdout.contains(String(cutLine ?? "")), "\(tree.stdout)")
        let whole = try Binary.run(["--full-values", "A", "B"], in: dir)
        #expect(whole.stdout.contains(long + "one"), "\(whole.stdout)")
    }

    @Test func aFolderAndAFileIsAUsageError() throws {
        let run = try Binary.run(["kubectl/LIVE", "people-old.json"], in: Self.examples)
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(run.stderr == "listdiff: error: kubectl/LIVE is a folder and people-old.json is not: give two files, or two folders\n")
    }

    /// A malformed file in the middle: one line on standard error with its place, the rest
    /// still written, status 2.
    @Test func troubleInTheMiddleIsNamedAndTheRestIsDiffed() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        for side in ["old", "new"] {
            try fm.createDirectory(at: dir.appendingPathComponent(side + "/m"), withIntermediateDirectories: true)
        }
        func write(_ path: String, _ text: String) throws { try Data(text.utf8).write(to: dir.appendingPathComponent(path)) }
        try write("old/a.json", #"[{"id":1,"v":1}]"#)
        try write("new/a.json", #"[{"id":1,"v":2}]"#)
        try write("old/m/bad.json", "[{\"id\":1,\n \"v\" 2}]")
        try write("new/m/bad.json", #"[{"id":1}]"#)
        try write("old/z.csv", "id,v\n1,a\n")
        try write("new/z.csv", "id,v\n1,b\n")
        try write("new/m/only.ndjson", "{\"id\":1}\n{\"id\":2}\n")
        try write("old/readme.txt", "hello\n")
        try write("new/readme.txt", "hello!\n")
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("new/m/out").path, withDestinationPath: "/etc/passwd")
        let run = try Binary.run(["old", "new"], in: dir)
        #expect(run.status == 2)
        #expect(run.stderr == "old/m/bad.json:2:6: error: expected ':' after object key, found '2'\n", "\(run.stderr)")
        #expect(
            run.stdout == """
                diff -r old/a.json new/a.json
                --- old/a.json
                +++ new/a.json
                ~ id=1 /v: 1 → 2
                0 inserted, 0 deleted, 0 moved, 1 updated, 0 unchanged
                Only in new/m: only.ndjson (2 records)
                Only in new/m: out (a symbolic link to /etc/passwd)
                Files old/readme.txt and new/readme.txt differ
                diff -r old/z.csv new/z.csv
                --- old/z.csv
                +++ new/z.csv
                ~ id="1" /v: "a" → "b"
                0 inserted, 0 deleted, 0 moved, 1 updated, 0 unchanged
                3 changed, 2 added, 0 removed, 0 unchanged files, 1 not diffed (errors); records: 0 inserted, 0 deleted, 0 moved, 2 updated, 0 unchanged

                """, "\(run.stdout)")
        let brief = try Binary.run(["--brief", "old", "new"], in: dir)
        #expect(brief.status == 2)
        #expect(
            brief.stdout
                == "Files old/a.json and new/a.json differ\nOnly in new/m: only.ndjson\nOnly in new/m: out\nFiles old/readme.txt and new/readme.txt differ\nFiles old/z.csv and new/z.csv differ\n"
        )
        // Without the malformed file: 1, and 0 for a folder against itself.
        try write("old/m/bad.json", #"[{"id":1}]"#)
        #expect(try Binary.run(["old", "new"], in: dir).status == 1)
        #expect(try Binary.run(["old", "old"], in: dir).status == 0)
        // The other outputs go over the tree too.
        let markdown = try Binary.run(["-f", "markdown", "old", "new"], in: dir)
        #expect(markdown.status == 1 && markdown.stdout.contains("| m/only.ndjson | added (2 records) |\n"))
        #expect(markdown.stdout.contains("### listdiff: old/z.csv → new/z.csv\n"))
        let github = try Binary.run(["-f", "github", "old", "new"], in: dir)
        #expect(
            github.stdout.contains("::notice file=new/a.json,line=1,col=14,title=listdiff%3A updated id=1::/v: 1 → 2\n"), "\(github.stdout)"
        )
        #expect(
            github.stdout.contains("::notice file=new/readme.txt,title=listdiff%3A file::Files old/readme.txt and new/readme.txt differ\n"))
        let stat = try Binary.run(["--stat", "old", "new"], in: dir)
        #expect(stat.stdout.contains("diff -r old/a.json new/a.json\n--- old/a.json\n+++ new/a.json\ninserted    0\n"))
        let quiet = try Binary.run(["-q", "old", "new"], in: dir)
        #expect(quiet.status == 1 && quiet.stdout == "")
    }

    /// A real loop: a folder bind-mounted below itself. The walk names it and goes on with
    /// the other files; the status is 2. Mounting needs root: without it the test says why
    /// and skips.
    @Test func aFolderMountedBelowItselfIsALoop() throws {
        let mount = try Programs.require("mount", package: "mount")
        let umount = try Programs.require("umount", package: "mount")
        try Programs.requireRoot("a bind mount needs root")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try write(["old/a.json": #"[{"id":1,"v":1}]"#, "new/a.json": #"[{"id":1,"v":2}]"#], in: dir)
        let inner = dir.appendingPathComponent("new/sub/again")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        try #require(
            try Programs.status(mount, ["--bind", dir.appendingPathComponent("new").path, inner.path]) == 0, "mount --bind failed")
        defer { _ = try? Programs.status(umount, [inner.path]) }
        let diff = try Binary.run(["old", "new"], in: dir)
        #expect(diff.status == 2)
        #expect(
            diff.stderr == "new/sub/again: error: cannot be walked: a loop: this folder is also one of the folders that hold it\n",
            "\(diff.stderr)")
        #expect(diff.stdout.contains("diff -r old/a.json new/a.json\n"), "\(diff.stdout)")
    }

    /// `-f json` is one document; `apply` of it onto OLD writes NEW, and refuses a path that
    /// leaves the target folder.
    @Test func applyOfTheTreeChangesetWritesNew() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        try fm.copyItem(at: Self.examples.appendingPathComponent("kubectl"), to: dir.appendingPathComponent("kubectl"))
        try Data([0, 1, 2, 255]).write(to: dir.appendingPathComponent("kubectl/MERGED/blob.bin"))
        try fm.createDirectory(at: dir.appendingPathComponent("kubectl/LIVE/gone"), withIntermediateDirectories: true)
        try Data(#"[{"id":1}]"#.utf8).write(to: dir.appendingPathComponent("kubectl/LIVE/gone/x.json"))
        let json = try Binary.run(
            ["--preset", "kubernetes", "-f", "json", "-o", "tree.json", "kubectl/LIVE", "kubectl/MERGED"], in: dir)
        #expect(json.status == 1, "\(json.stderr)")
        let document = try String(contentsOf: dir.appendingPathComponent("tree.json"), encoding: .utf8)
        #expect(document.hasPrefix("{\n  \"version\": 1,\n  \"generator\": \"listdiff "))
        #expect(document.contains("\n  \"old\": \"kubectl/LIVE\",\n  \"new\": \"kubectl/MERGED\",\n  \"type\": \"listdiff-tree\",\n"))
        #expect(document.contains(#"{"path": "blob.bin", "status": "added", "kind": "bytes", "bytes": 4, "base64": "AAEC/w=="}"#))
        let apply = try Binary.run(["apply", "kubectl/LIVE", "tree.json", "-o", "out"], in: dir)
        #expect(apply.status == 0, "\(apply.stderr)")
        let again = try Binary.run(["--preset", "kubernetes", "kubectl/MERGED", "out"], in: dir)
        #expect(again.status == 0 && again.stdout == "", "\(again.stdout)")
        #expect(try Data(contentsOf: dir.appendingPathComponent("out/blob.bin")) == Data([0, 1, 2, 255]))
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("out/gone").path))
        #expect(try fm.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path).filter { $0.hasPrefix(".listdiff") }.isEmpty)

        let escaping = document.replacingOccurrences(of: #""path": "blob.bin""#, with: #""path": "../blob.bin""#)
        try Data(escaping.utf8).write(to: dir.appendingPathComponent("bad.json"))
        let refused = try Binary.run(["apply", "kubectl/LIVE", "bad.json", "-o", "out2"], in: dir)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\"../blob.bin\", which is not relative to the folder"), "\(refused.stderr)")
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("out2").path))
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("blob.bin").path))
        let noOutput = try Binary.run(["apply", "kubectl/LIVE", "tree.json"], in: dir)
        #expect(noOutput.status == 2 && noOutput.stderr.contains("name the folder to write NEW's files to with --output"))
    }
}
