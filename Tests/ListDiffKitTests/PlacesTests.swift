import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// The places errors name (`file:line:column`), in memory, spilled, and in the merge of
/// sorted NDJSON alike: a byte order mark at the start takes no column; YAML's lines are
/// libyaml's; a lone CR ends a CSV row and its line.
@Suite struct PlacesTests {
    /// The diff of `text` (as OLD, in a file named `.ext`) against `other`, keyed by `id`:
    /// in memory, and spilled under a small budget, which must say the same (and spill).
    static func diffed(_ text: String, against other: String, ext: String, path: String? = nil) throws -> String {
        let (dir, parent) = try SpillTests.workspace()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.\(ext)"), new = dir.appendingPathComponent("new.\(ext)")
        try text.write(to: old, atomically: true, encoding: .utf8)
        try other.write(to: new, atomically: true, encoding: .utf8)
        let options = LayoutOptions(path: try path.map { try FieldPath($0) })
        let files = FileDiffer(reader: DocumentReader(key: try IdentityKey(parsing: ["id"]), layout: options))
        let whole = SpillTests.rendered(files, old, new)
        if text.utf8.count > 4096 {
            let spilling = SpillTests.spilling(files, parent: parent, budget: 512)
            #expect((try? spilling.spillPartitions(old: old.path, new: new.path)) != nil, "spilled: \(whole)")
            #expect(SpillTests.rendered(spilling, old, new) == whole, "spilled")
        }
        return whole.replacingOccurrences(of: dir.path + "/", with: "")
    }

