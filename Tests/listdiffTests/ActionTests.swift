import Foundation
import Testing

/// The GitHub Action's script (Scripts/action.sh), run as the runner runs it: GitHub's files
/// (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH, GITHUB_EVENT_PATH) in a folder, and a
/// stand-in `gh` on PATH that records its calls and keeps the pull request's comments.
@Suite struct ActionTests {
    static let script = Binary.repository.appendingPathComponent("Scripts/action.sh").path

    /// A stand-in for `gh api`: GET prints the comments (in two pages, as --paginate does),
    /// POST adds one, PATCH edits one; each call's arguments go to calls.log. With
    /// FAKE_GH_FAIL set, it fails as gh does when the token may not.
    static let fakeGH = #"""
        #!/bin/bash
        printf '%s\n' "$*" >> "$FAKE_GH_STATE/calls.log"
        [ -z "$FAKE_GH_FAIL" ] || { echo "HTTP 403: Resource not accessible by integration" >&2; exit 1; }
        exec python3 - "$FAKE_GH_STATE" "$@" <<'PY'
        import json, os, sys
        state, args = sys.argv[1], sys.argv[2:]
        path = os.path.join(state, "comments.json")
        comments = json.load(open(path)) if os.path.exists(path) else [{"id": 5, "body": "a reviewer's comment"}]
        method = args[args.index("--method") + 1] if "--method" in args else "GET"
        endpoint = [a for a in args if a.startswith("repos/")][0]
        if method == "GET":
            print(json.dumps(comments[:1]))
            print(json.dumps(comments[1:]))
        else:
            body = json.load(open(args[args.index("--input") + 1]))["body"]
            if method == "POST":
                comments.append({"id": 100 + len(comments), "body": body})
            else:
                next(c for c in comments if c["id"] == int(endpoint.rsplit("/", 1)[1]))["body"] = body
            json.dump(comments, open(path, "w"))
            print("{}")
        PY
        """#

    /// A runner's folder: GitHub's files, the event of pull request 7, and PATH with the
    /// stand-in gh and the built listdiff first.
    struct Runner {
        var dir: URL
        var environment: [String: String]

        init(event: String = #"{"pull_request": {"number": 7}}"#) throws {
            _ = try Programs.require("python3", package: "python3")
            dir = try temporaryDirectory()
            let bin = dir.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("temp"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("gh"), withIntermediateDirectories: true)
            let gh = bin.appendingPathComponent("gh")
            try ActionTests.fakeGH.write(to: gh, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: gh.path)
            try event.write(to: dir.appendingPathComponent("event.json"), atomically: true, encoding: .utf8)
            for name in ["output", "summary", "path"] {
                _ = FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: nil)
            }
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            environment = [
                "PATH": bin.path + ":" + Binary.url.deletingLastPathComponent().path + ":" + path,
                "GITHUB_OUTPUT": dir.appendingPathComponent("output").path,
                "GITHUB_STEP_SUMMARY": dir.appendingPathComponent("summary").path,
                "GITHUB_PATH": dir.appendingPathComponent("path").path,
                "GITHUB_EVENT_PATH": dir.appendingPathComponent("event.json").path,
                "GITHUB_REPOSITORY": "octo/data", "RUNNER_TEMP": dir.appendingPathComponent("temp").path,
                "FAKE_GH_STATE": dir.appendingPathComponent("gh").path,
                "INPUT_OLD": "people-old.json", "INPUT_NEW": "people-new.json",
            ]
        }

        func run(_ step: String, _ inputs: [String: String] = [:]) throws -> Run {
            try Binary.run(
                [ActionTests.script, step], environment: environment.merging(inputs) { $1 },
                in: Binary.repository.appendingPathComponent("Examples"), executable: "/bin/bash")
        }

        func read(_ name: String) throws -> String { (try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? "" }

        /// The outputs, the last value of each name.
        func outputs() throws -> [String: String] {
            var outputs: [String: String] = [:]
            for line in try read("output").split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1)
                outputs[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            return outputs
        }
    }

    @Test func diffWritesOutputsSummaryAndOneStickyComment() throws {
        let runner = try Runner()
        defer { try? FileManager.default.removeItem(at: runner.dir) }
        // args are split as a shell splits words: a label with a space stays one word.
        let inputs = ["INPUT_ARGS": "--key id --label 'old people.json'", "INPUT_COMMENT": "true"]
        let first = try runner.run("diff", inputs)
        #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
        let outputs = try runner.outputs()
        #expect(outputs["exit-code"] == "1")
        #expect(outputs["inserted"] == "1" && outputs["deleted"] == "1" && outputs["moved"] == "1")
        #expect(outputs["updated"] == "2" && outputs["unchanged"] == "3")
        // The changeset is the diff's, and the summary its Markdown report.
        let changeset = try String(contentsOfFile: outputs["changeset"] ?? "", encoding: .utf8)
        #expect(changeset.contains(#""old": "old people.json""#))
        let report = try Binary.run(
            ["--key", "id", "--label", "old people.json", "-f", "markdown", "people-old.json", "people-new.json"],
            in: Binary.repository.appendingPathComponent("Examples"))
        #expect(report.stdout.hasPrefix("### listdiff: old people.json → people-new.json"))
        #expect(try runner.read("summary") == report.stdout)

        // First run: the comments are read, then one is posted, marked.
        let marker = "<!-- listdiff-action: listdiff -->"
        #expect(
            try runner.read("gh/calls.log") == """
                api --paginate repos/octo/data/issues/7/comments
                api --method POST repos/octo/data/issues/7/comments --input \(runner.dir.path)/temp/listdiff-listdiff/comment.json

