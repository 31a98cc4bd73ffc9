import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// `--yaml-version kubernetes`: plain scalars as Kubernetes reads them, which is as
/// sigs.k8s.io/yaml's `YAMLToJSON` writes them: go-yaml v2 resolves the scalar (gopkg.in/yaml.v2
/// 2.4.0, resolve.go), and Go's JSON writer writes it. Each expectation is what `YAMLToJSON`
/// gave for the scalar (sigs.k8s.io/yaml 1.3.0 over yaml.v2 2.4.0, run with Go 1.19).
@Suite struct YAMLKubernetesTests {
    /// A plain scalar, and the JSON of its value.
    static let cases: [(String, String)] = [
        // The fixed list (resolve.go:37-46), found only for a first byte in yYnNtTfFoO~
        // (resolve.go:24-31, 114-122): exact spellings, not any case.
        ("y", "true"), ("Y", "true"), ("yes", "true"), ("Yes", "true"), ("YES", "true"), ("on", "true"), ("On", "true"),
        ("ON", "true"), ("true", "true"), ("True", "true"), ("TRUE", "true"), ("n", "false"), ("N", "false"), ("no", "false"),
        ("No", "false"), ("NO", "false"), ("off", "false"), ("Off", "false"), ("OFF", "false"), ("False", "false"),
        ("yEs", #""yEs""#), ("oN", #""oN""#), ("tRUE", #""tRUE""#), ("~", "null"), ("null", "null"), ("NULL", "null"),
        ("nULL", #""nULL""#), ("+.nan", #""+.nan""#), (".iNf", #"".iNf""#), ("Inf", #""Inf""#), ("NaN", #""NaN""#),
        // Integers: strconv.ParseInt(s, 0, 64) once every _ is dropped, then ParseUint
        // (resolve.go:139-162).
        ("0", "0"), ("-0", "0"), ("+0", "0"), ("00", "0"), ("+12", "12"), ("-12", "-12"), ("012", "10"), ("0644", "420"),
        ("-0644", "-420"), ("+0644", "420"), ("0_644", "420"), ("0o14", "12"), ("0O14", "12"), ("-0o14", "-12"), ("0x1F", "31"),
        ("0X1F", "31"), ("-0x1F", "-31"), ("+0x1F", "31"), ("0x_1F", "31"), ("0b101", "5"), ("0B101", "5"), ("-0b101", "-5"),
        ("0b1_0", "2"), ("1_000", "1000"), ("1__000", "1000"), ("1_000_", "1000"), ("-_1", "-1"), ("1_", "1"),
        ("0o", #""0o""#), ("0x", #""0x""#), ("0xG", #""0xG""#), ("0b", #""0b""#), ("0b2", #""0b2""#), ("_1000", #""_1000""#),
        ("1,000", #""1,000""#), ("--1", #""--1""#), ("+-1", #""+-1""#),
        // 64 bits: int64, then uint64 without a sign; beyond, a float if it looks like one.
        ("9223372036854775807", "9223372036854775807"), ("9223372036854775808", "9223372036854775808"),
        ("-9223372036854775808", "-9223372036854775808"), ("-9223372036854775809", "-9223372036854776000"),
        ("+9223372036854775808", "9223372036854776000"), ("18446744073709551615", "18446744073709551615"),
        ("18446744073709551616", "18446744073709552000"), ("99999999999999999999999", "1e+23"),
        ("0xFFFFFFFFFFFFFFFF", "18446744073709551615"), ("-0x8000000000000000", "-9223372036854775808"),
        ("0x10000000000000000", #""0x10000000000000000""#), ("-0x8000000000000001", #""-0x8000000000000001""#),
        ("0777777777777777777777777", "7.777777777777778e+23"),
        ("0o7777777777777777777777777", #""0o7777777777777777777777777""#),
        // Floats: yamlStyleFloat (resolve.go:84, 163-168), or ParseFloat for a leading dot
        // (resolve.go:132-137); the nearest float64, written as encoding/json writes it.
        ("08", "8"), ("09", "9"), ("0128", "128"), ("1.5", "1.5"), ("1.50", "1.5"), ("+1.5", "1.5"), ("1.", "1"), ("-1.", "-1"),
        (".5", "0.5"), ("-.5", "-0.5"), ("+.5", "0.5"), ("00.5", "0.5"), ("1e3", "1000"), ("1E3", "1000"), ("1e+3", "1000"),
        ("1e-3", "0.001"), ("1.5e3", "1500"), (".5e3", "500"), ("1.e3", "1000"), ("1_0.5", "10.5"), ("1.5_5", "1.55"),
        (".5_5", "0.55"), ("1e1_0", "10000000000"), ("1e00000000001", "10"), ("-0.0", "-0"), ("1e-400", "0"),
        ("1.0e-7", "1e-7"), ("0.0000001", "1e-7"), ("1.5e-5", "0.000015"), ("1e21", "1e+21"), ("1e20", "100000000000000000000"),
        ("0.1000000000000000055511151231257827", "0.1"), ("3.14159265358979323846264338327950288", "3.141592653589793"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"), ("5e-324", "5e-324"),
        (".", #"".""#), ("-.", #""-.""#), ("._5", #""._5""#), ("1e", #""1e""#), ("1e+", #""1e+""#), ("1e400", #""1e400""#),
        ("-1e400", #""-1e400""#), ("1e309", #""1e309""#), ("0x1p3", #""0x1p3""#),
        // No base 60 (resolve.go:124-126).
        ("1:30", #""1:30""#), ("12:30", #""12:30""#), ("-1:30", #""-1:30""#), ("190:20:30.15", #""190:20:30.15""#),
        // Timestamps decode as the string they are (decode.go:474-479).
        ("2001-12-14", #""2001-12-14""#), ("2001-12-14T21:59:43Z", #""2001-12-14T21:59:43Z""#),
        ("2001-12-14 21:59:43.10", #""2001-12-14 21:59:43.10""#),
    ]

    /// A plain mapping key, and the member name `YAMLToJSON` gives it (nil: it refuses the
    /// key). A key resolves as a value does; sigs.k8s.io/yaml names a boolean `true` or
    /// `false`, an integer in decimal, a float by `FormatFloat(f, 'g', -1, 32)`, and refuses
    /// null and uint64 keys (yaml.go, `convertToJSONableObject`); `<<` merges (decode.go,
    /// `isMerge`), which listdiff refuses.
    static let keys: [(String, String?)] = [
        ("yes", "true"), ("y", "true"), ("Off", "false"), ("True", "true"), ("0x10", "16"), ("0644", "420"), ("1_000", "1000"),
        ("-0", "0"), ("1.0", "1"), ("1e6", "1e+06"), ("1000000", "1000000"), ("123456.7", "123456.7"),
        ("1234567.8", "1.2345678e+06"), ("0.1", "0.1"), ("0.0001", "0.0001"), ("0.00001", "1e-05"),
        ("3.14159265358979", "3.1415927"), ("16777217", "16777217"), ("16777217.0", "1.6777216e+07"), ("-0.0", "-0"),
        ("1e39", ".inf"), (".inf", ".inf"), ("-.Inf", "-.inf"), (".NaN", ".nan"), ("5e-324", "0"), ("12:30", "12:30"),
        ("yEs", "yEs"), ("name", "name"), ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775809", "-9.223372e+18"), ("null", nil), ("~", nil), ("9223372036854775808", nil), ("<<", nil),
    ]

    static func reader() -> YAMLReader {
        var reader = YAMLReader()
        reader.version = .kubernetes
        return reader
    }

    @Test func plainScalarsReadAsKubernetesReadsThem() throws {
        let text = Self.cases.map { "- " + $0.0 }.joined(separator: "\n") + "\n"
        guard case .array(let values) = try Self.reader().read(Array(text.utf8), name: "t.yaml").0 else {
            Issue.record("not a list")
            return
        }
        for ((scalar, json), value) in zip(Self.cases, values) {
            #expect(JSONWriter.compact(value) == json, "\(scalar)")
        }
        // Quoted, they are strings.
        let quoted = Self.cases.map { "- '" + $0.0 + "'" }.joined(separator: "\n") + "\n"
        #expect(try Self.reader().read(Array(quoted.utf8), name: "t.yaml").0 == .array(Self.cases.map { .string($0.0) }))
    }

    /// `.inf` and `.nan`, which Go's JSON writer refuses (so Kubernetes refuses the
    /// manifest), are read as in YAML 1.1.
    @Test func infinitiesAreNumbersAsIn11() throws {
        let value = try Self.reader().read(Array("[.inf, -.Inf, +.INF, .NaN]".utf8), name: "t.yaml").0
        #expect(value == .array([".inf", "-.inf", ".inf", ".nan"].map { .number(Number(text: $0)) }))
    }

    @Test func mappingKeysAreNamedAsKubernetesNamesThem() throws {
        for (key, name) in Self.keys {
            let text = "\(key): 1\n'\(key)': 2\n"
            if let name, name == key {
                // The same name twice: a duplicate key.
                #expect(throws: ListDiffError.self, "\(key)") { try Self.reader().read(Array(text.utf8), name: "t.yaml") }
            } else if let name {
                let value = try Self.reader().read(Array(text.utf8), name: "t.yaml").0
                #expect(value == .object(Object([.init(key: name, value: 1), .init(key: key, value: 2)])), "\(key)")
            } else {
                #expect(throws: ListDiffError.self, "\(key)") { try Self.reader().read(Array(text.utf8), name: "t.yaml") }
            }
        }
        // YAML 1.1 and 1.2 keep a key's text.
        #expect(try YAMLReader().read(Array("yes: 1\n0x10: 2\n".utf8), name: "t.yaml").0 == ["yes": 1, "0x10": 2])
    }

    /// Keys that name one member are a duplicate, as they are to Kubernetes' strict reader.
    @Test func keysThatResolveAlikeAreDuplicates() throws {
        #expect {
            try Self.reader().read(Array("on: 1\ntrue: 2\n".utf8), name: "t.yaml")
        } throws: { error in
            "\(error)" == "t.yaml:2:1: error: duplicate mapping key 'true' (first at line 1, column 1)"
        }
    }

    @Test func refusedKeysSayWhy() throws {
        let refusals = [
            ("<<: {a: 1}\n", "a merge key (<<) is not supported"), ("x:\n  null: 1\n", "a mapping key that is null"),
            ("9223372036854775808: 1\n", "beyond 64-bit signed range"), ("!!merge <<: {a: 1}\n", "a merge key (<<)"),
            ("!!null '': 1\n", "a mapping key that is null"),
        ]
        for (text, message) in refusals {
            #expect {
                try Self.reader().read(Array(text.utf8), name: "t.yaml")
            } throws: { error in
                "\(error)".contains(message) && "\(error)".hasPrefix("t.yaml:")
            }
        }
        // A quoted "<<" is a key like another, and so is a plain one in YAML 1.1 and 1.2.
        #expect(try Self.reader().read(Array("'<<': 1\n".utf8), name: "t.yaml").0 == ["<<": 1])
        #expect(try YAMLReader().read(Array("<<: 1\n".utf8), name: "t.yaml").0 == ["<<": 1])
    }

    /// Tags as go-yaml v2 checks them: `!!int` takes an integer only, `!!float` makes an
    /// integer a float64 (resolve.go:90-109); a tagged key is named by its value.
    @Test func taggedScalars() throws {
        let text = "[!!float 9007199254740993, !!int '12', !!float '1.5', !!str 12, !!bool yes, !!null '']\n"
        let value = try Self.reader().read(Array(text.utf8), name: "t.yaml").0
        #expect(JSONWriter.compact(value) == #"[9007199254740992,12,1.5,"12",true,null]"#)
        for bad in ["!!int 1.5", "!!int 0x", "!!float yes", "!!float 18446744073709551615"] {
            #expect(throws: ListDiffError.self, "\(bad)") { try Self.reader().read(Array("- \(bad)\n".utf8), name: "t.yaml") }
        }
        #expect(try Self.reader().read(Array("!!int '0x10': 1\n!!bool 'on': 2\n".utf8), name: "t.yaml").0 == ["16": 1, "true": 2])
    }

    /// The engine hashes what the reader reads: a file of the spellings diffs as the same as
    /// one of their JSON values, and a key spelt two ways is one key.
    @Test func theEngineReadsAsTheReaderDoes() throws {
        let old = YAML11Tests.records(Self.cases.map(\.0)) { "0x" + String($0, radix: 16) }
        let new = YAML11Tests.records(Self.cases.map(\.1))
        let same = try YAML11Tests.diff(old, new, .kubernetes)
        #expect(same.isEmpty, "\(same.changes.map(\.key))")
        #expect(same.layout.yamlVersion == .kubernetes)
        #expect(try YAML11Tests.diff(old, new, .v1_1).summary.updated > 10)
    }

    /// The changeset records the version; read back, it applies to OLD read the same way,
    /// with a plain reader: `12:30` and `"12:30"` are one string, so only `replicas` changed.
    /// A `yaml_version` listdiff does not know is refused, by name.
    @Test func theChangesetRecordsItAndApplyReadsOLDSo() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = dir.appendingPathComponent("old.yaml"), new = dir.appendingPathComponent("new.yaml")
        try "kind: Job\nmetadata:\n  name: a\nspec:\n  time: 12:30\n  mode: 0644\n  on: 1\n  replicas: 1\n".write(
            to: old, atomically: true, encoding: .utf8)
        try "kind: Job\nmetadata:\n  name: a\nspec:\n  time: '12:30'\n  mode: 420\n  'true': 1\n  replicas: 2\n".write(
            to: new, atomically: true, encoding: .utf8)
        var differ = FileDiffer(key: Preset.kubernetes.key)
        differ.reader.yaml.version = .kubernetes
        let changeset = try differ.diff(old: old.path, new: new.path).changeset
        #expect(changeset.changes.map { $0.fields.map(\.path) } == [["/spec/replicas"]])
        let json = try ApplyTests.changesetJSON(changeset)
        #expect(json.contains(#""layout": {"path": null, "format": "yaml", "yaml_version": "kubernetes", "shape": "list"}"#), "\(json)")
        #expect(json.hasPrefix("{\n  \"version\": 2,"))
        let read = try ChangesetReader().read(Array(json.utf8), name: "c.json")
        #expect(read.layout.yamlVersion == .kubernetes)
        let applier = try FileApplier(changeset: read, old: old.path, reader: DocumentReader(key: read.key))
        #expect(
            EngineTests.written(applier, .yaml)
                == "kind: Job\nmetadata:\n  name: a\nspec:\n  time: \"12:30\"\n  mode: 420\n  \"true\": 1\n  replicas: 2\n")
        // Asked for the version it records, apply reads OLD so; asked for another, it refuses.
        let agreeing = ReadingRequest(format: .yaml, yamlVersion: .kubernetes)
        #expect(try FileApplier(changeset: read, old: old.path, reader: DocumentReader(key: read.key), asked: agreeing).count == 1)
        #expect(
            throws: ListDiffError(
                .usage, "YAML version 1.2 was asked for, but the changeset records kubernetes; apply reads OLD as the changeset says")
        ) {
            try FileApplier(
                changeset: read, old: old.path, reader: DocumentReader(key: read.key), asked: ReadingRequest(yamlVersion: .v1_2))
        }
        // Under YAML 1.1, 12:30 is 750 and `on` is a member of its own.
        differ.reader.yaml.version = .v1_1
        let other = try differ.diff(old: old.path, new: new.path).changeset
        #expect(other.changes.map { $0.fields.map(\.path) } == [["/spec/time", "/spec/on", "/spec/replicas", "/spec/true"]])
        let unknown = json.replacingOccurrences(of: #""yaml_version": "kubernetes""#, with: #""yaml_version": "k8s""#)
        #expect {
            try ChangesetReader().read(Array(unknown.utf8), name: "c.json")
        } throws: { error in
            "\(error)".contains(#""yaml_version" must be "1.1", "1.2" or "kubernetes""#)
        }
    }

    /// A string that YAML 1.2, YAML 1.1 or Kubernetes would read as another type is written
    /// quoted, as a value and as a member name, so that each reads it back as the string.
    @Test func theWriterQuotesWhatAnyVersionMisreads() throws {
        let strings = Self.cases.map(\.0) + Self.keys.map(\.0) + YAML11Tests.cases.map(\.0)
        for text in strings {
            let written = try YAMLWriter.document(.object(Object([.init(key: text, value: .string(text))])))
            for version in YAMLVersion.allCases {
                var reader = YAMLReader()
                reader.version = version
                #expect(
                    try reader.read(Array(written.utf8), name: "w.yaml").0 == .object(Object([.init(key: text, value: .string(text))])),
                    "\(version): \(written)")
            }
        }
    }

    /// Random records whose values, keys and member names are spelt in ways the three
    /// versions read apart: the engine's changeset is the reference's (which reads values
    /// through `YAMLReader`), under each version.
    @Test func theEngineAgreesWithTheReference() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SplitMix64(seed: 0x6b38)
        let spellings = Self.cases.map(\.0) + ["0x10", "16", "1:30", "90", "yes", "true", "0644", "420", "1e3", "1000", "'1e3'"]
        // Spellings of one key each (under Kubernetes): a file's records take distinct ones.
        let ids = [
            ["1", "0x1", "01", "1.0", "+1"], ["2", "0b10", "2e0", "0o2"], ["3", "0X3", "3.", "0_3"], ["'4'", "\"4\""],
            ["y", "true", "On", "YES"], ["n", "Off", "false"], ["10", "012", "1_0", "10.0"], ["x", "'x'"], ["'12:30'", "12:30"],
        ]
        func file() -> String {
            let groups = ids.indices.shuffled(using: &rng).prefix(6)
            return groups.enumerated().map { record($0.offset, id: ids[$0.element].randomElement(using: &rng)!) }.joined(separator: "\n")
                + "\n"
        }
        func record(_ k: Int, id: String) -> String {
            var lines = ["- id: \(id)"]
            for f in 0..<Int.random(in: 1...3, using: &rng) {
                let value = spellings[Int.random(in: 0..<spellings.count, using: &rng)]
                lines.append("  f\(f): \(value)")
            }
            if Bool.random(using: &rng) { lines.append("  m: {\(["on", "off", "0x1F", "1.0", "k"][k % 5]): \(k)}") }
            return lines.joined(separator: "\n")
        }
        var agreed = 0
        for round in 0..<60 {
            let old = dir.appendingPathComponent("old-\(round).yaml"), new = dir.appendingPathComponent("new-\(round).yaml")
            try file().write(to: old, atomically: true, encoding: .utf8)
            try file().write(to: new, atomically: true, encoding: .utf8)
            for version in YAMLVersion.allCases {
                for duplicates in DuplicatePolicy.allCases {
                    let configure: (inout FileDiffer) -> Void = { $0.reader.yaml.version = version }
                    let engine = EngineTests.run(old, new, engine: true, key: ["id"], duplicates: duplicates, configure: configure)
                    let reference = EngineTests.run(old, new, engine: false, key: ["id"], duplicates: duplicates, configure: configure)
                    #expect(engine == reference, "round \(round), \(version), \(duplicates)")
                    if engine == reference, !engine.hasPrefix("error") { agreed += 1 }
                }
            }
        }
        // Most pairs are diffed, not refused.
        #expect(agreed > 300)
    }
}
