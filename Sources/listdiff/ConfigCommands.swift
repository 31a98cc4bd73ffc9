import ArgumentParser
import ListDiffKit

/// `--config FILE` and `--no-config`: which configuration files apply.
struct ConfigOptions: ParsableArguments {
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "Read settings from this file alone, instead of the .listdiff.yaml files found from the input's folder up to the repository's root.",
            valueName: "file"),
        completion: .file())
    var file: String?

    @Flag(name: .customLong("no-config"), help: "Read no configuration file: the command line and the defaults only.")
    var none = false

    func validate() throws {
        if none, file != nil { throw ValidationError("--config and --no-config do not go together") }
    }

    /// The configuration for `path`: none, the one file named, or the files found.
    func configuration(for path: String) throws(ListDiffError) -> Configuration {
        if none { return Configuration() }
        if let file { return try Configuration.only(file) }
        return try Configuration.discover(for: path)
    }

    /// The settings in force for `path`: `given` (the command line's) over the configuration's.
    func settings(for path: String, given: Configuration.Settings) throws(ListDiffError) -> Configuration.Settings {
        try configuration(for: path).settings(for: path).overridden(by: given)
    }
}

/// `listdiff config PATH…`: the settings in force for each file, and where each came from.
struct ConfigCommand: ParsableCommand, Executable {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the settings in force for each file, and where each came from.",
        discussion: """
            For each PATH, one line a setting: 'PATH: name: value (origin)', where the \
            origin is the configuration file and line that set it, 'command line' or \
            'default'; a setting nothing sets is '(unset)'. The file need not exist: the \
            configuration is found from its folder, as a diff of it would find it. Options \
            given here count as given on a diff's command line.

            Exit status: 0, or 2 on trouble (a configuration file that is malformed or sets \
            something wrongly).
            """
    )

    @Argument(help: ArgumentHelp("The files whose settings to print.", valueName: "path"), completion: .file())
    var paths: [String]

    @OptionGroup var matching: MatchingOptions

    @OptionGroup var config: ConfigOptions

    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        var out = FileStream(fd: SystemCalls.standardOutput)
        for path in paths {
            let settings = try config.settings(for: path, given: matching.given)
            // Paths and values are input: escaped.
            for line in settings.report { out.write(SafeText.escape(path) + ": " + SafeText.escape(line) + "\n") }
        }
        out.flush()
        return (.same, ())
    }
}

/// `listdiff check FILE…`: reads each file as a diff would and reports what is wrong.
struct CheckCommand: ParsableCommand, Executable {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Read each file as a diff would, and report every one that a diff would refuse.",
        discussion: """
            Each FILE is read with the key, layout and reading options in force for it (its \
            configuration's, or the options given), as a diff reads its inputs: malformed \
            text, a record without its key, two records with one key (unless --duplicates \
            match), and a document without a list of records where one is looked for are \
            each reported as 'file:line:column: error: message' on standard error. Malformed \
            text or a wrong shape stops a file's reading: that one problem is reported. After \
            a key problem every record's key is checked, and each record without its key or \
            with another's is reported too (up to 1000 a file). Then the next file is read. \
            For pre-commit hooks and CI jobs.

            Exit status: 0 when every file reads, 2 otherwise.
            """
    )

    @Argument(help: ArgumentHelp("The files to check.", valueName: "file"), completion: .file())
    var files: [String]

    @OptionGroup var matching: MatchingOptions

    @OptionGroup var config: ConfigOptions

    func validate() throws {
        if matching.keys == ["auto"] { throw ValidationError("check reads one file at a time; --key auto needs both sides of a diff") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input ('-') can be read once") }
    }

    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        var failed = false
        var err = FileStream(fd: SystemCalls.standardError)
        func report(_ error: ListDiffError) {
            failed = true
            let worded = error.wordedForTheCommand
            err.write(worded.file == nil ? "listdiff: \(worded)\n" : "\(worded)\n")
            err.flush()
        }
        for file in files {
            do throws(ListDiffError) {
                let settings = try config.settings(for: file, given: matching.given)
                if settings.keySpellings == ["auto"] {
                    throw ListDiffError(.usage, file: file, "key: auto needs both sides of a diff; check needs a key")
                }
                let problems = FileDiffer(reader: try settings.reader()).problems(file)
                for problem in problems { report(problem) }
            } catch {
                report(error)
            }
        }
        return (failed ? .trouble : .same, ())
    }
}
