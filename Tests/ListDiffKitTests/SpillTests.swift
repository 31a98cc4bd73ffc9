import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// A diff spilled to disk (`--memory-limit`) is the diff in memory, byte for byte, errors
/// included, in every format; it cuts its inputs into chunks anywhere between records; and
/// it leaves no spill folder behind.
@Suite struct SpillTests {
    /// A differ that spills whatever the inputs' size, in chunks of a few records, into
    /// a folder under `parent`.
    static func spilling(_ files: FileDiffer, parent: URL, explicit: Bool = true, budget: Int = 2048) -> FileDiffer {
        var files = files
        files.memoryLimit = MemoryLimit(bytes: budget, isExplicit: explicit)
        files.spillParent = parent.path
        return files
    }

    static func rendered(_ files: FileDiffer, _ old: URL, _ new: URL) -> String {
        ShardTests.rendered { () throws(ListDiffError) in try files.diff(old: old.path, new: new.path).changeset }
    }

    /// A folder for a test's inputs, and one inside it for the spill's folders.
    static func workspace() throws -> (dir: URL, parent: URL) {
        let dir = try FastPathTests.directory()
        let parent = dir.appendingPathComponent("spill")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        return (dir, parent)
    }

    /// One random round: the diff of `c`'s pair in memory, and spilled under a budget that
    /// grows with the round, which must agree; the diff in memory, and whether it spilled.
    static func compare(
        round: Int, _ c: DocumentPairs.Case, _ old: URL, _ new: URL, differ: Differ, parent: URL
    ) throws -> (whole: String, spilled: Bool) {
        let reader = DocumentReader(key: try IdentityKey(parsing: c.key), duplicates: c.duplicates, layout: c.options)
        let files = FileDiffer(reader: reader, differ: differ)
        let whole = Self.rendered(files, old, new)
        let spilling = Self.spilling(files, parent: parent, budget: 16 << (round % 6))
        let spilled = (try? spilling.spillPartitions(old: old.path, new: new.path)) != nil
        #expect(Self.rendered(spilling, old, new) == whole, "round \(round) \(c)")
        #expect(Self.leftovers(parent).isEmpty, "round \(round)")
        return (whole, spilled)
    }

    /// Each case's text beside `base` (as NEW, then as OLD), keyed by `id`, in files named
    /// `.ext` in `dir`: the diff under the default budget is the diff in memory; under a
    /// budget asked for, it is too, but for the cases named in `refused`, which do not
    /// spill. Each case spills that is not refused; with `errors`, each is an error.
    static func checkCases(
        _ cases: [(String, String)], beside base: String, ext: String, in dir: URL, refused: Set<String>, errors: Bool = false,
        options: LayoutOptions = LayoutOptions()
    ) throws {
        let a = dir.appendingPathComponent("old.\(ext)"), b = dir.appendingPathComponent("new.\(ext)")
        for (name, text) in cases {
            try base.write(to: a, atomically: true, encoding: .utf8)
            try text.write(to: b, atomically: true, encoding: .utf8)
            let files = FileDiffer(reader: DocumentReader(key: try IdentityKey(parsing: ["id"]), layout: options))
            for (x, y) in [(a, b), (b, a)] {
                let whole = Self.rendered(files, x, y)
                if errors { #expect(whole.hasPrefix("error"), "\(name): \(whole)") }
                #expect(Self.rendered(Self.spilling(files, parent: dir, explicit: false, budget: 512), x, y) == whole, "\(name)")
                let spilling = Self.spilling(files, parent: dir, budget: 512)
                let spilled = Self.rendered(spilling, x, y)
                if refused.contains(name) {
                    #expect(spilled.contains("do not spill"), "\(name): \(spilled)")
                } else {
                    #expect(try spilling.spillPartitions(old: x.path, new: y.path) != nil, "\(name)")
                    #expect(spilled == whole, "\(name)")
                }
            }
        }
        #expect(Self.leftovers(dir).filter { $0.hasPrefix("listdiff-spill") }.isEmpty)
    }

    /// `lines` with some replaced.
    static func edited(_ lines: [String], _ edits: [Int: String]) -> [String] {
        var out = lines
        for (k, line) in edits { out[k] = line }
        return out
    }

    /// What the spill folder's parent holds once a diff is done: nothing.
    static func leftovers(_ parent: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
    }

    /// Random lists in JSON (one line, and pretty; at the top, and at a --path inside a
    /// larger document), NDJSON and YAML, with every key kind, both duplicates policies and
    /// the comparison rules: spilled is in memory.
    @Test func spilledIsTheDiffInMemory() throws {
        let (dir, parent) = try Self.workspace()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: 91)
        var spelling = RandomSpelling(rng: SplitMix64(seed: 9), pretty: false)
        var spilled = 0, moved = 0, errors = 0
        for round in 0..<200 {
            // (A list at --path spills in JSON.)
            let atPath = round % 5 == 4
            let c = DocumentPairs.Case(
                shape: .list, keyKind: DocumentPairs.KeyKind.allCases[round % 3],
                duplicates: round % 4 == 3 ? .match : .error, atPath: atPath)
            let (oldValue, newValue) = pairs.next(c)
            spelling.pretty = round % 4 == 1
            let (old, new) = try EngineTests.write(
                oldValue, newValue, in: dir, round: round, lines: !atPath && round % 3 == 1, yaml: !atPath && round % 3 == 2,
                &spelling)
            var differ = try ShardTests.differ(round)
            if round % 7 == 5 { differ.renames = try RenameRule() }
            let (whole, spills) = try Self.compare(round: round, c, old, new, differ: differ, parent: parent)
            if spills { spilled += 1 }
            if whole.contains("\"op\": \"move\"") { moved += 1 }
            if whole.hasPrefix("error") { errors += 1 }
        }
        #expect(spilled > 150)
        #expect(moved > 20)
        #expect(errors > 5)
    }

