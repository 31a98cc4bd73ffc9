import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// listdiff's own YAML scanner (`YAMLBlockScanner`) against libyaml: the same events where it
/// reads an input, and, with the fallback, the same values, hashes, places and errors
/// everywhere (`YAMLScannerCheck`).
@Suite struct YAMLBlockScannerTests {
    /// Every case of yaml-test-suite: the own scanner reads some, libyaml the rest, and the
    /// results are libyaml's alone.
    @Test func yamlTestSuiteReadsAsLibyamlReadsIt() throws {
        let cases = try YAMLConformanceTests.cases()
        #expect(cases.count == 402)
        var own = 0
        for c in cases {
            let input = try bytes(c.directory.appendingPathComponent("in.yaml"))
            let outcome = YAMLScannerCheck.check(input)
            #expect(outcome.problem == nil, "\(c.id): \(outcome.problem ?? "")")
            if outcome.ownScanner { own += 1 }
        }
        // The block-style cases: the own scanner must take its share, or it checks nothing.
        #expect(own >= 90, "the own scanner read \(own) cases")
    }
}

/// Random block-style YAML, as dumpers and Kubernetes tools write it (`outside`: with a
/// construct the own scanner leaves to libyaml somewhere in it).
struct BlockYAMLGenerator {
    var random: SplitMix64
    var out = ""
    var outside = false

    static let plains = [
        "0", "-12", "3.25", "1e3", "-0.5", "0x1F", "0o17", ".inf", "-.Inf", ".nan", "true", "False", "null", "~", "yes", "No", "on",
        "alice", "two words", "a:b", "a#b", "x - y", "http://example.com/a?b=c&d=e", "é", "日本語", "😀 emoji", "-x", "?q", ":c",
        "007", "1_000", "+1", "12:30", "2001-12-14", "a 'quoted' word", "say \"hi\"", "not [flow]", "no {flow}", "100%", "trailing",
    ]
    static let quoted = [
        "\"\"", "''", "\"a b\"", "'it''s'", "\"tab\\there\"", "\"line\\nbreak\"", "\"\\u00e9\\x41\\U0001F600\"", "\"q\\\"uote\\\\\"",
        "'# not a comment'", "\"key: value\"", "'- dash'", "\"\\0\\a\\b\\e\\f\\r\\v\\/\\ \\N\\_\\L\\P\"", "\"日本\"", "'12'", "\"true\"",
    ]
    static let outsides = [
        "&anchor x", "*alias", "!!str 12", "[1, 2]", "{a: 1}", "|0", "|x", "\"multi\n  line\"", "? complex",
        "\tx", "x\r", "\"\\q\"", "plain\n    continued", "@at", "`tick", "%", "[]x", "{}: 1", "[a, ]", "{a}", "[a: 1]", "{\"a\":1}",
        "[a,\n  b]", "{a: }", "[a#b]", "[?a]", "[a:b]",
    ]

    mutating func pick(_ list: [String]) -> String { list[random.below(list.count)] }

    mutating func scalar() -> String {
        if random.below(200) == 0 {
            outside = true
            return pick(Self.outsides)
        }
        switch random.below(11) {
        case 0...5: return pick(Self.plains)
        case 6...8: return pick(Self.quoted)
        case 9: return flowValue(depth: 0)
        default: return ""
        }
    }

    static let flowScalars = [
        "1", "-2.5", "true", "null", "~", "word", "two words", "'q''s'", "\"d\\\"q\"", "\"\"", "é", "a-b", "-x", "a/b", "1e3",
    ]

    /// A flow collection on one line: scalars and collections, nested at most three deep.
    mutating func flowValue(depth: Int) -> String {
        let count = random.below(4)
        let mapping = random.below(2) == 0
        var entries: [String] = []
        for k in 0..<count {
            let value = depth < 2 && random.below(4) == 0 ? flowValue(depth: depth + 1) : pick(Self.flowScalars)
            entries.append(mapping ? "k\(k):" + String(repeating: " ", count: 1 + random.below(2)) + value : value)
        }
        let inner = entries.joined(separator: random.below(2) == 0 ? ", " : ",")
        let pad = count > 0 && random.below(3) == 0 ? " " : ""
        return mapping ? "{" + pad + inner + pad + "}" : "[" + pad + inner + pad + "]"
    }

    mutating func key(_ k: Int) -> String {
        switch random.below(6) {
        case 0: return "\"k \(k)\""
        case 1: return "'k\(k)'"
        case 2: return "ключ\(k)"
        default: return "k\(k)"
        }
    }

