import ArgumentParser
import ListDiffKit

extension OutputFormat: ExpressibleByArgument {}
extension ColorMode: ExpressibleByArgument {}
extension CSVTypes: ExpressibleByArgument {}
extension AlgorithmChoice: ExpressibleByArgument {}

/// `--input-format`: a format the library reads, or `auto`.
enum InputFormatOption: String, ExpressibleByArgument, CaseIterable {
    case auto, json, ndjson, yaml, csv, tsv
}

/// How the inputs are read, the same for diff and apply.
struct ReadingOptions: ParsableArguments {
    @Option(
        name: .customLong("input-format"),
        help:
            "Input format: auto (by extension, then by content; the default), json, ndjson (one JSON value per line; also .ndjson and .jsonl), yaml, csv or tsv (a header row, then one record per row; also .csv and .tsv). A JSON changeset records OLD's, and apply reads OLD as it says."
    )
    var inputFormat: InputFormatOption?

    @Option(
        name: .customLong("csv-types"),
        help: ArgumentHelp(
            "How CSV and TSV cells are read: string (every cell a string, so 007 stays 007; the default) or infer (a cell that is a JSON number is a number, true and false are booleans, an empty cell is null). A JSON changeset records it, and apply reads OLD as it says.",
            valueName: "mode"))
    var csvTypes: CSVTypes?

    @Option(
        name: .customLong("yaml-version"),
        help: ArgumentHelp(
            "How YAML plain scalars are read: 1.2 (the core schema: only true and false are booleans), 1.1 (yes, no, on and off are booleans, 0644 is octal, 1:30 is base 60) or kubernetes (as Kubernetes reads them: as 1.1, but 1:30 is a string, 1e3 a number and numbers are 64-bit; mapping keys are read so too, so on: names the member true). A JSON changeset records it, and apply reads OLD as it says.",
            valueName: "version"))
    var yamlVersion: YAMLVersion?

    /// The settings given on the command line.
    var given: Configuration.Settings {
        var settings = Configuration.Settings()
        settings.set(.inputFormat, inputFormat?.rawValue)
        settings.set(.csvTypes, csvTypes?.rawValue)
        settings.set(.yamlVersion, yamlVersion?.rawValue)
        return settings
    }
}

extension DuplicatePolicy: ExpressibleByArgument {}
extension Preset: ExpressibleByArgument {}
extension YAMLVersion: ExpressibleByArgument {}
extension InputFormat: ExpressibleByArgument {}
extension GitHubRenderer.Level: ExpressibleByArgument {}
extension Differ.MemberOrder: ExpressibleByArgument {}

struct DiffCommand: ParsableCommand, Executable {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Diff two files of records, matching records by key (the default command).",
        discussion: """
            OLD and NEW hold a list of records (JSON, NDJSON, YAML, CSV or TSV). Records are \
            matched by their key (--key, default 'id'); a list of scalars is keyed by the \
            scalars themselves. listdiff reports inserted, deleted, moved and updated \
            records, with the fields that changed. Moves are minimal: only records off a \
            longest run of records that kept their order are reported moved.

            The patch (the default output) writes one line per change: '-' a deleted record, \
            '+' an inserted one, '>' a moved one (#old -> #new), '~' an updated field \
            (old -> new); a section's own changes carry the same signs, with a section \
            mark. #N is a position counted from 0; the last line counts the changes.

            Positions follow UIKit batch-update rules: deletes and updates name old \
            positions, inserts name new positions, moves go from old to new.

            A run longer than about a second shows a progress bar on standard error when it \
            is a terminal (LISTDIFF_PROGRESS_DELAY sets the delay in seconds); \
            LISTDIFF_TIMINGS=1 prints the time of each phase on standard error.

            The work is split over the cores the process may run on (taskset limits them); \
            the changeset does not depend on their number. Regular files are mapped into \
            memory: a file that shrinks while it is read is refused (exit status 2). A JSON \
            object that gives a member name twice is refused with the place of both, \
            because tools disagree on which one counts.

            Run by git as an external diff (GIT_EXTERNAL_DIFF=listdiff, or a diff driver's \
            command), listdiff recognises git's seven arguments, shows the file as a/PATH and \
            b/PATH, reads /dev/null (an added or deleted file's missing side) as the other \
            file with no records, and exits 0 so that git goes on to the next file. A file \
            that cannot be read as records (a text file, broken JSON, a document that is not \
            a list) is diffed by lines instead, under one line that says why, so that one \
            such file never stops a git diff; errors name the path in the repository.

            Given two folders, listdiff pairs their files by relative path, recursively, and \
            diffs each pair by key with the same options: a 'diff -r OLD/p NEW/p' header \
            before each pair that differs, 'Files ... differ' for files compared as bytes \
            (those whose name and content are not records), 'Only in DIR: NAME (N records)' \
            for a file one side holds, and a total. Symbolic links are never followed (two \
            links compare by their target); FIFOs, sockets and devices are refused. An error \
            at one path is named on stderr and the rest is still diffed; the status is then \
            2, since the result is incomplete. -f json writes one tree document that \
            'listdiff apply OLD_DIR TREE.json -o NEW_DIR' applies. As \
            KUBECTL_EXTERNAL_DIFF="listdiff --preset kubernetes", listdiff diffs the folders \
            kubectl diff writes.

            The key, rules, reading options and output defaults may come from a \
            .listdiff.yaml in NEW's folder or one above it, up to the repository's root \
            (under git, found from the file's path in the repository); options given here \
            win over it. 'listdiff config PATH' shows the settings in force and where each \
            came from; --config FILE reads one file alone, --no-config none.

            Everything quoted from the inputs (keys, member names, values, section and file \
            names) is escaped in the patch, the side-by-side view, the stat, the replay, the \
            Markdown, HTML and GitHub outputs and error messages, so that no file can act on the \
            terminal.

            A changed field's value longer than --max-value-width characters (200 by default) \
            is shown around where it changed, with the number of characters left out, in the \
            patch, -f side, Markdown and GitHub annotations; --full-values shows it whole. \
            -f side writes each change in two columns, OLD beside NEW, the changed words \
            marked: in reverse colour, or between [- -] and {+ +} without colour.

            Exit status: 0 if the inputs hold the same records, 1 if they differ (with \
            --fail-on, only if a change of those kinds occurred), 2 on trouble (bad usage, \
            unreadable or malformed input, missing or duplicate keys).
            """
    )

    @OptionGroup var options: DiffOptions

    func validate() throws { try options.validate() }

    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) { try options.execute() }
}

