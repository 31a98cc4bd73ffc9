import Foundation
import Testing

/// The hostile shapes of the growth test, in every format that can hold them: wide records,
/// long lines, nesting near the limit, many small sections, long strings, long keys, many
/// aliases and many documents. As in `GrowthTests`, the built binary diffs a case of size N
/// and one of size 4N, and the larger may cost at most 8 times the CPU time of the smaller
/// (linear growth costs 4 times, quadratic 16).
///
/// CSV has no nesting and no sections, and only YAML has aliases and documents: those pairs
/// are not made.
@Suite(.serialized) struct ShapeGrowthTests {
    enum Format: String, CaseIterable {
        case json, ndjson, yaml, csv
    }

    enum Shape: String, CaseIterable {
        /// Ten records of N members each (N columns in CSV), a tenth of them changed.
        case wideRecords
        /// N records on one line (JSON and YAML flow lists); ten lines each holding a list of
        /// N numbers (NDJSON); ten rows each holding one quoted cell of N commas and quotes
        /// (CSV).
        case longLines
        /// N / 50 records, each holding a list nested 990 deep, a tenth of them changed.
        case deepNesting
        /// N / 2 sections of two records each.
        case manySections
        /// Ten records, each with a string of 10N characters (escapes among them) changed in
        /// its middle.
        case longStrings
        /// Ten records keyed by strings of 10N characters that differ only at their ends,
        /// with a member name as long.
        case longKeys
        /// N YAML records, each using the anchors of the first.
        case manyAliases
        /// A YAML stream of N documents.
        case manyDocuments
        /// N block-style YAML records as dumpers write them, which listdiff's own scanner
        /// reads.
        case blockRecords
        /// The same with an anchor in the last record: the own scanner reads up to it, then
        /// libyaml reads the whole input again.
        case lateFallback
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var shape: Shape
        var format: Format
        var testDescription: String { "\(shape.rawValue) in \(format.rawValue)" }
    }

    static let cases: [Case] = Shape.allCases.flatMap { shape in
        Format.allCases.compactMap { format in
            switch (shape, format) {
            case (.deepNesting, .csv), (.manySections, .csv): return nil
            case (.manyAliases, let f), (.manyDocuments, let f), (.blockRecords, let f), (.lateFallback, let f):
                return f == .yaml ? Case(shape: shape, format: f) : nil
            default: return Case(shape: shape, format: format)
            }
        }
    }

    /// The size N of a shape's smaller case.
    static func size(_ shape: Shape) -> Int {
        switch shape {
        case .wideRecords, .longLines, .manySections, .manyAliases, .manyDocuments: 5_000
        case .deepNesting: 2_500
        case .longStrings, .longKeys, .blockRecords, .lateFallback: 20_000
        }
    }

