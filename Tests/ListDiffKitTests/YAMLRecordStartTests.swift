import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Where the spill cuts a YAML list or map of records (`RecordChunks.yamlRecordStarts`),
/// against libyaml: every cut falls between two records of the collection at the top, and
/// every record that starts with a line at the left margin is cut before.
@Suite struct YAMLRecordStartTests {
    /// What is wrong with the cuts of `text`, or nil; nil too when libyaml refuses the text
    /// or its top is not one block collection.
    static func problem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard let top = topRecords(bytes) else { return nil }
        var cuts: [Int] = []
        RecordChunks.yamlRecordStarts(in: bytes, from: 0, documents: false, mapping: top.mapping) {
            cuts.append($0)
            return true
        }
        // Where each line starts, as libyaml counts lines (it breaks them at a lone `\r`,
        // U+0085, U+2028 and U+2029 too); a cut is at a line after `\n` only.
        let lineStarts = Self.libyamlLineStarts(bytes)
        func line(_ offset: Int) -> Int { (lineStarts.lastIndex { $0 <= offset })! }
        // (Line, column) pairs compare as places.
        func before(_ a: (Int, Int), _ b: (Int, Int)) -> Bool { a.0 < b.0 || (a.0 == b.0 && a.1 <= b.1) }
        let records = top.records
        var expected: [Int] = []
        for i in 1..<max(records.count, 1) {
            // The first line at the margin that starts a record, between the end of the
            // record before and the start of this one.
            let low = records[i - 1].end.column == 0 ? records[i - 1].end.line : records[i - 1].end.line + 1
            for n in low...max(low, records[i].start.line) where n < lineStarts.count && n <= records[i].start.line {
                let k = lineStarts[n]
                if k == 0 || bytes[k - 1] == 0x0A, top.mapping ? RecordChunks.startsKey(bytes, k) : RecordChunks.startsItem(bytes, k) {
                    expected.append(k)
                    break
                }
            }
        }
        for cut in cuts {
            let n = line(cut)
            let between = (1..<max(records.count, 1)).contains { i in
                before(records[i - 1].end, (n, 0)) && before((n, 0), records[i].start)
            }
            if !between { return "a cut at line \(n + 1) falls inside a record" }
        }
        if let missed = expected.first(where: { !cuts.contains($0) }) {
            return "no cut at line \(line(missed) + 1), where a record starts"
        }
        return nil
    }

    static func libyamlLineStarts(_ bytes: [UInt8]) -> [Int] {
        var starts = [0]
        var k = 0
        while k < bytes.count {
            let c = bytes[k]
            let length =
                c == 0x0A
                ? 1
                : c == 0x0D
                    ? (k + 1 < bytes.count && bytes[k + 1] == 0x0A ? 2 : 1)
                    : c == 0xC2 && k + 1 < bytes.count && bytes[k + 1] == 0x85
                        ? 2
                        : c == 0xE2 && k + 2 < bytes.count && bytes[k + 1] == 0x80 && (bytes[k + 2] == 0xA8 || bytes[k + 2] == 0xA9) ? 3 : 0
            if length > 0 {
                k += length
                starts.append(k)
            } else {
                k += 1
            }
        }
        return starts
    }

    /// libyaml's reading of the text: whether its top is a mapping, and where each record
    /// (a sequence's item, a mapping's key and value) starts and ends, as 0-based (line,
    /// column); nil when libyaml refuses the text, or its top is not one collection in one
    /// document.
    static func topRecords(_ bytes: [UInt8]) -> (
        mapping: Bool, records: [(start: (line: Int, column: Int), end: (line: Int, column: Int))]
    )? {
        bytes.withUnsafeBufferPointer { text in
            let events = LibYAMLEvents(bytes: text)
            var all: [YAMLRawEvent] = []
            do {
                while true {
                    let event = try events.next()
                    all.append(event)
                    if event.kind == .streamEnd { break }
                }
            } catch { return nil }
            guard all.count { $0.kind == .documentStart } == 1, all.count > 2,
                [.sequenceStart, .mappingStart].contains(all[2].kind)
            else { return nil }
            // (A flow collection at the top is not cut.)
            let at = libyamlLineStarts(bytes)[all[2].start.line] + all[2].start.column
            guard at < bytes.count, bytes[at] != UInt8(ascii: "["), bytes[at] != UInt8(ascii: "{") else { return nil }
            let mapping = all[2].kind == .mappingStart
            var records: [(start: (line: Int, column: Int), end: (line: Int, column: Int))] = []
            var depth = 0
            var nodes = 0
            for event in all[3...] {
                if depth == 0 {
                    if [.sequenceEnd, .mappingEnd].contains(event.kind) { break }
                    // (A mapping's record is two nodes: its key and its value.)
                    if !mapping || nodes % 2 == 0 {
                        records.append(((event.start.line, event.start.column), (event.end.line, event.end.column)))
                    }
                    nodes += 1
                }
                if [.sequenceStart, .mappingStart].contains(event.kind) { depth += 1 }
                if [.sequenceEnd, .mappingEnd].contains(event.kind) { depth -= 1 }
                records[records.count - 1].end = (event.end.line, event.end.column)
            }
            return (mapping, records)
        }
    }

    /// yaml-test-suite: every case libyaml reads as one collection at the top.
    @Test func yamlTestSuiteIsCutBetweenRecords() throws {
        var checked = 0
        for c in try YAMLConformanceTests.cases() {
            let text = String(decoding: try bytes(c.directory.appendingPathComponent("in.yaml")), as: UTF8.self)
            if Self.topRecords(Array(text.utf8)) != nil { checked += 1 }
            #expect(Self.problem(text) == nil, "\(c.id): \(Self.problem(text) ?? "")")
        }
        #expect(checked > 150, "only \(checked) cases have a collection at the top")
    }

    /// Random block-style documents, as dumpers write them.
    @Test func blockDocumentsAreCutBetweenRecords() {
        var generator = BlockYAMLGenerator(random: SplitMix64(seed: 0x5EED_CA75))
        var checked = 0
        for _ in 0..<3000 {
            let text = generator.document()
            if Self.topRecords(Array(text.utf8)) != nil { checked += 1 }
            #expect(Self.problem(text) == nil, "\(Self.problem(text) ?? "")\n\(text)")
        }
        #expect(checked > 1500)
    }

    /// Random documents whose text goes on at the margin: quoted scalars and flow
    /// collections over several lines, whose lines look like records, among block and
    /// plain scalars that hold quotes and brackets.
    @Test func textThatGoesOnAtTheMarginIsNotCut() {
        var random = SplitMix64(seed: 0x3A26_1A5E)
        var checked = 0
        var margins = 0
        for _ in 0..<4000 {
            let text = MarginYAMLGenerator.document(&random)
            if Self.topRecords(Array(text.utf8)) != nil {
                checked += 1
                if text.contains("\"\n") || text.contains(",\n") { margins += 1 }
            }
            #expect(Self.problem(text) == nil, "\(Self.problem(text) ?? "")\n\(text)")
        }
        #expect(checked > 3000, "libyaml read \(checked) of 4000")
        #expect(margins > 1000)
    }

    /// Cases written out: each line that looks like a record but is not.
    @Test(arguments: [
        "a: \"one\nb: two\"\nc: 3\n",
        "- \"one\n- two\"\n- 3\n",
        "a: 'it''s\nb: x'\nc: 1\n",
        "a: [1,\nb: 2]\nc: 3\n",
        "a: {x: \"y\nb: z\"}\nc: 3\n",
        "a: |\n  \"open\nb: 1\n",
        "a: plain \"text\nb: 1\n",
        "- x: >\n    [open\n- y: 1\n",
        "a: x # it's \"open\nb: 1\n",
        "&a k: \"one\nb: 2\"\nc: 3\n",
        "a: \"one\\\"\nb: two\"\nc: 3\n",
        "a: \"one\\\\\"\nb: two\n",
        "a:\n  \"one\nb: x\"\nc: 3\n",
        "&top\n- a\n- b\n",
        "!!map\na: 1\nb: 2\n",
        "a: [x, \"y,\n], b: 1\"]\nc: 3\n",
        "a: [a'b, c]\nb: 1\n",
        "- [a,\n  b]\n- \"x\n  - y\"\n- z\n",
        "a: !!str \"x\nb: y\"\nc: 1\n",
        "- v: [a,#x]\n  b, \"x\n- c\"]\n- d\n",
        "a: [?\"x]\nb: 1\"]\nc: 2\n",
        "a:\n  v: [b] # c\u{2028}  w: [\"q\nd: x\"]\ne: 1\n",
        "a: {x: 1,#c\ny: \"z\nb: w\"}\nc: 1\n",
        "'it''s': 1\n.k: 2\n-k: 3\n?k: 4\nk:\t5\n",
    ])
    func writtenCases(_ text: String) {
        #expect(Self.topRecords(Array(text.utf8)) != nil, "libyaml refuses it")
        #expect(Self.problem(text) == nil)
    }
}