/// The diff's arguments, and the diff itself. They are a group of their own so that the
/// completion scripts can offer them at the top level too, where `diff` is implied.
struct DiffOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The old file ('-' for standard input), or folder.", valueName: "old"), completion: .file())
    var old: String

    @Argument(help: ArgumentHelp("The new file ('-' for standard input), or folder.", valueName: "new"), completion: .file())
    var new: String

    @OptionGroup var matching: MatchingOptions

    @Option(
        name: [.customShort("f"), .customLong("format")],
        help:
            "Output format: patch (for people; the default), side (the patch in two columns, OLD beside NEW, at the terminal's width), json (the versioned changeset), jsonpatch (RFC 6902 operations that turn OLD into NEW), mergepatch (an RFC 7386 JSON Merge Patch: changed lists are written whole), markdown (a report for pull requests and job summaries), html (a report in one self-contained web page, to open in a browser), github (GitHub Actions annotations) or replay (an animation in the terminal)."
    )
    var formatOption: OutputFormat?
    var format: OutputFormat { formatOption ?? .patch }

    @Flag(
        name: [.customShort("q"), .long],
        help: "Print nothing: report by exit status alone (0 same, 1 different, 2 trouble). Errors still go to standard error.")
    var quiet = false

    @Flag(
        help:
            "Counts only: per kind, per section, and the fields most often changed. With -f json, the changeset without its changes and stages."
    )
    var stat = false

    @Flag(
        help:
            "Print only whether the inputs differ: 'Files OLD and NEW differ', and for folders 'Only in DIR: NAME' too (as diff -rq; -q is --quiet)."
    )
    var brief = false

    @Option(
        name: .customLong("fail-on"),
        help: ArgumentHelp(
            "Exit 1 only if a change of these kinds occurred, else 0: a comma list of insert, delete, update, move, rename (or all, none). Default: all.",
            valueName: "kinds"))
    var failOn: String?

    @Option(
        help: ArgumentHelp(
            "Print only changes of these kinds (a comma list of insert, delete, update, move, rename), in every format; the summary still counts them all.",
            valueName: "kinds"))
    var show: String?

    @Flag(
        help:
            "Pair a deleted record and an inserted one whose contents are alike as one renamed record: its key changed, plus any fields that changed."
    )
    var renames = false

    @Option(
        name: .customLong("rename-threshold"),
        help: ArgumentHelp(
            "How alike a rename's two records must be: the share of their leaf values that are equal, the key left out (80, 80% or 0.8). Default: 80. Implies --renames.",
            valueName: "percent"))
    var renameThreshold: String?

    @Option(
        name: .customLong("limit"),
        help: ArgumentHelp(
            "In -f markdown, the changes shown per kind; the rest are folded and counted. Default: 50.",
            valueName: "n"))
    var limitOption: Int?
    var limit: Int { limitOption ?? 50 }

    @Option(
        name: .customLong("max-value-width"),
        help: ArgumentHelp(
            "In -f patch, side, markdown and github, a changed field's value longer than N characters is cut to where the two values differ: N/4 characters before and after the first difference, and the last, with a marker that counts what was left out ([+2,000,000 chars] between two ellipses). -f side and markdown cut other long text (records, keys) to its first N characters. 0 never cuts. Default: 200.",
            valueName: "n"))
    var maxValueWidth: Int = ValueCut.defaultWidth

    @Option(
        help: ArgumentHelp(
            "In -f side, the width of the output in columns. Default: the terminal's, or COLUMNS, or 80. Below 40, the sides are written one under the other.",
            valueName: "n"))
    var width: Int?

    @Flag(name: .customLong("full-values"), help: "Show every value whole (the same as --max-value-width 0).")
    var fullValues = false

    @Option(
        name: .customLong("annotation-level"),
        help: ArgumentHelp(
            "In -f github, the level of each annotation: notice (the default), warning or error.", valueName: "level"))
    var annotationLevelOption: GitHubRenderer.Level?
    var annotationLevel: GitHubRenderer.Level { annotationLevelOption ?? .notice }

    /// Set when git runs listdiff as an external diff: the path being diffed (see `GitCall`).
    @Option(name: .customLong("git-path"), help: .hidden)
    var gitPath: String?

    /// Under git, a renamed file's new path.
    @Option(name: .customLong("git-new-path"), help: .hidden)
    var gitNewPath: String?

    @Option(
        name: .customLong("color"),
        help: ArgumentHelp(
            "Colour the patch and -f side: auto (when standard output is a terminal, NO_COLOR is unset and TERM is not dumb; the default), always or never.",
            valueName: "when"))
    var colorOption: ColorMode?
    var color: ColorMode { colorOption ?? .auto }

    @Flag(
        help:
            "Both inputs are NDJSON sorted by key (as jq's sort_by): diff them in one streaming pass, in memory that grows with the changes, not the inputs. An input out of order is an error."
    )
    var sorted = false

    @Option(
        name: .customLong("memory-limit"),
        help: ArgumentHelp(
            "The memory a diff may use (bytes, or with K, M, G or T: 512M, 2G; default: half the machine's memory). Inputs larger than it allows are split by key hash into files in a temporary folder (under TMPDIR), diffed a part at a time and joined: the changeset is the one in memory. A list of records at the top (JSON, NDJSON, YAML, CSV, TSV), a YAML map of records, object of lists or list of section objects at the top, a JSON list, map of records, object of lists or list of section objects at the top or at --path, or a YAML list, map of records or list of section objects at --path; set it to spill standard input or a pipe.",
            valueName: "size"))
    var memoryLimit: String?

    @Option(
        help: ArgumentHelp(
            "Diff only the records whose key falls in shard I of N (counted from 0: 0/4 to 3/4; the key hash 'listdiff hash' prints, modulo N), and write that shard's changeset with -f json, for 'listdiff join' to join with the other shards' into the whole diff's changeset (exit 0 when it is written). Lists, maps of records and records in sections (split from the whole inputs); not --key ., --sorted or an algorithm other than heckel.",
            valueName: "i/n"))
    var partition: String?

    @Option(
        name: .customLong("shard-positions"),
        help: ArgumentHelp(
            "With --partition: OLD and NEW hold only the shard's records (as a cluster job hands them out), and this JSON file says where they stand in the whole documents: {\"old\": {\"records\": N, \"positions\": [...]}, \"new\": {...}}.",
            valueName: "file"), completion: .file())
    var shardPositions: String?

    @Flag(
        name: .customLong("pre-split"),
        help: ArgumentHelp(
            "With --partition and --unordered: OLD and NEW hold only the shard's records, and nothing says where they stand. 'listdiff join' places each shard's records after those of the shards before it, so the joined changeset is the diff of the records in shard order."
        ))
    var preSplit = false

    @Option(help: ArgumentHelp("Replay speed: 2 plays twice as fast. Default: 1.", valueName: "factor"))
    var speed: Double = 1

    @Option(help: ArgumentHelp("Replay in about this many seconds in all (instead of --speed).", valueName: "seconds"))
    var duration: Double?

    @Option(
        name: .customLong("animate-limit"),
        help: ArgumentHelp(
            "Above this many changes the replay does not animate: it shows the result and says so.", valueName: "changes"))
    var animateLimit: Int = 300

    @Option(
        help: ArgumentHelp(
            "Record the replay to this asciicast v2 file instead of playing it (no terminal needed; the size is the terminal's, or COLUMNS x LINES, or 80x24).",
            valueName: "file.cast"), completion: .file())
    var record: String?

    @Option(
        name: .customLong("label"),
        help: ArgumentHelp(
            "The name to show for OLD, and given again, for NEW, instead of the path (as diff -L does): in the patch, -f side, the JSON changeset, Markdown, the HTML report, GitHub annotations and the replay. For standard input or <(command), which have no useful name.",
            valueName: "name"))
    var labels: [String] = []

    @Option(
        name: [.customShort("o"), .long],
        help: ArgumentHelp(
            "Write the output to this file instead of standard output (atomically: never a partial file).", valueName: "file"),
        completion: .file())
    var output: String?

    @OptionGroup var config: ConfigOptions

    func validate() throws {
        if old == "-" && new == "-" {
            throw ValidationError("only one of OLD and NEW can be standard input ('-')")
        }
        // Ranges, so that no arithmetic on them can overflow.
        if !(0.01...100).contains(speed) { throw ValidationError("--speed must be a number from 0.01 to 100") }
        if let duration, !(0.1...3600).contains(duration) { throw ValidationError("--duration must be from 0.1 to 3600 seconds") }
        if !(0...1_000_000).contains(animateLimit) { throw ValidationError("--animate-limit must be from 0 to 1000000") }
        if format != .replay, record != nil || duration != nil || speed != 1 {
            throw ValidationError("--record, --speed and --duration go with --format replay")
        }
        if format == .replay, output != nil {
            throw ValidationError("--format replay plays on the terminal; --record FILE.cast writes it to a file")
        }
        // What else --sorted refuses (layouts, repeated keys, other formats), the library decides.
        if sorted, format == .replay || format == .mergepatch {
            throw ValidationError("--sorted streams its inputs; --format \(format.rawValue) needs them whole")
        }
        if brief, quiet || stat || format != .patch {
            throw ValidationError("--brief prints the names of the files that differ; --quiet, --stat and --format do not go with it")
        }
        if quiet, output != nil || record != nil || stat {
            throw ValidationError("--quiet prints nothing; --output, --record and --stat do not go with it")
        }
        if stat, ![.patch, .json].contains(format) { throw ValidationError("--stat goes with -f patch or -f json") }
        if show != nil, format == .replay { throw ValidationError("--show filters what is printed; --format replay plays every change") }
        if show != nil, format == .mergepatch {
            throw ValidationError("--show filters what is printed; a merge patch is the whole change")
        }
        do { try given.check() } catch { throw ValidationError(error.message) }
        if !(0...1_000_000_000).contains(maxValueWidth) { throw ValidationError("--max-value-width must be from 0 to 1000000000") }
        if let width {
            if format != .side { throw ValidationError("--width goes with -f side") }
            if !ReplayPlayer.widths.contains(width) {
                throw ValidationError("--width must be from \(ReplayPlayer.widths.lowerBound) to \(ReplayPlayer.widths.upperBound)")
            }
        }
        if fullValues, maxValueWidth != ValueCut.defaultWidth, maxValueWidth != 0 {
            throw ValidationError("--full-values shows values whole; it does not go with --max-value-width \(maxValueWidth)")
        }
        if labels.count > 2 {
            throw ValidationError("--label is given at most twice: once for OLD, then once for NEW")
        }
        if matching.keys.contains("auto"), old == "-" || new == "-" {
            throw ValidationError("--key auto reads the inputs twice; it needs files, not standard input")
        }
        try validateShard()
    }

    /// Runs the diff and returns the exit status; errors are thrown as `ListDiffError`.
    /// The inputs and the changeset come back too, so that the caller can exit without
    /// first freeing millions of values one by one.
    /// The settings given on the command line.
    var given: Configuration.Settings {
        var settings = matching.given
        settings.set(.format, formatOption?.rawValue)
        settings.set(.show, show)
        settings.set(.failOn, failOn)
        settings.set(.stat, values: stat ? ["true"] : [])
        settings.set(.limit, limitOption.map(String.init))
        settings.set(.annotationLevel, annotationLevelOption?.rawValue)
        settings.set(.color, colorOption?.rawValue)
        settings.set(.renames, values: renames ? ["true"] : [])
        settings.set(.renameThreshold, renameThreshold)
        return settings
    }

    /// The path whose configuration applies: under git, the file's path in the repository;
    /// else NEW, or OLD when NEW is standard input or git's missing side.
    var configuredPath: String {
        gitPath ?? (new == "-" || new == "/dev/null" ? old : new)
    }

    /// Runs the diff with the settings in force: the command line's over the configuration's.
    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        let settings = try config.settings(for: configuredPath, given: given)
        var options = self
        options.formatOption = settings.choice(.format, as: OutputFormat.self)
        options.show = settings.entries[.show]?.values.first
        options.failOn = settings.entries[.failOn]?.values.first
        // (Under --quiet nothing is printed: a configuration's --stat does not apply.)
        options.stat = settings.flag(.stat) && !quiet
        options.limitOption = settings.value(.limit).flatMap { Int($0) }
        options.annotationLevelOption = settings.choice(.annotationLevel, as: GitHubRenderer.Level.self)
        options.colorOption = settings.choice(.color, as: ColorMode.self)
        // What a configuration set may not go with what the command line set.
        do { try options.validate() } catch {
            let files = settings.files.map { SafeText.escape($0) }.joined(separator: ", ")
            throw ListDiffError(.usage, DiffCommand.message(for: error) + " (with the settings of \(files))")
        }
        return try options.run(settings)
    }

    /// The memory a diff may use: as asked, else the default.
    func memoryBudget() throws(ListDiffError) -> MemoryLimit {
        try memoryLimit.map { (text: String) throws(ListDiffError) in try MemoryLimit(parsing: text) } ?? .standard
    }

    func run(_ settings: Configuration.Settings) throws(ListDiffError) -> (ExitStatus, retained: Any) {
        let folders = (TreeDiffer.isFolder(old), TreeDiffer.isFolder(new))
        if folders == (true, true) { return try executeTree(settings) }
        if folders.0 != folders.1 {
            throw ListDiffError(
                .usage, "\(folders.0 ? old : new) is a folder and \(folders.0 ? new : old) is not: give two files, or two folders")
        }
        var files = try matching.files(old: old, new: new, quiet: quiet, settings: settings)
        files.sorted = sorted
        files.memoryLimit = try memoryBudget()
        files.keepsOld = format.needsOldWhole
        if let partition { return try runShard(files, partition) }
        let progress = ProgressBar.start()
        defer { progress?.stop() }
        files.progress = progress?.progress ?? Timings.progress
        defer { Timings.report(files.progress) }
        // The JSON changeset carries what `listdiff apply` checks its OLD and its result against.
        var result: FileDiffer.Result
        if let gitPath {
            // Under git, a file that cannot be read as records is diffed by lines.
            let git = GitDiffer(files: files, oldPath: gitPath, newPath: gitNewPath ?? gitPath)
            switch try git.diff(old: old, new: new) {
            case .records(let records): result = records
            case .lines(let reason, let lines):
                progress?.stop()
                if quiet || lines.isEmpty { return (.same, lines as Any) }
                let names = displayContext
                try Output.write(to: output) { stream in
                    if brief {
                        return stream.write("Files \(SafeText.escape(names.oldName)) and \(SafeText.escape(names.newName)) differ\n")
                    }
                    stream.write("# listdiff: not read as records (" + reason.description + "); a line diff follows\n")
                    UnifiedRenderer(context: displayContext, style: TextStyle(colored: useColor)).render(lines, to: &stream)
                }
                return (.same, lines as Any)
            case .binary(let reason, let same):
                if quiet || same { return (.same, reason as Any) }
                let names = displayContext
                try Output.write(to: output) { stream in
                    stream.write("# listdiff: not read as records (" + reason.description + ")\n")
                    stream.write("Binary files \(SafeText.escape(names.oldName)) and \(SafeText.escape(names.newName)) differ\n")
                }
                return (.same, reason as Any)
            }
        } else {
            result = try files.diff(old: old, new: new)
        }
        result.changeset.configurationFiles = settings.files
        if format == .jsonpatch, result.changeset.layout.isSectioned {
            throw ListDiffError(.usage, "--format jsonpatch writes plain lists only; for sections use --format json and 'listdiff apply'")
        }
        var status: ExitStatus = result.changeset.isEmpty ? .same : .different
        if let failOn, try !result.changeset.hasChanges(of: ChangeKinds(parsing: failOn)) { status = .same }
        // git goes on to the next file only after an external diff that exits 0.
        if gitPath != nil { status = .same }
        if quiet { return (status, result as Any) }
        if brief {
            if status == .different {
                let names = displayContext
                try Output.write(to: output) {
                    $0.write("Files \(SafeText.escape(names.oldName)) and \(SafeText.escape(names.newName)) differ\n")
                }
            }
            return (status, result as Any)
        }
        let rules = result.changeset.comparison
        if result.changeset.summary.updated > 0 {
            // An --array-key that keyed nothing is said, not ignored: it may be mistyped.
            var stream = FileStream(fd: SystemCalls.standardError)
            for key in try result.changeset.arrayKeysUnused(try Comparison.ArrayKey.parsing(settings.list(.arrayKey))) {
                stream.write(
                    "listdiff: warning: --array-key " + SafeText.escape(key.spellings.joined(separator: " --array-key "))
                        + " names no list in the records that changed\n")
            }
            stream.flush()
        }
        if rules.automaticArrayKeys {
            // Nothing is keyed silently: each list --array-key auto keyed, once, escaped.
            var stream = FileStream(fd: SystemCalls.standardError)
            for list in result.changeset.keyedLists where !rules.arrayKeys.contains(where: { $0.path.matches(list.path.segments) }) {
                stream.write(
                    "listdiff: keyed " + SafeText.escape(list.path.spelling) + " by " + SafeText.escape(list.key.description) + "\n")
            }
            stream.flush()
        }
        let changeset =
            try show.map { k throws(ListDiffError) in result.changeset.showing(try ChangeKinds(parsing: k)) }
            ?? result.changeset

        if format == .replay {
            progress?.stop()
            let names = displayContext
            try replay(result.replay(oldName: names.oldName, newName: names.newName, limit: animateLimit), status: status)
            return (status, result as Any)
        }
        let context = displayContext
        let cut = ValueCut(width: fullValues ? 0 : maxValueWidth)
        let renderer: any ChangesetRenderer
        switch format {
        case .json: renderer = JSONChangesetRenderer(context: context, statOnly: stat)
        case .jsonpatch: renderer = JSONPatchRenderer()
        case .mergepatch: renderer = try files.mergePatchRenderer(for: result)
        case .markdown:
            var markdown = MarkdownRenderer(context: context, limit: limit)
            markdown.valueCut = cut
            renderer = markdown
        case .github:
            var github = GitHubRenderer(context: context, level: annotationLevel, locate: result.locations)
            github.valueCut = cut
            renderer = github
        case .html: renderer = HTMLRenderer(context: context)
        case .side:
            var side = SideBySideRenderer(
                context: context, style: TextStyle(colored: useColor),
                width: width ?? ReplayPlayer.size(of: SystemCalls.standardOutput).width)
            side.valueCut = cut
            renderer = side
        case .patch, .replay:
            var patch = PatchRenderer(context: context, style: TextStyle(colored: useColor))
            patch.valueCut = cut
            renderer = stat ? StatRenderer(context: context) : patch
        }
        progress?.stop()  // before anything reaches the terminal
        try Output.write(to: output) { stream throws(ListDiffError) in
            // A renderer that writes records' values throws when one cannot be read.
            if let json = renderer as? JSONChangesetRenderer {
                try json.render(changeset) { stream.write(bytes: $0) }
            } else if let html = renderer as? HTMLRenderer {
                try html.render(changeset) { stream.write(bytes: $0) }
            } else {
                try renderer.render(changeset, to: &stream)
            }
        }
        files.progress?.lap("write")
        return (status, result as Any)
    }

    /// Diffs two folders (`TreeDiffer`): errors at some paths are named on standard error,
    /// and the rest is still diffed and written; the status is then 2, since the result is
    /// incomplete (as diff -r's is).
    func executeTree(_ settings: Configuration.Settings) throws(ListDiffError) -> (ExitStatus, retained: Any) {
        if partition != nil { throw ListDiffError(.usage, "--partition diffs two files; it does not diff folders") }
        if [.jsonpatch, .mergepatch, .replay, .side, .html].contains(format) {
            throw ListDiffError(
                .usage, "--format \(format.rawValue) is made for two files; over folders use patch, json, markdown or github")
        }
        if sorted { throw ListDiffError(.usage, "--sorted streams two NDJSON files; it does not diff folders") }
        if matching.keys.contains("auto") {
            throw ListDiffError(.usage, "--key auto picks a key on two files; over folders give the key (--key or --preset)")
        }
        if !labels.isEmpty { throw ListDiffError(.usage, "--label names two files; over folders the paths name them") }
        var files = try matching.files(old: old, new: new, quiet: quiet, settings: settings)
        let budget = try memoryBudget()
        files.memoryLimit = budget
        let progress = ProgressBar.start()
        defer { progress?.stop() }
        var differ = TreeDiffer(files: files)
        if !config.none {
            // Each file's own settings: the profiles that match it, under the command line's.
            let (config, given) = (config, given)
            differ.differ = { path throws(ListDiffError) in
                let settings = try config.settings(for: path, given: given)
                var files = FileDiffer(reader: try settings.reader(), differ: try settings.differ())
                files.memoryLimit = budget
                return files
            }
        }
        let (tree, results) = try differ.diffKeepingResults(old: old, new: new)
        progress?.stop()
        var errors = FileStream(fd: SystemCalls.standardError)
        for error in tree.errors { errors.write(error.wordedForTheCommand.description + "\n") }
        errors.flush()
        let kinds = try failOn.map { k throws(ListDiffError) in try ChangeKinds(parsing: k) } ?? .all
        let status: ExitStatus = !tree.errors.isEmpty ? .trouble : tree.differs(failingOn: kinds) ? .different : .same
        if quiet { return (status, (tree, results) as Any) }
        let shown = try show.map { k throws(ListDiffError) in tree.showing(try ChangeKinds(parsing: k)) } ?? tree
        if format == .json, !brief {
            try Output.write(to: output) { stream throws(ListDiffError) in
                try TreeJSONRenderer(statOnly: stat).render(shown) { stream.write(bytes: $0) }
            }
            return (status, (tree, results) as Any)
        }
        let style = TextStyle(colored: useColor)
        let treeStyle: TreeRenderer.Style =
            brief ? .brief : format == .markdown ? .markdown : format == .github ? .github : .patch
        let cut = ValueCut(width: fullValues ? 0 : maxValueWidth)
        var renderer = TreeRenderer(style: treeStyle) { [format, stat, limit, annotationLevel] file, names in
            switch format {
            case .markdown:
                var markdown = MarkdownRenderer(context: names, limit: limit)
                markdown.valueCut = cut
                return markdown
            case .github:
                var github = GitHubRenderer(context: names, level: annotationLevel) { file.locator?($0, $1) ?? $0.map { _ in nil } }
                github.valueCut = cut
                return github
            default:
                var patch = PatchRenderer(context: names, style: style)
                patch.valueCut = cut
                return stat ? StatRenderer(context: names) : patch
            }
        }
        renderer.level = annotationLevel
        try Output.write(to: output) { stream throws(ListDiffError) in try renderer.render(shown, to: &stream) }
        return (status, (tree, results) as Any)
    }

    /// Plays the replay on the terminal, or records it with --record.
    func replay(_ replay: Replay, status: ExitStatus) throws(ListDiffError) {
        let scale = duration.map { replay.seconds > 0 ? $0 / replay.seconds : 1 } ?? 1 / speed
        let colored = color != .never && (color == .always || (SystemCalls.environment("NO_COLOR") ?? "").isEmpty)
        if let record {
            let (width, height) = ReplayPlayer.size(of: SystemCalls.standardOutput)
            try Output.write(to: record) { stream in
                ReplayPlayer.record(
                    replay, limit: animateLimit, scale: scale, width: width, height: height,
                    style: TextStyle(colored: colored), title: SafeText.escape("listdiff \(old) \(new)"), to: &stream)
            }
            return
        }
        guard SystemCalls.isTerminal(SystemCalls.standardOutput) else {
            throw ListDiffError(.usage, "--format replay needs a terminal on standard output; --record FILE.cast records it without one")
        }
        ReplayPlayer.play(replay, limit: animateLimit, scale: scale, style: TextStyle(colored: colored), status: status)
    }

    /// The names output shows: as given, or under git, the path as git shows it.
    var displayContext: RenderContext {
        if !labels.isEmpty { return RenderContext(oldName: labels[0], newName: labels.count > 1 ? labels[1] : new) }
        guard let gitPath else { return RenderContext(oldName: old, newName: new) }
        return RenderContext(
            oldName: old == "/dev/null" ? old : GitDiffer.shown("a/", gitPath),
            newName: new == "/dev/null" ? new : GitDiffer.shown("b/", gitNewPath ?? gitPath))
    }

    var useColor: Bool {
        switch color {
        case .always: return true
        case .never: return false
        case .auto:
            if output != nil || !SystemCalls.isTerminal(SystemCalls.standardOutput) { return false }
            if let noColor = SystemCalls.environment("NO_COLOR"), !noColor.isEmpty { return false }
            return SystemCalls.environment("TERM") != "dumb"
        }
    }
}

