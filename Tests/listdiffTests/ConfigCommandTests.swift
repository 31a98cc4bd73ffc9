import Foundation
import Testing

/// `.listdiff.yaml` through the built binary: diff, apply, merge, `listdiff config`,
/// `listdiff check`, git's drivers and the pre-commit hook.
@Suite struct ConfigCommandTests {
    /// A repository-like folder (with `.git`) holding a configuration and two versions of a
    /// users file that is keyed by `uid`, with a timestamp the configuration ignores.
    static func project() throws -> URL {
        let dir = try temporaryDirectory()
        let files = [
            ".git/HEAD": "ref: refs/heads/main\n",
            ".listdiff.yaml": """
            # The users files: keyed by uid, their timestamps left out.
            profiles:
              - files: "*.users.json"
                key: uid
                ignore: [/updated_at]
              - files: "data/**/*.csv"
                key: sku
                csv-types: infer

            """,
            "data/team/old.users.json": #"[{"uid": 1, "name": "Ada", "updated_at": 1}, {"uid": 2, "name": "Alan"}]"# + "\n",
            "data/team/new.users.json": #"[{"uid": 1, "name": "Ada", "updated_at": 2}, {"uid": 2, "name": "Alan T."}]"# + "\n",
        ]
        try write(files, in: dir)
        return dir
    }

    static let patch = """
        --- old.users.json
        +++ new.users.json
        # compared under --ignore /updated_at
        ~ uid=2 /name: "Alan" → "Alan T."
        0 inserted, 0 deleted, 0 moved, 1 updated, 1 unchanged

        """

    /// Over two folders, each pair of files is diffed with the profiles that match it: the
    /// users files by uid under their rule, a file no profile names by the command line's key.
    @Test func foldersUseEachFilesProfile() throws {
        let dir = try Self.project()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = [
            "old/a.users.json": #"[{"uid": 1, "name": "Ada", "updated_at": 1}, {"uid": 2, "name": "Alan"}]"#,
            "new/a.users.json": #"[{"uid": 1, "name": "Ada", "updated_at": 2}, {"uid": 2, "name": "Alan T."}]"#,
            "old/sub/b.json": #"[{"id": 1, "v": 1}]"#,
            "new/sub/b.json": #"[{"id": 1, "v": 2}]"#,
        ]
        try write(files.mapValues { $0 + "\n" }, in: dir)
        let run = try Binary.run(["old", "new"], in: dir)
        #expect(run.status == 1 && run.stderr == "", "\(run.stderr)")
        #expect(run.stdout.contains("~ uid=2 /name: \"Alan\" → \"Alan T.\""), "\(run.stdout)")
        #expect(run.stdout.contains("# compared under --ignore /updated_at") && !run.stdout.contains("/updated_at: "), "\(run.stdout)")
        #expect(run.stdout.contains("~ id=1 /v: 1 → 2"), "\(run.stdout)")
        // Without the configuration the users files have no key field id: that pair fails,
        // and the rest is still diffed.
        let none = try Binary.run(["--no-config", "old", "new"], in: dir)
        #expect(none.status == 2 && none.stderr.contains("has no key field 'id'"), "\(none.stderr)")
        #expect(none.stdout.contains("~ id=1 /v: 1 → 2"), "\(none.stdout)")
    }

    /// Found from a nested folder: the diff needs no flags; the command line wins; --no-config
    /// and --config FILE choose the files.
    @Test func diffUsesTheConfigurationFoundAbove() throws {
        let dir = try Self.project()
        defer { try? FileManager.default.removeItem(at: dir) }
        let team = dir.appendingPathComponent("data/team")
        let run = try Binary.run(["old.users.json", "new.users.json"], in: team)
        #expect(run.status == 1 && run.stderr == "", "\(run.stderr)")
        #expect(run.stdout == Self.patch)
        // The command line over the file: --key id, which these records lack.
        let keyed = try Binary.run(["--key", "name", "old.users.json", "new.users.json"], in: team)
        #expect(keyed.stdout.contains("- name=\"Alan\""), "\(keyed.stdout)\(keyed.stderr)")
        // Without the file: the default key, id, is missing.
        let none = try Binary.run(["--no-config", "old.users.json", "new.users.json"], in: team)
        #expect(none.status == 2 && none.stderr.contains("has no key field 'id'"), "\(none.stderr)")
        // --config FILE: that file alone, its globs from its own folder.
        try "profiles:\n  - files: '*.json'\n    key: name\n".write(
            to: dir.appendingPathComponent("other.yaml"), atomically: true, encoding: .utf8)
        let other = try Binary.run(["--config", "../../other.yaml", "old.users.json", "new.users.json"], in: team)
        #expect(other.stdout.contains("+ name=\"Alan T.\""), "\(other.stdout)\(other.stderr)")
    }