    mutating func comment() -> String {
        random.below(8) == 0 ? "  # note: é" : (random.below(8) == 0 ? "   " : "")
    }

    mutating func gap(_ indent: Int) {
        switch random.below(12) {
        case 0: out += "\n"
        case 1: out += String(repeating: " ", count: random.below(indent + 3)) + "# comment\n"
        default: break
        }
    }

    /// A node after an indicator at column `column` (of `- ` or the key), as the rest of a
    /// line and the lines after it; `indentless` allows a `- ` list at the key's column.
    mutating func node(column: Int, depth: Int, afterDash: Bool) {
        let kind = depth > 3 ? 0 : random.below(5)
        switch kind {
        case 1, 2:
            // A mapping: on the dash's line, or on the next lines, indented.
            let inner = afterDash && random.below(2) == 0 ? column + 2 : column + 1 + random.below(3)
            if afterDash, inner == column + 2 {
                out += " "
            } else {
                out += comment() + "\n"
                out += String(repeating: " ", count: inner)
            }
            mapping(column: inner, depth: depth + 1, first: true)
        case 3:
            // A list: indented, or (after a key) at the key's column.
            let inner = !afterDash && random.below(2) == 0 ? column : column + 1 + random.below(3)
            if afterDash, random.below(2) == 0 {
                out += " "
                sequence(column: column + 2, depth: depth + 1, first: true)
            } else {
                out += comment() + "\n"
                out += String(repeating: " ", count: inner)
                sequence(column: inner, depth: depth + 1, first: true)
            }
        case 4 where random.below(3) == 0:
            blockScalar(column: column)
        case 4 where random.below(2) == 0:
            plainLines(column: column)
        default:
            let s = scalar()
            out += (s.isEmpty ? "" : " " + s) + comment() + "\n"
        }
    }

    static let words = [
        "word", "two words", "a-b", "x:y", "no#comment", "é", "- dash", "'q'", "\"d\"", "[x]", "{y}", "&a", "*b", "!c", "|", ">", "%p",
        "@q",
    ]

    /// A plain scalar over several lines, the lines after the first indented past `column`,
    /// blank lines among them.
    mutating func plainLines(column: Int) {
        out += " start" + (random.below(2) == 0 ? " " + pick(Self.words) : "") + (random.below(4) == 0 ? "  " : "") + "\n"
        for _ in 0..<(1 + random.below(3)) {
            if random.below(3) == 0 { out += random.below(2) == 0 ? "\n" : "  \n" }
            out += String(repeating: " ", count: column + 1 + random.below(3)) + pick(Self.words)
            out += (random.below(3) == 0 ? "  " + pick(Self.words) : "") + "\n"
        }
        if random.below(3) == 0 { out.removeLast(); out += comment() + "\n" }
    }

    static let headers = ["|", "|-", "|+", ">", ">-", ">+", "|2", ">1-", "|+1", "|-3"]
    static let lines = [
        "text", "more words here", "  more indented", "", "   ", "# not a comment", "é ünïcode 😀", "key: not a key", "- not a list", "x",
    ]

    /// A literal or folded block scalar after the indicator at `column`: its lines indented
    /// past the column (by its indentation indicator, if it has one), blank lines among them.
    mutating func blockScalar(column: Int) {
        let header = pick(Self.headers)
        out += " " + header + comment() + "\n"
        let digit = header.compactMap(\.wholeNumberValue).first
        let inner = column + (digit ?? 1 + random.below(3))
        for k in 0..<(1 + random.below(5)) {
            var line = pick(Self.lines)
            if k == 0, digit == nil, line.hasPrefix(" ") || line.isEmpty { line = "first" }
            out += line.isEmpty ? "\n" : String(repeating: " ", count: inner) + line + "\n"
        }
        if random.below(4) == 0 { out += "\n" }
    }

    mutating func mapping(column: Int, depth: Int, first: Bool) { collection(column: column, depth: depth, first: first, mapping: true) }

    mutating func sequence(column: Int, depth: Int, first: Bool) { collection(column: column, depth: depth, first: first, mapping: false) }

    /// One to four members of a mapping, or entries of a list, at `column` (the first on the
    /// line begun already when `first`).
    mutating func collection(column: Int, depth: Int, first: Bool, mapping: Bool) {
        let count = 1 + random.below(4)
        for k in 0..<count {
            if k > 0 || !first {
                gap(column)
                out += String(repeating: " ", count: column)
            }
            out += mapping ? key(k) + (random.below(10) == 0 ? " :" : ":") : "-"
            node(column: column, depth: depth, afterDash: !mapping)
        }
    }

