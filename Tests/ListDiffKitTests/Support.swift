import Foundation
import Testing
@testable import ListDiffKit

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

/// A small, fast, seedable generator, so that every random test can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
