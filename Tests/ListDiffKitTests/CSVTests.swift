import Foundation
import Testing
@_spi(Benchmarks) @testable import ListDiffKit
import ListDiffKitTestSupport

/// CSV and TSV: the reader's rules (RFC 4180 quoting, line breaks, the byte order mark,
/// types), its errors and their places, the engine against the reference on random
/// tables, and `apply` writing CSV back.
@Suite struct CSVTests {
    static func read(_ text: String, separator: UInt8 = UInt8(ascii: ","), infer: Bool = false) throws(ListDiffError) -> Value {
        try CSVReader(separator: separator, inferTypes: infer).read(Array(text.utf8), name: "t.csv", json: JSONReader()).0
    }

    static func value(_ json: String) -> Value { try! JSONReader().read(Array(json.utf8), name: "json").0 }

    @Test func quotingLineBreaksAndTheByteOrderMark() throws {
        // Quoted separators, doubled quotes, a line break inside quotes, CRLF rows, a BOM.
        let text = "\u{FEFF}id,note,n\r\n1,\"a, b\",\"say \"\"hi\"\"\"\r\n2,\"two\r\nlines\",\r\n"
        #expect(
            try Self.read(text)
                == Self.value(#"[{"id":"1","note":"a, b","n":"say \"hi\""},{"id":"2","note":"two\r\nlines","n":""}]"#))
        // LF rows, no line break at the end, empty lines skipped, a quote inside an
        // unquoted field kept.
        #expect(
            try Self.read("id,v\n\n1,ab\"c\n\n2,x")
                == Self.value(#"[{"id":"1","v":"ab\"c"},{"id":"2","v":"x"}]"#))
        // A header and no rows, and nothing at all, are empty lists.
        #expect(try Self.read("id,v\n") == .array([]))
        #expect(try Self.read("") == .array([]))
        // TSV: a tab between fields; commas are text.
        #expect(try Self.read("id\tv\n1\ta,b\n", separator: 0x09) == Self.value(#"[{"id":"1","v":"a,b"}]"#))
        // Names and values that JSON must escape.
        #expect(try Self.read("\"a\\b\",c\n\"x\ty\",\u{1}\n") == Self.value(#"[{"a\\b":"x\ty","c":"\u0001"}]"#))
    }

    @Test func typesAreStringsUnlessInferred() throws {
        let text = "id,a,b,c,d,e,f,g,h\n1,007,-12,3.5e2,true,,+1,1.,-0\n"
        #expect(
            try Self.read(text)
                == Self.value(#"[{"id":"1","a":"007","b":"-12","c":"3.5e2","d":"true","e":"","f":"+1","g":"1.","h":"-0"}]"#))
        #expect(
            try Self.read(text, infer: true)
                == Self.value(#"[{"id":1,"a":"007","b":-12,"c":3.5e2,"d":true,"e":null,"f":"+1","g":"1.","h":-0}]"#))
        func number(_ text: String) -> Bool { Array(text.utf8).withUnsafeBytes { CSVReader.isJSONNumber($0) } }
        #expect(number("0.5"))
        #expect(!number(".5"))
        #expect(!number("1e"))
        #expect(!number("-"))
        // Exponents as the JSON reader takes them: at most 9 significant digits. A cell
        // beyond that is no number it reads, so it stays a string.
        #expect(number("1e999999999"))
        #expect(number("1E-0000000009"))
        #expect(!number("1e1000000000"))
        #expect(!number("-2.5e+0001000000000"))
        #expect(try Self.read("id,v\n1,1e10000000000\n", infer: true) == Self.value(#"[{"id":1,"v":"1e10000000000"}]"#))
        func literal(_ text: String) -> Bool { Array(text.utf8).withUnsafeBytes { CSVReader.isLiteral($0) } }
        for yes in ["true", "false", "", "-0", "12", "1e5"] { #expect(literal(yes), "\(yes)") }
        for no in ["tru", "truex", "True", "fals", "falsy", "falsee", "t", "f", "01", "x1", "null"] { #expect(!literal(no), "\(no)") }
    }

    /// Each bad input: its message and its place, line and column in the CSV.
    @Test func errorsNameTheirPlace() {
        let cases: [(String, String, Int, Int)] = [
            ("id,v\n1,a\n2,b,c\n", "more fields than the header's 2", 3, 5),
            ("id,v\n1,a\n2\n", "this row has 1 field; the header has 2", 3, 1),
            ("id,v\n1,\"a\n2,b\n", "this quoted field is never closed", 2, 3),
            ("id,v\n1,\"a\"b\n", "after a quoted field's closing quote", 2, 6),
            ("id,v,id\n1,a,b\n", "the header names \"id\" twice (fields 1 and 3)", 1, 6),
            ("id,v\n1,\"x\ny\"\n2,b,c\n", "more fields than the header's 2", 4, 5),
        ]
        for (text, message, line, column) in cases {
            do {
                _ = try Self.read(text)
                Issue.record("no error for \(text.debugDescription)")
            } catch {
                #expect(error.kind == .syntax)
                #expect(error.message.contains(message), "\(error.message)")
                #expect(error.location == SourceLocation(line: line, column: column), "\(text.debugDescription)")
            }
        }
    }

    /// Random tables written as CSV (quoted where needed, CRLF or LF, now and then a
    /// line break inside a cell): the engine gives the reference's changeset byte for
    /// byte, and the changeset applies to a CSV whose records are NEW's.
    @Test func theEngineMatchesTheReferenceAndApplies() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var rng = SplitMix64(seed: 77)
        let words = ["a", "b c", "d,e", "say \"x\"", "two\nlines", "", "007", "1.5"]
        var updates = 0
        for round in 0..<60 {
            let columns = ["id", "name", "v"]
            func table(_ ids: [Int], _ salt: Int) -> String {
                let newline = round % 2 == 0 ? "\r\n" : "\n"
                func cell(_ s: String) -> String {
                    s.contains(where: { ",\"\n\r".contains($0) }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
                }
                var text = columns.joined(separator: ",") + newline
                for id in ids {
                    let w = words[(id * 7 + (id % 5 == salt ? 1 : 0)) % words.count]
                    text +=
                        [String(id), cell(w), cell(words[(id + salt * (id % 3 == 0 ? 1 : 0)) % words.count])]
                        .joined(separator: ",") + newline
                }
                return text
            }
            let oldIDs = (0..<Int.random(in: 0..<30, using: &rng)).map { $0 * 2 }
            var newIDs = oldIDs.filter { _ in Int.random(in: 0..<6, using: &rng) > 0 }
            newIDs.append(contentsOf: (0..<Int.random(in: 0..<4, using: &rng)).map { 101 + $0 * 3 })
            newIDs.shuffle(using: &rng)
            let old = dir.appendingPathComponent("old-\(round).csv"), new = dir.appendingPathComponent("new-\(round).csv")
            try table(oldIDs, 0).write(to: old, atomically: true, encoding: .utf8)
            try table(newIDs, 1 + round % 3).write(to: new, atomically: true, encoding: .utf8)
            let engine = EngineTests.run(old, new, engine: true, key: ["id"])
            let reference = EngineTests.run(old, new, engine: false, key: ["id"])
            #expect(engine == reference, "round \(round)")
            #expect(!engine.hasPrefix("error"), "\(engine)")
            if engine.contains("\"update\"") { updates += 1 }
            // Apply, written as CSV: NEW's records, in NEW's order, with OLD's line endings.
            let changeset = try ChangesetReader().read(Array(engine.utf8), name: "c")
            let applier = try FileApplier.open(
                changeset: Array(engine.utf8), name: "c", old: old.path, reader: DocumentReader(key: changeset.key))
            #expect(applier.newFingerprint == changeset.fingerprints?.new)
            var out = StringStream()
            try applier.write(.csv, to: &out)
            #expect(try Self.read(out.text) == Self.read(try String(contentsOf: new, encoding: .utf8)), "round \(round)")
            if !oldIDs.isEmpty { #expect(out.text.contains("\r\n") == (round % 2 == 0)) }
        }
        #expect(updates > 10)
    }

    /// A changeset records OLD's format and cell types, reads them back, and is written as
    /// version 3 only when older readers would misread OLD without them. `FileApplier` reads
    /// OLD as the changeset says, and refuses a setting that contradicts it.
    @Test func theChangesetRecordsHowOLDWasReadAndApplyReadsItSo() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.txt"), new = dir.appendingPathComponent("new.txt")
        try "id,n\n1,007\n2,5\n".write(to: old, atomically: true, encoding: .utf8)
        try "id,n\n1,8\n2,5\n".write(to: new, atomically: true, encoding: .utf8)
        for infer in [false, true] {
            let differ = FileDiffer(key: try IdentityKey(parsing: ["id"]), format: .csv, csvInfersTypes: infer)
            let changeset = try differ.diff(oldPath: old.path, newPath: new.path)
            #expect(changeset.layout.format == .csv)
            #expect(changeset.layout.csvInfersTypes == infer)
            let json = try ApplyTests.changesetJSON(changeset)
            #expect(json.hasPrefix("{\n  \"version\": \(infer ? 3 : 1),"), "\(json)")
            // Read back, it says the same, and is written again byte for byte.
            let read = try Changeset(json: Array(json.utf8), name: "c.json")
            #expect(read.layout == changeset.layout)
            #expect(try ApplyTests.changesetJSON(read) == json)
            // Applied with nothing said of how to read OLD (a .txt, which would be read as
            // YAML): the result is NEW.
            let applier = try FileApplier(changeset: read, oldPath: old.path)
            #expect(applier.format == .csv)
            #expect(applier.newFingerprint == changeset.fingerprints?.new)
            #expect(try FileApplier(changeset: read, oldPath: old.path, format: .csv, csvInfersTypes: infer).format == .csv)
            #expect(
                throws: ListDiffError(
                    .usage, "input format json was asked for, but the changeset records csv; apply reads OLD as the changeset says")
            ) {
                try FileApplier(changeset: read, oldPath: old.path, format: .json)
            }
            let asked = infer ? "string" : "infer", recorded = infer ? "infer" : "string"
            #expect(
                throws: ListDiffError(
                    .usage, "CSV types \(asked) was asked for, but the changeset records \(recorded); apply reads OLD as the changeset says"
                )
            ) {
                try FileApplier(changeset: read, oldPath: old.path, csvInfersTypes: !infer)
            }
        }
        // A changeset from before listdiff recorded the format reads OLD as it is told.
        let differ = FileDiffer(key: try IdentityKey(parsing: ["id"]), format: .csv, csvInfersTypes: true)
        let json = try ApplyTests.changesetJSON(try differ.diff(oldPath: old.path, newPath: new.path))
            .replacingOccurrences(of: #", "format": "csv", "csv_types": "infer""#, with: "")
            .replacingOccurrences(of: #""version": 3"#, with: #""version": 2"#)
        let older = try Changeset(json: Array(json.utf8), name: "c.json")
        #expect(older.layout.format == nil)
        #expect(try FileApplier(changeset: older, oldPath: old.path, format: .csv, csvInfersTypes: true).count == 2)
        #expect(throws: ListDiffError.self) { try FileApplier(changeset: older, oldPath: old.path, format: .csv) }
        // A format or cell types listdiff does not know are refused, by name.
        let unknown = json.replacingOccurrences(of: #""shape": "list""#, with: #""format": "xml", "shape": "list""#)
        #expect(throws: ListDiffError.self) { try Changeset(json: Array(unknown.utf8), name: "c.json") }
    }

    /// `apply` writes CSV only for flat records, and says so before writing anything.
    @Test func applyRefusesRecordsThatAreNotFlat() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        let csv = dir.appendingPathComponent("old.csv")
        try #"[{"id":1,"tags":["a"]}]"#.write(to: old, atomically: true, encoding: .utf8)
        try "id,tags\n1,a\n".write(to: csv, atomically: true, encoding: .utf8)
        // A JSON OLD with a nested record; a CSV OLD, whose own records are flat, and a
        // nested record from the changeset.
        for (from, newText) in [(old, #"[{"id":1,"tags":["b"]}]"#), (csv, #"[{"id":"1","tags":["b"]}]"#)] {
            try newText.write(to: new, atomically: true, encoding: .utf8)
            let changeset = EngineTests.run(from, new, engine: true, key: ["id"])
            let applier = try FileApplier.open(
                changeset: Array(changeset.utf8), name: "c", old: from.path, reader: DocumentReader(key: IdentityKey(parsing: ["id"])))
            var out = StringStream()
            #expect(throws: ListDiffError.self) { try applier.write(.csv, to: &out) }
            #expect(out.text.isEmpty)
        }
    }

    /// The eight-bytes-at-a-time search for an unquoted cell's end agrees with a byte-by-byte
    /// one, on random text full of separators, line ends, quotes, controls and UTF-8.
    @Test func theWordAtATimeCellEndAgreesWithTheByteLoop() {
        var rng = SplitMix64(seed: 4180)
        let alphabet: [UInt8] = [0x61, 0x62, 0x2C, 0x09, 0x0A, 0x0D, 0x22, 0x5C, 0x01, 0x1F, 0x20, 0x7F, 0xE2, 0x80, 0xA8, 0xC3, 0xA9]
        for round in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &rng)
            // Mostly plain letters, so that runs longer than eight bytes are common.
            let text = (0..<length).map { _ in
                Int.random(in: 0..<4, using: &rng) == 0 ? alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] : 0x61
            }
            let separator: UInt8 = round % 2 == 0 ? 0x2C : 0x09
            let start = length == 0 ? 0 : Int.random(in: 0..<length, using: &rng)
            var end = start, plain = true, ascii = true
            while end < length {
                let b = text[end]
                if b == separator || b == 0x0A || b == 0x0D { break }
                if b == 0x22 || b == 0x5C || b < 0x20 || b == 0xE2 { plain = false }
                if b >= 0x80 { ascii = false }
                end += 1
            }
            let found = text.withUnsafeBufferPointer {
                CSVReader.unquotedEnd($0.baseAddress ?? UnsafePointer(bitPattern: 8)!, from: start, count: length, separator: separator)
            }
            #expect(found.end == end && found.plain == plain && found.ascii == ascii, "round \(round): \(text) from \(start)")
        }
    }
}
