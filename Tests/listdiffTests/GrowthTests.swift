import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Catches the next quadratic path without trusting a wall clock: for each shape and
/// format, the built binary diffs N and 4N records, and the larger run may cost at most 8
/// times the smaller one in CPU time (linear growth costs 4 times, quadratic 16).
@Suite(.serialized) struct GrowthTests {
    static let small = 5_000

    /// The records of one size: OLD, and NEW with a tenth of them changed (updated, moved,
    /// deleted, inserted).
    static func records(_ count: Int) -> (old: [[String: Any]], new: [[String: Any]]) {
        var old: [[String: Any]] = []
        for i in 0..<count {
            old.append([
                "id": i, "name": "person \(i)", "score": Double(i % 997) / 7, "tags": ["t\(i % 5)", "u\(i % 3)"],
                "user": ["id": i], "region": i % 7, "n": i / 7,
            ])
        }
        var new = old
        var i = 0
        while i + 10 <= new.count {
            new[i]["score"] = -1.5  // update
            new.swapAt(i + 3, i + 7)  // moves
            new[i + 5]["id"] = count + i  // a delete and an insert
            new[i + 5]["user"] = ["id": count + i]
            new[i + 5]["region"] = 7
            new[i + 5]["n"] = count + i
            i += 10
        }
        return (old, new)
    }

    enum Shape: String, CaseIterable {
        case list, ndjson, yaml, objectOfLists, sectionList, yamlSections, nested, composite, duplicates, path, apply, rules
        /// One YAML record holding a mapping of N members, a tenth of them changed.
        case wideMapping
        /// Each record holds a list of order lines, matched by key; updated records rotate
        /// theirs.
        case keyedLines
        /// A YAML flow list on one line.
        case yamlOneLine
        /// A map of records, each keyed by its member name, in JSON and in YAML.
        case map, yamlMap
        /// Lists of ten records each, named by a path with `*`.
        case pattern
        /// A three-way merge: NEW as OURS, and THEIRS renaming other records and moving some.
        case merge
        /// `-f github`: an annotation for each change of the list; and one record, indented
        /// JSON or block YAML, holding a mapping of N members and a keyed list of N elements,
        /// a tenth of each changed, each change annotated at its own line.
        case githubList, githubWide, githubWideYAML
        /// One shard of the diff (`--partition 1/3`), and the join of all three shards; the
        /// same of an object of lists.
        case partition, join, partitionSections, joinSections
        /// `-f mergepatch`: of a map of records (only what changed) and of a list (whole).
        case mergePatchMap, mergePatchList
        /// `-f side`: the list in two columns; and one record whose string of N words
        /// changed in every tenth, cut to its first and last change.
        case side, longValue
        /// `-f html`: of a list, of a list of section objects, and of records holding a long
        /// text whose updated ones change a word in it (the word diff of each).
        case htmlList, htmlSections, htmlText
        /// Two folders of N / 10 files of ten records each, in nested folders, `-f json`.
        case tree
        /// Under git, a text file of N lines, a tenth changed: the line diff.
        case gitLines
        /// `listdiff check` of both files.
        case check
        /// `--renames`: each delete and insert of the list are alike enough to pair.
        case renames
        /// `--renames` where the re-keyed records' rare values changed too, so that their
        /// candidates come from values that many records share.
        case renamesCommon
        /// `--memory-limit 1M`, which spills both inputs: a JSON list on one line (each chunk
        /// starts mid-line), NDJSON, and a list at `--path` inside a larger document (each
        /// chunk holds the text before it), a map of records (each chunk led by its
        /// first member), an object of lists (each chunk led by its list's name), the same
        /// with a list every five records, a YAML map of records (each chunk led by the
        /// text up to its first member's end), and a YAML list of section objects with the
        /// layout given (each chunk led by `- `, the section's name and its list's key), and
        /// a YAML map of records at --path (each chunk led by the text before it and its
        /// first key); CSV whose rows end with a lone CR, a quoted field holding one; and YAML
        /// whose quoted text holds U+2028, a line break to libyaml (each chunk's lines counted
        /// so).
        case spillOneLine, spillNDJSON, spillPath, spillMap, spillSections, spillSmallSections, spillYAMLMap, spillYAMLMargin,
            spillYAMLPath, spillYAMLSections, spillSectionObjects, spillSmallSectionObjects, spillYAMLSectionObjects,
            spillYAMLMapAtPath, spillCSVReturns, spillYAMLLineSeparators
    }