    /// A document: a list of records, an object of lists, or a stream of records.
    mutating func document() -> String {
        out = random.below(4) == 0 ? "# a file\n" : ""
        outside = false
        switch random.below(4) {
        case 0:
            for _ in 0..<(1 + random.below(3)) {
                out += "---" + (random.below(3) == 0 ? " # doc" : "") + "\n"
                mapping(column: random.below(2), depth: 1, first: false)
            }
            if random.below(3) == 0 { out += "...\n" }
        case 1:
            mapping(column: 0, depth: 0, first: true)
        default:
            sequence(column: 0, depth: 0, first: true)
        }
        switch random.below(8) {
        case 0: out.removeLast()  // no final line break
        case 1: out += String(repeating: " ", count: random.below(6))  // spaces after it
        case 2: out += String(repeating: " ", count: random.below(6)) + "# end"
        default: break
        }
        return out
    }
}

extension YAMLBlockScannerTests {
    /// The YAML examples (Kubernetes manifests, an OpenAPI document, sections, the config
    /// file) are block style as tools write them: the own scanner reads every one, as
    /// libyaml does.
    @Test func examplesAreReadByTheOwnScanner() throws {
        let root = Paths.repository.appendingPathComponent("Examples")
        let files = FileManager.default.enumerator(atPath: root.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".yaml") }
        #expect(files.count >= 10)
        for file in files {
            let outcome = YAMLScannerCheck.check(try bytes(root.appendingPathComponent(file)))
            #expect(outcome.problem == nil, "\(file): \(outcome.problem ?? "")")
            #expect(outcome.ownScanner, "\(file): the own scanner left it to libyaml")
        }
    }

    /// The bytes checked in two halves at once (a large input's) give what one pass gives:
    /// a character across the middle is read whole, and what either half holds that libyaml
    /// refuses is refused.
    @Test func bytesCheckedInTwoHalvesAsInOnePass() {
        let texts = ["abcd", "ab\u{E9}d", "a\u{65E5}\u{672C}b", "\u{1F600}\u{1F600}", "abc\u{1}", "\u{1}abc", "ab\tc", "a\u{2028}b"]
        let raw: [[UInt8]] = [[0x61, 0xC3], [0xC3, 0x61, 0x62, 0x63], [0x61, 0x62, 0xE6, 0x97, 0xA5, 0x63], [0x61, 0xFF, 0x62, 0x63]]
        var checked = 0, refused = 0
        for body in texts.map({ Array($0.utf8) }) + raw {
            for (k, m) in [(0, 0), (1, 0), (0, 1), (2, 3), (3, 2), (9, 0), (0, 9)] {
                let bytes = Array(repeating: UInt8(ascii: "x"), count: k) + body + Array(repeating: UInt8(ascii: "y"), count: m)
                bytes.withUnsafeBufferPointer { b in
                    let one = try? YAMLBlockScanner.validate(b.baseAddress!, b.count)
                    let two = try? YAMLBlockScanner.validate(b.baseAddress!, b.count, parts: 2)
                    #expect(one == two, "\(bytes)")
                    if one == nil { refused += 1 }
                }
                checked += 1
            }
        }
        #expect(refused > 20 && refused < checked - 20, "refused \(refused) of \(checked)")
    }

    /// Random block-style documents: the own scanner reads each one that has nothing outside
    /// its subset (so the test checks the fast path, not the fallback), and every result is
    /// libyaml's.
    @Test func randomBlockDocumentsReadAsLibyamlReadsThem() {
        var generator = BlockYAMLGenerator(random: SplitMix64(seed: 0x5EED_B10C))
        var own = 0, outside = 0
        for round in 0..<3000 {
            let text = generator.document()
            let outcome = YAMLScannerCheck.check(Array(text.utf8))
            #expect(outcome.problem == nil, "round \(round): \(outcome.problem ?? "")\n\(text)")
            if generator.outside {
                outside += 1
            } else {
                #expect(outcome.ownScanner, "round \(round): the own scanner left it to libyaml\n\(text)")
                if outcome.ownScanner { own += 1 }
            }
        }
        #expect(own > 2000 && outside > 20, "own \(own), outside \(outside)")
    }
}