extension YAMLRecordStartTests {
    /// A stream is cut before a document's `---` and the comments and directives before it,
    /// but not before a quoted scalar's lines that start with `#` or `%`.
    @Test func streamsAreCutBeforeTheirDocuments() {
        let text = Array("a: \"x\n# y\"\n---\nb: 'z\n% w'\n# note\n%YAML 1.2\n---\nc: 1\n".utf8)
        var cuts: [Int] = []
        RecordChunks.yamlRecordStarts(in: text, from: 0, documents: true, mapping: false) {
            cuts.append($0)
            return true
        }
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let starts = lines.indices.map { lines[..<$0].reduce(0) { $0 + $1.utf8.count + 1 } }
        #expect(cuts == [starts[2], starts[5]], "\(cuts)")
    }

    /// A byte order mark before directives is not a document's text.
    @Test func aByteOrderMarkIsNotText() {
        #expect(!RecordChunks.isStream(Array("\u{FEFF}%YAML 1.2\n---\n- a\n- b\n".utf8)))
        #expect(RecordChunks.directives(Array("\u{FEFF}%YAML 1.2\n---\n- a\n".utf8)) == Array("%YAML 1.2\n---\n".utf8))
    }

    /// Keys at the margin as libyaml reads them.
    @Test(arguments: [
        ("'it''s': 1", true), (".k: 1", true), ("-k: 1", true), ("?k: 1", true), (":k: 1", true), ("k:\t1", true),
        ("\"a\\\"b\": 1", true), ("- k: 1", false), ("? k", false), ("...", false), ("--- a: 1", false), ("k: 1 # c", true),
        ("a #b: 1", false), ("'a': 1", true), ("'a'b: 1", false),
    ])
    func keysAtTheMargin(line: String, isKey: Bool) {
        #expect(RecordChunks.startsKey(Array((line + "\n").utf8), 0) == isKey)
    }
}

