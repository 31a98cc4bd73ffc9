#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import ListDiffKit

/// `listdiff git`: sets git up to diff and merge files of records with listdiff.
struct GitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git",
        abstract: "Set git up to diff and merge files of records with listdiff.",
        subcommands: [GitInstallCommand.self]
    )
}

/// `listdiff git install`: writes the diff and merge drivers into git's configuration, as
/// README's git section sets them by hand, and prints the `.gitattributes` lines that use them.
struct GitInstallCommand: ParsableCommand, Executable {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Write listdiff's diff and merge drivers into git's configuration; print the .gitattributes lines that use them.",
        discussion: """
            Sets diff.listdiff.command, merge.listdiff.name and merge.listdiff.driver in the \
            repository's configuration (.git/config), or in your user configuration with \
            --global. A value already set to what listdiff would write is left as it is; a \
            different value is kept and reported (exit status 1) unless --force replaces it. \
            Options after '--' go into both drivers: the key, comparison rules and reading \
            options (listdiff git install -- --key sku). With the settings in a \
            .listdiff.yaml, none are needed: the drivers find it from each file's path.

            The drivers name the listdiff that runs this command: plain 'listdiff' when \
            that is the one PATH finds, so that the configuration survives an upgrade; else \
            its absolute path, which must then stay where it is.

            git uses the drivers only for the files .gitattributes gives them to: the lines \
            to add are printed, and --attributes PATTERN adds one to the repository's \
            .gitattributes (never a line already there).

            Exit status: 0 when every value is set as listdiff writes it, 1 when a different \
            value was kept, 2 on trouble (no git, not in a repository, a failed git command).
            """
    )

    @Flag(help: "Write your user configuration (git config --global) instead of the repository's.")
    var global = false

    @Flag(help: "Replace a value that differs from the one listdiff writes (it is reported either way).")
    var force = false

    @Option(
        name: .customLong("attributes"),
        help: ArgumentHelp(
            "Add 'PATTERN diff=listdiff merge=listdiff' to the repository's .gitattributes (repeatable), unless the line is there.",
            valueName: "pattern"))
    var attributes: [String] = []

    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp("Options for both drivers, after '--': the key, rules and reading options of a diff.", valueName: "option"))
    var options: [String] = []

    /// The extensions of the formats listdiff reads, for the `.gitattributes` lines printed.
    static let patterns = ["*.json", "*.ndjson", "*.jsonl", "*.yaml", "*.yml", "*.csv", "*.tsv"]

    func validate() throws {
        // The drivers' options are checked now, not when git first runs a driver (which
        // rewrites `--ignore-case=POINTER` as every run does).
        do {
            _ = try MatchingOptions.parse(RuleArguments.rewrite(options))
        } catch {
            throw ValidationError("the drivers' options: " + MatchingOptions.message(for: error))
        }
        if global, !attributes.isEmpty {
            throw ValidationError("--attributes writes the repository's .gitattributes; it does not go with --global")
        }
        for pattern in attributes
        where pattern.isEmpty || pattern.hasPrefix("#") || pattern.unicodeScalars.contains(where: Self.isSpaceOrControl) {
            throw ValidationError("--attributes takes a pattern without spaces, not starting with '#': \(SafeText.escape(pattern))")
        }
    }

    static func isSpaceOrControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F
    }

    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        let git = Git(scope: global ? "--global" : "--local")
        var top: String?
        if !global {
            let found = try git.run(["rev-parse", "--show-toplevel"])
            guard found.status == 0 else {
                throw ListDiffError(
                    .usage, "not inside a git repository: run 'listdiff git install' in one, or use --global for your user configuration")
            }
            top = String(found.output.dropLast(found.output.hasSuffix("\n") ? 1 : 0))
        }
        let program = Self.programSpelling()
        let extra = options.map { " " + Self.shellQuoted($0) }.joined()
        let entries = [
            ("diff.listdiff.command", program + extra),
            ("merge.listdiff.name", "listdiff: merge files of records by key"),
            ("merge.listdiff.driver", program + " merge" + extra + " %O %A %B %L %P"),
        ]
        var out = FileStream(fd: SystemCalls.standardOutput)
        var kept = false
        for (name, value) in entries {
            // What git holds is input: escaped wherever it is shown.
            let current = try git.get(name)
            switch current {
            case value?:
                out.write("already set: \(name) = \(SafeText.escape(value))\n")
            case let other? where !force:
                kept = true
                out.write(
                    "kept: \(name) = \(SafeText.escape(other)) (listdiff would set \(SafeText.escape(value)); --force replaces it)\n")
            case let other?:
                try git.set(name, value)
                out.write("replaced: \(name) = \(SafeText.escape(value)) (was \(SafeText.escape(other)))\n")
            case nil:
                try git.set(name, value)
                out.write("set: \(name) = \(SafeText.escape(value))\n")
            }
        }
        if let top, !attributes.isEmpty {
            try Self.addAttributes(attributes, to: top + "/.gitattributes", out: &out)
        } else {
            out.write(
                "\ngit uses the drivers for the files .gitattributes names; add lines such as these (narrowed to files of records):\n")
            for pattern in Self.patterns { out.write("\(pattern) diff=listdiff merge=listdiff\n") }
        }
        out.flush()
        return (kept ? .different : .same, ())
    }

    /// Appends a line for each pattern that `.gitattributes` lacks, and says which lines it
    /// added and which were there.
    static func addAttributes(_ patterns: [String], to path: String, out: inout FileStream) throws(ListDiffError) {
        var text = ""
        if SystemCalls.status(ofPath: path) != nil {
            text = String(decoding: try InputFile.read(path), as: UTF8.self)
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        var added: [String] = []
        for pattern in patterns {
            let line = "\(pattern) diff=listdiff merge=listdiff"
            if lines.contains(line) || added.contains(line) {
                out.write("already in .gitattributes: \(SafeText.escape(line))\n")
                continue
            }
            // A line for the same pattern that sets another driver is left, and named: the
            // line added after it wins.
            for other in lines where other.split(separator: " ").first.map(String.init) == pattern {
                out.write("note: .gitattributes also has \(SafeText.escape(other)); the line added after it wins\n")
            }
            added.append(line)
            out.write("added to .gitattributes: \(SafeText.escape(line))\n")
        }
        guard !added.isEmpty else { return }
        if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
        text += added.map { $0 + "\n" }.joined()
        let whole = text
        try Output.write(to: path) { (stream: inout FileStream) throws(ListDiffError) in stream.write(whole) }
    }

    /// How the drivers name listdiff: `listdiff` when PATH finds this very binary, else
    /// its absolute path (quoted for the shell git runs the drivers with).
    static func programSpelling() -> String {
        guard let me = executablePath() else { return "listdiff" }
        let folders = (SystemCalls.environment("PATH") ?? "").split(separator: ":").map(String.init)
        // The first listdiff on PATH is the one the shell runs.
        for folder in folders where !folder.isEmpty {
            let candidate = folder + "/listdiff"
            guard access(candidate, X_OK) == 0 else { continue }
            return realPath(candidate) == me ? "listdiff" : shellQuoted(me)
        }
        return shellQuoted(me)
    }

    /// The running binary's path, with symbolic links resolved: Linux names it in /proc;
    /// elsewhere it is the path the program was run by, or the one PATH gives its name.
    static func executablePath() -> String? {
        #if os(Linux)
        return realPath("/proc/self/exe")
        #else
        let invoked = CommandLine.arguments[0]
        if invoked.contains("/") { return realPath(invoked) }
        let folders = (SystemCalls.environment("PATH") ?? "").split(separator: ":").map(String.init)
        return folders.lazy.map { $0 + "/" + invoked }.first { access($0, X_OK) == 0 }.flatMap(realPath)
        #endif
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `word` as the shell reads it back: as it is when plain, else in single quotes.
    static func shellQuoted(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789_./:=@%+,-".unicodeScalars.contains($0))
            }
        return plain ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}

/// git's configuration in one scope (`--local` or `--global`), read and written by running git.
struct Git {
    let scope: String

    /// The value of `name`, or nil when it is not set.
    func get(_ name: String) throws(ListDiffError) -> String? {
        let result = try run(["config", scope, "--get", name])
        switch result.status {
        case 0: return result.output.hasSuffix("\n") ? String(result.output.dropLast()) : result.output
        case 1: return nil
        default: throw failure(["config", scope, "--get", name], result)
        }
    }

    func set(_ name: String, _ value: String) throws(ListDiffError) {
        let arguments = ["config", scope, "--replace-all", name, value]
        let result = try run(arguments)
        if result.status != 0 { throw failure(arguments, result) }
    }

    func failure(_ arguments: [String], _ result: Subprocess.Result) -> ListDiffError {
        let said = result.error.split(separator: "\n").first.map(String.init) ?? "exit status \(result.status)"
        return ListDiffError(.io, "git \(arguments.joined(separator: " ")) failed: \(said)")
    }

    func run(_ arguments: [String]) throws(ListDiffError) -> Subprocess.Result {
        guard let result = Subprocess.run("git", arguments) else {
            throw ListDiffError(.usage, "cannot run git: \(SystemCalls.describe(SystemCalls.errorNumber)) (is git installed, and on PATH?)")
        }
        return result
    }
}

/// A program run to its end, with its standard output and error read.
enum Subprocess {
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `program`, found on PATH, with `arguments`; nil when it cannot be started.
    /// The outputs are read one after the other: fine for git's short answers.
    static func run(_ program: String, _ arguments: [String]) -> Result? {
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0 else { return nil }
        guard pipe(&errPipe) == 0 else {
            _ = close(outPipe[0])
            _ = close(outPipe[1])
            return nil
        }
        #if os(Linux)
        var actions = posix_spawn_file_actions_t()
        #else
        var actions: posix_spawn_file_actions_t? = nil
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid = pid_t()
        #if canImport(Darwin)
        let environment = _NSGetEnviron().pointee
        #else
        let environment = environ
        #endif
        let spawned = posix_spawnp(&pid, program, &actions, nil, argv, environment)
        _ = close(outPipe[1])
        _ = close(errPipe[1])
        guard spawned == 0 else {
            errno = spawned
            _ = close(outPipe[0])
            _ = close(errPipe[0])
            return nil
        }
        let output = readAll(outPipe[0]), error = readAll(errPipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // A normal exit's status is in the second byte; a signal's death counts as 128 + it.
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: code, output: output, error: error)
    }

    static func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, 4096) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        _ = close(fd)
        return String(decoding: bytes, as: UTF8.self)
    }
}
