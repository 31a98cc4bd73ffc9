import ArgumentParser
import ListDiffKit

/// `listdiff [diff] OLD NEW` diffs; `listdiff apply OLD CHANGESET` replays a changeset.
struct ListDiff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listdiff",
        abstract: "Diff files of records matched by key; apply the changesets it writes.",
        discussion: """
            'listdiff OLD NEW' is 'listdiff diff OLD NEW': see 'listdiff diff --help' for \
            its options. 'listdiff apply OLD CHANGESET' writes NEW back from OLD and a \
            changeset made by 'listdiff --format json'. 'listdiff invert CHANGESET' and \
            'listdiff compose FIRST SECOND' write the changeset back, and two changesets' sum. \
            'listdiff join SHARD...' joins the changesets of a diff's shards (--partition I/N), \
            and 'listdiff hash FILE' prints the key hash that picks each record's shard. \
            'listdiff check FILE...' reads files as a diff would and reports what is wrong; \
            'listdiff config PATH' prints the settings a .listdiff.yaml gives a file.
            """,
        version: ListDiffVersion.current,
        subcommands: [
            DiffCommand.self, ApplyCommand.self, MergeCommand.self, InvertCommand.self, ComposeCommand.self, JoinCommand.self,
            CheckCommand.self,
            HashCommand.self,
            ConfigCommand.self, GitCommand.self,
        ],
        defaultSubcommand: DiffCommand.self
    )
}

/// A subcommand that runs and says how it went; errors are thrown as `ListDiffError`.
protocol Executable {
    /// Returns the exit status and whatever big values the run built, so that the caller
    /// can exit without first freeing millions of values one by one.
    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any)
}

@main
enum Main {
    static func main() {
        // A fixed threshold: blocks of 128 KiB and more are mapped on their own and handed
        // back to the system when freed. glibc otherwise raises the threshold to the size of
        // each such block freed, and the changes' blocks, freed once joined, then stay in
        // the heap for good, adding to the peak.
        SystemCalls.fixMappingThreshold(128 << 10)
        let command: any ParsableCommand
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.first == "--generate-completion-script" {
                // The shell named, or with none named, the one $SHELL names (as the generator does).
                let shell =
                    arguments.count == 2 ? arguments[1] : String((SystemCalls.environment("SHELL") ?? "").split(separator: "/").last ?? "")
                if arguments.count <= 2, let script = CompletionRoot.script(for: shell) {
                    print(script, terminator: "")
                    SystemCalls.exit(ExitStatus.same.rawValue)
                }
                CompletionRoot.main(arguments)
            }
            command = try ListDiff.parseAsRoot(RuleArguments.rewrite(GitCall.rewrite(arguments) ?? arguments))
        } catch {
            // --help and --version succeed; every usage error is trouble (2), as in diff(1).
            let code = ListDiff.exitCode(for: error)
            if code == .success {
                print(ListDiff.fullMessage(for: error))
                SystemCalls.exit(ExitStatus.same.rawValue)
            }
            // One line, escaped as every error is (usage errors quote the arguments), with
            // the way to the full usage; --help prints it.
            var message = ListDiff.message(for: error).split(separator: "\n")
                .map { line in String(line.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
                .filter { !$0.isEmpty }.joined(separator: " ")
            if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
            // The help that lists the options in question: the named command's, or the diff's
            // (which is implied when no command is named; `listdiff --help` lists commands).
            let named = CommandLine.arguments.dropFirst().first.flatMap { first in
                ListDiff.configuration.subcommands.first { $0._commandName == first }?._commandName
            }
            // (`git` is a group of one command, `install`.)
            let help = named == "git" ? "listdiff git install --help" : "listdiff \(named ?? "diff") --help"
            let text = "error: " + message + " (see '\(help)')"
            FileStream.write("listdiff: " + SafeText.escape(String(text.prefix(2000))) + "\n", to: SystemCalls.standardError)
            SystemCalls.exit(ExitStatus.trouble.rawValue)
        }
        guard let executable = command as? any Executable else {
            // argument-parser's own commands (`listdiff help apply`) print and succeed.
            var command = command
            do {
                try command.run()
                SystemCalls.exit(ExitStatus.same.rawValue)
            } catch {
                ListDiff.exit(withError: error)
            }
        }
        do {
            try InputLimit.configure()
            let (status, retained) = try executable.execute()
            withExtendedLifetime(retained) { SystemCalls.exit(status.rawValue) }
        } catch {
            // `file:line:column: error: message`, as compilers write it, so that editors can jump
            // to the place; an error about no file in particular names the program instead.
            let error = error.wordedForTheCommand
            FileStream.write(error.file == nil ? "listdiff: \(error)\n" : "\(error)\n", to: SystemCalls.standardError)
            SystemCalls.exit(ExitStatus.trouble.rawValue)
        }
    }
}

/// `LISTDIFF_MAX_INPUT_SIZE`: the most bytes one input may hold, as a number of bytes with an
/// optional K, M, G or T (powers of 1024). Default 64G.
enum InputLimit {
    static func configure() throws(ListDiffError) {
        guard let text = SystemCalls.environment("LISTDIFF_MAX_INPUT_SIZE"), !text.isEmpty else { return }
        guard let bytes = parse(text) else {
            throw ListDiffError(
                .usage,
                "LISTDIFF_MAX_INPUT_SIZE must be a number of bytes, with K, M, G or T if you like, up to 1024T (it is '\(text.prefix(40))')"
            )
        }
        InputFile.maxBytes.store(bytes, ordering: .relaxed)
    }

