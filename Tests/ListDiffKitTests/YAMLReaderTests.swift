import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

@Suite struct YAMLReaderTests {
    func load(_ text: String) throws(ListDiffError) -> Value {
        try YAMLReader().read(Array(text.utf8), name: "t.yaml").0
    }

    @Test func coreSchemaScalars() throws {
        let value = try load(
            """
            - yes
            - no
            - on
            - true
            - False
            - ~
            -
            - 0o14
            - 0x1F
            - 0xFFFFFFFFFFFFFFFFFFFF
            - +12
            - 007
            - .5
            - 1.
            - -.inf
            - .nan
            - '12'
            - !!str 13
            - ! 14
            - 2001-12-14
            """)
        let expected = try json(
            """
            ["yes","no","on",true,false,null,null,12,31,1208925819614629174706175,12,7,0.5,1.0,"-.inf",".nan","12","13","14","2001-12-14"]
            """)
        guard case .array(var items) = value, case .array(var want) = expected else { Issue.record("not lists"); return }
        // JSON has no infinity or NaN: compare those apart.
        #expect(items[14] == .number(Number(text: "-.inf")))
        #expect(items[15] == .number(Number(text: ".NaN")))
        items.removeSubrange(14...15)
        want.removeSubrange(14...15)
        #expect(Value.array(items) == Value.array(want))
    }

    @Test func octalAndHexadecimalIntegersAreExactAndBounded() throws {
        #expect(YAMLNumbers.convert(ArraySlice(Array("ff".utf8)), radix: 16) == "255")
        #expect(YAMLNumbers.convert(ArraySlice(Array("0000777".utf8)), radix: 8) == "511")
        #expect(YAMLNumbers.convert(ArraySlice(Array("0".utf8)), radix: 16) == "0")
        #expect(YAMLNumbers.convert(ArraySlice(Array("8".utf8)), radix: 8) == nil)
        // 16^40 and 8^50 - 1, across many nine-digit limbs.
        #expect(
            YAMLNumbers.convert(ArraySlice(Array(("1" + String(repeating: "0", count: 40)).utf8)), radix: 16)
                == "1461501637330902918203684832716283019655932542976")
        #expect(
            YAMLNumbers.convert(ArraySlice(Array(String(repeating: "7", count: 50).utf8)), radix: 8)
                == "1427247692705959881058285969449495136382746623")
        // The longest hexadecimal integer read as a number, and one digit more.
        let hex = String(repeating: "F", count: 4096)
        let value = try load("- 0x\(hex)\n- 0x\(hex)0\n")
        guard case .array(let items) = value, case .number(let n) = items[0], case .string(let s) = items[1] else {
            Issue.record("\(value)")
            return
        }
        // 16^4096 - 1 has 4933 decimal digits (these are its first 60); one digit more is a string.
        #expect(n.text.count == 4933 && n.text.hasPrefix("118973149535723176508575932662800713076344468709651023747267"))
        #expect(s == "0x" + hex + "0")
    }

    @Test func aliasesAreBudgetedByTheirTextToo() throws {
        let text = "- &a \"" + String(repeating: "x", count: 100) + "\"\n- *a\n- *a\n- *a\n"
        #expect(throws: Never.self) { try YAMLReader(maxAliasBytes: 300).read(Array(text.utf8), name: "t.yaml") }
        #expect(
            throws: ListDiffError(
                .limit, file: "t.yaml", location: SourceLocation(line: 4, column: 3),
                "aliases expand to more than 250 bytes of text; refusing (possible alias bomb)")
        ) {
            try YAMLReader(maxAliasBytes: 250).read(Array(text.utf8), name: "t.yaml")
        }
    }

    @Test func duplicateKeysAreRefusedWithBothPlaces() {
        #expect {
            _ = try load("a: 1\nb: 2\na: 3\n")
        } throws: { error in
            "\(error)" == "t.yaml:3:1: error: duplicate mapping key 'a' (first at line 1, column 1)"
        }
    }

    /// libyaml's marks do not count a byte order mark: a record after one is placed where
    /// it is (the second of a key given twice, on line 3 at column 3), in ASCII text and not.
    @Test func aByteOrderMarkMovesNoPlace() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.yaml"), new = dir.appendingPathComponent("new.yaml")
        try "- id: 2\n".write(to: new, atomically: true, encoding: .utf8)
        for lead in ["", "\u{FEFF}"] {
            for text in ["x", "é"] {
                try (lead + "- id: 1\n  n: \(text)\n- id: 1\n").write(to: old, atomically: true, encoding: .utf8)
                let result = EngineTests.run(old, new, engine: true, key: ["id"])
                #expect(result.contains("old.yaml:3:3: error: duplicate key id=1"), "\(lead.isEmpty ? "" : "BOM, ")\(text): \(result)")
            }
        }
    }

    @Test func aliasesExpandWithinABudget() throws {
        #expect(try load("a: &x [1, 2]\nb: *x\n") == json(#"{"a":[1,2],"b":[1,2]}"#))
        var bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        for (k, name) in "bcdefghi".enumerated() {
            let prev = Array("abcdefghi")[k]
            bomb += "\(name): &\(name) [" + Array(repeating: "*\(prev)", count: 10).joined(separator: ", ") + "]\n"
        }
        #expect(throws: ListDiffError.self) { _ = try load(bomb) }
        #expect(throws: ListDiffError.self) { _ = try load("a: *nope\n") }
    }

    @Test func nestingLimitIsEnforcedWhileParsing() throws {
        let deep = String(repeating: "[", count: 100_000)
        #expect {
            _ = try load(deep)
        } throws: { error in
            "\(error)".contains("nesting is deeper than the limit of 1000")
        }
        let ok = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        _ = try load(ok)
    }

    @Test func syntaxErrorsArePositioned() {
        #expect {
            _ = try load("- a\n- b: [1, 2\n")
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("t.yaml:3:1: error: ") && !text.contains("\n")
        }
    }

    /// No document is an error; several are a stream, one record per document.
    @Test func aStreamOfDocumentsIsAList() throws {
        #expect(throws: ListDiffError.self) { _ = try load("") }
        let (value, _) = try YAMLReader().read(Array("--- [1]\n--- [2]\n".utf8), name: "s.yaml")
        #expect(value == .array([.array([1]), .array([2])]))
    }

    @Test func recordPositionsComeFromTheSource() throws {
        let text = "# people\n- id: 1\n  name: Ann\n- id: 2\n  name: Bob\n- id: 1\n"
        let (root, source) = try YAMLReader().read(Array(text.utf8), name: "p.yaml")
        #expect {
            _ = try Document.keyed(root, source: source, key: IdentityKey(parsing: []))
        } throws: { error in
            "\(error)" == "p.yaml:6:3: error: duplicate key id=1 (records 0 and 2; the first is at line 2, column 3)"
                && (error as? ListDiffError)?.hint == .matchDuplicates
        }
    }
}