                """)
        let comments = try runner.read("gh/comments.json")
        #expect(comments.contains("a reviewer's comment"))
        let posted = try JSONSerialization.jsonObject(with: Data(comments.utf8)) as? [[String: Any]]
        #expect(posted?.count == 2)
        #expect(posted?.last?["body"] as? String == marker + "\n" + report.stdout)

        // Second run, with other files: the marked comment is found on the second page and edited.
        let second = try runner.run("diff", inputs.merging(["INPUT_NEW": "people-old.json"]) { $1 })
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try runner.outputs()["exit-code"] == "0")
        let calls = try runner.read("gh/calls.log").split(separator: "\n")
        #expect(calls.count == 4)
        #expect(
            calls.last
                == "api --method PATCH repos/octo/data/issues/comments/101 --input \(runner.dir.path)/temp/listdiff-listdiff/comment.json")
        let edited = try JSONSerialization.jsonObject(with: Data(try runner.read("gh/comments.json").utf8)) as? [[String: Any]]
        #expect(edited?.count == 2)
        #expect((edited?.last?["body"] as? String)?.hasPrefix(marker + "\n### listdiff: old people.json → people-old.json") == true)

        // A token that may not comment fails the step, saying so.
        let refused = try runner.run("diff", inputs.merging(["FAKE_GH_FAIL": "1"]) { $1 })
        #expect(refused.status == 2)
        #expect(refused.stdout.contains("::error title=listdiff action::gh could not read the comments of pull request #7"))
    }

    @Test func withoutAPullRequestNoCommentAndTroubleFailsTheStep() throws {
        let runner = try Runner(event: #"{"ref": "refs/heads/main"}"#)
        defer { try? FileManager.default.removeItem(at: runner.dir) }
        let run = try runner.run("diff", ["INPUT_COMMENT": "true", "INPUT_FAIL_ON_DIFFERENCE": "true"])
        // The files differ and the input says to fail on it.
        #expect(run.status == 1)
        #expect(run.stdout.contains("::notice title=listdiff::not a pull request's event; no comment posted"))
        #expect(run.stdout.contains("::error title=listdiff::people-old.json and people-new.json differ"))
        #expect(try runner.read("gh/calls.log") == "")
        #expect(try runner.outputs()["exit-code"] == "1")

        // A missing file: exit status 2, said as an error, the step failed.
        let trouble = try runner.run("diff", ["INPUT_OLD": "no such file.json"])
        #expect(trouble.status == 2)
        #expect(trouble.stderr.contains("no such file.json"))
        #expect(trouble.stdout.contains("::error title=listdiff action::listdiff exited 2"))
        #expect(try runner.outputs()["exit-code"] == "2")

        // A comment-id that could break out of the marker is refused.
        let marker = try runner.run("diff", ["INPUT_COMMENT_ID": "x --> <script>"])
        #expect(marker.status == 2)
    }

    /// install: a release archive (here, a file:// URL to one made of the built binary) is
    /// unpacked and its bin folder added to GITHUB_PATH.
    @Test func installUnpacksAnArchiveOntoThePath() throws {
        _ = try Programs.require("curl", package: "curl")
        let runner = try Runner()
        defer { try? FileManager.default.removeItem(at: runner.dir) }
        let tree = runner.dir.appendingPathComponent("tree/listdiff-1.0-linux-test")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Binary.url, to: tree.appendingPathComponent("bin/listdiff"))
        let pack = try Binary.run(
            [
                "-czf", runner.dir.appendingPathComponent("listdiff.tar.gz").path, "-C", runner.dir.appendingPathComponent("tree").path,
                "listdiff-1.0-linux-test",
            ],
            executable: "/bin/tar")
        #expect(pack.status == 0, "\(pack.stderr)")
        let run = try runner.run("install", ["INPUT_ARCHIVE_URL": "file://" + runner.dir.appendingPathComponent("listdiff.tar.gz").path])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let installed = runner.dir.appendingPathComponent("temp/listdiff/bin")
        #expect(try runner.read("path") == installed.path + "\n")
        let version = try Binary.run(["--version"]).stdout
        #expect(run.stdout.contains("Installed \(version.trimmingCharacters(in: .newlines)) in"))
        #expect(FileManager.default.isExecutableFile(atPath: installed.appendingPathComponent("listdiff").path))

        // A URL that serves nothing fails the step, saying which.
        let missing = try runner.run("install", ["INPUT_ARCHIVE_URL": "file:///nonexistent/listdiff.tar.gz"])
        #expect(missing.status == 2)
        #expect(missing.stdout.contains("::error title=listdiff action::could not download file:///nonexistent/listdiff.tar.gz"))
    }

    /// action.yml passes every input to the script, which reads it, and every output it
    /// declares is one the script writes.
    @Test func actionYAMLAndItsScriptAgree() throws {
        let yaml = try String(contentsOf: Binary.repository.appendingPathComponent("action.yml"), encoding: .utf8)
        let script = try String(contentsOfFile: Self.script, encoding: .utf8)
        let lines = yaml.split(separator: "\n")
        // The names two spaces in, under `inputs:` and under `outputs:`.
        func names(under section: String) -> [String] {
            lines.drop { $0 != section + ":" }.dropFirst().prefix { $0.hasPrefix(" ") || $0.isEmpty }
                .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") && $0.hasSuffix(":") }
                .map { String($0.dropFirst(2).dropLast()) }
        }
        let inputs = names(under: "inputs"), outputs = names(under: "outputs")
        #expect(inputs.count == 10 && outputs.count == 8, "\(inputs) \(outputs)")
        for input in inputs where input != "github-token" {
            let variable = input.uppercased().replacing("-", with: "_")
            #expect(yaml.contains("INPUT_\(variable): ${{ inputs.\(input) }}"), "action.yml does not pass \(input)")
            #expect(script.contains("input \(variable)"), "Scripts/action.sh does not read \(input)")
        }
        #expect(yaml.contains("GH_TOKEN: ${{ inputs.github-token }}"))
        for output in outputs {
            #expect(yaml.contains("value: ${{ steps.diff.outputs.\(output) }}"), "\(output)")
        }
        // The counts are written in a loop over their names; the rest by name.
        for output in outputs where !["inserted", "deleted", "updated", "moved", "unchanged"].contains(output) {
            #expect(script.contains("echo \"\(output)="), "Scripts/action.sh does not write \(output)")
        }
    }
}
