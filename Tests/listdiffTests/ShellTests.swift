import Foundation
import Testing

/// listdiff under git (as an external diff and as a diff driver), its completion scripts, and
/// what reaches a terminal from hostile files.
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

    @Test func bashCompletionIsDefinedAndCompletesFormats() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["people-old.json", "people-new.json"] {
            try "[]".write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let run = try bash(
            """
            source <("$LISTDIFF" --generate-completion-script bash) || exit 3
            complete -p listdiff
            f=$(complete -p listdiff | sed -E 's/.* -F ([^ ]+) .*/\\1/')
            try() {
                COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
                read -ra COMP_WORDS <<< "$COMP_LINE"; [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
                "$f" listdiff "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                echo "$1=> ${COMPREPLY[*]}"
            }
            try "listdiff --format "
            try "listdiff diff -f js"
            try "listdiff --fa"
            try "listdiff people-o"
            try "listdiff people-old.json people-n"
            try "listdiff -o people-o"
            try "listdiff --record people-o"
            try "listdiff apply --output-format "
            try "listdiff apply people-o"
            try "listdiff apply people-old.json people-n"
            """, in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("complete ") == true && lines.first?.hasSuffix(" listdiff") == true)
        #expect(lines.contains("listdiff --format => patch json jsonpatch mergepatch markdown github replay"))
        #expect(lines.contains("listdiff diff -f js=> json jsonpatch"))
        #expect(lines.contains("listdiff --fa=> --fail-on"))
        // File names complete where a file goes, and apply's options complete after apply.
        #expect(lines.contains("listdiff people-o=> people-old.json"), "\(lines)")
        #expect(lines.contains("listdiff people-old.json people-n=> people-new.json"))
        #expect(lines.contains("listdiff -o people-o=> people-old.json"))
        #expect(lines.contains("listdiff --record people-o=> people-old.json"))
        #expect(lines.contains("listdiff apply --output-format => json ndjson yaml csv tsv"))
        #expect(lines.contains("listdiff apply people-o=> people-old.json"))
        #expect(lines.contains("listdiff apply people-old.json people-n=> people-new.json"))
        for shell in ["zsh", "fish"] {
            let script = try Binary.run(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.stdout.contains("markdown") && script.stdout.contains("fail-on"))
        }
    }
}