/// `--yaml-version 1.1`: plain scalars as YAML 1.1 (and Kubernetes) read them, in values and
/// in the engine's hashes alike.
@Suite struct YAML11Tests {
    static let cases: [(String, Value)] = [
        ("yes", true), ("Yes", true), ("ON", true), ("y", true), ("n", false), ("Off", false), ("no", false), ("true", true),
        ("~", .null), ("0644", 420), ("-0644", -420), ("0b101", 5), ("0x1F", 31), ("1_000", 1000), ("1:30", 90),
        ("-1:30:00", -5400), ("190:20:30.15", 685230.15), ("1.5e+3", 1500), ("1.5", 1.5), (".5", 0.5), ("1.", 1.0), ("+12", 12),
        ("0", 0), ("1__", 1), ("153722867280912930:59", "153722867280912930:59"),
        // Strings in 1.1 that 1.2 reads otherwise, or that neither reads as numbers.
        ("1e3", "1e3"), ("0o14", "0o14"), ("08", "08"), ("1:60", "1:60"), ("0b2", "0b2"), ("_1", "_1"),
        ("yes please", "yes please"), ("Nope", "Nope"), (".", "."), ("1.5e3", "1.5e3"),
    ]

    @Test func plainScalarsReadAsYAML11() throws {
        var reader = YAMLReader()
        reader.version = .v1_1
        let text = Self.cases.map { "- " + $0.0 }.joined(separator: "\n") + "\n"
        let (value, _) = try reader.read(Array(text.utf8), name: "t.yaml")
        #expect(value == .array(Self.cases.map(\.1)))
        // Quoted, they are strings in either version.
        let quoted = Self.cases.map { "- '" + $0.0 + "'" }.joined(separator: "\n") + "\n"
        #expect(try reader.read(Array(quoted.utf8), name: "t.yaml").0 == .array(Self.cases.map { .string($0.0) }))
    }

    /// The engine hashes what the reader reads: two files equal under 1.1 diff as the same,
    /// and one that 1.2 reads otherwise differs only under 1.2.
    @Test func theEngineReadsAsTheReaderDoes() throws {
        let old = Self.records(Self.cases.map(\.0))
        let new = Self.records(Self.cases.map { JSONWriter.compact($0.1) })
        let same = try Self.diff(old, new, .v1_1)
        #expect(same.isEmpty, "\(same.changes.map(\.key))")
        #expect(same.layout.yamlVersion == .v1_1)
        let other = try Self.diff(old, new, .v1_2)
        #expect(other.summary.updated > 10)
        #expect(other.layout.yamlVersion == nil)
    }

    /// A YAML list of records `{id, v}`, each `v` one of `values` and its `id` its index,
    /// written by `id`.
    static func records(_ values: [String], id: (Int) -> String = { String($0) }) -> String {
        values.enumerated().map { "- id: \(id($0.offset))\n  v: \($0.element)" }.joined(separator: "\n") + "\n"
    }

    /// The engine's diff of two YAML texts keyed by `id`, read as `version`.
    static func diff(_ old: String, _ new: String, _ version: YAMLVersion) throws -> Changeset {
        var differ = FileDiffer(key: try IdentityKey(parsing: ["id"]))
        differ.reader.yaml.version = version
        return try differ.diff(old: Array(old.utf8), new: Array(new.utf8), oldName: "old.yaml", newName: "new.yaml")
    }

    /// A string either version would read as another type is written quoted.
    @Test func theWriterQuotesWhatEitherVersionMisreads() throws {
        var reader = YAMLReader()
        reader.version = .v1_1
        for (text, _) in Self.cases {
            let written = try YAMLWriter.document(.array([.string(text)]))
            #expect(try reader.read(Array(written.utf8), name: "w.yaml").0 == .array([.string(text)]), "\(written)")
            #expect(try YAMLReader().read(Array(written.utf8), name: "w.yaml").0 == .array([.string(text)]), "\(written)")
        }
    }
}