    /// `listdiff config` prints each setting in force and where it came from.
    @Test func configPrintsTheSettingsAndTheirOrigins() throws {
        let dir = try Self.project()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Binary.run(["config", "--algorithm", "myers", "data/team/new.users.json", "data/x.csv"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        for line in [
            "data/team/new.users.json: key: uid (.listdiff.yaml:4)",
            "data/team/new.users.json: ignore: /updated_at (.listdiff.yaml:5)",
            "data/team/new.users.json: algorithm: myers (command line)",
            "data/team/new.users.json: duplicates: error (default)",
            "data/team/new.users.json: csv-types: string (default)",
            "data/team/new.users.json: path: (unset)",
            "data/x.csv: key: sku (.listdiff.yaml:7)",
            "data/x.csv: csv-types: infer (.listdiff.yaml:8)",
            "data/x.csv: ignore: (unset)",
        ] {
            #expect(lines.contains(line), "missing: \(line)\n\(run.stdout)")
        }
        // One line for every setting, for each path.
        #expect(lines.count == 2 * 30)
    }

    /// A malformed file, an unknown setting, a refused one: one escaped line with the place,
    /// exit 2, and no output file.
    @Test func badConfigurationsAreRefused() throws {
        let dir = try Self.project()
        defer { try? FileManager.default.removeItem(at: dir) }
        let team = dir.appendingPathComponent("data/team")
        let cases: [(text: String, message: String)] = [
            ("profiles: [\n  {files: '*'", "data/team/.listdiff.yaml:3:1: error: "),
            ("profiles:\n  - files: '*'\n    keys: id\n", "data/team/.listdiff.yaml:3:11: error: unknown setting 'keys'"),
            (
                "profiles:\n  - files: '*'\n    output: /tmp/elsewhere.json\n",
                "data/team/.listdiff.yaml:3:13: error: 'output' is refused: a configuration file cannot say where listdiff writes; give it on the command line"
            ),
            (
                "profiles:\n  - files: '*'\n    exec: \"touch pwned\"\n",
                "data/team/.listdiff.yaml:3:11: error: 'exec' is refused: listdiff runs no program, and a configuration file cannot make it run one"
            ),
            ("profiles:\n  - files: '*'\n    format: \"\\e[31m\"\n", "not '\\u001b[31m'"),
        ]
        for c in cases {
            try c.text.write(to: team.appendingPathComponent(".listdiff.yaml"), atomically: true, encoding: .utf8)
            for arguments in [
                ["-o", "out.patch", "old.users.json", "new.users.json"], ["config", "new.users.json"], ["check", "new.users.json"],
            ] {
                let run = try Binary.run(arguments, in: dir.appendingPathComponent("data/team"))
                #expect(run.status == 2, "\(arguments): \(run.stdout)")
                #expect(run.stdout.isEmpty)
                #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
                #expect(run.stderr.contains(c.message.replacingOccurrences(of: "data/team/", with: "")), "\(run.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: team.appendingPathComponent("out.patch").path))
            #expect(!FileManager.default.fileExists(atPath: team.appendingPathComponent("pwned").path))
        }
    }

    /// The JSON changeset records the configuration it was made with, and apply reads OLD with
    /// OLD's configuration where the changeset does not say.
    @Test func changesetRecordsTheConfiguration() throws {
        let dir = try Self.project()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Binary.run(
            ["-f", "json", "-o", "changes.json", "data/team/old.users.json", "data/team/new.users.json"], in: dir)
        #expect(run.status == 1, "\(run.stderr)")
        let changeset = try String(contentsOf: dir.appendingPathComponent("changes.json"), encoding: .utf8)
        #expect(changeset.contains("\n  \"config\": [\".listdiff.yaml\"],\n"), "\(changeset)")
        #expect(changeset.contains("\n  \"key\": [\"uid\"],\n"))
        #expect(changeset.contains("\"comparison\": {\"ignore\":[\"/updated_at\"]}"))
        let applied = try Binary.run(["apply", "data/team/old.users.json", "changes.json"], in: dir)
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(applied.stdout.contains("\"Alan T.\""))
        // Without a configuration, none is recorded; a significant member order is.
        let exact = try Binary.run(
            [
                "--no-config", "-f", "json", "--key", "uid", "--member-order", "significant", "data/team/old.users.json",
                "data/team/new.users.json",
            ],
            in: dir)
        #expect(exact.stdout.contains("\n  \"member_order\": \"significant\",\n"), "\(exact.stdout)\(exact.stderr)")
        #expect(!exact.stdout.contains("\"config\""))
    }

    /// git's diff and merge drivers with no flags in git's configuration: the settings come
    /// from the configuration found from the file's path in the repository.
    @Test func gitDriversUseTheConfiguration() throws {
        _ = try Programs.require("git", package: "git")
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let dir = home.appendingPathComponent("repo")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let run = try GitShell.run(
            """
            git init -q -b main .
            git config user.email t@example.com && git config user.name t
            git config diff.listdiff.command "$LISTDIFF"
            git config merge.listdiff.driver "$LISTDIFF merge %O %A %B %L %P"
            echo '*.json diff=listdiff merge=listdiff' > .gitattributes
            printf 'profiles:\\n  - files: "*.users.json"\\n    key: uid\\n    ignore: /updated_at\\n' > .listdiff.yaml
            mkdir -p data/team
            printf '[\\n  {"uid": 1, "v": 0, "updated_at": 1},\\n  {"uid": 2, "v": 0},\\n  {"uid": 3, "v": 0}\\n]\\n' > data/team/staff.users.json
            git add -A && git commit -q -m base
            printf '[\\n  {"uid": 1, "v": 0, "updated_at": 2},\\n  {"uid": 2, "v": 5},\\n  {"uid": 3, "v": 0}\\n]\\n' > data/team/staff.users.json
            (cd data && git diff)
            git commit -q -am ours
            git checkout -q -b theirs HEAD~1
            sed -i 's/"uid": 3, "v": 0/"uid": 3, "v": 7/' data/team/staff.users.json && git commit -q -am theirs
            git checkout -q main
            git merge -q -m merged theirs
            cat data/team/staff.users.json
            """, in: dir, home: home)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(
            run.stdout.hasPrefix(
                """
                --- a/data/team/staff.users.json
                +++ b/data/team/staff.users.json
                # compared under --ignore /updated_at
                ~ uid=2 /v: 0 → 5
                0 inserted, 0 deleted, 0 moved, 1 updated, 2 unchanged

                """), "\(run.stdout)")
        #expect(run.stdout.contains(#"{"uid": 2, "v": 5}"#) && run.stdout.contains(#"{"uid": 3, "v": 7}"#), "\(run.stdout)")
    }

    /// `listdiff check`: every file read, each problem at its place, exit 2 when any has one.
    @Test func checkReportsEachFile() throws {
        let dir = try Self.project()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = [
            "good.json": #"[{"id": 1}, {"id": 2}]"#,
            "malformed.json": "[{\"id\": 1},\n {\"id\": }]",
            "missing.users.json": #"[{"uid": 1}, {"id": 2}]"#,
            "twice.json": "[{\"id\": 1},\n {\"id\": 1}]",
            "shape.json": #""just a string""#,
            "rows.csv": "sku,qty\nA,1\nB,2\n",
        ]
        try write(files, in: dir)
        let good = try Binary.run(["check", "good.json", "data/team/old.users.json", "rows.csv", "--key", "sku"], in: dir)
        #expect(good.status == 2, "--key sku is given for all three: good.json lacks it")
        let fine = try Binary.run(["check", "good.json", "data/team/old.users.json"], in: dir)
        #expect(fine.status == 0 && fine.stdout.isEmpty && fine.stderr.isEmpty, "\(fine.stderr)")
        let bad = try Binary.run(
            ["check", "malformed.json", "good.json", "missing.users.json", "twice.json", "shape.json"], in: dir)
        #expect(bad.status == 2)
        let lines = bad.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(bad.stderr)")
        #expect(lines[0].hasPrefix("malformed.json:2:9: error: "), "\(lines[0])")
        #expect(
            lines[1]
                == "missing.users.json:1:14: error: record 1 has no key field 'uid'; no field is present and unique in every record of the file (--key . diffs the lists as sequences)",
            "\(lines[1])")
        #expect(lines[2].hasPrefix("twice.json:2:2: error: duplicate key id=1"), "\(lines[2])")
        #expect(lines[3].hasPrefix("shape.json:1:1: error: "), "\(lines[3])")
    }

    /// After a key problem, check reads on: every record without its key and every repeated
    /// key is reported, each at its record, in record order; --duplicates match allows the
    /// repeats.
    @Test func checkReportsEveryKeyProblemOfAFile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "[{\"id\": 1}, {\"id\": 2},\n {\"name\": \"x\"}, {\"id\": 1},\n {\"id\": 2}, {\"v\": 3}, {\"id\": 2}]\n".write(
            to: dir.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        let run = try Binary.run(["check", "--no-config", "bad.json"], in: dir)
        #expect(run.status == 2)
        let lines = run.stderr.split(separator: "\n").map { $0.prefix { $0 != "(" } }
        #expect(
            lines == [
                "bad.json:2:2: error: record 2 has no key field 'id'; no field is present and unique in every record of the file ",
                "bad.json:2:17: error: duplicate key id=1 ", "bad.json:3:2: error: duplicate key id=2 ",
                "bad.json:3:13: error: record 5 has no key field 'id'", "bad.json:3:23: error: duplicate key id=2 ",
            ], "\(run.stderr)")
        let matched = try Binary.run(["check", "--no-config", "--duplicates", "match", "bad.json"], in: dir)
        #expect(matched.stderr.split(separator: "\n").count == 2, "\(matched.stderr)")
        // Standard input is read once, and checked whole too.
        let text = try String(contentsOf: dir.appendingPathComponent("bad.json"), encoding: .utf8)
        let piped = try Binary.run(["check", "--no-config", "-"], stdin: text, in: dir)
        #expect(piped.status == 2)
        #expect(piped.stderr == run.stderr.replacingOccurrences(of: "bad.json:", with: "-:"), "\(piped.stderr)")
    }

    /// The pre-commit hook this repository defines runs `listdiff check` on the files a
    /// commit stages, through pre-commit's own `try-repo`.
    @Test func preCommitHookRunsCheck() throws {
        let preCommit = try Programs.require("pre-commit", package: "pre-commit (pip)")
        _ = try Programs.require("git", package: "git")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The hook runs `listdiff` from PATH: the binary under test.
        let bin = Binary.url.deletingLastPathComponent().path
        let run = try GitShell.run(
            """
            export PATH="\(bin):$PATH" PRE_COMMIT_HOME="$HOME/.cache/pre-commit"
            git init -q -b main .
            git config user.email t@example.com && git config user.name t
            printf '[{"id": 1}, {"id": 2}]\\n' > good.json
            git add good.json
            "\(preCommit)" try-repo "\(Binary.repository.path)" listdiff-check --files good.json
            echo "good: $?"
            printf '[{"id": 1}, {"id": 1}]\\n' > bad.json
            git add bad.json
            set +e
            "\(preCommit)" try-repo "\(Binary.repository.path)" listdiff-check --files good.json bad.json
            echo "bad: $?"
            """, in: dir, home: dir)
        #expect(run.stdout.contains("good: 0"), "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("bad: 1"), "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("bad.json:1:13: error: duplicate key id=1"), "\(run.stdout)")
    }
}
