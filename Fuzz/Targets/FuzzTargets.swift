// libFuzzer targets for ListDiffKit, built only by Fuzz/run (see Fuzz/README.md).
// LISTDIFF_FUZZ_TARGET picks one: json, yaml, yamlscanner, changeset or roundtrip. A crash, a hang or
// a failed check (a trap) is a finding; everything else must end in a value or an error.
@testable import ListDiffKit
import ListDiffKitTestSupport

enum Target: String {
    case json, yaml, yamlscanner, changeset, roundtrip
}

nonisolated(unsafe) var target: Target = {
    let name = SystemCalls.environment("LISTDIFF_FUZZ_TARGET") ?? "json"
    guard let target = Target(rawValue: name) else { fatalError("LISTDIFF_FUZZ_TARGET: json, yaml, yamlscanner, changeset or roundtrip") }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let problem: String?
    switch target {
    case .json: problem = SelfCheck.read(bytes, .json)
    case .yaml: problem = SelfCheck.read(bytes, .yaml)
    case .yamlscanner: problem = SelfCheck.yamlScanner(bytes)
    case .changeset: problem = SelfCheck.changeset(bytes)
    case .roundtrip: problem = SelfCheck.roundTrip(bytes)
    }
    if let problem { fatalError(problem) }
    return 0
}

// SwiftPM links an executable's entry point as `main`; libFuzzer's driver runs from it.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

@_cdecl("listdiff_fuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return runDriver(&count, &arguments) { data, size in fuzz(data, size) }
}
