import Foundation
import Testing

/// listdiff as git's external diff never stops a `git diff`: a file it cannot read as
/// records is diffed by lines, and every file is shown, named by its repository path.
@Suite struct GitFallbackTests {
    @Test func oneGitDiffShowsABrokenFileAListAndAText() throws {
        _ = try Programs.require("git", package: "git")
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let repo = home.appendingPathComponent("repo")
        try FileManager.default.createDirectory(at: repo, withIntermediateDirectories: true)
        let run = try GitShell.run(
            """
            git init -q -b main .
            git config user.email t@example.com; git config user.name t
            mkdir data
            printf '[{"id": 1, "v": 1}]\\n' > data/list.json
            printf '[{"id": 1}]\\n' > data/broken.json
            printf 'one\\ntwo\\nthree\\n' > notes.txt
            git add . && git commit -qm one
            printf '[{"id": 1, "v": 2}]\\n' > data/list.json
            printf '[{"id": 1},\\n' > data/broken.json
            printf 'one\\n2\\nthree\\n' > notes.txt
            git add . && git commit -qm two
            GIT_EXTERNAL_DIFF="$LISTDIFF" git --no-pager diff HEAD~1 HEAD
            echo "status $?"
            """, in: repo, home: home)
        #expect(run.stderr == "", "\(run.stderr)")
        #expect(
            run.stdout == """
                # listdiff: not read as records (data/broken.json:2:1: error: expected a JSON value, found the end of the input); a line diff follows
                --- a/data/broken.json
                +++ b/data/broken.json
                @@ -1 +1 @@
                -[{"id": 1}]
                +[{"id": 1},
                --- a/data/list.json
                +++ b/data/list.json
                ~ id=1 /v: 1 → 2
                0 inserted, 0 deleted, 0 moved, 1 updated, 0 unchanged
                # listdiff: not read as records (notes.txt:1:1: error: the top level is a string; expected a list of records, a map of records, an object of lists, or a list of section objects); a line diff follows
                --- a/notes.txt
                +++ b/notes.txt
                @@ -1,3 +1,3 @@
                 one
                -two
                +2
                 three
                status 0

                """, "\(run.stdout)")
    }

    /// `--no-index` with absolute paths: `a/tmp/…`, not `a//tmp/…`.
    @Test func absolutePathsUnderNoIndexHaveOneSlash() throws {
        _ = try Programs.require("git", package: "git")
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let run = try GitShell.run(
            """
            printf '[{"id": 1}]\\n' > "$PWD/x.json"; printf '[{"id": 2}]\\n' > "$PWD/y.json"
            GIT_EXTERNAL_DIFF="$LISTDIFF" git --no-pager diff --no-index "$PWD/x.json" "$PWD/y.json" || true
            """, in: home, home: home)
        let path = home.resolvingSymlinksInPath().path.drop { $0 == "/" }
        #expect(run.stdout.hasPrefix("--- a/\(path)/x.json\n+++ b/\(path)/y.json\n"), "\(run.stdout)")
    }
}
