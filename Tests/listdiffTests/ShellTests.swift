import Foundation
import Testing

/// listdiff under git (as an external diff and as a diff driver), and what reaches a terminal
/// from hostile files (CompletionTests has the completion scripts).
@Suite struct ShellTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    /// Runs a bash script in `directory`, with `$LISTDIFF` the binary; git reads none of the
    /// user's configuration.
    func bash(_ script: String, in directory: URL) throws -> Run {
        try Binary.run(
            ["-c", script],
            environment: [
                "HOME": directory.path, "GIT_CONFIG_NOSYSTEM": "1", "GIT_PAGER": "cat",
                "LISTDIFF": Binary.url.path,
            ],
            in: directory, executable: "/bin/bash")
    }

    /// A repository with a first commit, then a changed, an added and a deleted file.
    func repository() throws -> URL {
        _ = try Programs.require("git", package: "git")
        let dir = try temporaryDirectory()
        let e = Self.examples.path
        let setup = try bash(
            """
            set -e
            git init -q -b main .
            git config user.email test@example.com; git config user.name test
            cp '\(e)/people-old.json' people.users.json
            cp '\(e)/teams-old.json' gone.users.json
            git add . && git commit -q -m first
            cp '\(e)/people-new.json' people.users.json
            git rm -q gone.users.json
            printf '[{"id": 1, "name": "Ada"}]\\n' > added.users.json
            git add -A
            """, in: dir)
        #expect(setup.status == 0, "\(setup.stderr)")
        return dir
    }

    static let expectedChanged = """
        --- a/people.users.json
        +++ b/people.users.json
        - id=4 #3 {"id":4,"name":"Edsger Dijkstra","email":"edsger@example.com","team":"paths"}
        ~ id=3 /email: "grace@example.com" → "grace.hopper@example.com"
        ~ id=3 /rank: (none) → "Rear Admiral"
        > id=2 #1 → #3
        ~ id=6 /team: "books" → (none)
        + id=8 #5 {"id":8,"name":"Frances Allen","email":"fran@example.com","team":"compilers"}
        1 inserted, 1 deleted, 1 moved, 2 updated, 3 unchanged

        """

    static let expectedAdded = """
        --- /dev/null
        +++ b/added.users.json
        + id=1 #0 {"id":1,"name":"Ada"}
        1 inserted, 0 deleted, 0 moved, 0 updated, 0 unchanged

        """

    @Test func gitExternalDiffShowsAddedDeletedAndChangedFiles() throws {
        let dir = try repository()
        let run = try bash("GIT_EXTERNAL_DIFF=\"$LISTDIFF\" git diff --cached", in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "")
        // git goes through the files in path order: added, gone, people.
        #expect(run.stdout.hasPrefix(Self.expectedAdded + "--- a/gone.users.json\n+++ /dev/null\n# sections as an object of lists\n"))
        #expect(run.stdout.contains("0 inserted, 6 deleted, 0 moved, 0 updated, 0 unchanged"))
        #expect(run.stdout.hasSuffix(Self.expectedChanged))
    }

    @Test func gitDiffDriverTakesItsOwnOptions() throws {
        let dir = try repository()
        let run = try bash(
            """
            printf '*.users.json diff=listdiff\\n' > .gitattributes
            git config diff.listdiff.command "\\"$LISTDIFF\\" --key id --stat"
            git diff --cached -- people.users.json
            """, in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                --- a/people.users.json
                +++ b/people.users.json
                inserted    1
                deleted     1
                moved       1
                updated     2
                unchanged   3
                fields updated:
                  /email  1
                  /rank   1
                  /team   1

                """)
        // The driver leaves other files to git's own diff.
        let plain = try bash("printf 'a\\n' > notes.txt && git add notes.txt && git diff --cached -- notes.txt", in: dir)
        #expect(plain.stdout.contains("+a"))
    }

    @Test func gitNoIndexWithTheExternalDiff() throws {
        _ = try Programs.require("git", package: "git")
        let run = try bash(
            "GIT_EXTERNAL_DIFF=\"$LISTDIFF\" git diff --no-index people-old.json people-new.json; echo \"status $?\"",
            in: Self.examples)
        #expect(run.stdout.hasPrefix("--- a/people-old.json\n+++ b/people-new.json\n"))
        #expect(run.stdout.contains("~ id=3 /email: \"grace@example.com\" → \"grace.hopper@example.com\"\n"))
        // git diff --no-index exits 1 when the files differ, whatever the external diff said.
        #expect(run.stdout.hasSuffix("status 1\n"))
        #expect(run.stderr == "")
    }

    @Test func gitsSevenArgumentsAreRecognisedOnlyAsGitWritesThem() throws {
        let old = Self.examples.appendingPathComponent("people-old.json").path
        let new = Self.examples.appendingPathComponent("people-new.json").path
        let hex = String(repeating: "0", count: 40)
        let run = try Binary.run(["-f", "json", "people.json", old, hex, "100644", new, "1234abcd", "100644"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("\"old\": \"a/people.json\""))
        #expect(run.stdout.contains("\"new\": \"b/people.json\""))
        // A rename: nine arguments, the new path and a note last.
        let renamed = try Binary.run([
            "-f", "json", "old.json", old, hex, "100644", new, "1234abcd", "100644", "new.json",
            "similarity index 90%\nrename from old.json\nrename to new.json\n",
        ])
        #expect(renamed.status == 0)
        #expect(renamed.stdout.contains("\"old\": \"a/old.json\",\n  \"new\": \"b/new.json\""))
        // Seven arguments that are not git's are a usage error, as before.
        let wrong = try Binary.run(["people.json", old, "xyz", "100644", new, "1234abcd", "100644"])
        #expect(wrong.status == 2)
    }
}
