import Foundation
import Testing

/// `listdiff merge` through the built binary: the shipped example, exit statuses, markers,
/// preferences, the conflicts as data, and git's merge driver in a real repository.
@Suite struct MergeCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    /// The example: records changed on either side merge, one field changed on both is a
    /// conflict, written between markers around that record alone.
    @Test func theExampleMergesWithOneConflict() throws {
        let run = try Binary.run(["merge", "people-base.json", "people-ours.json", "people-theirs.json"], in: Self.examples)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(
            run.stderr
                == "people-ours.json: merged 2 from ours, 2 from theirs, 1 on both; 1 conflict\n! field id=3 /email\n")
        let golden = try String(contentsOf: CommandTests.goldens.appendingPathComponent("people-merge.json"), encoding: .utf8)
        #expect(run.stdout == golden)
        // Only the conflicting record is between markers.
        #expect(run.stdout.components(separatedBy: "<<<<<<< ours\n").count == 2)
        // Resolved one way: a document that reads, exit 0, the conflicts as data.
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("merged.json").path, data = dir.appendingPathComponent("conflicts.json").path
        let theirs = try Binary.run(
            ["merge", "--prefer", "theirs", "-o", out, "--conflicts", data, "people-base.json", "people-ours.json", "people-theirs.json"],
            in: Self.examples)
        #expect(theirs.status == 0, "\(theirs.stderr)")
        #expect(try Binary.run(["-q", out, out], in: Self.examples).status == 0, "the merge reads")
        let conflicts = try String(contentsOfFile: data, encoding: .utf8)
        #expect(conflicts.hasPrefix(#"{"version": 1, "conflicts": ["#))
        #expect(conflicts.contains(#""kind":"field","key":3,"paths":["/email"]"#))
        #expect(conflicts.contains(#""resolved":"theirs""#))
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains(#""email": "grace@navy.mil""#))
    }

    /// Kubernetes manifests: one side bumps a container's image, the other adds an env var
    /// to it. With the preset, the containers list merges by name; without it, the list is
    /// one value both sides changed. The same field changed twice is named by key.
    @Test func keyedListsInsideManifestsMergeByName() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let base = try String(contentsOf: Self.examples.appendingPathComponent("manifests-old.yaml"), encoding: .utf8)
        func write(_ name: String, _ text: String) throws {
            try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let env = "            - name: PORT\n              value: \"8080\"\n"
        try write("base.yaml", base)
        try write("ours.yaml", base.replacingOccurrences(of: "shop/web:1.4.0", with: "shop/web:1.5.0"))
        try write("theirs.yaml", base.replacingOccurrences(of: env, with: env + "            - name: TRACE\n              value: \"on\"\n"))
        try write("other.yaml", base.replacingOccurrences(of: "shop/web:1.4.0", with: "shop/web:2.0.0"))
        #expect(base.contains(env))
        let clean = try Binary.run(
            ["merge", "--preset", "kubernetes", "-q", "-o", "merged.yaml", "base.yaml", "ours.yaml", "theirs.yaml"], in: dir)
        #expect(clean.status == 0, "\(clean.stderr)")
        let merged = try String(contentsOf: dir.appendingPathComponent("merged.yaml"), encoding: .utf8)
        #expect(merged.contains("shop/web:1.5.0") && merged.contains("TRACE"))
        // The documents neither side changed are BASE's text, byte for byte: the Service's
        // indented sequence, the ClusterRole's flow lists; the ConfigMap after it too.
        let untouched = base.components(separatedBy: "---\n").filter { !$0.contains("kind: Deployment") }
        #expect(untouched.count == 4)
        for document in untouched { #expect(merged.contains(document), "\(document)") }
        // The result holds exactly both sides' changes: diffed from BASE, two changes to web.
        let diff = try Binary.run(["--preset", "kubernetes", "base.yaml", "merged.yaml"], in: dir)
        #expect(diff.status == 1)
        #expect(diff.stdout.contains("containers[name=web]/image: \"shop/web:1.4.0\" → \"shop/web:1.5.0\""), "\(diff.stdout)")
        #expect(diff.stdout.contains("containers[name=web]/env[name=TRACE]"), "\(diff.stdout)")
        let unkeyed = try Binary.run(["merge", "--key", "auto", "base.yaml", "ours.yaml", "theirs.yaml"], in: dir)
        #expect(unkeyed.status == 1)
        #expect(unkeyed.stderr.contains("/spec/template/spec/containers\n"), "\(unkeyed.stderr)")
        let twice = try Binary.run(["merge", "--preset", "kubernetes", "base.yaml", "ours.yaml", "other.yaml"], in: dir)
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("/spec/template/spec/containers[name=web]/image"), "\(twice.stderr)")
        #expect(twice.stdout.components(separatedBy: "<<<<<<< ours\n").count == 2)
    }

    /// CSV: the conflicting record's rows between the markers, each as the CSV writer writes
    /// a row under the merged header (a comma quoted, quotes doubled); the rest merged.
    @Test func csvConflictsAreMarkedAsRows() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, text) in [
            ("b.csv", "id,name,team\n1,Ada,eng\n2,Alan,codes\n3,Grace,comp\n"),
            ("o.csv", "id,name,team\n1,Ada L,eng\n2,Alan,codes\n3,Grace H,comp\n"),
            ("t.csv", "id,name,team,note\n1,\"Ada, Countess\",eng,\n3,Grace,comp,\"says \"\"hi\"\"\"\n2,Alan T,codes,\n"),
        ] {
            try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let run = try Binary.run(["merge", "b.csv", "o.csv", "t.csv"], in: dir)
        #expect(run.status == 1)
        let expected = [
            "id,name,team,note", "<<<<<<< ours", "1,Ada L,eng,", "=======", #"1,"Ada, Countess",eng,"#, ">>>>>>> theirs",
            #"3,Grace H,comp,"says ""hi""""#, "2,Alan T,codes,", "",
        ]
        #expect(run.stdout == expected.joined(separator: "\n"), "\(run.stdout)")
        #expect(run.stderr == "o.csv: merged 0 from ours, 1 from theirs, 1 on both; 1 conflict\n! field id=\"1\" /name\n")
        // Resolved, it reads: THEIRS's name, OURS's other change.
        let theirs = try Binary.run(["merge", "--prefer", "theirs", "-o", "m.csv", "b.csv", "o.csv", "t.csv"], in: dir)
        #expect(theirs.status == 0)
        #expect(try String(contentsOf: dir.appendingPathComponent("m.csv"), encoding: .utf8).contains("1,\"Ada, Countess\",eng,\n"))
    }

    /// What the writer keeps of BASE at the edges: CRLF line endings (CSV and YAML), a merge
    /// that empties a YAML list, comments and blank lines between YAML records, a kept block
    /// scalar's line breaks, and JSON brackets on the records' lines.
    @Test func theWriterKeepsBASEAtTheEdges() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func merge(_ base: String, _ ours: String, _ theirs: String, ext: String, _ options: [String] = []) throws -> (Int32, String) {
            for (name, text) in [("b", base), ("o", ours), ("t", theirs)] {
                try text.write(to: dir.appendingPathComponent("\(name).\(ext)"), atomically: true, encoding: .utf8)
            }
            let run = try Binary.run(["merge", "-q"] + options + ["b.\(ext)", "o.\(ext)", "t.\(ext)"], in: dir)
            return (run.status, run.stdout)
        }
        // CSV with CRLF: every row kept, both conflicts marked, every line ending CRLF.
        let csv = try merge(
            "id,name,note\r\n1,a,x\r\n2,b,y\r\n3,c,z\r\n", "id,name,note\r\n1,A,x\r\n2,b,y\r\n3,C,z\r\n",
            "id,name,note\r\n1,AA,x\r\n2,b,y\r\n4,d,w\r\n", ext: "csv")
        #expect(csv.0 == 1)
        #expect(
            csv.1
                == [
                    "id,name,note", "<<<<<<< ours", "1,A,x", "=======", "1,AA,x", ">>>>>>> theirs", "2,b,y", "4,d,w", "<<<<<<< ours",
                    "3,C,z",
                    "=======", ">>>>>>> theirs", "",
                ].joined(separator: "\r\n"), "\(csv.1)")
        // A YAML list both sides leave empty, or one side empties: an empty list.
        let emptied = try merge("- id: 1\n  name: a\n- id: 2\n  name: b\n", "[]\n", "- id: 1\n  name: a\n- id: 2\n  name: b\n", ext: "yaml")
        #expect(emptied.0 == 0 && emptied.1 == "[]\n", "\(emptied.1)")
        // Comments and a kept block scalar stay where the records around them did not change.
        let base = "- id: 1\n  t: a\n- id: 2\n  t: |+\n    keep\n\n\n# about 3\n- id: 3\n  t: c\n"
        let kept = try merge(
            base, base.replacingOccurrences(of: "t: a", with: "t: A"), base.replacingOccurrences(of: "t: c", with: "t: C"), ext: "yaml")
        #expect(kept.0 == 0)
        #expect(kept.1 == base.replacingOccurrences(of: "t: a", with: "t: A").replacingOccurrences(of: "t: c", with: "t: C"), "\(kept.1)")
        // A stream of documents: the comment before an untouched document stays.
        let doc = { (name: String, x: String) in "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \(name)\ndata:\n  x: \"\(x)\"\n" }
        let stream = try merge(
            doc("a", "1") + "---\n# the second\n" + doc("b", "1") + "---\n" + doc("c", "1"),
            doc("a", "2") + "---\n# the second\n" + doc("b", "1") + "---\n" + doc("c", "1"),
            doc("a", "1") + "---\n# the second\n" + doc("b", "1") + "---\n" + doc("c", "3"), ext: "yaml", ["--key", "metadata.name"])
        #expect(stream.1 == doc("a", "2") + "---\n# the second\n" + doc("b", "1") + "---\n" + doc("c", "3"), "\(stream.1)")
        // JSON whose brackets share the records' lines: the brackets kept, markers at the start
        // of their lines.
        let json = try merge(
            "[{\"id\": 1, \"a\": 1},\n {\"id\": 2, \"a\": 2}]\n", "[{\"id\": 1, \"a\": 3},\n {\"id\": 2, \"a\": 3}]\n",
            "[{\"id\": 1, \"a\": 4},\n {\"id\": 2, \"a\": 4}]\n", ext: "json")
        #expect(json.1.hasPrefix("[\n<<<<<<< ours\n") && json.1.hasSuffix(">>>>>>> theirs\n]\n"), "\(json.1)")
        #expect(!json.1.split(separator: "\n").contains { $0.contains("<<<<<<<") && !$0.hasPrefix("<<<<<<<") })
    }

    /// A clean merge exits 0; trouble exits 2 with one line and writes nothing.
    @Test func statusesAndErrors() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"[{"id": 1, "a": 0}, {"id": 2, "a": 0}]"#.write(to: dir.appendingPathComponent("base.json"), atomically: true, encoding: .utf8)
        try #"[{"id": 1, "a": 1}, {"id": 2, "a": 0}]"#.write(to: dir.appendingPathComponent("ours.json"), atomically: true, encoding: .utf8)
        try #"[{"id": 1, "a": 0}, {"id": 2, "a": 2}]"#.write(
            to: dir.appendingPathComponent("theirs.json"), atomically: true, encoding: .utf8)
        try #"[{"id": 1}, {"id": 1}]"#.write(to: dir.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        let clean = try Binary.run(["merge", "-q", "base.json", "ours.json", "theirs.json"], in: dir)
        #expect(clean.status == 0 && clean.stderr.isEmpty)
        #expect(try Binary.run(["-q", "-", "ours.json"], stdin: clean.stdout, in: dir).status == 1)
        // A conflict at the first record, in a file of one record per line: the markers
        // stand at the start of their lines, the records keep their indentation.
        for (name, text) in [
            ("b.json", #"[{"id": 1, "a": 0}, {"id": 2, "a": 0}]"#), ("o.json", #"[{"id": 1, "a": 1}, {"id": 2, "a": 0}]"#),
            ("t.json", #"[{"id": 1, "a": 2}, {"id": 2, "a": 5}, {"id": 3}]"#),
        ] {
            let lines = text.replacingOccurrences(of: "[{", with: "[\n  {").replacingOccurrences(of: "}, {", with: "},\n  {")
            try lines.replacingOccurrences(of: "}]", with: "}\n]\n").write(
                to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let first = try Binary.run(["merge", "-q", "b.json", "o.json", "t.json"], in: dir)
        #expect(first.status == 1)
        #expect(
            first.stdout == """
                [
                <<<<<<< ours
                  {"id": 1, "a": 1},
                =======
                  {"id": 1, "a": 2},
                >>>>>>> theirs
                  {"id": 2, "a": 5},
                  {"id": 3}
                ]

                """, "\(first.stdout)")
        // A preference per kind: the field conflict goes to THEIRS; a bad one is refused.
        let perKind = try Binary.run(["merge", "--prefer", "field=theirs,delete=keep", "b.json", "o.json", "t.json"], in: dir)
        #expect(perKind.status == 0 && perKind.stdout.contains(#"{"id": 1, "a": 2}"#), "\(perKind.stderr)")
        let unknown = try Binary.run(["merge", "--prefer", "field=keep", "b.json", "o.json", "t.json"], in: dir)
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr
                == "listdiff: error: --prefer: keep chooses for delete/modify only; field takes ours or theirs (see 'listdiff merge --help')\n"
        )
        let bad = try Binary.run(["merge", "-o", "out.json", "base.json", "bad.json", "theirs.json"], in: dir)
        #expect(bad.status == 2 && bad.stdout.isEmpty)
        #expect(bad.stderr.hasPrefix("bad.json:1:13: error: duplicate key id=1"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.json").path))
    }

    /// git merges two branches that change neighbouring records of one JSON list: by lines
    /// a conflict, through the driver a clean merge. A field changed on both branches is a
    /// conflict whose markers hold that record only, and git's view names the path.
    @Test func gitMergesThroughTheDriver() throws {
        _ = try Programs.require("git", package: "git")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func bash(_ script: String) throws -> Run { try GitShell.run(script, in: dir, home: dir) }
        let setup = try bash(
            """
            git init -q -b main .
            git config user.email test@example.com; git config user.name test
            printf '[\\n  {"id": 1, "v": 0},\\n  {"id": 2, "v": 0},\\n  {"id": 3, "v": 0}\\n]\\n' > data.json
            git add data.json && git commit -q -m base
            git checkout -q -b left
            printf '[\\n  {"id": 1, "v": 1},\\n  {"id": 2, "v": 0},\\n  {"id": 3, "v": 0}\\n]\\n' > data.json
            git commit -q -am left
            git checkout -q main
            printf '[\\n  {"id": 1, "v": 0},\\n  {"id": 2, "v": 2},\\n  {"id": 3, "v": 0}\\n]\\n' > data.json
            git commit -q -am right
            """)
        #expect(setup.status == 0, "\(setup.stderr)")
        // By lines: the changed lines touch, and git stops.
        let plain = try bash("git merge -q left >/dev/null 2>&1 || echo \"status $?\"; git merge --abort")
        #expect(plain.stdout.contains("status 1"), "\(plain.stdout)\(plain.stderr)")
        // Through the driver: merged.
        let driven = try bash(
            """
            git config merge.listdiff.driver '"$LISTDIFF" merge %O %A %B %L %P'
            echo '*.json merge=listdiff' > .gitattributes
            git merge -q -m merged left
            cat data.json
            """)
        #expect(driven.status == 0, "\(driven.stdout)\(driven.stderr)")
        // Written as the branches write it, each record on its line.
        #expect(driven.stdout.hasSuffix("\n" + GitShell.merged), "\(driven.stdout)")
        // The same field on both branches: a conflict, in markers around that record.
        let conflict = try bash(
            """
            git add .gitattributes && git commit -q -m attributes
            git checkout -q -b one
            sed -i 's/"id": 3, "v": 0/"id": 3, "v": 31/' data.json && git commit -q -am one
            git checkout -q main
            sed -i 's/"id": 3, "v": 0/"id": 3, "v": 32/' data.json && git commit -q -am two
            git merge -q -m both one || echo "conflict"
            cat data.json
            """)
        #expect(conflict.stdout.contains("conflict"), "\(conflict.stdout)\(conflict.stderr)")
        #expect(conflict.stderr.contains("data.json: merged 0 from ours, 0 from theirs, 0 on both; 1 conflict"), "\(conflict.stderr)")
        let markers = conflict.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("<<<<<<<") || $0.hasPrefix(">>>>>>>") }
        #expect(markers == ["<<<<<<< ours", ">>>>>>> theirs"], "\(conflict.stdout)")
        #expect(conflict.stdout.contains(#""v": 32"#) && conflict.stdout.contains(#""v": 31"#))
    }
}