    /// Writes OLD and NEW of `count` records in `shape`; the arguments that diff them.
    static func write(_ shape: Shape, count: Int, in dir: URL) throws -> [String] {
        var (old, new) = records(count)
        if shape == .renamesCommon {
            for i in stride(from: 5, to: new.count, by: 10) { new[i]["name"] = "renamed \(i)" }
        }
        func text(_ records: [[String: Any]]) throws -> String {
            func line(_ r: [String: Any]) throws -> String {
                String(decoding: try JSONSerialization.data(withJSONObject: r, options: [.sortedKeys]), as: UTF8.self)
            }
            // A record in block style, its nested values in flow style (JSON is YAML).
            func block(_ r: [String: Any], indent: String) throws -> String {
                try r.keys.sorted().enumerated().map { k, key in
                    let value = try JSONSerialization.data(withJSONObject: r[key]!, options: [.fragmentsAllowed, .sortedKeys])
                    return (k == 0 ? indent + "- " : indent + "  ") + key + ": " + String(decoding: value, as: UTF8.self)
                }.joined(separator: "\n")
            }
            func list(_ rs: ArraySlice<[String: Any]>) throws -> String { "[\n" + (try rs.map(line).joined(separator: ",\n")) + "\n]" }
            let tenth = max(1, records.count / 10)
            let sections = stride(from: 0, to: records.count, by: tenth).map { records[$0..<min(records.count, $0 + tenth)] }
            switch shape {
            case .ndjson, .spillNDJSON:
                return try records.map(line).joined(separator: "\n") + "\n"
            case .yaml:
                return try records.map { try block($0, indent: "") }.joined(separator: "\n") + "\n"
            case .spillYAMLPath:
                return "meta:\n  v: 1\ndata:\n  users:\n" + (try records.map { try block($0, indent: "  ") }.joined(separator: "\n"))
                    + "\n  after: 1\n"
            case .spillYAMLMargin:
                // Each record's quoted text goes on at the margin, in a line that looks like one.
                return try records.map { try block($0, indent: "") + "\n  note: \"one\n- two: \($0["id"]!)\"" }.joined(separator: "\n")
                    + "\n"
            case .yamlSections, .spillYAMLSections:
                return try sections.enumerated().map { k, s in
                    "s\(k):\n" + (try s.map { try block($0, indent: "  ") }.joined(separator: "\n"))
                }.joined(separator: "\n") + "\n"
            case .objectOfLists, .partitionSections, .joinSections, .spillSections:
                return "{\n" + (try sections.enumerated().map { "\"s\($0)\": " + (try list($1)) }.joined(separator: ",\n")) + "\n}\n"
            case .spillSmallSections:
                let fives = stride(from: 0, to: records.count, by: 5).map { records[$0..<min(records.count, $0 + 5)] }
                return "{\n" + (try fives.enumerated().map { "\"s\($0)\": " + (try list($1)) }.joined(separator: ",\n")) + "\n}\n"
            case .spillSectionObjects, .spillSmallSectionObjects:
                // Named first, with a field of their own after their records: cut inside.
                let size = shape == .spillSectionObjects ? tenth : 5
                let parts = stride(from: 0, to: records.count, by: size).map { records[$0..<min(records.count, $0 + size)] }
                return "[\n"
                    + (try parts.enumerated().map { "{\"name\": \"s\($0)\", \"items\": " + (try list($1)) + ", \"open\": true}" }
                        .joined(separator: ",\n")) + "\n]\n"
            case .spillYAMLSectionObjects:
                // Named first, with a field of their own after their records, given: cut inside
                // from the first.
                return try sections.enumerated().map { k, s in
                    "- name: s\(k)\n  items:\n" + (try s.map { try block($0, indent: "  ") }.joined(separator: "\n")) + "\n  open: true"
                }.joined(separator: "\n") + "\n"
            case .sectionList, .htmlSections:
                return "[\n"
                    + (try sections.enumerated().map { "{\"name\": \"s\($0)\", \"items\": " + (try list($1)) + "}" }
                        .joined(separator: ",\n")) + "\n]\n"
            case .path, .spillPath:
                return "{\"meta\": {\"v\": 1}, \"data\": {\"users\": " + (try list(records[...])) + "}}\n"
            case .duplicates:
                return try list((records + records.prefix(records.count / 10))[...]) + "\n"
            case .keyedLines:
                let lined = records.map { r -> [String: Any] in
                    var lines = (0..<5).map { ["sku": "s\($0)", "qty": $0] }
                    if r["score"] as? Double == -1.5 { lines = Array(lines[1...] + lines[..<1]) }
                    return r.merging(["lines": lines]) { $1 }
                }
                return try list(lined[...]) + "\n"
            case .yamlOneLine, .spillOneLine:
                return "[" + (try records.map(line).joined(separator: ", ")) + "]\n"
            case .pattern:
                let groups = stride(from: 0, to: records.count, by: 10).map { records[$0..<min(records.count, $0 + 10)] }
                return "{\"groups\": {\n"
                    + (try groups.enumerated().map { "\"g\($0)\": {\"items\": " + (try list($1)) + "}" }
                        .joined(separator: ",\n")) + "}}\n"
            case .map, .mergePatchMap, .spillMap:
                return "{\n" + (try records.map { "\"m\($0["id"]!)\": " + (try line($0)) }.joined(separator: ",\n")) + "\n}\n"
            case .yamlMap, .spillYAMLMap:
                return try records.map { r in
                    "m\(r["id"]!):\n" + (try block(r, indent: "  ")).replacingOccurrences(of: "  - ", with: "    ")
                }.joined(separator: "\n") + "\n"
            case .spillYAMLMapAtPath:
                return "meta:\n  v: 1\ndata:\n  users:\n"
                    + (try records.map { r in
                        "    m\(r["id"]!):\n" + (try block(r, indent: "    ")).replacingOccurrences(of: "    - ", with: "      ")
                    }.joined(separator: "\n")) + "\n  after: 1\n"
            case .spillCSVReturns:
                return "id,name,score,region\r"
                    + records.map { "\($0["id"]!),\"\($0["name"]!)\r\($0["n"]!)\",\($0["score"]!),\($0["region"]!)\r" }.joined()
            case .spillYAMLLineSeparators:
                return try records.map { try block($0, indent: "") + "\n  note: \"one\u{2028}two \($0["id"]!)\"" }.joined(separator: "\n")
                    + "\n"
            case .wideMapping:
                return "- id: 0\n  members:\n"
                    + records.map { "    k\($0["n"]!)-\($0["id"]!): \($0["score"]!)\n" }.joined()
            case .githubWide:
                return "[\n  {\n    \"id\": 0,\n    \"members\": {\n"
                    + records.map { "      \"k\($0["id"]!)\": \($0["score"]!)" }.joined(separator: ",\n")
                    + "\n    },\n    \"lines\": [\n"
                    + records.map { "      {\"sku\": \"s\($0["id"]!)\", \"qty\": \($0["score"]!)}" }.joined(separator: ",\n")
                    + "\n    ]\n  }\n]\n"
            case .githubWideYAML:
                return "- id: 0\n  members:\n" + records.map { "    k\($0["id"]!): \($0["score"]!)\n" }.joined() + "  lines:\n"
                    + records.map { "    - sku: s\($0["id"]!)\n      qty: \($0["score"]!)\n" }.joined()
            case .longValue:
                return "[{\"id\": 0, \"text\": \"" + records.map { "\($0["name"]!) \($0["score"]!)" }.joined(separator: " ") + "\"}]\n"
            case .htmlText:
                let texts = records.map { r -> [String: Any] in
                    let changed = r["score"] as? Double == -1.5
                    let words = (0..<200).map { $0 == 100 && changed ? "changed" : "word\($0)" }
                    return r.merging(["text": words.joined(separator: " ")]) { $1 }
                }
                return try list(texts[...]) + "\n"
            case .list, .nested, .composite, .apply, .rules, .partition, .join, .githubList, .merge, .mergePatchList, .htmlList, .side,
                .tree, .gitLines, .check, .renames, .renamesCommon:
                return try list(records[...]) + "\n"
            }
        }
        let ext =
            shape == .ndjson || shape == .spillNDJSON
            ? "ndjson"
            : shape == .spillCSVReturns
                ? "csv"
                : [
                    .yaml, .yamlSections, .wideMapping, .yamlOneLine, .yamlMap, .githubWideYAML, .spillYAMLMap, .spillYAMLMargin,
                    .spillYAMLPath, .spillYAMLSections, .spillYAMLSectionObjects, .spillYAMLMapAtPath, .spillYAMLLineSeparators,
                ].contains(shape)
                    ? "yaml" : "json"
        let oldURL = dir.appendingPathComponent("old-\(count).\(ext)"), newURL = dir.appendingPathComponent("new-\(count).\(ext)")
        try text(old).write(to: oldURL, atomically: true, encoding: .utf8)
        try text(new).write(to: newURL, atomically: true, encoding: .utf8)
        var options: [String] = []
        switch shape {
        case .nested: options = ["--key", "user.id"]
        case .composite: options = ["--key", "region", "--key", "n"]
        case .duplicates: options = ["--duplicates", "match"]
        case .spillOneLine, .spillNDJSON, .spillMap, .spillSections, .spillSmallSections, .spillYAMLMap, .spillYAMLMargin,
            .spillYAMLSections, .spillSectionObjects, .spillSmallSectionObjects, .spillCSVReturns, .spillYAMLLineSeparators:
            options = ["--memory-limit", "1M"]
        case .spillPath, .spillYAMLPath, .spillYAMLMapAtPath: options = ["--memory-limit", "1M", "--path", "/data/users"]
        case .spillYAMLSectionObjects: options = ["--memory-limit", "1M", "--section-key", "name", "--items", "items"]
        case .path: options = ["--path", "/data/users"]
        case .keyedLines, .githubWide, .githubWideYAML: options = ["--array-key", "/lines=sku"]
        case .pattern: options = ["--path", "/groups/*/items"]
        case .renames, .renamesCommon: options = ["--rename-threshold", "50"]
        // Every kind of comparison rule, on records whose scores and order change.
        case .rules:
            options = [
                "--ignore", "/name", "--unordered", "--unordered-arrays", "/", "--tolerance", "/score=0.001", "--ignore-case",
                "--ignore-whitespace",
            ]
        default: break
        }
        if shape == .tree {
            // Every tenth file changed, added or removed; the rest kept.
            let oldDir = dir.appendingPathComponent("old-\(count)"), newDir = dir.appendingPathComponent("new-\(count)")
            for f in 0..<count / 10 {
                let name = "d\(f % 7)/e\(f % 3)/f\(f).json"
                let slice = f * 10..<f * 10 + 10
                for (side, records, skip) in [(oldDir, old, f % 10 == 1), (newDir, f % 10 == 0 ? new : old, f % 10 == 2)] where !skip {
                    let url = side.appendingPathComponent(name)
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try (try text(Array(records[slice]))).write(to: url, atomically: false, encoding: .utf8)
                }
            }
            return ["-f", "json", oldDir.path, newDir.path]
        }
        if shape == .gitLines {
            let lines = (0..<count).map { "line \($0)\n" }
            let changed = lines.enumerated().map { $0.offset % 10 == 3 ? "changed \($0.offset)\n" : $0.element }
            let a = dir.appendingPathComponent("a-\(count).txt"), b = dir.appendingPathComponent("b-\(count).txt")
            try lines.joined().write(to: a, atomically: true, encoding: .utf8)
            try changed.joined().write(to: b, atomically: true, encoding: .utf8)
            return ["notes.txt", a.path, "1111111", "100644", b.path, "2222222", "100644"]
        }
        if shape == .merge {
            var theirs = old
            var k = 1
            while k + 10 <= theirs.count {
                theirs[k]["name"] = "renamed \(k)"
                theirs.swapAt(k + 1, k + 7)
                k += 10
            }
            let theirsURL = dir.appendingPathComponent("theirs-\(count).json")
            try text(theirs).write(to: theirsURL, atomically: true, encoding: .utf8)
            return ["merge", "-q", "-o", dir.appendingPathComponent("merged.json").path, oldURL.path, newURL.path, theirsURL.path]
        }
        if shape == .check { return ["check", oldURL.path, newURL.path] }
        if shape == .partition || shape == .partitionSections { return ["--partition", "1/3", "-f", "json", oldURL.path, newURL.path] }
        if shape == .join || shape == .joinSections {
            var shards: [String] = []
            for i in 0..<3 {
                let shard = dir.appendingPathComponent("shard-\(count)-\(i).json").path
                let made = try Binary.run(["--partition", "\(i)/3", "-f", "json", "-o", shard, oldURL.path, newURL.path])
                #expect(made.status == 0, "\(made.stderr)")
                shards.append(shard)
            }
            return ["join"] + shards
        }
        if shape == .apply {
            let changes = dir.appendingPathComponent("changes-\(count).json")
            let made = try Binary.run(["-f", "json", "-o", changes.path, oldURL.path, newURL.path])
            #expect(made.status == 1, "\(made.stderr)")
            return ["apply", oldURL.path, changes.path]
        }
        let format =
            [.githubList, .githubWide, .githubWideYAML].contains(shape)
            ? "github"
            : [.mergePatchMap, .mergePatchList].contains(shape)
                ? "mergepatch"
                : [.side, .longValue].contains(shape) ? "side" : [.htmlList, .htmlSections, .htmlText].contains(shape) ? "html" : "json"
        return options + ["-f", format, oldURL.path, newURL.path]
    }