    static func parse(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 10, "M": 20, "G": 30, "T": 40]
        var digits = Substring(text)
        var shift = 0
        if let last = digits.last?.uppercased().first, let s = units[last] {
            shift = s
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int(digits), n >= 0, n <= (1 << 50) >> shift else { return nil }
        return n << shift
    }
}

extension ListDiffError {
    /// The error with its hint worded as the option that gets past it.
    var wordedForTheCommand: ListDiffError {
        if let conflict {
            // An option of apply's that the changeset contradicts, named as it is spelled.
            let option =
                switch conflict.setting {
                case .format: "--input-format"
                case .csvTypes: "--csv-types"
                case .yamlVersion: "--yaml-version"
                }
            var worded = self
            worded.message =
                "\(option) \(conflict.asked) contradicts the changeset, which records \(option) \(conflict.recorded); apply reads OLD as the changeset says, so leave the option out"
            worded.conflict = nil
            return worded
        }
        guard let hint else { return self }
        var worded = self
        switch hint {
        case .force: worded.message += "; --force applies it anyway"
        case .matchDuplicates: worded.message += "; --duplicates match pairs repeated keys by occurrence"
        case .items: worded.message += "; name it with --items"
        case .sectionKey: worded.message += "; name it with --section-key"
        case .path: worded.message += " (--path points at one inside a larger document)"
        case .pathTo(let pointer):
            // Quoted for the shell when it holds anything but plain characters.
            let plain = pointer.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || "0123456789/_.~-".unicodeScalars.contains($0) }
            let quoted = "'" + pointer.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
            worded.message += " (try --path \(plain ? pointer : quoted))"
        case .outputFormat(let format): worded.message += "; use --output-format \(format.rawValue)"
        case .algorithm(let instead): worded.message += "; use --algorithm \(instead) for lists this large, or raise --cost-limit"
        case .key(let fields): worded.message += " (try " + fields.map { "--key " + $0 }.joined(separator: " ") + ")"
        case .wholeRecordKey: worded.message += " (--key . diffs the lists as sequences)"
        case .oldDocument: worded.message += "; --old FILE reads it from the document the first changeset was made from"
        }
        worded.hint = nil
        return worded
    }
}
