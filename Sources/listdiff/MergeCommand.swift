import ArgumentParser
import ListDiffKit

struct MergeCommand: ParsableCommand, Executable {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge two changed versions of a file of records, record by record, as a three-way merge.",
        discussion: """
            BASE is diffed to OURS and to THEIRS, with the same key, rules and reading options \
            as a diff, and the two changes are combined. A record changed on one side takes \
            that side's change; changes to different fields of one record both apply; the \
            same change made on both sides is one change. Records neither side moved keep \
            BASE's order, and each side's moved and inserted records follow the record they \
            follow on that side. A keyed list inside a record (--array-key, --array-key \
            auto, --preset kubernetes) merges element by element, as records do.

            A conflict is reported, never guessed: a field changed to different values, or \
            removed on one side and changed on the other; a list with no key changed on both \
            sides; a record deleted on one side and changed on the other; one key \
            inserted on both sides with different records; a record moved by both sides to \
            different places. --prefer ours or theirs resolves every conflict that way. \
            Without it, each conflicting record is written between git's markers (<<<<<<< \
            ours, =======, >>>>>>> theirs), each side's record as the file's format writes \
            it, so that the file does not read until a person chooses; every other record \
            is merged around it.

            As git's merge driver (merge.listdiff.driver = listdiff merge %O %A %B %L %P), \
            the five arguments are BASE, OURS, THEIRS, the conflict marker size and the \
            file's path: the result is written to OURS, and errors name the path. The \
            settings of a .listdiff.yaml are found from that path (else from OURS), as a \
            diff finds them.

            Exit status: 0 for a clean merge (the result is written), 1 when conflicts \
            remain (the result is written with markers), 2 on trouble.
            """
    )

    @Argument(help: ArgumentHelp("The common ancestor.", valueName: "base"), completion: .file())
    var base: String

    @Argument(help: ArgumentHelp("One changed version (git's current branch).", valueName: "ours"), completion: .file())
    var ours: String

    @Argument(help: ArgumentHelp("The other changed version (the branch merged in).", valueName: "theirs"), completion: .file())
    var theirs: String

    @Argument(help: .hidden)
    var git: [String] = []

    @OptionGroup var matching: MatchingOptions

    @Option(
        help: ArgumentHelp(
            "Resolve conflicts: ours or theirs for all, or each kind its own, as field=theirs,delete=keep (kinds: field, delete/modify or delete, insert/insert or insert, order; delete/modify also takes delete or keep: the deleting or the changing side wins). A kind left out is reported.",
            valueName: "side"),
        completion: .list(FileMerger.Side.allCases.map(\.rawValue)))
    var prefer: String?

    @Option(
        help: ArgumentHelp(
            "Write the conflicts as data to this file: a JSON document with each conflict's kind, key, fields, and the base, ours and theirs records.",
            valueName: "file"),
        completion: .file())
    var conflicts: String?

    @Option(
        name: [.customShort("o"), .long],
        help: ArgumentHelp(
            "Write the merged document to this file instead of standard output (atomically: never a partial file).",
            valueName: "file"),
        completion: .file())
    var output: String?

    @Flag(name: [.customShort("q"), .long], help: "Print no summary on standard error.")
    var quiet = false

    @OptionGroup var config: ConfigOptions

    func validate() throws {
        if !git.isEmpty {
            guard git.count == 2, let size = Int(git[0]), (1...100).contains(size) else {
                throw ValidationError("merge takes BASE OURS THEIRS, or git's %O %A %B %L %P")
            }
            if output != nil { throw ValidationError("as git's merge driver, the result is written to OURS (%A); --output does not apply") }
        }
        if [base, ours, theirs].contains("-") { throw ValidationError("merge reads three files; standard input ('-') is not one") }
        if let prefer {
            do { _ = try FileMerger.Preference(parsing: prefer) } catch { throw ValidationError("--prefer: " + error.message) }
        }
    }

    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        // As git's driver: %L is the marker size, %P the path in the repository.
        let markerSize = git.first.flatMap { Int($0) } ?? 7
        let name = git.count == 2 ? git[1] : nil
        do throws(ListDiffError) {
            // As git's driver, the configuration is the one for the file's path in the repository.
            let settings = try config.settings(for: name ?? ours, given: matching.given)
            var files = try matching.files(old: base, new: ours, quiet: quiet, settings: settings)
            files.progress = Timings.progress
            defer { Timings.report(files.progress) }
            let merger = FileMerger(files: files, preference: try prefer.map(FileMerger.Preference.init(parsing:)) ?? .init())
            let result = try merger.merge(base: base, ours: ours, theirs: theirs)
            let target = name != nil ? ours : output
            try Output.write(to: target) { (stream: inout FileStream) throws(ListDiffError) in
                try merger.write(result, base: base, markerSize: markerSize) { stream.write(bytes: $0) }
            }
            files.progress?.lap("write")
            if let conflicts {
                try Output.write(to: conflicts) { (stream: inout FileStream) throws(ListDiffError) in
                    var text = ""
                    try FileMerger.writeConflicts(result, to: &text)
                    stream.write(text)
                }
            }
            if !quiet {
                var stream = FileStream(fd: SystemCalls.standardError)
                var text = ""
                try FileMerger.writeSummary(result, name: name ?? ours, to: &text)
                stream.write(text)
                stream.flush()
            }
            let open = result.conflicts.filter { $0.resolvedBy == nil }.count
            return (open == 0 ? .same : .different, result as Any)
        } catch {
            // Under git, the error names the file in the repository, not git's copies.
            guard let name else { throw error }
            var named = error
            if named.file == base || named.file == ours || named.file == theirs { named.file = name }
            throw named
        }
    }
}