/// Random YAML lists and maps of records whose text goes on at the left margin.
enum MarginYAMLGenerator {
    /// Lines that look like records, or open or close something, when read alone.
    static let lines = [
        "k9: v", "- x", "k8: \"q", "k7: 'q", "[", "]", "{", "}", "# not a comment", "'", "''", "\\\"", "a, b", "k6: [1,", "- [2",
        "x: y]", "é: ü", "k5: {a: 1}", "-", "?", ":", "k4:", "&a b", "*a", "!t x", "|", ">",
    ]

    static func pick(_ list: [String], _ random: inout SplitMix64) -> String { list[random.below(list.count)] }

    /// A value (after `key:` or `- `) at `column`, its lines after the first as they come.
    static func value(_ random: inout SplitMix64, column: Int) -> String {
        let pad = String(repeating: " ", count: column + 2)
        switch random.below(10) {
        case 0:
            // A double-quoted scalar over lines at the margin (no `\` at a line's end, no
            // `"` but escaped).
            let body = (0..<(1 + random.below(3))).map { _ in pick(lines, &random).replacingOccurrences(of: "\"", with: "\\\"") }
            return "\"start\n" + body.map { $0.hasSuffix("\\") ? $0 + "x" : $0 }.joined(separator: "\n") + "\""
        case 1:
            let body = (0..<(1 + random.below(3))).map { _ in pick(lines, &random).replacingOccurrences(of: "'", with: "''") }
            return "'start\n" + body.joined(separator: "\n") + "'"
        case 2:
            // A flow sequence whose entries go on at the margin, some quoted over lines.
            var entries: [String] = []
            for _ in 0..<(1 + random.below(4)) {
                switch random.below(4) {
                case 0: entries.append("\"a\n" + pick(["k1: x", "- y", "[", "]"], &random) + "\"")
                case 1: entries.append("'b\n" + pick(["k2: ''x''", "- y", "{", "}"], &random) + "'")
                case 2: entries.append("k3: " + pick(["1", "[2, 3]", "{c: d}", "\"e\""], &random))
                default: entries.append(pick(["plain", "a'b", "x\"y", "-1", "?q", "a:b"], &random))
                }
            }
            return "[" + entries.joined(separator: random.below(2) == 0 ? ",\n" : ", ") + "]"
        case 3:
            return "{"
                + (0..<(1 + random.below(3))).map { "m\($0): " + pick(["1", "\"x\ny: 1\"", "[a,\nb]", "'c\n- d'"], &random) }
                .joined(separator: ",\n") + "}"
        case 4:
            // A block scalar whose lines hold what would open quotes and collections.
            return pick(["|", ">", "|-", ">+", "|2"], &random) + "\n"
                + (0..<(1 + random.below(3))).map { _ in pad + pick(lines, &random) }.joined(separator: "\n")
        case 5:
            // A plain scalar over lines, with quotes and brackets in it.
            return "plain \"a [b\n" + pad + pick(["more 'c {d", "k: ]", "\"e"], &random)
        case 6:
            // A record whose values hold it all, one level in.
            return "\n" + pad + "x: " + pick(["\"q\n- a\"", "[1,\nk: 2]", "'it''s'", "a \"b"], &random) + "\n" + pad + "y: 1"
        case 7:
            return pick(["&anchor \"a\nk: b\"", "!!str 'x\n- y'", "\"a\" # it's [open"], &random)
        case 8:
            // A comment at a token's start in a flow collection, a `?` before a quote, and a
            // comment that libyaml ends at U+2028.
            let sibling = String(repeating: " ", count: column)
            return pick(
                ["[a,#x]\nk: \"q\n- r\"]", "[?\"a]\nk: 1\"]", "{a: b,#c\nk: \"e\n- f\"}", "[b] # c\u{2028}\(sibling)w9: [\"q\n- x\"]"],
                &random)
        default:
            return pick(["1", "word", "\"quoted\"", "'single'", "[1, 2]", "{a: b}", "null"], &random)
        }
    }

    static func document(_ random: inout SplitMix64) -> String {
        let mapping = random.below(2) == 0
        var out = random.below(5) == 0 ? "# it's a \"file\n" : ""
        for k in 0..<(2 + random.below(6)) {
            if random.below(6) == 0 { out += pick(["# c\n", "\n", "  # '\n"], &random) }
            if mapping {
                out += pick(["k\(k)", "\"k \(k)\"", "'k\(k)'", "&a\(k) k\(k)"], &random) + ": " + value(&random, column: 0) + "\n"
            } else {
                out += "- " + (random.below(2) == 0 ? "id: \(k)\n  v: " + value(&random, column: 2) : value(&random, column: 0)) + "\n"
            }
        }
        return out
    }
}