    /// In YAML a lone CR, U+0085, U+2028 and U+2029 end a line, as libyaml counts lines:
    /// the places of records and libyaml's own errors agree.
    @Test(arguments: ["\r", "\u{85}", "\u{2028}", "\u{2029}"])
    func yamlLinesAreLibYAMLs(_ lineBreak: String) throws {
        let lead = "- id: 1\n  n: \"a\(lineBreak)b\"\n"
        // (libyaml's error, then the reader's: both on the third line after `\n`, line 4.)
        #expect(
            try Self.diffed(lead + "- {id: 2, a: 1, a: 2}\n", against: "[]", ext: "yaml").hasPrefix(
                "error: old.yaml:4:17: error: duplicate mapping key 'a' (first at line 4, column 11)"))
        #expect(
            try Self.diffed(lead + "- id: 1\n", against: "[]", ext: "yaml").hasPrefix(
                "error: old.yaml:4:3: error: duplicate key id=1 (records 0 and 1; the first is at line 1, column 3)"))
        // Spilled, a later chunk's places count the breaks of the chunks before it.
        let many = (0..<300).map { "- id: \($0)\n  n: \"a\(lineBreak)b\"\n" }.joined()
        #expect(
            try Self.diffed(many + "- id: 7\n", against: "[]", ext: "yaml").hasPrefix(
                "error: old.yaml:901:3: error: duplicate key id=7 (records 7 and 300; the first is at line 22, column 3)"))
        #expect(try Self.diffed(many + "- {n: [}\n", against: "[]", ext: "yaml").hasPrefix("error: old.yaml:901:8: "))
        // Text before a list at a path that holds such breaks is not taken for part of it.
        let before = "a: 1\(lineBreak)b: 2\(lineBreak)\(lineBreak)items:\n"
        let list = (0..<300).map { "- id: \($0)\n  n: x\n" }.joined()
        let changed = list.replacingOccurrences(of: "- id: 250\n  n: x\n", with: "- id: 250\n  n: y\n")
        let diff = try Self.diffed(before + list, against: before + changed, ext: "yaml", path: "/items")
        #expect(diff.contains(#""summary": {"inserted": 0, "deleted": 0, "moved": 0, "updated": 1, "unchanged": 299}"#), "\(diff)")
    }

    /// The spill's later parts read as the input does: a CSV header after empty rows (the
    /// reader skips them), a header that ends with a lone CR before rows that end with LF
    /// and blank lines (a part that starts with one must not read `\r\n` after the header),
    /// and an NDJSON line that starts with U+FEFF (its text, no mark).
    @Test func laterPartsReadAsTheInput() throws {
        let rows = (0..<300).map { "\($0),name \($0)\n" }
        let new = "id,name\n1,a\n"
        for lead in ["\n", "\r", "\n\r\n", "\u{FEFF}\n"] {
            let diff = try Self.diffed(lead + "id,name\n" + rows.joined(), against: new, ext: "csv")
            #expect(diff.contains(#""summary": {"inserted": 0, "deleted": 299, "moved": 0, "updated": 1, "unchanged": 0}"#), "\(diff)")
        }
        // (Each row after a blank line, so that parts start with one.)
        let spaced = rows.map { "\n" + $0 }.joined()
        #expect(
            try Self.diffed("id,name\r" + spaced + "\n5,x\n", against: new, ext: "csv").hasPrefix(
                "error: old.csv:602:1: error: duplicate key id=\"5\" (records 5 and 300; the first is at line 12, column 1)"))
        let lines = (0..<300).map { "{\"id\":\($0)}\n" }.joined()
        #expect(
            try Self.diffed(lines + "\u{FEFF}{\"id\":300}\n", against: "", ext: "ndjson").hasPrefix(
                "error: old.ndjson:301:1: error: expected a JSON value, found byte 0xEF"))
    }

    /// libyaml's errors about bytes that are not text name the byte.
    @Test func yamlByteErrorsNameTheByte() throws {
        #expect(
            try Self.diffed("- id: 1\n  n: \"\u{1B}\"\n", against: "[]", ext: "yaml").hasPrefix(
                "error: old.yaml:2:7: error: control characters are not allowed"))
        let many = (0..<300).map { "- id: \($0)\n" }.joined()
        #expect(
            try Self.diffed(many + "- id: x\n  n: \"é\u{1B}\"\n", against: "[]", ext: "yaml").hasPrefix(
                "error: old.yaml:302:8: error: control characters are not allowed"))
    }

    /// A lone CR ends a CSV row (Excel for Mac writes them so), and a line for places; in a
    /// quoted field it is text.
    @Test func csvRowsEndAtALoneCR() throws {
        let old = "id,name\r1,a\r3,\"x\ry\"\r", new = "id,name\n2,b\n3,\"x\ry\"\n"
        let diff = try Self.diffed(old, against: new, ext: "csv")
        #expect(diff.contains(#""summary": {"inserted": 1, "deleted": 1, "moved": 0, "updated": 0, "unchanged": 1}"#), "\(diff)")
        #expect(
            try Self.diffed("id,name\r1,a\r\r1,\"x\ry\"\r", against: new, ext: "csv").hasPrefix(
                "error: old.csv:4:1: error: duplicate key id=\"1\" (records 0 and 1; the first is at line 2, column 1)"))
        #expect(try Self.diffed("id,name\r1,\"x\ry\"z\r", against: new, ext: "csv").hasPrefix("error: old.csv:3:3: "))
        // Spilled: cut at a lone CR, each chunk's lines counted so.
        let many = (0..<300).map { "\($0),\"n\r\($0)\"\r" }.joined()
        #expect(
            try Self.diffed("id,name\r" + many + "5,x\r", against: new, ext: "csv").hasPrefix(
                "error: old.csv:602:1: error: duplicate key id=\"5\" (records 5 and 300; the first is at line 12, column 1)"))
    }

    /// The rules the readers share.
    @Test func theRules() {
        #expect(ByteOrderMark.length(at: Array("\u{FEFF}[]".utf8)) == 3)
        #expect(ByteOrderMark.length(at: Array("[]\u{FEFF}".utf8)) == 0)
        #expect(ByteOrderMark.length(at: [0xEF, 0xBB]) == 0)
        #expect(ByteOrderMark.length(at: [UInt8]()) == 0)
        // (One rule for a YAML or CSV line break that is not `\n`.)
        Array("a\rb\r\nc\u{2028}d\u{85}\r".utf8).withUnsafeBufferPointer { b in
            #expect(
                (0..<b.count).map { LineBreaks.yaml.otherBreak(in: b, at: $0, end: b.count) } == [0, 1, 0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 1])
            #expect(
                (0..<b.count).map { LineBreaks.csv.otherBreak(in: b, at: $0, end: b.count) } == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
            #expect((0..<b.count).allSatisfy { LineBreaks.newline.otherBreak(in: b, at: $0, end: b.count) == 0 })
            #expect(SourceLocation.of(offset: 12, in: b, breaks: .yaml) == SourceLocation(line: 5, column: 1))
            #expect(SourceLocation.of(offset: 12, in: b, breaks: .csv) == SourceLocation(line: 3, column: 5))
        }
        let text = Array("\u{FEFF}ab\ncd".utf8)
        text.withUnsafeBufferPointer { bytes in
            #expect(SourceLocation.of(offset: 5, in: bytes) == SourceLocation(line: 1, column: 3))
            #expect(SourceLocation.of(offset: 7, in: bytes) == SourceLocation(line: 2, column: 2))
            // (A text that starts elsewhere has no mark to skip: U+FEFF there is a character.)
            #expect(SourceLocation.of(offset: 5, in: bytes, from: SourceLocation(line: 2, column: 1)) == SourceLocation(line: 2, column: 4))
        }
    }

    /// Errors on the first line and after it, in each format, with and without the mark.
    @Test func theMarkMovesNoPlace() throws {
        let (dir, parent) = try SpillTests.workspace()
        defer { try? FileManager.default.removeAtPath(dir) }
        // Lists long enough to spill under a small budget, on one line where the format
        // allows it, so that a later chunk starts on the mark's line.
        let records = (0..<300).map { "{\"id\":\($0),\"s\":\"é\"}" }
        let cases: [(ext: String, text: String)] = [
            ("json", "[" + records.joined(separator: ",") + ",{\"id\":7}]"),
            ("json", "[" + records.joined(separator: ",") + ",x]"),
            ("json", "[{\"id\":1},\n{\"id\":1}]"),
            ("json", "[{\"id\":1,\"id\":2}]"),
            ("ndjson", records.joined(separator: "\n") + "\n{\"id\":7}\n"),
            ("ndjson", "{\"id\":1,\"id\":2}\n"),
            ("ndjson", "{\"id\":1} x\n"),
            ("yaml", "- id: 1\n" + (2..<300).map { "- id: \($0)\n  s: é\n" }.joined() + "- id: 1\n"),
            ("yaml", "[{id: 1, s: é}, {id: 1}]\n"),
            ("yaml", "- {id: 1, id: 2}\n"),
            ("yaml", "[{id: 1} x]\n"),
            ("csv", "id,\"s\"x\n1,2\n"),
            ("csv", "id,id\n1,2\n"),
            ("csv", "id,s\n1,é\n" + (2..<300).map { "\($0),é\n" }.joined() + "1,3\n"),
        ]
        for (ext, text) in cases {
            let old = dir.appendingPathComponent("old.\(ext)"), new = dir.appendingPathComponent("new.\(ext)")
            try "\(ext == "csv" ? "id\n1\n" : ext == "yaml" ? "- id: 1\n" : "{\"id\":1}\n")".write(
                to: new, atomically: true, encoding: .utf8)
            // Each way of reading, without the mark and with it.
            var runs: [[String]] = []
            for lead in ["", "\u{FEFF}"] {
                try (lead + text).write(to: old, atomically: true, encoding: .utf8)
                var files = FileDiffer(key: try IdentityKey(parsing: ["id"]))
                var these = [SpillTests.rendered(files, old, new)]
                #expect(these[0].contains("/old.\(ext):"), "\(ext): \(these[0])")
                if text.count > 4096 {
                    let spilling = SpillTests.spilling(files, parent: parent, budget: 512)
                    #expect((try? spilling.spillPartitions(old: old.path, new: new.path)) != nil, "\(ext): spilled")
                    these.append(SpillTests.rendered(spilling, old, new))
                    #expect(these[1] == these[0], "\(ext): spilled")
                }
                if ext == "ndjson" {
                    files.sorted = true
                    these.append(SpillTests.rendered(files, old, new))
                }
                runs.append(these)
            }
            #expect(runs[0] == runs[1], "\(ext): \(text.prefix(40))")
        }
    }
}
