import Foundation
import Testing

/// Programs that some tests run and that a machine may lack: cmark-gfm, tmux, git, taskset,
/// chromium, chromedriver and Python's selenium.
///
/// A missing program skips the test, with the reason printed, so that `swift test` passes on
/// a fresh machine. Under `CI=true` it fails the test instead, so that CI still proves what
/// the test checks (`.ci/run` installs every program named here).
enum Programs {
    /// The full path of `name`, found on `PATH`, or the test stops: skipped, or failed in CI.
    ///
    /// - Parameter package: the Debian package that installs it, named in the reason.
    static func require(_ name: String, package: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        if let path = find(name) { return path }
        let reason = "\(name) is not installed (apt-get install \(package); .ci/run installs it)"
        if ProcessInfo.processInfo.environment["CI"] == "true" { throw Missing(reason: reason + ", and CI must run this test") }
        FileHandle.standardError.write(Data("skipped: \(reason)\n".utf8))
        try Test.cancel(Comment(rawValue: "skipped: " + reason), sourceLocation: sourceLocation)
    }

    /// Goes on only as root (to mount a file system), or the test stops as `require` stops
    /// it: skipped with `reason`, or failed in CI.
    static func requireRoot(_ reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard getuid() != 0 else { return }
        if ProcessInfo.processInfo.environment["CI"] == "true" { throw Missing(reason: reason + ", and CI must run this test") }
        FileHandle.standardError.write(Data("skipped: \(reason)\n".utf8))
        try Test.cancel(Comment(rawValue: "skipped: " + reason), sourceLocation: sourceLocation)
    }

    /// Runs `tool` with `arguments`, its output as the test's own; its exit status.
    static func status(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A Python 3 that imports `module` (the one on `PATH`, else the system's), or the test
    /// stops as `require` stops it.
    static func requirePython(module: String, package: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let candidates = [find("python3"), "/usr/bin/python3"].compactMap { $0 }
        for python in candidates where FileManager.default.isExecutableFile(atPath: python) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-c", "import " + module]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus == 0 { return python }
        }
        return try require("python3 with \(module)", package: package, sourceLocation: sourceLocation)
    }

    /// The first executable `name` in the folders of `PATH` (and the usual system folders).
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin"]
        return folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    struct Missing: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }
}

/// A bash script run with git, for the tests of listdiff as git's drivers.
enum GitShell {
    /// Runs `script` (stopping at the first failure) in `dir`, with a git that reads no
    /// configuration but the repository's and `home`'s (HOME), and finds no repository
    /// above `home`. `$LISTDIFF` is the built binary.
    static func run(_ script: String, in dir: URL, home: URL) throws -> Run {
        try Binary.run(
            ["-c", "set -e\n" + script],
            environment: [
                "HOME": home.path, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CEILING_DIRECTORIES": home.path, "LISTDIFF": Binary.url.path,
                "GIT_EDITOR": "true",
            ],
            in: dir, executable: "/bin/bash")
    }

    /// The merge of the tests' two branches (each changed one of neighbouring records), as
    /// the driver writes it: each record on its line, as the branches write them.
    static let merged = "[\n  {\"id\": 1, \"v\": 1},\n  {\"id\": 2, \"v\": 2},\n  {\"id\": 3, \"v\": 0}\n]\n"
}
