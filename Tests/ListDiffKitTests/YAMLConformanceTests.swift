import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// yaml-test-suite (data-2022-01-17), judged as Tests/Conformance/README.md says: the
/// cases listdiff gets wrong must be exactly libyaml 0.2.5's known failures plus our own
/// deviations (`yaml-deviations.tsv`, each with its reason).
@Suite struct YAMLConformanceTests {
    static let suite = Paths.conformance.appendingPathComponent("yaml-test-suite")

    struct Case {
        let id: String
        let directory: URL
    }

    static func cases() throws -> [Case] {
        let data = suite.appendingPathComponent("data")
        let fm = FileManager.default
        var cases: [Case] = []
        for id in try fm.contentsOfDirectory(atPath: data.path).sorted() {
            let dir = data.appendingPathComponent(id)
            if fm.fileExists(atPath: dir.appendingPathComponent("in.yaml").path) {
                cases.append(Case(id: id, directory: dir))
            } else {
                for sub in try fm.contentsOfDirectory(atPath: dir.path).sorted() {
                    cases.append(Case(id: "\(id)/\(sub)", directory: dir.appendingPathComponent(sub)))
                }
            }
        }
        return cases
    }

    /// The case ids listed in the first column of a TSV file, skipping comments.
    static func listedIDs(_ url: URL) throws -> Set<String> {
        let text = try String(contentsOf: url, encoding: .utf8)
        return Set(
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }
                .compactMap { $0.split(separator: "\t").first.map(String.init) })
    }

    /// What we get wrong, with why.
    static func judge(_ c: Case) throws -> String? {
        let fm = FileManager.default
        let input = try bytes(c.directory.appendingPathComponent("in.yaml"))
        let isError = fm.fileExists(atPath: c.directory.appendingPathComponent("error").path)
        let loaded: Result<[Value], ListDiffError>
        do throws(ListDiffError) { loaded = .success(try YAMLReader().documents(input)) } catch { loaded = .failure(error) }
        switch (isError, loaded) {
        case (true, .success): return "error case accepted"
        case (true, .failure): return nil
        case (false, .failure(let error)): return "valid case rejected: \(error)"
        case (false, .success(let documents)):
            let expectedURL = c.directory.appendingPathComponent("in.json")
            guard fm.fileExists(atPath: expectedURL.path) else { return nil }
            let expected = try JSONReader().values(try bytes(expectedURL))
            return expected == documents
                ? nil : "loaded \(documents.map(JSONWriter.compact)) but expected \(expected.map(JSONWriter.compact))"
        }
    }

    @Test func failuresAreExactlyLibyamlsPlusDeliberateRefusals() throws {
        let cases = try Self.cases()
        #expect(cases.count == 402)
        var failures: [String: String] = [:]
        for c in cases {
            if let why = try Self.judge(c) { failures[c.id] = why }
        }
        let baseline = try Self.listedIDs(Self.suite.appendingPathComponent("libyaml-0.2.5-baseline.tsv"))
        let refusals = try Self.listedIDs(Paths.repository.appendingPathComponent("Tests/ListDiffKitTests/yaml-deviations.tsv"))
        #expect(baseline.count == 69)
        // The baseline was measured with yaml_parser_load(); through the event API, which
        // listdiff uses, libyaml accepts these two valid cases (the suite's README: 257 vs 255).
        let eventAPIPasses: Set = ["3GZX", "PW8X"]
        #expect(eventAPIPasses.isSubset(of: baseline))
        let baselineFailures = baseline.subtracting(eventAPIPasses)
        #expect(baseline.isDisjoint(with: refusals), "a deviation must not hide a libyaml failure")
        let unexpected = failures.filter { !baselineFailures.contains($0.key) && !refusals.contains($0.key) }
        #expect(
            unexpected.isEmpty,
            "failures beyond libyaml's and our refusals:\n\(unexpected.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)" }.joined(separator: "\n"))"
        )
        let fixed = baselineFailures.union(refusals).subtracting(failures.keys)
        #expect(fixed.isEmpty, "listed as failing but passing now (update the lists): \(fixed.sorted())")
    }
}