    /// The CPU seconds (user and system) the binary takes, the lesser of two runs; its
    /// output goes to a file.
    static func cpuSeconds(_ arguments: [String], in dir: URL) throws -> Double {
        let out = dir.appendingPathComponent("out").path
        let quoted = ([Binary.url.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = "exec " + quoted.joined(separator: " ") + " > '\(out)'"
        var best = Double.infinity
        for _ in 0..<2 {
            var pid: pid_t = 0
            let words: [String] = ["/bin/sh", "-c", command]
            let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { throw CocoaError(.executableLoad) }
            var status: Int32 = 0
            var usage = rusage()
            _ = wait4(pid, &status, 0, &usage)
            let exit = (status >> 8) & 0xFF
            #expect(exit == 0 || exit == 1, "\(arguments) exited with \(exit)")
            func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
            best = min(best, seconds(usage.ru_utime) + seconds(usage.ru_stime))
        }
        return best
    }

    @Test(arguments: Shape.allCases) func growsLinearly(shape: Shape) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let smallRun = try Self.cpuSeconds(try Self.write(shape, count: Self.small, in: dir), in: dir)
        let largeRun = try Self.cpuSeconds(try Self.write(shape, count: 4 * Self.small, in: dir), in: dir)
        #expect(
            largeRun <= 8 * max(smallRun, 0.005),
            "\(shape): \(Self.small) records took \(smallRun) s of CPU, \(4 * Self.small) took \(largeRun) s")
    }

    /// A run pinned to one core splits its work in fewer parts, and gives the same changeset.
    @Test func oneCoreGivesTheSameChangeset() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Large enough to be scanned in parts (above 1 MiB).
        let arguments = try Self.write(.list, count: 30_000, in: dir)
        let pinnedTool = try Programs.require("taskset", package: "util-linux")
        let all = try Binary.run(arguments)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: pinnedTool)
        process.arguments = ["-c", "0", Binary.url.path] + arguments
        let out = dir.appendingPathComponent("pinned.json")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(all.status == 1)
        #expect(try String(contentsOf: out, encoding: .utf8) == all.stdout)
        #expect(all.stdout.contains("\"op\": \"move\""))
    }
}
