import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Every input the fuzzer once found wrong (Fuzz/Regressions/TARGET/), checked again as its
/// target checks it.
@Suite struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Regressions")

    static func cases() throws -> [(target: String, file: URL)] {
        var out: [(String, URL)] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let dir = folder.appendingPathComponent(target)
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() {
                out.append((target, dir.appendingPathComponent(name)))
            }
        }
        return out
    }

    @Test func pinnedInputsPass() throws {
        let cases = try Self.cases()
        #expect(!cases.isEmpty)
        for (target, file) in cases {
            let bytes = Array(try Data(contentsOf: file))
            let problem: String?
            switch target {
            case "json": problem = SelfCheck.read(bytes, .json)
            case "yaml": problem = SelfCheck.read(bytes, .yaml)
            case "yamlscanner": problem = SelfCheck.yamlScanner(bytes)
            case "changeset": problem = SelfCheck.changeset(bytes)
            case "roundtrip": problem = SelfCheck.roundTrip(bytes)
            default: problem = "unknown target \(target)"
            }
            #expect(problem == nil, "\(target)/\(file.lastPathComponent): \(problem ?? "")")
        }
    }
}