    /// CSV with quoted cells, separators and line breaks inside quotes, and a header; TSV.
    @Test func csvAndTSVAreCutBetweenRows() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var rng = SplitMix64(seed: 12)
        let words = ["plain", "with, comma", "with \"quote\"", "two\nlines", "ends\"", "tab\there", ""]
        for round in 0..<40 {
            let tsv = round % 4 == 3
            let separator = tsv ? "\t" : ","
            func cell(_ s: String) -> String {
                if tsv { return s.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ") }
                return s.contains(where: { ",\"\n\r".contains($0) }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
            }
            func table(_ ids: [Int], _ salt: Int) -> String {
                let newline = round % 2 == 0 ? "\r\n" : "\n"
                var text = ["id", "a", "b"].joined(separator: separator) + newline
                for id in ids {
                    text +=
                        [String(id), cell(words[(id + salt * (id % 3)) % words.count]), cell(words[id % words.count])]
                        .joined(separator: separator) + newline
                }
                return text
            }
            let oldIDs = (0..<Int.random(in: 0..<60, using: &rng)).map { $0 * 2 }.shuffled(using: &rng)
            var newIDs = oldIDs.filter { _ in Int.random(in: 0..<6, using: &rng) > 0 }
            newIDs.append(contentsOf: (0..<Int.random(in: 0..<4, using: &rng)).map { 1001 + $0 * 3 })
            newIDs.shuffle(using: &rng)
            let ext = tsv ? "tsv" : "csv"
            let old = dir.appendingPathComponent("old-\(round).\(ext)"), new = dir.appendingPathComponent("new-\(round).\(ext)")
            try table(oldIDs, 0).write(to: old, atomically: true, encoding: .utf8)
            try table(newIDs, 1 + round % 3).write(to: new, atomically: true, encoding: .utf8)
            var files = FileDiffer(key: try IdentityKey(parsing: ["id"]), csvInfersTypes: round % 3 == 0)
            let whole = Self.rendered(files, old, new)
            files = Self.spilling(files, parent: dir, budget: 16 << (round % 5))
            #expect(Self.rendered(files, old, new) == whole, "round \(round)")
            #expect(!whole.hasPrefix("error"), "\(whole)")
        }
    }

    /// Errors name the same record at the same place as in memory: a missing key, a key
    /// found twice (in one chunk, and far apart), malformed text late in an input, in each
    /// format that places them.
    @Test func errorsAreThoseInMemory() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        func records(_ ids: [Int], format: String) -> String {
            switch format {
            case "ndjson": return ids.map { "{\"id\":\($0),\"v\":\"\(String(repeating: "x", count: $0 % 7))\"}\n" }.joined()
            case "yaml": return ids.map { "- id: \($0)\n  v: \"\(String(repeating: "x", count: $0 % 7))\"\n" }.joined()
            case "csv": return "id,v\n" + ids.map { "\($0),\(String(repeating: "x", count: $0 % 7))\n" }.joined()
            default:
                return "[\n" + ids.map { "  {\"id\": \($0), \"v\": \"\(String(repeating: "x", count: $0 % 7))\"}" }.joined(separator: ",\n")
                    + "\n]\n"
            }
        }
        let base = Array(0..<300)
        for format in ["json", "ndjson", "yaml", "csv"] {
            var cases: [(String, String)] = []
            var repeated = base
            repeated[250] = 3
            cases.append(("duplicate far apart", records(repeated, format: format)))
            repeated = base
            repeated[11] = 10
            cases.append(("duplicate near", records(repeated, format: format)))
            var missing = records(base, format: format)
            missing = missing.replacingOccurrences(
                of: format == "yaml" ? "- id: 200\n" : format == "csv" ? "\n200," : "\"id\": 200,",
                with: format == "yaml" ? "- idx: 200\n" : format == "csv" ? "\n," : "\"idx\": 200,")
            missing = missing.replacingOccurrences(of: "\"id\":200,", with: "\"idx\":200,")
            // (A CSV row always has its key: an empty cell is the key "".)
            if format != "csv" { cases.append(("missing key", missing)) }
            // A line that cannot start there, near the end.
            var lines = records(base, format: format).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines[lines.count * 9 / 10] = (format == "csv" ? "\"" : "}") + lines[lines.count * 9 / 10]
            cases.append(("malformed late", lines.joined(separator: "\n")))
            // Two members of one name in a record near the end.
            if format == "json" || format == "ndjson" {
                cases.append(
                    (
                        "member twice",
                        records(base, format: format).replacingOccurrences(of: #""id": 280,"#, with: #""id": 280, "id": 280,"#)
                            .replacingOccurrences(of: #""id":280,"#, with: #""id":280,"id":280,"#)
                    ))
            }
            for (name, text) in cases {
                let old = dir.appendingPathComponent("old.\(format)"), new = dir.appendingPathComponent("new.\(format)")
                try records(base, format: format).write(to: old, atomically: true, encoding: .utf8)
                try text.write(to: new, atomically: true, encoding: .utf8)
                for (a, b) in [(old, new), (new, old)] {
                    let files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
                    let whole = Self.rendered(files, a, b)
                    let spilled = Self.rendered(Self.spilling(files, parent: dir, budget: 4096), a, b)
                    #expect(spilled == whole, "\(format) \(name)")
                    #expect(whole.hasPrefix("error"), "\(format) \(name): \(whole.prefix(100))")
                }
            }
        }
    }

    /// Under a budget it was asked for, inputs the spill does not cut are refused with the
    /// reason; under the default, they are diffed in memory.
    @Test func whatDoesNotSpillIsRefusedOrDiffedInMemory() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        // (The lists a `*` in --path names are not cut out.)
        let yamlOld = dir.appendingPathComponent("old.yaml"), yamlNew = dir.appendingPathComponent("new.yaml")
        try "a:\n  items:\n  - id: 1\nb:\n  items:\n  - id: 2\n".write(to: yamlOld, atomically: true, encoding: .utf8)
        try "a:\n  items:\n  - id: 1\nb:\n  items:\n  - id: 3\n".write(to: yamlNew, atomically: true, encoding: .utf8)
        let files = FileDiffer(
            reader: DocumentReader(key: try IdentityKey(parsing: ["id"]), layout: LayoutOptions(path: try FieldPath("/*/items"))))
        let whole = Self.rendered(files, yamlOld, yamlNew)
        #expect(!whole.hasPrefix("error"))
        #expect(Self.rendered(Self.spilling(files, parent: dir, explicit: false, budget: 16), yamlOld, yamlNew) == whole)
        let refused = Self.rendered(Self.spilling(files, parent: dir, budget: 16), yamlOld, yamlNew)
        #expect(refused.contains("do not spill"), "\(refused)")
        #expect(refused.contains("a `*` in --path names many lists"), "\(refused)")
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        var myers = FileDiffer(key: try IdentityKey(parsing: ["id"]))
        myers.differ.algorithm = MyersDiff()
        try "[{\"id\": 1}]".write(to: old, atomically: true, encoding: .utf8)
        try "[{\"id\": 2}]".write(to: new, atomically: true, encoding: .utf8)
        #expect(Self.rendered(Self.spilling(myers, parent: dir, budget: 16), old, new).contains("--algorithm myers"))
        #expect(Self.leftovers(dir).filter { $0.hasPrefix("listdiff-spill") }.isEmpty)
    }

    /// A YAML alias whose anchor is in another record is refused with the reason, since a
    /// spill reads the records apart; one within its record spills.
    @Test func yamlAliasesStayWithinTheirRecord() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.yaml"), new = dir.appendingPathComponent("new.yaml")
        var text = ""
        for id in 0..<100 { text += "- id: \(id)\n  a: &x\(id) [1, 2]\n  b: *x\(id)\n" }
        try text.write(to: old, atomically: true, encoding: .utf8)
        try text.replacingOccurrences(of: "id: 7\n", with: "id: 7\n  c: 1\n").write(to: new, atomically: true, encoding: .utf8)
        let files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
        let whole = Self.rendered(files, old, new)
        #expect(whole.contains("\"update\""))
        #expect(Self.rendered(Self.spilling(files, parent: dir, budget: 256), old, new) == whole)
        try (text + "- id: 100\n  b: *x3\n").write(to: new, atomically: true, encoding: .utf8)
        #expect(!Self.rendered(files, old, new).hasPrefix("error"))
        let refused = Self.rendered(Self.spilling(files, parent: dir, budget: 256), old, new)
        #expect(refused.contains("alias *x3 refers to no anchor defined before it in its own records"), "\(refused)")
        #expect(refused.contains("new.yaml:302:6"), "\(refused)")
    }

