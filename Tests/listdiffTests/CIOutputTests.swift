import Foundation
import Testing

/// --quiet, --stat, --fail-on, --show, -f markdown and -f github, run through the binary.
@Suite struct CIOutputTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    /// Writes files into a new folder and returns it.
    func folder(_ files: [String: String]) throws -> URL {
        let dir = try temporaryDirectory()
        try write(files, in: dir)
        return dir
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // MARK: --label

    /// Standard input has no useful name: --label names it, and NEW, in every output.
    @Test func labelsNameTheInputsInEveryOutput() throws {
        let old = try String(contentsOf: Self.examples.appendingPathComponent("people-old.json"), encoding: .utf8)
        let labels = ["--label", "data/people.json@main", "--label", "data/people.json"]
        let patch = try Binary.run(labels + ["-", "people-new.json"], stdin: old, in: Self.examples)
        #expect(patch.status == 1)
        #expect(patch.stdout.hasPrefix("--- data/people.json@main\n+++ data/people.json\n"))
        let changeset = try json(Binary.run(labels + ["-f", "json", "-", "people-new.json"], stdin: old, in: Self.examples).stdout)
        #expect(changeset["old"] as? String == "data/people.json@main" && changeset["new"] as? String == "data/people.json")
        let github = try Binary.run(labels + ["-f", "github", "-", "people-new.json"], stdin: old, in: Self.examples)
        #expect(github.stdout.contains("file=data/people.json,") && github.stdout.contains("file=data/people.json@main,"))
        let markdown = try Binary.run(labels + ["-f", "markdown", "-", "people-new.json"], stdin: old, in: Self.examples)
        #expect(markdown.stdout.contains("data/people.json@main"))
        let three = try Binary.run(labels + ["--label", "c", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(three.status == 2 && three.stderr.contains("--label is given at most twice"))
    }

    // MARK: --quiet

    @Test func quietReportsByStatusAlone() throws {
        let different = try Binary.run(["-q", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(different.status == 1)
        #expect(different.stdout == "" && different.stderr == "")
        let same = try Binary.run(["--quiet", "people-old.json", "people-old.json"], in: Self.examples)
        #expect(same.status == 0)
        #expect(same.stdout == "" && same.stderr == "")
        let trouble = try Binary.run(["-q", "people-old.json", "missing.json"], in: Self.examples)
        #expect(trouble.status == 2)
        #expect(trouble.stdout == "")
        #expect(trouble.stderr.hasPrefix("missing.json: error: "))
        let usage = try Binary.run(["-q", "-o", "x.json", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("--quiet prints nothing"))
    }

    // MARK: --stat

    @Test func statCountsKindsAndFields() throws {
        let run = try Binary.run(["--stat", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stdout == (try golden("people.stat")))
        let sections = try Binary.run(["--stat", "teams-old.json", "teams-new.json"], in: Self.examples)
        #expect(sections.stdout == (try golden("teams.stat")))
        let same = try Binary.run(["--stat", "people-old.json", "people-old.json"], in: Self.examples)
        #expect(same.status == 0 && same.stdout == "")
    }

    @Test func statFieldsAreCountedAndLimited() throws {
        // Twelve fields, changed in 12, 11, ... 1 records: the ten most changed are listed.
        var old: [String] = [], new: [String] = []
        for id in 0..<12 {
            let fields = (0..<12).map { "\"f\($0)\": 0" }.joined(separator: ", ")
            let changed = (0..<12).map { "\"f\($0)\": \($0 >= id ? 1 : 0)" }.joined(separator: ", ")
            old.append("{\"id\": \(id), \(fields)}")
            new.append("{\"id\": \(id), \(changed)}")
        }
        let dir = try folder(["a.json": "[" + old.joined(separator: ",\n") + "]", "b.json": "[" + new.joined(separator: ",\n") + "]"])
        let run = try Binary.run(["--stat", "a.json", "b.json"], in: dir)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let fields = Array(lines.drop { $0 != "fields updated:" }.dropFirst())
        #expect(fields.count == 11)
        #expect(fields.first == "  /f11  12")
        #expect(fields[9] == "  /f2   3")
        #expect(fields.last == "  … 2 more fields")
    }

    @Test func statAsJSONLeavesOutChangesAndStagesAndCannotBeApplied() throws {
        let run = try Binary.run(["--stat", "-f", "json", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(run.status == 1)
        let object = try json(run.stdout)
        #expect(object["changes"] == nil && object["stages"] == nil)
        let summary = try #require(object["summary"] as? [String: Int])
        #expect(summary == ["inserted": 1, "deleted": 1, "moved": 1, "updated": 2, "unchanged": 3])
        let fields = try #require(object["fields"] as? [[String: Any]])
        #expect(fields.map { $0["path"] as? String } == ["/email", "/rank", "/team"])
        #expect(fields.map { $0["updated"] as? Int } == [1, 1, 1])
        let dir = try folder(["stat.json": run.stdout])
        let applied = try Binary.run(["apply", Self.examples.appendingPathComponent("people-old.json").path, "stat.json"], in: dir)
        #expect(applied.status == 2)
        #expect(applied.stderr.contains("this is a summary (made with --stat)"))
    }

    // MARK: --fail-on and --show

    @Test func failOnGatesTheStatusByKind() throws {
        let dir = try folder([
            "a.json": #"[{"id": 1, "v": 1}, {"id": 2, "v": 2}, {"id": 3}]"#,
            "inserts.json": #"[{"id": 1, "v": 1}, {"id": 2, "v": 2}, {"id": 3}, {"id": 4}]"#,
        ])
        let printed = try Binary.run(["--fail-on", "delete,update", "a.json", "inserts.json"], in: dir)
        #expect(printed.status == 0)
        #expect(printed.stdout.contains("+ id=4 #3 {\"id\":4}"))
        for kinds in ["insert", "delete,insert", "all", "inserts", "inserted"] {
            #expect(try Binary.run(["--fail-on", kinds, "a.json", "inserts.json"], in: dir).status == 1, "\(kinds)")
        }
        #expect(try Binary.run(["--fail-on", "none", "-q", "a.json", "inserts.json"], in: dir).status == 0)
        let bad = try Binary.run(["--fail-on", "insert,swap", "a.json", "inserts.json"], in: dir)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown kind of change 'swap'"))
    }

    @Test func failOnCountsSectionChanges() throws {
        // teams: one section inserted, one deleted, one moved; one record inserted, two moved.
        #expect(try Binary.run(["--fail-on", "delete", "-q", "teams-old.json", "teams-new.json"], in: Self.examples).status == 1)
        #expect(try Binary.run(["--fail-on", "update", "-q", "teams-old.json", "teams-new.json"], in: Self.examples).status == 0)
    }

    @Test func showPrintsOnlyTheKindsAskedForInEveryFormat() throws {
        let patch = try Binary.run(["--show", "update", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(patch.status == 1)
        let lines = patch.stdout.split(separator: "\n").map(String.init)
        #expect(lines.dropFirst(2).dropLast().allSatisfy { $0.hasPrefix("~ ") })
        #expect(lines.count == 6)
        #expect(lines.last == "1 inserted, 1 deleted, 1 moved, 2 updated, 3 unchanged")

        let changeset = try Binary.run(["-f", "json", "--show", "insert,delete", "people-old.json", "people-new.json"], in: Self.examples)
        let object = try json(changeset.stdout)
        let ops = try #require(object["changes"] as? [[String: Any]]).compactMap { $0["op"] as? String }
        #expect(ops.sorted() == ["delete", "insert"])
        #expect(object["shown"] as? [String] == ["delete", "insert"])
        let dir = try folder(["shown.json": changeset.stdout])
        let applied = try Binary.run(["apply", Self.examples.appendingPathComponent("people-old.json").path, "shown.json"], in: dir)
        #expect(applied.status == 2)
        #expect(applied.stderr.contains("made with --show"))

        let markdown = try Binary.run(["-f", "markdown", "--show", "move", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(markdown.stdout.contains("#### Moved (1)"))
        #expect(!markdown.stdout.contains("#### Updated") && !markdown.stdout.contains("#### Inserted"))

        let github = try Binary.run(["-f", "github", "--show", "delete", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(github.stdout == "::notice file=people-old.json,line=5,col=3,title=listdiff%3A deleted id=4::deleted id=4 from #3\n")

        let replay = try Binary.run(["-f", "replay", "--show", "move", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(replay.status == 2)
    }

    // MARK: -f markdown

    @Test func markdownMatchesTheGoldenFiles() throws {
        let people = try Binary.run(["-f", "markdown", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(people.status == 1)
        #expect(people.stdout == (try golden("people.md")))
        let teams = try Binary.run(["-f", "markdown", "teams-old.json", "teams-new.json"], in: Self.examples)
        #expect(teams.stdout == (try golden("teams.md")))
        let same = try Binary.run(["-f", "markdown", "people-old.json", "people-old.json"], in: Self.examples)
        #expect(same.status == 0)
        #expect(same.stdout.hasSuffix("\nNo differences.\n"))
    }

    @Test func markdownFoldsLongGroupsAndSaysHowManyWereLeftOut() throws {
        let old = "[" + (0..<30).map { "{\"id\": \($0)}" }.joined(separator: ", ") + "]"
        let dir = try folder(["a.json": "[]", "b.json": old])
        let run = try Binary.run(["-f", "markdown", "--limit", "10", "a.json", "b.json"], in: dir)
        #expect(run.stdout.contains("#### Inserted (30)\n\n<details><summary>The first 10 of 30</summary>\n\n"))
        #expect(run.stdout.contains("\n20 more inserted left out (--limit 10).\n\n</details>\n"))
        #expect(run.stdout.components(separatedBy: "\n| id=").count - 1 == 10)
    }

    /// Hostile record content, rendered by cmark-gfm (GitHub's own CommonMark, with its table
    /// extension): the table keeps its shape, and every value reads as it was written.
    @Test func markdownEscapingHoldsInARealRenderer() throws {
        let hostile = [
            "a|b", "`code`", "<script>alert(1)</script>", "line\nbreak", "**bold** _em_ [link](http://x)",
            "&amp; ~~strike~~ \\| $x$", "# not a heading", "<img src=x onerror=alert(1)>",
        ]
        func record(_ id: Int, _ value: String) -> String {
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
            return "{\"id\": \(id), \"v\": \"\(escaped)\", \"\(escaped)\": 1}"
        }
        let old = "[" + hostile.indices.map { record($0, "old") }.joined(separator: ",\n") + "]"
        let new = "[" + hostile.enumerated().map { record($0.offset, $0.element) }.joined(separator: ",\n") + "]"
        let dir = try folder(["a.json": old, "b.json": new])
        let run = try Binary.run(["-f", "markdown", "a.json", "b.json"], in: dir)
        #expect(run.status == 1)
        let rendered = try render(markdown: run.stdout)
        // GitHub links a bare URL, as it does anywhere: a link that reads as its address.
        let links = try Regex(#"<a href="([^"]*)">([^<]*)</a>"#)
        for match in rendered.matches(of: links) {
            #expect(match.output[1].substring == match.output[2].substring)
        }
        let html = rendered.replacing(links) { String($0.output[2].substring ?? "") }
        // No markup but listdiff's own: each update's key in bold, and "(none)" in italics.
        var markup = html
        for id in hostile.indices { markup = markup.replacingOccurrences(of: "<strong>id=\(id)</strong>", with: "") }
        markup = markup.replacingOccurrences(of: "<em>(none)</em>", with: "")
        for tag in ["<script", "<img", "<strong>", "<em>", "<a ", "<h1", "<del>", "<code>"] {
            #expect(!markup.contains(tag), "\(tag)")
        }
        // One table of counts and one per update, each row with exactly three cells.
        let tables = html.components(separatedBy: "<table>").dropFirst()
        #expect(tables.count == 1 + hostile.count)
        for table in tables.dropFirst() {
            for row in table.components(separatedBy: "<tr>").dropFirst() {
                let cells = row.components(separatedBy: "<td").count - 1 + row.components(separatedBy: "<th").count - 1
                #expect(cells == 3, "\(row)")
            }
        }
        // Each value reads back as written (HTML-escaped by the renderer, a newline as \n).
        for value in hostile {
            // As JSON writes the string, then as HTML writes that text.
            let written = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            let shown = written.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
            #expect(html.contains("<td>&quot;" + shown + "&quot;</td>"), "\(value)")
        }
    }

    func render(markdown: String) throws -> String {
        let tool = try Programs.require("cmark-gfm", package: "cmark-gfm")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-e", "table", "-e", "strikethrough", "-e", "autolink"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(markdown.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: -f github

    @Test func githubMatchesTheGoldenFiles() throws {
        let people = try Binary.run(["-f", "github", "people-old.json", "people-new.json"], in: Self.examples)
        #expect(people.status == 1)
        #expect(people.stdout == (try golden("people.github")))
        let sections = try Binary.run(["-f", "github", "people-sections-old.yaml", "people-sections-new.yaml"], in: Self.examples)
        #expect(sections.stdout == (try golden("people-sections.github")))
        let level = try Binary.run(
            ["-f", "github", "--annotation-level", "error", "--show", "insert", "people-old.json", "people-new.json"],
            in: Self.examples)
        #expect(level.stdout == "::error file=people-new.json,line=7,col=3,title=listdiff%3A inserted id=8::inserted id=8 at #5\n")
    }

    /// An update points at its changed fields in NEW, one annotation per line that holds
    /// some: in an indented JSON record and a block YAML one, several lines below the
    /// record's start; a removed field at the value that held it; an element of a keyed
    /// list found by its key where it moved to (with its own changed field on one line).
    @Test func githubPointsAtTheChangedFields() throws {
        let dir = try folder([
            "old.json": """
            [
              {
                "id": 1,
                "name": "web",
                "spec": {
                  "replicas": 2,
                  "labels": {"tier": "front", "team": "a"},
                  "containers": [
                    {"name": "web", "image": "web:1"},
                    {"name": "log", "image": "log:1"}
                  ]
                }
              }
            ]
            """,
            "new.json": """
            [
              {
                "id": 1,
                "name": "web",
                "spec": {
                  "replicas": 3,
                  "labels": {"tier": "front"},
                  "containers": [
                    {"name": "log", "image": "log:1"},
                    {"name": "web", "image": "web:2"}
                  ]
                }
              }
            ]
            """,
            "old.yaml": """
            - id: 1
              name: web
              spec:
                replicas: 2
                labels:
                  tier: front
                  team: a
                containers:
                  - name: web
                    image: web:1
                  - name: log
                    image: log:1
            """,
            "new.yaml": """
            - id: 1
              name: web
              spec:
                replicas: 3
                labels:
                  tier: front
                containers:
                  - name: log
                    image: log:1
                  - name: web
                    image: web:2
            """,
            "old.ndjson": #"{"id": 1, "a": {"b": 1, "c": [1, 2]}}"# + "\n",
            "new.ndjson": #"{"id": 1, "a": {"b": 2, "c": [1]}}"# + "\n",
        ])
        let title = "title=listdiff%3A updated id=1::"
        let json = try Binary.run(["-f", "github", "--array-key", "/spec/containers=name", "old.json", "new.json"], in: dir)
        #expect(json.status == 1)
        #expect(
            json.stdout == """
                ::notice file=new.json,line=6,col=19,\(title)/spec/replicas: 2 → 3
                ::notice file=new.json,line=7,col=17,\(title)/spec/labels/team: "a" → (none)
                ::notice file=new.json,line=10,col=9,\(title)/spec/containers[name=web]/image: "web:1" → "web:2"%0A/spec/containers[name=web]: moved #0 → #1

                """)
        let yaml = try Binary.run(["-f", "github", "--array-key", "/spec/containers=name", "old.yaml", "new.yaml"], in: dir)
        #expect(
            yaml.stdout == """
                ::notice file=new.yaml,line=4,col=15,\(title)/spec/replicas: 2 → 3
                ::notice file=new.yaml,line=6,col=7,\(title)/spec/labels/team: "a" → (none)
                ::notice file=new.yaml,line=11,col=16,\(title)/spec/containers[name=web]/image: "web:1" → "web:2"
                ::notice file=new.yaml,line=10,col=9,\(title)/spec/containers[name=web]: moved #0 → #1

                """)
        // Without the array key, the elements compare by index, each field at its line.
        let byIndex = try Binary.run(["-f", "github", "old.yaml", "new.yaml"], in: dir)
        #expect(byIndex.stdout.contains("line=9,col=16,\(title)/spec/containers/0/image: \"web:1\" → \"log:1\"\n"))
        #expect(byIndex.stdout.contains("line=11,col=16,\(title)/spec/containers/1/image: \"log:1\" → \"web:2\"\n"))
        // NDJSON: a field on the record's line, and an element removed at its list.
        let lines = try Binary.run(["-f", "github", "old.ndjson", "new.ndjson"], in: dir)
        #expect(lines.stdout == "::notice file=new.ndjson,line=1,col=22,\(title)/a/b: 1 → 2%0A/a/c/1: 2 → (none)\n")
    }

    @Test func githubEscapesPropertiesAndMessages() throws {
        let dir = try folder([
            "a,b:c.json": #"[{"id": "x,y:z%", "v": 1}]"#,
            "new.json": "[\n  {\"id\": \"x,y:z%\", \"v\": \"50%\\r\\n::error::forged\"}\n]",
            "empty.json": "[]",
        ])
        let run = try Binary.run(["-f", "github", "a,b:c.json", "new.json"], in: dir)
        #expect(
            run.stdout
                == #"::notice file=new.json,line=2,col=25,title=listdiff%3A updated id="x%2Cy%3Az%25"::/v: 1 → "50%25\r\n::error::forged""#
                + "\n")
        let deleted = try Binary.run(["-f", "github", "a,b:c.json", "empty.json"], in: dir)
        #expect(
            deleted.stdout
                == #"::notice file=a%2Cb%3Ac.json,line=1,col=2,title=listdiff%3A deleted id="x%2Cy%3Az%25"::deleted id="x,y:z%25" from #0"#
                + "\n")
    }
}