/// How records are found, matched and compared: the key, the layout, the rules, the
/// algorithm and the reading. The same for a diff and a merge.
struct MatchingOptions: ParsableArguments {
    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "The identity field: a name, a dotted path (user.id) or a JSON Pointer (/user/id). Repeat for a composite key; an absent part is a value of its own. 'auto' picks a field unique in every record of both files (id, then names like key, uuid, code, name, then the first such field; one level down too, as metadata.name), or failing that a composite such as kind, metadata.namespace, metadata.name, and names it on stderr. '.' makes the whole record its identity: the list diffs as a sequence (inserts, deletes, moves), where --algorithm matters. Default: id.",
            valueName: "path"))
    var keys: [String] = []

    @Option(
        help: ArgumentHelp(
            "Where the records are, inside a larger document: a JSON Pointer (/data/users) or dotted path. There, a list of records, a map of records (an object of objects, each keyed by its member name, as /packages in package-lock.json), an object of lists or a list of section objects. A * step matches any member or index: /paths/*/get/parameters diffs every list it names, each a section named by its path, its records keyed within it. Default: the top level.",
            valueName: "pointer"))
    var path: String?

    @Option(
        name: .customLong("section-key"),
        help: ArgumentHelp(
            "In a list of section objects, the field that names a section. Default: detected (name, title, section, header, label, key, id).",
            valueName: "field"))
    var sectionKey: String?

    @Option(
        help: ArgumentHelp(
            "In a list of section objects, the field that holds a section's records. Default: detected (items, records, rows, elements, entries, children, values, data).",
            valueName: "field"))
    var items: String?

    @Option(
        help: ArgumentHelp(
            "Settings for a kind of document. kubernetes: records keyed by kind, metadata.namespace and metadata.name, and the lists the Kubernetes API merges by key (containers, env, ports, volumeMounts, volumes, ...) keyed as the API keys them, and YAML read as Kubernetes reads it (--yaml-version kubernetes). --key, --array-key and --yaml-version given too take precedence.",
            valueName: "name"))
    var preset: Preset?

    @Option(
        name: .customLong("array-key"),
        help: ArgumentHelp(
            "Match the elements of the lists at POINTER (inside each record; * matches any one member or index) by FIELD, as records are matched by --key: an updated record then shows elements inserted, deleted, updated and moved, named by key (/containers[name=web]/image). Give a POINTER twice for a composite key. Repeatable. 'auto' keys other lists of objects by a conventional field (id, key, uuid, name, ...) unique in both versions, and names each on stderr.",
            valueName: "pointer=field"))
    var arrayKey: [String] = []

    @Option(
        name: .customLong("ignore"),
        help: ArgumentHelp(
            "Leave the value at this JSON Pointer into a record out of the comparison: no update, no field change. * matches any one member or index (/tags/*/updated). Repeatable.",
            valueName: "pointer"))
    var ignore: [String] = []

    @Option(
        name: .customLong("only"),
        help: ArgumentHelp("Compare only the values at these JSON Pointers (repeatable); everything else is ignored.", valueName: "pointer")
    )
    var only: [String] = []

    @Flag(
        help:
            "The order of the records is not content: no moves are reported within a list, and a run whose records only changed places exits 0."
    )
    var unordered = false

    @Option(
        name: .customLong("unordered-arrays"),
        help: ArgumentHelp(
            "Arrays at this JSON Pointer compare as multisets ([\"a\",\"b\"] equals [\"b\",\"a\"]); / for every array in a record. Repeatable.",
            valueName: "pointer"))
    var unorderedArrays: [String] = []

    @Option(
        help: ArgumentHelp(
            "Numbers that differ by at most ABS are equal (compared as decimals); /pointer=ABS for one path only. Repeatable.",
            valueName: "abs"))
    var tolerance: [String] = []

    @Option(
        name: .customLong("relative-tolerance"),
        help: ArgumentHelp(
            "Numbers that differ by at most REL times the larger magnitude are equal; /pointer=REL for one path only. Repeatable.",
            valueName: "rel"))
    var relativeTolerance: [String] = []

    @Flag(
        name: .customLong("ignore-case"),
        help: "Compare strings without regard to case. --ignore-case=/pointer (repeatable) limits it to a path.")
    var ignoreCase = false

    @Option(name: .customLong("ignore-case-at"), help: .hidden)
    var ignoreCaseAt: [String] = []

    @Flag(
        name: .customLong("ignore-whitespace"),
        help:
            "Compare strings with white space trimmed at both ends and each run of it as one space. --ignore-whitespace=/pointer (repeatable) limits it to a path."
    )
    var ignoreWhitespace = false

    @Option(name: .customLong("ignore-whitespace-at"), help: .hidden)
    var ignoreWhitespaceAt: [String] = []

    @Option(
        help:
            "Diff algorithm: heckel (linear, the default), myers (shortest edit script, O((N+M)*D)) or lcs (dynamic programming, O(N*M)). With a key, all give the same changes; they differ where pairing is a choice (--key ., --duplicates match)."
    )
    var algorithm: AlgorithmChoice?

    @Option(
        name: .customLong("cost-limit"),
        help: ArgumentHelp(
            "Steps myers and lcs may take before they refuse (lcs: N*M table cells, checked before it starts). Default: \(DiffCost.defaultLimit).",
            valueName: "steps"))
    var costLimit: Int?

    @Option(
        help: ArgumentHelp(
            "Records sharing a key in one file: error (the default) refuses; match pairs the k-th occurrence in OLD with the k-th in NEW.",
            valueName: "policy"))
    var duplicates: DuplicatePolicy?

    @Option(
        name: .customLong("member-order"),
        help: ArgumentHelp(
            "Whether a record whose object members only changed order is updated: ignore (the default; JSON objects are unordered) or significant.",
            valueName: "mode"))
    var memberOrder: Differ.MemberOrder?

    @OptionGroup var reading: ReadingOptions

    func validate() throws {
        // The values' spellings and ranges, as the library checks a configuration's; what
        // they may be combined with, the library decides.
        do { try given.check() } catch { throw ValidationError(error.message) }
    }

    /// The settings given on the command line.
    var given: Configuration.Settings {
        var settings = reading.given
        settings.set(.key, values: keys)
        settings.set(.path, path)
        settings.set(.sectionKey, sectionKey)
        settings.set(.items, items)
        settings.set(.preset, preset?.rawValue)
        settings.set(.arrayKey, values: arrayKey)
        settings.set(.ignore, values: ignore)
        settings.set(.only, values: only)
        settings.set(.unordered, values: unordered ? ["true"] : [])
        settings.set(.unorderedArrays, values: unorderedArrays)
        settings.set(.tolerance, values: tolerance)
        settings.set(.relativeTolerance, values: relativeTolerance)
        settings.set(.ignoreCase, values: (ignoreCase ? ["/"] : []) + ignoreCaseAt)
        settings.set(.ignoreWhitespace, values: (ignoreWhitespace ? ["/"] : []) + ignoreWhitespaceAt)
        settings.set(.algorithm, algorithm?.rawValue)
        settings.set(.costLimit, costLimit.map(String.init))
        settings.set(.duplicates, duplicates?.rawValue)
        settings.set(.memberOrder, memberOrder?.rawValue)
        return settings
    }

    /// The plan: a differ that reads, keys and compares as `settings` say. `--key auto` picks
    /// its key on `old` and `new`, and names it on standard error unless `quiet`.
    func files(old: String, new: String, quiet: Bool, settings: Configuration.Settings) throws(ListDiffError) -> FileDiffer {
        var reader = try settings.reader()
        if settings.keySpellings == ["auto"] {
            if old == "-" || new == "-" {
                throw ListDiffError(.usage, "--key auto reads the inputs twice; it needs files, not standard input")
            }
            reader.key = try FileDiffer(reader: reader).discoverKey(old: old, new: new)
            if !quiet {
                // The field comes from the input: escaped, as all quoted input is.
                var stream = FileStream(fd: SystemCalls.standardError)
                stream.write("listdiff: --key auto chose " + SafeText.escape(reader.key.description) + "\n")
                stream.flush()
            }
        }
        return FileDiffer(reader: reader, differ: try settings.differ())
    }
}