    /// Empty inputs, and inputs of no records, read as they read in memory.
    @Test func emptyInputsReadAsInMemory() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let texts = [
            "json": ["", "[]", "[\n]\n", "  [ ]  ", "[{\"id\": 1}]"], "ndjson": ["", "\n\n", "{\"id\": 1}"],
            "yaml": ["", "[]\n", "- id: 1\n"], "csv": ["", "id\n", "id\n1\n"],
        ]
        let files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
        for (ext, variants) in texts {
            for a in variants {
                for b in variants {
                    let old = dir.appendingPathComponent("old.\(ext)"), new = dir.appendingPathComponent("new.\(ext)")
                    try a.write(to: old, atomically: true, encoding: .utf8)
                    try b.write(to: new, atomically: true, encoding: .utf8)
                    let whole = Self.rendered(files, old, new)
                    let spilled = Self.rendered(Self.spilling(files, parent: dir, explicit: false, budget: 1), old, new)
                    #expect(spilled == whole, "\(ext): \(a.debugDescription) → \(b.debugDescription)")
                }
            }
        }
        #expect(Self.leftovers(dir).filter { $0.hasPrefix("listdiff-spill") }.isEmpty)
    }

    /// Cases a review found: renamed records in one partition, a YAML version other than
    /// 1.2, a stream whose first document has no `---`, `%TAG` and `%YAML` directives, OLD's
    /// repeated key against NEW's malformed text, two repeated keys on one line.
    @Test func reviewedCases() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        func check(_ name: String, _ ext: String, _ old: String, _ new: String, _ configure: (inout FileDiffer) throws -> Void = { _ in })
            throws
        {
            let a = dir.appendingPathComponent("old.\(ext)"), b = dir.appendingPathComponent("new.\(ext)")
            try old.write(to: a, atomically: true, encoding: .utf8)
            try new.write(to: b, atomically: true, encoding: .utf8)
            var files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
            try configure(&files)
            let whole = Self.rendered(files, a, b)
            for budget in [64, 512, 4096] {
                #expect(Self.rendered(Self.spilling(files, parent: dir, budget: budget), a, b) == whole, "\(name), \(budget)")
            }
        }
        let ids = Array(0..<200)
        let lines = ids.map { "{\"id\":\($0),\"name\":\"n\($0)\",\"a\":\($0 % 7),\"b\":\"long text \($0 % 3)\"}" }
        var renamed = lines
        for k in stride(from: 5, to: 200, by: 20) {
            renamed[k] = renamed[k].replacingOccurrences(of: "\"id\":\(k),", with: "\"id\":\(k + 1000),")
        }
        try check("renames", "ndjson", lines.joined(separator: "\n"), renamed.joined(separator: "\n")) {
            $0.differ.renames = try RenameRule()
        }
        let yaml = ids.map { "- id: \($0)\n  on: yes\n  n: 0\($0 % 8)\n" }
        try check("yaml 1.1", "yaml", yaml.joined(), yaml.shuffled().joined()) { $0.reader.yaml.version = .v1_1 }
        let docs = ids.map { "kind: K\nid: \($0)\nspec: {a: \($0 % 5)}\n" }
        try check("stream, first without ---", "yaml", docs.joined(separator: "---\n"), docs.reversed().joined(separator: "---\n"))
        try check(
            "%TAG", "yaml", "%TAG !e! tag:example.com,2000:\n---\n" + ids.map { "- id: \($0)\n  n: !e!n \($0)\n" }.joined(),
            "%TAG !e! tag:example.com,2000:\n---\n" + ids.reversed().map { "- id: \($0)\n  n: !e!n \($0)\n" }.joined())
        try check(
            "%YAML per document", "yaml", docs.map { "%YAML 1.2\n---\n" + $0 + "...\n" }.joined(),
            docs.reversed().map { "%YAML 1.2\n---\n" + $0 + "...\n" }.joined())
        var repeated = lines
        repeated[150] = lines[3]
        var broken = lines
        broken[170] = "{\"id\": 170, oops}"
        let a = dir.appendingPathComponent("old.ndjson"), b = dir.appendingPathComponent("new.ndjson")
        try repeated.joined(separator: "\n").write(to: a, atomically: true, encoding: .utf8)
        try broken.joined(separator: "\n").write(to: b, atomically: true, encoding: .utf8)
        let files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
        let whole = Self.rendered(files, a, b)
        #expect(whole.contains("duplicate key id=3"), "\(whole)")
        #expect(Self.rendered(Self.spilling(files, parent: dir, budget: 256), a, b) == whole)
        // A repeated key before a record without its key, in one side.
        var both = lines
        both[40] = lines[2]
        both[160] = lines[160].replacingOccurrences(of: "\"id\":160,", with: "")
        try check("repeated, then no key", "ndjson", both.joined(separator: "\n"), lines.joined(separator: "\n"))
        try check("no key, then repeated", "ndjson", lines.joined(separator: "\n"), both.reversed().joined(separator: "\n"))
        var twice = lines
        twice[120] = lines[100]
        twice[60] = lines[10]
        try check(
            "two repeated keys on one line", "json", "[" + lines.joined(separator: ",") + "]", "[" + twice.joined(separator: ",") + "]")
        #expect(Self.leftovers(dir).filter { $0.hasPrefix("listdiff-spill") }.isEmpty)
    }

    /// A part of a YAML stream is read as a stream, though it may hold one document: its
    /// documents are records, with a record's room to nest, whatever their shape. Each
    /// document here is longer than a chunk, so that each part holds one.
    @Test func yamlStreamPartsReadAsStreams() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let pad = String(repeating: "x", count: 100)
        func stream(_ documents: [String]) -> String { documents.map { "---\n" + $0 }.joined() }
        let records = (0..<30).map { "id: \($0)\nv: \(pad)\n" }
        func deep(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }
        let cases = [
            ("documents without the key", stream((0..<30).map { "name: n\($0)\nv: \(pad)\n" })),
            ("one document without the key", stream(Self.edited(records, [12: "name: n\nv: \(pad)\n"]))),
            ("scalar documents", stream(Self.edited(records, [3: "3\n", 17: "\(pad)\n"]))),
            ("an empty document", stream(Self.edited(records, [5: "", 6: "# \(pad)\n"]))),
            ("a document that is a list", stream(Self.edited(records, [8: "- id: 8\n  v: \(pad)\n"]))),
            ("a document that is a map of records", stream(Self.edited(records, [9: "a:\n  id: 9\n  v: \(pad)\n"]))),
            ("documents nested to the limit", stream(Self.edited(records, [20: "id: 20\nd: \(deep(NestingLimit.standard - 2))\n"]))),
            ("a document nested past the limit", stream(Self.edited(records, [20: "id: 20\nd: \(deep(NestingLimit.standard - 1))\n"]))),
            ("moved and changed", stream(Self.edited(records.reversed(), [4: "id: 25\nv: changed\n"]))),
        ]
        try Self.checkCases(cases, beside: stream(records), ext: "yaml", in: dir, refused: [])
    }

    /// A JSON list at a --path inside a larger document spills: the text around it is read
    /// as in memory (its errors too; an input read whole in the first read is one chunk,
    /// whatever --path names in it), and a text before the list longer than a chunk is
    /// refused under a budget asked for, and diffed in memory under the default.
    @Test func listsAtAPathSpill() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let records = (0..<150).map { #"{"id": \#($0), "s": "é,]}[\"\#($0 % 9)"}"# }
        func list(_ ids: [Int]) -> String { "[\n    " + ids.map { records[$0] }.joined(separator: ",\n    ") + "\n  ]" }
        let ids = Array(0..<150)
        var changed = ids.filter { $0 % 11 != 3 }
        changed.swapAt(4, 90)
        let before = #"{"meta": {"note": "a [list] {here}", "n": [1, {"x": "]"}]}, "data": {"x": [1, 2], "users": "#
        let cases: [(name: String, path: String, old: String, new: String, spills: Bool)] = [
            ("around", "/data/users", before + list(ids) + "}, \"after\": [3]}\n", before + list(changed) + "}}", true),
            (
                "one line", "/data/users", (before + list(ids) + "}}").replacingOccurrences(of: "\n", with: ""),
                before + list(changed) + "}}", true
            ),
            ("an index", "/1/users", "[0, {\"users\": " + list(ids) + "}, 2]", "[[], {\"users\": " + list(changed) + "}]", true),
            ("empty", "/data/users", before + "[]}}", before + list(changed) + "}}", true),
            ("member twice around", "/data/users", before + list(ids) + "}, \"meta\": 2}", before + list(changed) + "}}", true),
            (
                "twice in the text before", "/data/users", #"{"a": 1, "a": 2, "data": {"users": "# + list(ids) + "}}",
                before + list(changed) + "}}", true
            ),
            (
                "malformed before", "/data/users", #"{"meta": {"n": [1,, 2]}, "data": {"users": "# + list(ids) + "}}",
                before + list(changed) + "}}", true
            ),
            ("malformed after", "/data/users", before + list(ids) + "}, \"after\": [3,]}", before + list(changed) + "}}", true),
            (
                "malformed record", "/data/users",
                before + list(ids).replacingOccurrences(of: #""id": 120,"#, with: #""id": 120,,"#) + "}}", before + list(changed) + "}}",
                true
            ),
            (
                "no key", "/data/users", before + list(ids).replacingOccurrences(of: #""id": 130,"#, with: #""idx": 130,"#) + "}}",
                before + list(changed) + "}}", true
            ),
            ("key twice", "/data/users", before + list(ids + [77]) + "}}", before + list(changed) + "}}", true),
            (
                "malformed on the way", "/data/users", #"{"meta" 1, "data": {"users": "# + list(ids) + "}}", before + list(changed) + "}}",
                true
            ),
            (
                "long text before", "/data/users",
                #"{"meta": ""# + String(repeating: "x", count: 100_000) + #"", "data": {"users": "# + list(ids) + "}}",
                before + list(changed) + "}}", false
            ),
            ("not there", "/data/people", before + list(ids) + "}}", before + list(changed) + "}}", true),
            ("not a list", "/meta", before + list(ids) + "}}", before + list(changed) + "}}", true),
        ]
        for c in cases {
            let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
            try c.old.write(to: old, atomically: true, encoding: .utf8)
            try c.new.write(to: new, atomically: true, encoding: .utf8)
            let reader = DocumentReader(key: try IdentityKey(parsing: ["id"]), layout: LayoutOptions(path: try FieldPath(c.path)))
            let files = FileDiffer(reader: reader, differ: Differ())
            let whole = Self.rendered(files, old, new)
            #expect(Self.rendered(Self.spilling(files, parent: dir, explicit: false, budget: 256), old, new) == whole, "\(c.name)")
            for budget in [64, 256, 4096] {
                let spilled = Self.rendered(Self.spilling(files, parent: dir, budget: budget), old, new)
                if c.spills {
                    #expect(spilled == whole, "\(c.name), \(budget)")
                } else {
                    #expect(spilled.contains("do not spill"), "\(c.name): \(spilled)")
                }
            }
        }
        #expect(Self.leftovers(dir).filter { $0.hasPrefix("listdiff-spill") }.isEmpty)
    }

    /// Cases of `(name, path, old, new, spills)`: the spilled diff is the diff in memory,
    /// each way and under each budget, or (not `spills`) is refused with the reason.
    static func checkPathCases(_ cases: [(String, String, String, String, Bool)], ext: String, budgets: [Int]) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        for (name, path, oldText, newText, spills) in cases {
            let old = dir.appendingPathComponent("old.\(ext)"), new = dir.appendingPathComponent("new.\(ext)")
            try oldText.write(to: old, atomically: true, encoding: .utf8)
            try newText.write(to: new, atomically: true, encoding: .utf8)
            let reader = DocumentReader(key: try IdentityKey(parsing: ["id"]), layout: LayoutOptions(path: try FieldPath(path)))
            let files = FileDiffer(reader: reader, differ: Differ())
            for (a, b) in [(old, new), (new, old)] {
                let whole = Self.rendered(files, a, b)
                #expect(Self.rendered(Self.spilling(files, parent: dir, explicit: false, budget: budgets[0]), a, b) == whole, "\(name)")
                for budget in budgets {
                    let spilling = Self.spilling(files, parent: dir, budget: budget)
                    let spilled = Self.rendered(spilling, a, b)
                    if spills {
                        #expect(try spilling.spillPartitions(old: a.path, new: b.path) != nil, "\(name)")
                        #expect(spilled == whole, "\(name), \(budget)")
                    } else {
                        #expect(spilled.contains("do not spill"), "\(name): \(spilled)")
                    }
                }
            }
        }
        #expect(Self.leftovers(dir).filter { $0.hasPrefix("listdiff-spill") }.isEmpty)
    }

    /// A YAML list at a --path whose first read (64 KiB) ends just after an item's `-`:
    /// a line cut short is not the list's end.
    @Test func aYAMLReadThatEndsAfterADash() throws {
        // (The first read ends at byte 65,536: the fourth item's `-` is its last byte.)
        let text = "# " + String(repeating: "x", count: 65468) + "\nitems:\n" + (1000..<11000).map { "- id: \($0)\n  p: ab\n" }.joined()
        #expect(Array(text.utf8)[65535] == UInt8(ascii: "-"))
        try Self.checkPathCases(
            [("a read that ends after a dash", "/items", text, "items:\n- id: 5\n", true)], ext: "yaml", budgets: [65536])
    }

    /// A YAML block sequence at a --path (`kubectl get -o yaml`'s `items`, indentless or
    /// indented, at any depth) spills: the text before it leads every chunk, the text after
    /// it ends the last, and errors anywhere are those in memory.
    @Test func yamlListsAtAPathSpill() throws {
        func item(_ k: Int, _ pad: String) -> String {
            "\(pad)- id: \(k)\n\(pad)  s: \"é,]}[\\\"\(k % 9)\"\n\(pad)  l:\n\(pad)  - x\n\(pad)  t: |\n\(pad)    - not an item\n"
        }
        func list(_ ids: [Int], _ pad: String = "") -> String { ids.map { item($0, pad) }.joined() }
        let ids = Array(0..<150)
        var changed = ids.filter { $0 % 11 != 3 }
        changed.swapAt(4, 90)
        let before = "# kubectl\napiVersion: v1\nmeta: {note: \"a [list]\", n: [1, {x: \"]\"}]}\nitems:\n"
        let after = "kind: List\nmetadata:\n  resourceVersion: \"\"\n"
        let cases: [(String, String, String, String, Bool)] = [
            ("around", "/items", before + list(ids) + after, before + list(changed), true),
            (
                "indented", "/data/users", "data:\n  x: 1\n  users:\n" + list(ids, "    ") + "  y: 2\n",
                "data:\n  users:\n" + list(changed, "  "), true
            ),
            ("an index", "/1/users", "- 0\n- users:\n" + list(ids, "  ") + "- 2\n", "- []\n- users:\n" + list(changed, "  "), true),
            (
                "text at the margin", "/items", before + list(ids).replacingOccurrences(of: "- x\n", with: "- \"x\n- id: 1\"\n") + after,
                before + list(changed), true
            ),
            ("a stream", "/items", "---\n" + before + list(ids) + "---\nitems: []\n", before + list(changed), true),
            ("a tag on the list", "/items", "a: 1\nitems: !!seq  # the pods\n\n" + list(ids) + after, before + list(changed), true),
            ("empty", "/items", before + "[]\n" + after, before + list(changed), true),
            // (As kubectl writes no resources.)
            ("empty on its key's line", "/items", before.dropLast() + " [ ]  # none\n" + after, before + list(changed), true),
            ("member twice around", "/items", before + list(ids) + "items: 2\n", before + list(changed), true),
            ("twice in the text before", "/items", "a: 1\na: 2\nitems:\n" + list(ids), before + list(changed), true),
            ("malformed before", "/items", "meta: [1,, 2]\nitems:\n" + list(ids), before + list(changed), true),
            ("malformed after", "/items", before + list(ids) + "kind: [List\n", before + list(changed), true),
            (
                "malformed record", "/items", before + list(ids).replacingOccurrences(of: "- id: 120\n", with: "- id: 120\n  q: [\n"),
                before + list(changed), true
            ),
            (
                "no key", "/items", before + list(ids).replacingOccurrences(of: "- id: 130\n", with: "- idx: 130\n"),
                before + list(changed), true
            ),
            ("key twice", "/items", before + list(ids + [77]), before + list(changed), true),
            (
                "an alias to another record", "/items",
                before
                    + list(ids).replacingOccurrences(of: "- id: 10\n", with: "- id: 10\n  a: &x 1\n").replacingOccurrences(
                        of: "- id: 140\n", with: "- id: 140\n  a: *x\n"), before + list(changed), true
            ),
            ("not there", "/people", before + list(ids), before + list(changed), true),
            ("not a list", "/apiVersion", before + list(ids), before + list(changed), true),
        ]
        // Beyond the first read (64 KiB): where the path leads astray, the reader's error
        // as in memory, or a refusal with the reason.
        let long = list(Array(0..<1500))
        let pad = "pad: \"" + String(repeating: "x", count: 70_000) + "\"\n"
        let beyond: [(String, String, String, String, Bool)] = [
            // (Many reads, some of which end inside a line: such a line is not the list's end.)
            ("a long list", "/items", before + list(Array(0..<5000)) + after, before + list(changed), true),
            ("a step given twice, first not the list", "/items", "items: 5\n" + long + "items:\n" + long, before + list(changed), true),
            (
                "a step given twice, higher up", "/a/items", "a:\n  x: 1\na:\n  items:\n" + list(ids, "  ") + long, before + list(changed),
                true
            ),
            ("malformed before the list", "/items", "a: [1,,\n" + pad + "items:\n" + long, before + list(changed), true),
            ("malformed on the way", "/items", "a: 1\n b: 2\n" + long + "items:\n" + long, before + list(changed), true),
            ("a long text before the list", "/items", pad + "items:\n" + long, before + list(changed), false),
            (
                "a long text after the list", "/items", "items:\n" + long + (0..<8).map { "p\($0)" + pad }.joined(), before + list(changed),
                false
            ),
            ("no such member", "/items", "a: 1\nb:\n" + long, before + list(changed), false),
            ("an anchor before the list", "/items", "a: &x 1\nitems:\n" + long, before + list(changed), false),
            (
                "a flow list", "/items", "items: [" + (0..<4000).map { "{id: \($0)}" }.joined(separator: ", ") + "]\n",
                before + list(changed), false
            ),
        ]
        try Self.checkPathCases(beyond, ext: "yaml", budgets: [65536])
        // (An alias to an anchor in an earlier chunk is refused with the reason.)
        try Self.checkPathCases(
            cases.map { $0.0 == "an alias to another record" ? ($0.0, $0.1, $0.2, $0.3, false) : $0 }, ext: "yaml", budgets: [64, 1024])
    }

    /// Inputs larger than the first read (64 KiB), whose list at --path is not where the
    /// path says or whose text around it is not JSON: the reader's error, as in memory,
    /// wherever it is in what is read; else a refusal with the reason.
    @Test func pathErrorsBeyondTheFirstRead() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let list =
            "[" + (0..<3000).map { #"{"id": \#($0), "pad": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"# }.joined(separator: ", ") + "]"
        let small = #"{"items": [{"id": 1, "pad": "y"}]}"#
        let cases: [(name: String, path: String, text: String, spills: Bool)] = [
            ("a step given twice, first not the list", "/items", "{\"items\":5,\n\"items\":\(list)}", true),
            ("a step given twice, higher up", "/a/items", "{\"a\":{\"x\":1},\n\"a\":{\"items\":\(list)}}", true),
            ("a bad escape in a name", "/items", #"{"k":1, "ab\q": 1, "items":"# + list + "}", true),
            ("a lone surrogate in a name", "/items", #"{"k":1, "ab\ud800": 1, "items":"# + list + "}", true),
            ("an unclosed bracket", "/items", "{\"a\":[1,2,\n\"items\":\(list)}", true),
            ("a missing value", "/items", #"{"a": }, "items":"# + list + "}", true),
            ("closed early", "/items", #"{"a": 1}, "items":"# + list + "}", true),
            ("no such member", "/items", #"{"a":1,"b":"# + list + "}", false),
            (
                "a long text after the list", "/items", #"{"items":"# + list + #","z":""# + String(repeating: "q", count: 200_000) + "\"}",
                false
            ),
        ]
        for c in cases {
            let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
            try c.text.write(to: old, atomically: true, encoding: .utf8)
            try small.write(to: new, atomically: true, encoding: .utf8)
            let reader = DocumentReader(key: try IdentityKey(parsing: ["id"]), layout: LayoutOptions(path: try FieldPath(c.path)))
            let files = FileDiffer(reader: reader, differ: Differ())
            for (a, b) in [(old, new), (new, old)] {
                let whole = Self.rendered(files, a, b)
                #expect(Self.rendered(Self.spilling(files, parent: dir, explicit: false, budget: 65536), a, b) == whole, "\(c.name)")
                let spilled = Self.rendered(Self.spilling(files, parent: dir, budget: 65536), a, b)
                if c.spills {
                    #expect(spilled == whole, "\(c.name)")
                } else {
                    #expect(spilled.contains("do not spill"), "\(c.name): \(spilled)")
                }
            }
        }
        #expect(Self.leftovers(dir).filter { $0.hasPrefix("listdiff-spill") }.isEmpty)
    }

    /// Maps of records in JSON, at the top and at a --path, and in YAML at the top, spill:
    /// random rounds, and the errors of a map (a member that is not a record, a name given
    /// twice, the first name given again) as in memory.
    @Test func mapsOfRecordsSpill() throws {
        let (dir, parent) = try Self.workspace()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = DocumentPairs(seed: 93)
        var spelling = RandomSpelling(rng: SplitMix64(seed: 11), pretty: false)
        var changed = 0, yamlSpilled = 0
        for round in 0..<120 {
            let c = DocumentPairs.Case(
                shape: .map, keyKind: DocumentPairs.KeyKind.allCases[round % 3], duplicates: .error, atPath: round % 2 == 1)
            let (oldValue, newValue) = pairs.next(c)
            spelling.pretty = round % 4 < 2
            let yaml = round % 4 == 2
            let (old, new) = try EngineTests.write(oldValue, newValue, in: dir, round: round, lines: false, yaml: yaml, &spelling)
            let (whole, spilled) = try Self.compare(round: round, c, old, new, differ: try ShardTests.differ(round), parent: parent)
            if !whole.hasPrefix("error"), whole.contains("\"op\": ") { changed += 1 }
            if yaml, spilled { yamlSpilled += 1 }
        }
        #expect(changed > 60, "\(changed) rounds with changes")
        #expect(yamlSpilled > 20, "\(yamlSpilled) YAML rounds spilled")
        #expect(Self.leftovers(parent).isEmpty)
        // Errors, each in OLD then in NEW.
        let members = (0..<300).map { #"  "m\#($0)": {"v": \#($0 % 7), "s": "a,}{\"b"}"# }
        func map(_ lines: [String]) -> String { "{\n" + lines.joined(separator: ",\n") + "\n}\n" }
        let notRecord = Self.edited(members, [250: #"  "m250": [1, 2]"#])
        let twice = Self.edited(members, [260: members[40]])
        let firstAgain = Self.edited(members, [280: members[0]])
        let malformedLate = Self.edited(twice, [290: "  \"m290\": {\"v\": }"])
        let cases = [
            ("a member that is not a record", map(notRecord)), ("a name given twice", map(twice)),
            ("the first name again", map(firstAgain)), ("a name twice, then malformed text", map(malformedLate)),
            ("a list beside a map", "[" + (0..<300).map { "{\"id\": \($0)}" }.joined(separator: ",\n") + "]"),
            ("one record at the top", "{\"id\": 1,\n" + members.joined(separator: ",\n") + "\n}\n"),
            ("empty", "{}"),
        ]
        // (At the top, a part of an object that is not a map may be of one record: refused
        // under a budget asked for, diffed in memory under the default.)
        try Self.checkCases(
            cases, beside: map(members), ext: "json", in: dir,
            refused: ["a list beside a map", "one record at the top", "a member that is not a record"])
        // One record at the top, smaller than a chunk: read whole, as in memory. A map that
        // holds a name twice, diffed against itself: the error placed in the input.
        let a = dir.appendingPathComponent("old.json"), b = dir.appendingPathComponent("new.json")
        try #"{"id": 1, "b": 2}"#.write(to: a, atomically: true, encoding: .utf8)
        try #"{"id": 1, "b": 3}"#.write(to: b, atomically: true, encoding: .utf8)
        let files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
        let record = Self.rendered(files, a, b)
        #expect(record.contains("\"op\": \"update\""), "\(record)")
        #expect(Self.rendered(Self.spilling(files, parent: dir, budget: 4096), a, b) == record)
        try map(twice).write(to: a, atomically: true, encoding: .utf8)
        let itself = Self.rendered(files, a, a)
        #expect(itself.contains("duplicate member name"), "\(itself)")
        #expect(Self.rendered(Self.spilling(files, parent: dir, budget: 512), a, a) == itself)
        #expect(Self.leftovers(dir).filter { $0.hasPrefix("listdiff-spill") }.isEmpty)
    }

    /// A YAML map of records is cut before a key at the left margin; its errors are those
    /// in memory: a name given twice (found in one partition, worded as the YAML reader
    /// words it), a member that is not a record. An alias to another record's anchor, and
    /// a mapping that is one record, do not spill.
    @Test func yamlMapsOfRecordsSpill() throws {
        let (dir, parent) = try Self.workspace()
        defer { try? FileManager.default.removeAtPath(dir) }
        let members = (0..<300).map { "m\($0):\n  v: \($0 % 7)\n  # a comment\n  s: \"a: b\"\n  l:\n  - x\n" }
        func map(_ members: [String]) -> String { "%YAML 1.2\n---\n# the map\n" + members.joined() }
        let twice = Self.edited(members, [260: members[40]])
        let firstAgain = Self.edited(members, [280: members[0]])
        let notRecord = Self.edited(members, [250: "m250: 4\n"])
        let aliased = Self.edited(members, [10: "m10:\n  v: &anchor 1\n", 200: "m200:\n  v: *anchor\n"])
        // (Each later chunk is led by the first key with an empty record, not by the first
        // member, whose anchor a later one of the same name would hide.)
        let anchorAgain = Self.edited(members, [0: "m0:\n  v: &a 1\n", 150: "m150:\n  v: &a 2\n", 280: "m280:\n  v: *a\n"])
        let firstGoesOn = Self.edited(members, [0: "m0: {v: 1,\nw: 2}\n"])
        // (Text that goes on at the margin, in lines that look like members, is not cut.)
        let goesOn = Self.edited(
            members,
            [
                20: "m20:\n  v: \"one\nm21: not a key\"\n", 100: "m100: {v: [1,\nm101: 2], w: 'it''s\nm102: x'}\n",
                180: "m180:\n  v: |\n    \"open [\n  s: 'a\n# not a comment\nm181: b'\n",
                240: "m240:\n  v: plain \"text [\n  w: \"x\\\"\nm241: y\"\n",
            ])
        var quoted = members
        for k in stride(from: 0, to: 300, by: 7) { quoted[k] = "\"q \(k)\": {v: \(k)}\n" }
        let cases = [
            ("changed", map(members.reversed().map { $0.replacingOccurrences(of: "v: 3", with: "v: 4") })),
            ("quoted keys and flow records", map(quoted)), ("a name given twice", map(twice)),
            ("the first name again", map(firstAgain)), ("a member that is not a record", map(notRecord)),
            ("an alias to another record", map(aliased)), ("an anchor named again", map(anchorAgain)),
            ("the first member goes on at the margin", map(firstGoesOn)), ("members go on at the margin", map(goesOn)),
            ("one record at the top", "id: 1\n" + map(members).dropFirst(13)),
        ]
        try Self.checkCases(
            cases, beside: map(members), ext: "yaml", in: parent,
            refused: ["an alias to another record", "an anchor named again", "one record at the top"])
    }

    /// A YAML map of records at a --path spills as one at the top does: cut between members
    /// at the map's column, each later chunk led by the text before the map and its first
    /// key with an empty record. A map that starts on its key's line, an object of lists,
    /// and a first key that is no name on one line are refused under a budget asked for.
    @Test func yamlMapsAtAPathSpill() throws {
        let (dir, parent) = try Self.workspace()
        defer { try? FileManager.default.removeAtPath(dir) }
        let p = "    "
        let members = (0..<300).map { "\(p)m\($0):\n\(p)  v: \($0 % 7)\n\(p)  # a comment\n\(p)  s: \"a: b\"\n\(p)  l:\n\(p)  - x\n" }
        let before = "# the file\ndata:\n  kind: X\n  map:\n", after = "  after: 1\nlast: 2\n"
        func map(_ members: [String]) -> String { before + members.joined() + after }
        let twice = Self.edited(members, [260: members[40]])
        let firstAgain = Self.edited(members, [280: members[0]])
        let notRecord = Self.edited(members, [250: "\(p)m250: 4\n", 30: "\(p)m30:\n\(p)- x\n\(p)- y\n"])
        let aliased = Self.edited(members, [10: "\(p)m10:\n\(p)  v: &anchor 1\n", 200: "\(p)m200:\n\(p)  v: *anchor\n"])
        let anchorAgain = Self.edited(
            members, [0: "\(p)m0:\n\(p)  v: &a 1\n", 150: "\(p)m150:\n\(p)  v: &a 2\n", 280: "\(p)m280:\n\(p)  v: *a\n"])
        // (Text that goes on at the map's column, in lines that look like members, is not cut.)
        let goesOn = Self.edited(
            members,
            [
                20: "\(p)m20:\n\(p)  v: \"one\n\(p) m21: not a key\"\n",
                100: "\(p)m100: {v: [1,\n\(p) m101: 2], w: 'it''s\n\(p) m102: x'}\n",
                180: "\(p)m180:\n\(p)  v: |\n\(p)    \"open [\n\(p)  s: 'a\n\(p) # not a comment\n\(p) m181: b'\n",
            ])
        var quoted = members
        for k in stride(from: 0, to: 300, by: 7) { quoted[k] = "\(p)\"q \(k)\": {v: \(k)}\n" }
        let lists = (0..<300).map { "\(p)l\($0):\n\(p)- id: \($0)\n" }
        let flow = "  map: {" + (0..<300).map { "m\($0): {v: \($0)}" }.joined(separator: ", ") + "}\n"
        let cases = [
            ("changed", map(members.reversed().map { $0.replacingOccurrences(of: "v: 3", with: "v: 4") })),
            ("quoted keys and flow records", map(quoted)), ("a name given twice", map(twice)),
            ("the first name again", map(firstAgain)), ("members that are not records", map(notRecord)),
            ("an alias to another record", map(aliased)), ("an anchor named again", map(anchorAgain)),
            ("members go on at the map's column", map(goesOn)), ("the map at the end", before + members.joined()),
            ("empty", before.dropLast() + " {}  # none\n" + after),
            ("malformed late", map(Self.edited(members, [270: "\(p)m270: [\n"]))),
            ("an object of lists", map(lists)), ("a flow map", String(before.dropLast(7)) + flow + after),
            ("a complex first key", map(Self.edited(members, [0: "\(p)? m0\n\(p): {v: 1}\n"]))),
        ]
        try Self.checkCases(
            cases, beside: map(members), ext: "yaml", in: parent,
            refused: ["an alias to another record", "an anchor named again", "an object of lists", "a flow map", "a complex first key"],
            options: LayoutOptions(path: try FieldPath("/data/map")))
        // Each refusal says why.
        let reasons = [
            "an object of lists": "an object of lists at --path /data/map", "a flow map": "a map at --path /data/map that starts on a line",
            "a complex first key": "whose first key is not a plain or quoted name",
        ]
        let old = parent.appendingPathComponent("old.yaml"), new = parent.appendingPathComponent("new.yaml")
        let files = FileDiffer(
            reader: DocumentReader(key: try IdentityKey(parsing: ["id"]), layout: LayoutOptions(path: try FieldPath("/data/map"))))
        for (name, text) in cases where reasons[name] != nil {
            try map(members).write(to: old, atomically: true, encoding: .utf8)
            try text.write(to: new, atomically: true, encoding: .utf8)
            let refused = Self.rendered(Self.spilling(files, parent: parent, budget: 512), old, new)
            #expect(refused.contains(reasons[name]!), "\(name): \(refused)")
        }
    }

    /// A YAML list whose records' text goes on at the margin, in lines that look like
    /// items: the spill cuts it between records only, as in memory.
    @Test func yamlTextAtTheMarginSpills() throws {
        let (dir, parent) = try Self.workspace()
        defer { try? FileManager.default.removeAtPath(dir) }
        let items = (0..<300).map { "- id: \($0)\n  v: \($0 % 7)\n" }
        let goesOn = Self.edited(
            items,
            [
                30: "- id: 30\n  v: \"one\n- id: 31\n  v: 0\"\n", 90: "- id: 90\n  v: 'it''s\n- x'\n",
                150: "- id: 150\n  v: [1, \"a\n- b\"]\n", 210: "- {id: 210, v: \"x\n- id: 211\"}\n",
                270: "- id: 270\n  v: >\n    \"open\n  w: 'q\n-  y'\n",
            ])
        // (A number JSON cannot spell does not spill: under the default budget, it is
        // diffed in memory.)
        let infinite = Self.edited(items, [200: "- id: 200\n  v: .inf\n"])
        try Self.checkCases(
            [
                ("changed", (items.reversed()).joined()), ("items go on at the margin", goesOn.joined()),
                ("a number JSON cannot spell", infinite.joined()),
            ], beside: items.joined(), ext: "yaml", in: parent, refused: ["a number JSON cannot spell"])
    }

    /// 160 random pairs of `shape`, in JSON on one line and pretty, at the top and at a
    /// --path, with every key kind, both duplicates policies and the rules, some rounds in
    /// another format (YAML when `yaml`, else NDJSON) where `other` says: the spill is the
    /// diff in memory. Returns how many rounds spilled, and how many of those in the other format.
    static func randomRounds(
        _ shape: DocumentPairs.Shape, seed: UInt64, yaml: Bool, in dir: URL, parent: URL,
        other: (Int, DocumentPairs.Case) -> Bool
    ) throws -> (spilled: Int, other: Int) {
        var pairs = DocumentPairs(seed: seed)
        var spelling = RandomSpelling(rng: SplitMix64(seed: seed &- 82), pretty: false)
        var spilled = 0, moved = 0, sectionChanges = 0, errors = 0, otherSpilled = 0
        for round in 0..<160 {
            let c = DocumentPairs.Case(
                shape: shape, keyKind: DocumentPairs.KeyKind.allCases[round % 3],
                duplicates: round % 5 == 3 ? .match : .error, atPath: round % (yaml ? 2 : 4) == 1)
            let (oldValue, newValue) = pairs.next(c)
            spelling.pretty = round % 4 < 2
            let otherFormat = other(round, c)
            let (old, new) = try EngineTests.write(
                oldValue, newValue, in: dir, round: round, lines: otherFormat && !yaml, yaml: otherFormat && yaml, &spelling)
            let (whole, spills) = try Self.compare(round: round, c, old, new, differ: try ShardTests.differ(round), parent: parent)
            if spills { spilled += 1 }
            if spills, otherFormat { otherSpilled += 1 }
            if whole.contains("\"op\": \"move\"") { moved += 1 }
            if whole.contains("\"sections\": [\n") { sectionChanges += 1 }
            if whole.hasPrefix("error") { errors += 1 }
        }
        #expect(moved > 20, "\(moved) rounds with moves")
        #expect(sectionChanges > 20, "\(sectionChanges) rounds with section changes")
        #expect(errors < 40, "\(errors) rounds with errors")
        #expect(Self.leftovers(parent).isEmpty)
        return (spilled, otherSpilled)
    }

    /// Random objects of lists (records in sections), in JSON on one line and pretty, at the
    /// top and at a --path, with every key kind, both duplicates policies and the rules: the
    /// spill cuts them inside lists and between them, and is the diff in memory.
    @Test func objectsOfListsSpill() throws {
        let (dir, parent) = try Self.workspace()
        defer { try? FileManager.default.removeAtPath(dir) }
        // (A quarter of the rounds in YAML.)
        let (spilled, yamlSpilled) = try Self.randomRounds(.objectOfLists, seed: 95, yaml: true, in: dir, parent: parent) {
            round, _ in round % 4 == 2
        }
        #expect(spilled > 120, "\(spilled) rounds spilled")
        #expect(yamlSpilled > 30, "\(yamlSpilled) YAML rounds spilled")
        // Errors, each in OLD then in NEW, where chunks cut: a list's name in two chunks, a
        // key in two lists, a record without its key, and these before later malformed text.
        func list(_ ids: Range<Int>) -> String { "[" + ids.map { "{\"id\": \($0), \"s\": \"a,]{\\\"b\"}" }.joined(separator: ", ") + "]" }
        let lists = (0..<30).map { "  \"l\($0)\": " + list($0 * 10..<$0 * 10 + 10) }
        func object(_ lines: [String]) -> String { "{\n" + lines.joined(separator: ",\n") + "\n}\n" }
        let twice = Self.edited(lists, [26: "  \"l3\": []"])
        let keyTwice = Self.edited(lists, [27: "  \"l27\": [{\"id\": 35}, {\"id\": 271}]"])
        let unkeyed = Self.edited(lists, [28: "  \"l28\": [{\"id\": 280}, {\"name\": 1}]"])
        let malformedLate = Self.edited(twice, [29: "  \"l29\": [{\"id\": }]"])
        let cases = [
            ("a list named twice", object(twice)), ("a key in two lists", object(keyTwice)),
            ("a record without its key", object(unkeyed)), ("a list named twice, then malformed text", object(malformedLate)),
            ("a list beside sections", "[" + (0..<300).map { "{\"id\": \($0)}" }.joined(separator: ",\n") + "]"),
            ("a map beside sections", object((0..<300).map { "  \"m\($0)\": {\"id\": \($0)}" })),
        ]
        try Self.checkCases(
            cases, beside: object(lists), ext: "json", in: dir, refused: ["a map beside sections"],
            errors: true)
        // In YAML: lists at the margin and indented, text that goes on at the margin, empty
        // lists, and the same errors.
        func yamlList(_ ids: Range<Int>, _ pad: String) -> String {
            ids.map { "\(pad)- id: \($0)\n\(pad)  s: \"a,]{\n- b\"\n\(pad)  l:\n\(pad)  - x\n" }.joined()
        }
        let yamlLists = (0..<30).map { "l\($0):  # list \($0)\n" + yamlList($0 * 10..<$0 * 10 + 10, $0 % 2 == 0 ? "" : "  ") }
        func yamlObject(_ lists: [String]) -> String { "%YAML 1.2\n---\n# lists\n" + lists.joined() }
        let yamlCases = [
            ("changed", yamlObject(yamlLists.reversed().map { $0.replacingOccurrences(of: "- id: 15\n", with: "- id: 15\n  v: 1\n") })),
            ("empty lists between", yamlObject(yamlLists.enumerated().map { $0 % 3 == 0 ? "e\($0): []\n" : $1 })),
            ("a list named twice", yamlObject(Self.edited(yamlLists, [26: "l3: []\n"]))),
            ("a key in two lists", yamlObject(Self.edited(yamlLists, [27: "l27:\n- id: 35\n- id: 271\n"]))),
            ("a record without its key", yamlObject(Self.edited(yamlLists, [28: "l28:\n- id: 280\n- name: 1\n"]))),
            ("a map beside sections", yamlObject(Self.edited(yamlLists, [20: "m: {id: 1}\n"]))),
            ("a byte order mark", "\u{FEFF}" + yamlLists.joined()),
            ("tags on the lists", yamlObject(yamlLists.map { $0.replacingOccurrences(of: ":  # list", with: ": !!seq  # list") })),
        ]
        // (A map beside sections is the reader's error, as in memory.)
        try Self.checkCases(yamlCases, beside: yamlObject(yamlLists), ext: "yaml", in: dir, refused: [])
        let a = dir.appendingPathComponent("old.json"), b = dir.appendingPathComponent("new.json")
        // Cut between lists and inside them, with empty lists between: the sections and
        // their changes are the whole diff's.
        try object(lists.enumerated().map { $0 % 3 == 0 ? "  \"e\($0)\": []" : $1 }).write(to: a, atomically: true, encoding: .utf8)
        try object(lists.reversed().enumerated().map { $0 % 4 == 0 ? "  \"f\($0)\": []" : $1 }).write(
            to: b, atomically: true, encoding: .utf8)
        let files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
        let whole = Self.rendered(files, a, b)
        #expect(whole.contains("\"op\": \"move\""), "\(whole)")
        #expect(Self.rendered(Self.spilling(files, parent: dir, budget: 512), a, b) == whole)
        #expect(Self.leftovers(dir).filter { $0.hasPrefix("listdiff-spill") }.isEmpty)
    }

    /// A list of section objects (`[{"name": …, "items": […]}]`) in JSON and NDJSON, at the
    /// top and at a path: cut between section objects, and inside a section's records list
    /// when its name comes first; the sections' own fields, before and after their records,
    /// are the whole diff's.
    @Test func sectionObjectsSpill() throws {
        let (dir, parent) = try Self.workspace()
        defer { try? FileManager.default.removeAtPath(dir) }
        // (A quarter of the rounds in NDJSON.)
        let (spilled, lines) = try Self.randomRounds(.sectionList, seed: 96, yaml: false, in: dir, parent: parent) {
            round, c in !c.atPath && round % 4 == 2
        }
        #expect(spilled > 120, "\(spilled) rounds spilled")
        #expect(lines > 20, "\(lines) NDJSON rounds spilled")
        // Sections of 10 records, each cut inside; some with their name after their records
        // (not cut inside), and fields of their own after their records.
        func list(_ ids: Range<Int>) -> String { "[" + ids.map { "{\"id\": \($0), \"s\": \"a,]{\\\"b\"}" }.joined(separator: ", ") + "]" }
        func section(_ s: Int, _ ids: Range<Int>, tail: String = "") -> String {
            s % 5 == 4
                ? "  {\"items\": \(list(ids)), \"name\": \"s\(s)\"\(tail)}"
                : "  {\"name\": \"s\(s)\", \"title\": \"T\(s)\", \"items\": \(list(ids)), \"open\": \(s % 2 == 0)\(tail)}"
        }
        let sections = (0..<30).map { section($0, $0 * 10..<$0 * 10 + 10) }
        func document(_ lines: [String]) -> String { "[\n" + lines.joined(separator: ",\n") + "\n]\n" }
        let cases = [
            (
                "fields changed after the records",
                document((0..<30).map { section($0, $0 * 10..<$0 * 10 + 10, tail: $0 % 3 == 0 ? ", \"x\": 1" : "") })
            ),
            ("sections moved and renamed", document(Self.edited(sections.reversed(), [3: section(40, 260..<270)]))),
            ("a name given twice", document(Self.edited(sections, [26: section(3, 260..<270)]))),
            (
                "a key in two sections",
                document(Self.edited(sections, [27: "  {\"name\": \"s27\", \"items\": [{\"id\": 35}, {\"id\": 271}]}"]))
            ),
            (
                "a record without its key",
                document(Self.edited(sections, [28: "  {\"name\": \"s28\", \"items\": [{\"id\": 280}, {\"v\": 1}]}"]))
            ),
            (
                "records list named twice",
                document(Self.edited(sections, [21: "  {\"name\": \"s21\", \"items\": \(list(210..<220)), \"items\": []}"]))
            ),
            (
                "a section name given twice",
                document(Self.edited(sections, [22: "  {\"name\": \"s22\", \"items\": \(list(220..<230)), \"name\": \"x\"}"]))
            ),
            ("a section without its name", document(Self.edited(sections, [23: "  {\"title\": \"s23\", \"items\": \(list(230..<240))}"]))),
            ("a record list that is no list", document(Self.edited(sections, [24: "  {\"name\": \"s24\", \"items\": 1}"]))),
            ("a section that holds the key", document(Self.edited(sections, [25: "  {\"name\": \"s25\", \"id\": 9999, \"items\": []}"]))),
            ("malformed text late", document(Self.edited(sections, [29: "  {\"name\": \"s29\", \"items\": [{\"id\": }]}"]))),
            ("a list of records", document((0..<300).map { "  {\"id\": \($0)}" })),
            (
                "a field before and after the records",
                document(Self.edited(sections, [20: section(20, 200..<210, tail: ", \"title\": \"again\"")]))
            ),
        ]
        try Self.checkSectionObjectCases(cases, beside: document(sections), ext: "json", in: dir)
        // In NDJSON: blank lines between the sections (a part may hold nothing else), and a
        // section object that goes on past its line (a part may end at that break: what the
        // input's reader says depends on the next line, so it is refused, and diffed in
        // memory under the default budget).
        let rows = (0..<30).map { "{\"name\": \"s\($0)\", \"items\": \(list($0 * 10..<$0 * 10 + 10))}" }
        func ndjson(_ rows: [String]) -> String { rows.joined(separator: "\n\n") + "\n\n" }
        try Self.checkCases(
            [
                ("blank lines", ndjson(Self.edited(rows, [3: "{\"name\": \"s3\", \"items\": [{\"id\": 30, \"v\": 1}]}"]))),
                (
                    "a section over two lines",
                    ndjson(Self.edited(rows, [20: rows[20].replacingOccurrences(of: "\"name\": ", with: "\"name\"\n: ")]))
                ),
            ], beside: ndjson(rows), ext: "ndjson", in: dir, refused: ["a section over two lines"])
        // With --section-key and --items, at a path.
        try Self.checkGivenAtPath(
            "{\"v\": 1, \"groups\": " + document(sections) + "}",
            "{\"v\": 2, \"groups\": " + document(Self.edited(sections.reversed(), [5: section(41, 300..<305, tail: ", \"x\": 2")])) + "}",
            ext: "json", in: dir)
    }

    /// The written cases of a list of section objects beside `base`, found, then with the
    /// layout given (`checkCases`): those that break the layout are refused; with the layout
    /// given, the first chunk is cut inside a section too, and a section may hold a field
    /// named as the key.
    static func checkSectionObjectCases(_ cases: [(String, String)], beside base: String, ext: String, in dir: URL) throws {
        let refused: Set<String> = [
            "a section without its name", "a record list that is no list", "a section that holds the key",
            "a field before and after the records",
        ]
        try Self.checkCases(cases, beside: base, ext: ext, in: dir, refused: refused)
        try Self.checkCases(
            cases.filter { $0.0 != "a list of records" }, beside: base, ext: ext, in: dir,
            refused: refused.subtracting(["a section that holds the key"]), options: LayoutOptions(sectionKey: "name", items: "items"))
    }

    /// OLD and NEW, with their section objects at /groups, named by `name` with records in
    /// `items` as the options say: the spill is the diff in memory, with moves.
    static func checkGivenAtPath(_ old: String, _ new: String, ext: String, in dir: URL) throws {
        let a = dir.appendingPathComponent("old.\(ext)"), b = dir.appendingPathComponent("new.\(ext)")
        try old.write(to: a, atomically: true, encoding: .utf8)
        try new.write(to: b, atomically: true, encoding: .utf8)
        let reader = DocumentReader(
            key: try IdentityKey(parsing: ["id"]), layout: LayoutOptions(path: try FieldPath("/groups"), sectionKey: "name", items: "items")
        )
        let files = FileDiffer(reader: reader)
        let whole = Self.rendered(files, a, b)
        #expect(whole.contains("\"op\": \"move\"") && whole.contains("\"section_key\": \"name\""), "\(whole)")
        let spilling = Self.spilling(files, parent: dir, budget: 512)
        #expect(try spilling.spillPartitions(old: a.path, new: b.path) != nil)
        #expect(Self.rendered(spilling, a, b) == whole)
        #expect(Self.leftovers(dir).filter { $0.hasPrefix("listdiff-spill") }.isEmpty)
    }

    /// A YAML list of section objects (`- name: …` then `items:` and its records), at the top
    /// and at a path: cut between section objects, and inside a section's block sequence of
    /// records when its name member comes first, on a line of its own; the sections' own
    /// fields, before and after their records, are the whole diff's.
    @Test func yamlSectionObjectsSpill() throws {
        let (dir, parent) = try Self.workspace()
        defer { try? FileManager.default.removeAtPath(dir) }
        let (spilled, _) = try Self.randomRounds(.sectionList, seed: 97, yaml: true, in: dir, parent: parent) { _, _ in true }
        #expect(spilled > 120, "\(spilled) rounds spilled")
        // Sections of 10 records, indented or not, with a string that goes on at the margin;
        // some with their name after their records, or `-` alone on its line.
        func records(_ ids: Range<Int>, _ pad: String) -> String {
            ids.map { "\(pad)- id: \($0)\n\(pad)  s: \"a,]{\n- b\"\n" }.joined()
        }
        func section(_ s: Int, _ ids: Range<Int>, tail: String = "") -> String {
            let list = records(ids, s % 2 == 0 ? "  " : "    ")
            if s % 5 == 4 { return "- items:\n\(list)  name: s\(s)\n\(tail)" }
            return (s % 6 == 1 ? "-\n  name: s\(s)\n" : "- name: s\(s)\n")
                + "  title: T\(s)\n  items:\n\(list)  open: \(s % 3 == 0)\n\(tail)"
        }
        let sections = (0..<30).map { section($0, $0 * 10..<$0 * 10 + 10) }
        func document(_ sections: [String]) -> String { "%YAML 1.2\n---\n# sections\n" + sections.joined() }
        let cases = [
            (
                "fields changed after the records",
                document((0..<30).map { section($0, $0 * 10..<$0 * 10 + 10, tail: $0 % 3 == 0 ? "  x: 1\n" : "") })
            ),
            ("sections moved and renamed", document(Self.edited(sections.reversed(), [3: section(40, 260..<270)]))),
            ("a name given twice", document(Self.edited(sections, [26: section(3, 260..<270)]))),
            ("a key in two sections", document(Self.edited(sections, [27: "- name: s27\n  items:\n  - id: 35\n  - id: 271\n"]))),
            ("a record without its key", document(Self.edited(sections, [28: "- name: s28\n  items:\n  - id: 280\n  - v: 1\n"]))),
            (
                "records list named twice",
                document(Self.edited(sections, [21: "- name: s21\n  items:\n\(records(210..<220, "  "))  items: []\n"]))
            ),
            (
                "a section name given twice",
                document(Self.edited(sections, [22: "- name: s22\n  items:\n\(records(220..<230, "  "))  name: x\n"]))
            ),
            ("a section without its name", document(Self.edited(sections, [23: "- title: s23\n  items:\n\(records(230..<240, "  "))"]))),
            ("a record list that is no list", document(Self.edited(sections, [24: "- name: s24\n  items: 1\n"]))),
            ("a section that holds the key", document(Self.edited(sections, [25: "- name: s25\n  id: 9999\n  items: []\n"]))),
            ("malformed text late", document(Self.edited(sections, [29: "- name: s29\n  items:\n  - {id: 1\n"]))),
            ("a list of records", document((0..<300).map { "- id: \($0)\n" })),
            (
                "a field before and after the records",
                document(Self.edited(sections, [20: section(20, 200..<210, tail: "  title: again\n")]))
            ),
            (
                "names not alone on their line",
                document(
                    Self.edited(
                        sections,
                        [
                            10: "- name: &n s10\n  items:\n\(records(100..<110, "  "))",
                            12: "- name: \"s\n  12\"\n  items:\n\(records(120..<130, "  "))",
                            14: "- name: s14 # the name\n  # its records\n  items: # here\n\(records(140..<150, "  "))  # end\n",
                            16: "- name:\n    s16\n  items:\n\(records(160..<170, "  "))",
                            18: "- name: s18\n  items: !!seq\n\(records(180..<190, "  "))",
                        ]))
            ),
        ]
        try Self.checkSectionObjectCases(cases, beside: document(sections), ext: "yaml", in: dir)
        // A stream of documents is read as a list of them, which the layout given does not
        // apply to: the error in memory, though a part may hold one document.
        try Self.checkCases(
            [("a stream", sections.map { "---\n" + $0 }.joined())], beside: document(sections), ext: "yaml", in: dir, refused: [],
            errors: true, options: LayoutOptions(sectionKey: "name", items: "items"))
        // With --section-key and --items, at a path, the list at the margin.
        try Self.checkGivenAtPath(
            "v: 1\ngroups:\n" + sections.joined() + "w: 1\n",
            "v: 2\ngroups:\n" + Self.edited(sections.reversed(), [5: section(41, 300..<305, tail: "  x: 2\n")]).joined() + "w: 2\n",
            ext: "yaml", in: dir)
    }

    /// A YAML section object larger than a chunk is cut inside its records once the first
    /// chunk shows the layout: each later chunk stays near a chunk's size, led by `- `, the
    /// name member as written and the records list's key.
    @Test func yamlSectionObjectsAreCutInside() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let file = dir.appendingPathComponent("big.yaml")
        let big = (0..<2000).map { "    - id: \($0)\n      v: x\n" }.joined()
        try ("- name: small\n  items:\n  - id: -1\n-   name: big  # many\n    title: T\n    items:\n\(big)    open: true\n")
            .write(to: file, atomically: true, encoding: .utf8)
        let (fd, _) = try InputFile.open(file.path)
        defer { SystemCalls.close(fd) }
        var chunks = try RecordChunks(fd: fd, name: file.path, chunkBytes: 256) { _ in .yaml }
        var sizes: [Int] = []
        var led = 0
        while let chunk = try chunks.next() {
            defer { chunk.text.deallocate() }
            if sizes.isEmpty { chunks.cutSectionObjects(key: "name", items: "items") }
            sizes.append(chunk.text.count)
            let text = String(decoding: chunk.text, as: UTF8.self)
            if chunk.continuesSection {
                led += 1
                #expect(text.hasPrefix("-   name: big  # many\n    items:\n    - id: "), "\(text)")
                // (The lead's keys are placed where the input has them.)
                #expect(chunk.leadPlaces.map(\.input) == [SourceLocation(line: 4, column: 5), SourceLocation(line: 6, column: 5)])
            }
        }
        #expect(sizes.count > 40 && led == sizes.count - 2, "\(sizes)")
        #expect(sizes.dropFirst().allSatisfy { $0 < 1024 }, "\(sizes)")
        // With the layout given, the first section is cut inside too.
        let first = dir.appendingPathComponent("first.yaml")
        try ("# one large section\n-   name: big  # many\n    title: T\n    items:\n\(big)    open: true\n")
            .write(to: first, atomically: true, encoding: .utf8)
        let (fd2, _) = try InputFile.open(first.path)
        defer { SystemCalls.close(fd2) }
        var given = try RecordChunks(fd: fd2, name: first.path, chunkBytes: 256) { _ in .yaml }
        given.cutSectionObjects(key: "name", items: "items")
        var givenSizes: [Int] = []
        while let chunk = try given.next() {
            defer { chunk.text.deallocate() }
            givenSizes.append(chunk.text.count)
            #expect(chunk.continuesSection == (givenSizes.count > 1))
        }
        #expect(givenSizes.count > 40 && givenSizes.allSatisfy { $0 < 1024 }, "\(givenSizes)")
    }

    /// Sizes read as `--memory-limit` takes them.
    @Test func memoryLimitsParse() throws {
        #expect(try MemoryLimit(parsing: "1G").bytes == 1 << 30)
        #expect(try MemoryLimit(parsing: "512M").bytes == 512 << 20)
        #expect(try MemoryLimit(parsing: "2GiB").bytes == 2 << 30)
        #expect(try MemoryLimit(parsing: "64mb").bytes == 64 << 20)
        #expect(try MemoryLimit(parsing: "33554432").bytes == 32 << 20)
        #expect(try MemoryLimit(parsing: "1G").description == "1G")
        for bad in ["", "G", "1.5G", "-1G", "1X", "1000000", "99999999999999T"] {
            #expect(throws: ListDiffError.self, "\(bad)") { try MemoryLimit(parsing: bad) }
        }
        #expect(try MemoryLimit(parsing: "1M").bytes == 1 << 20)
        #expect(MemoryLimit.standard.bytes >= 16 << 20)
        #expect(!MemoryLimit.standard.isExplicit)
    }

    /// Chunks cut JSON between records only, wherever records sit on their lines, and keep
    /// every record's column.
    @Test func jsonChunksKeepPlaces() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        // Several records a line, strings with brackets and commas, and a key missing late.
        var text = "["
        for id in 0..<120 {
            text += id % 3 == 0 ? "\n  " : " "
            text += id == 100 ? #"{"idx": 100, "s": "a,]}[\"b"}"# : #"{"id": \#(id), "s": "é,]}[\"\#(id)"}"#
            if id < 119 { text += "," }
        }
        text += "\n]\n"
        try text.write(to: new, atomically: true, encoding: .utf8)
        try text.replacingOccurrences(of: "idx", with: "id").write(to: old, atomically: true, encoding: .utf8)
        let files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
        let whole = Self.rendered(files, old, new)
        #expect(whole.contains("record 100 has no key field"), "\(whole)")
        for budget in [64, 200, 1000, 5000] {
            #expect(Self.rendered(Self.spilling(files, parent: dir, budget: budget), old, new) == whole, "\(budget)")
        }
    }
}