    /// OLD's or NEW's text of size `n`.
    static func text(_ c: Case, _ n: Int, new: Bool) -> String {
        // A changed value: NEW's differs from OLD's in one of every ten.
        func value(_ k: Int) -> Int { new && k % 10 == 3 ? k + 1 : k }
        switch c.shape {
        case .wideRecords:
            let records = (0..<10).map { r in [("id", r)] + (0..<n).map { ("f\($0)", value($0 + r)) } }
            return document(c.format, records.map { $0.map { ($0.0, "\($0.1)") } })
        case .longLines:
            switch c.format {
            case .json: return "[" + (0..<n).map { "{\"id\": \($0), \"v\": \(value($0))}" }.joined(separator: ", ") + "]\n"
            case .yaml: return "[" + (0..<n).map { "{id: \($0), v: \(value($0))}" }.joined(separator: ", ") + "]\n"
            case .ndjson:
                return (0..<10).map { r in "{\"id\": \(r), \"v\": [" + (0..<n).map { "\(value($0 + r))" }.joined(separator: ",") + "]}\n" }
                    .joined()
            case .csv:
                return "id,v\n"
                    + (0..<10).map { r in
                        "\(r),\"" + String(repeating: "a,\"\"b\"\" ", count: n / 10) + "\(value(r + 3))\"\n"
                    }.joined()
            }
        case .deepNesting:
            let records = (0..<(n / 50)).map { r in
                [("id", "\(r)"), ("v", String(repeating: "[", count: 990) + "\(value(r))" + String(repeating: "]", count: 990))]
            }
            return document(c.format, records)
        case .manySections:
            let sections = (0..<(n / 2)).map { s in (0..<2).map { k in [("id", "\(2 * s + k)"), ("v", "\(value(2 * s + k))")] } }
            switch c.format {
            case .json:
                return "{\n" + sections.enumerated().map { "\"s\($0)\": " + list($1) }.joined(separator: ",\n") + "\n}\n"
            case .ndjson:
                return sections.enumerated().map { "{\"name\": \"s\($0)\", \"items\": " + list($1) + "}\n" }.joined()
            case .yaml:
                return sections.enumerated().map { s, records in
                    "s\(s):\n" + records.map { "  - " + $0.map { "\($0.0): \($0.1)" }.joined(separator: "\n    ") + "\n" }.joined()
                }.joined()
            case .csv: fatalError("CSV has no sections")
            }
        case .longStrings:
            let records = (0..<10).map { r in
                let half = String(repeating: "word\\t\(r) \\\"q\\\" é ", count: n / 20)
                return [("id", "\(r)"), ("s", "\"" + half + (new && r % 3 == 0 ? "CHANGED" : "same") + half + "\"")]
            }
            return document(c.format, records)
        case .longKeys:
            let name = String(repeating: "m", count: 10 * n)
            let records = (0..<10).map { r in
                [("id", "\"" + String(repeating: "k", count: 10 * n) + "\(r)\""), (name, "\(value(r + 3))")]
            }
            return document(c.format, records)
        case .manyAliases:
            return "- id: 0\n  tags: &t [a, b, c]\n  meta: &m {owner: x, level: 1}\n"
                + (1..<n).map { "- id: \($0)\n  tags: *t\n  meta: *m\n  v: \(value($0))\n" }.joined()
        case .manyDocuments:
            return (0..<n).map { "---\nid: \($0)\nv: \(value($0))\n" }.joined()
        case .blockRecords, .lateFallback:
            let records = (0..<n).map {
                "- id: \($0)\n  name: \"user \($0)\"\n  tags:\n  - a\n  - 'b'\n  meta:  # owner\n    owner: x\n    v: \(value($0))\n"
            }
            return records.joined() + (c.shape == .lateFallback ? "- id: \(n)\n  ref: &a x\n" : "")
        }
    }

    /// Records of (member, value as JSON text) as a JSON list, NDJSON, a YAML block list (the
    /// values in flow style, which JSON text is) or CSV (the values as cells).
    static func document(_ format: Format, _ records: [[(String, String)]]) -> String {
        func object(_ r: [(String, String)]) -> String { "{" + r.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}" }
        switch format {
        case .json: return "[\n" + records.map(object).joined(separator: ",\n") + "\n]\n"
        case .ndjson: return records.map { object($0) + "\n" }.joined()
        case .yaml:
            // (A key longer than YAML's 1024 characters for a plain key is written explicit.)
            func member(_ m: (String, String)) -> String { m.0.count > 1000 ? "? \(m.0)\n  : \(m.1)" : "\(m.0): \(m.1)" }
            return records.map { "- " + $0.map(member).joined(separator: "\n  ") + "\n" }.joined()
        case .csv:
            func cell(_ text: String) -> String {
                guard text.hasPrefix("\"") else { return text }
                // A JSON string's text as a quoted CSV cell (its own quotes doubled).
                return "\"" + text.dropFirst().dropLast().replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
            return records[0].map(\.0).joined(separator: ",") + "\n"
                + records.map { $0.map { cell($0.1) }.joined(separator: ",") + "\n" }.joined()
        }
    }

    static func list(_ records: [[(String, String)]]) -> String {
        "[" + records.map { "{" + $0.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}" }.joined(separator: ", ") + "]"
    }

    /// Writes OLD and NEW of size `n`; the arguments that diff them.
    static func write(_ c: Case, _ n: Int, in dir: URL) throws -> [String] {
        let old = dir.appendingPathComponent("old-\(n).\(c.format.rawValue)")
        let new = dir.appendingPathComponent("new-\(n).\(c.format.rawValue)")
        try text(c, n, new: false).write(to: old, atomically: true, encoding: .utf8)
        try text(c, n, new: true).write(to: new, atomically: true, encoding: .utf8)
        return ["-f", "json", old.path, new.path]
    }

    @Test(arguments: cases) func growsLinearly(_ c: Case) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let n = Self.size(c.shape)
        // Each case must be read and must differ, or it measures an error's path.
        let check = try Binary.run(try Self.write(c, n, in: dir))
        #expect(check.status == 1, "\(c): \(check.stderr)")
        let smallRun = try GrowthTests.cpuSeconds(try Self.write(c, n, in: dir), in: dir)
        let largeRun = try GrowthTests.cpuSeconds(try Self.write(c, 4 * n, in: dir), in: dir)
        #expect(largeRun <= 8 * max(smallRun, 0.005), "\(c): N = \(n) took \(smallRun) s of CPU, 4N took \(largeRun) s")
    }
}
