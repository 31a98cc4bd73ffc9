import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Where the conformance data lives: `Tests/Conformance` in the repository (vendored, with
/// its licences and origin), or `LISTDIFF_CONFORMANCE`.
enum Paths {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static var conformance: URL {
        if let env = ProcessInfo.processInfo.environment["LISTDIFF_CONFORMANCE"] {
            return URL(fileURLWithPath: env)
        }
        return repository.appendingPathComponent("Tests/Conformance")
    }

    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
}

func bytes(_ url: URL) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: url))
}

func json(_ text: String) throws -> Value {
    try JSONReader().value(Array(text.utf8))
}

/// Compares `actual` with the golden file `name`; records it when missing or when
/// `RECORD_GOLDEN=1` is set.
func assertGolden(_ actual: String, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let url = Paths.golden.appendingPathComponent(name)
    let record = ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1"
    if record || !FileManager.default.fileExists(atPath: url.path) {
        try actual.write(to: url, atomically: true, encoding: .utf8)
        Issue.record("recorded golden file \(name); run again to compare", sourceLocation: sourceLocation)
        return
    }
    let expected = try String(contentsOf: url, encoding: .utf8)
    #expect(actual == expected, "differs from golden file \(name) (RECORD_GOLDEN=1 to re-record)", sourceLocation: sourceLocation)
}
