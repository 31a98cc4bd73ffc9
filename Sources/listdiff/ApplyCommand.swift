import ArgumentParser
import ListDiffKit

struct ApplyCommand: ParsableCommand, Executable {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Write the new document from the old one and a changeset made by 'listdiff --format json'.",
        discussion: """
            The changeset records how the diff read OLD (its format, CSV cell types and YAML \
            version), and apply reads OLD so: --input-format, --csv-types and --yaml-version \
            need not be given, and one that says otherwise is refused with exit status 2. \
            The changeset records a fingerprint (a 128-bit hash of the canonical value) of the document \
            it was made from and of the one it leads to. apply refuses, with exit status 2, an \
            OLD that is not the document the changeset was made from (unless --force), a \
            changeset that is malformed or of another version, and a change whose key is not \
            the key of the record at its old position (even with --force). Exit status 0 when \
            the new document was written.

            Given a folder as OLD and a tree changeset (written by 'listdiff --format json \
            OLD_DIR NEW_DIR'), apply writes NEW's folder at --output: every path is checked \
            first (none may be absolute or hold an empty, . or .. step) and every pair's \
            changeset applied with the checks above, then each file is written atomically.
            """
    )

    @Argument(help: ArgumentHelp("The old file ('-' for standard input), or folder.", valueName: "old"), completion: .file())
    var old: String

    @Argument(
        help: ArgumentHelp("The changeset, as written by 'listdiff --format json' ('-' for standard input).", valueName: "changeset"),
        completion: .file())
    var changeset: String

    @Option(
        name: [.customShort("o"), .long],
        help: ArgumentHelp(
            "Write the new document to this file instead of standard output (atomically: a temporary file in the same folder, renamed over the target). For a folder OLD, the folder to write NEW's files to (made if missing).",
            valueName: "file"),
        completion: .file())
    var output: String?

    @Option(
        name: .customLong("output-format"),
        help: ArgumentHelp(
            "Write json, ndjson (a list, one record per line), yaml, csv or tsv (a list of flat records: OLD's header, then any other field). Default: the format --output's extension names, else OLD's format.",
            valueName: "format"),
        completion: .list(InputFormat.allCases.map(\.rawValue)))
    var outputFormat: InputFormat?

    @OptionGroup var reading: ReadingOptions

    @OptionGroup var config: ConfigOptions

    @Flag(
        help:
            "Apply even when OLD's fingerprint differs from the one in the changeset (each change must still find its key at its old position)."
    )
    var force = false

    func validate() throws {
        do { try reading.given.check() } catch { throw ValidationError(error.message) }
        if old == "-" && changeset == "-" {
            throw ValidationError("only one of OLD and CHANGESET can be standard input ('-')")
        }
    }

    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        if TreeDiffer.isFolder(old) { return try executeTree() }
        let progress = Timings.progress
        defer { Timings.report(progress) }
        // OLD's configuration reads it where the changeset does not record how (the changeset's
        // key and layout replace the configuration's).
        let reader = try config.settings(for: old, given: reading.given).reader()
        // The library reads OLD as the changeset records, refuses an option given that says
        // otherwise, and checks both fingerprints (unless --force) and every change's key.
        let applier = try FileApplier.open(
            changeset: try InputFile.read(changeset), name: changeset, old: old, reader: reader, asked: reading.given.readingRequest,
            force: force, progress: progress)
        let format =
            outputFormat ?? output.flatMap(InputFormat.fromExtension(of:)) ?? applier.format
        try Output.write(to: output) { (stream: inout FileStream) throws(ListDiffError) in
            try applier.write(format) { stream.write(bytes: $0) }
            progress?.lap("write")
        }
        progress?.lap("sync")
        return (.same, applier)
    }

    /// Applies a tree changeset to OLD's folder and writes NEW's folder at --output, each file
    /// atomically (a temporary file beside it, renamed into place). Every path and every
    /// pair's changeset is checked before anything is written.
    func executeTree() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        guard let output else {
            throw ListDiffError(.usage, "OLD is a folder: name the folder to write NEW's files to with --output")
        }
        // (Each file's changeset records its key, layout and reading; the configuration
        // found from OLD's folder reads what they do not say.)
        let reader = try config.settings(for: old, given: reading.given).reader()
        let tree = try TreeApplier(
            document: try InputFile.read(changeset), name: changeset, old: old, reader: reader,
            asked: reading.given.readingRequest, force: force)
        if SystemCalls.linkStatus(ofPath: output) == nil, !SystemCalls.makeFolder(output) {
            throw ListDiffError(.io, file: output, "cannot make the folder: \(SystemCalls.describe(SystemCalls.errorNumber))")
        }
        guard TreeDiffer.isFolder(output) else { throw ListDiffError(.io, file: output, "is not a folder") }
        for (path, content) in tree.files {
            try TreeApplier.makeFolders(for: path, in: output)
            let target = FolderWalk.join(output, path)
            switch content {
            case .records(let applier, let format):
                try Output.write(to: target) { (stream: inout FileStream) throws(ListDiffError) in
                    try applier.write(format) { stream.write(bytes: $0) }
                }
            case .bytes(let bytes):
                try Output.write(to: target) { stream in bytes.withUnsafeBytes { stream.write(bytes: $0) } }
            case .copy(let source):
                let bytes = try InputFile.read(source, text: false)
                try Output.write(to: target) { stream in bytes.withUnsafeBytes { stream.write(bytes: $0) } }
            case .link(let pointee):
                // Made beside the target, then renamed over it: atomic too.
                let temporary = target + ".listdiff-link"
                SystemCalls.remove(temporary)
                guard SystemCalls.makeLink(temporary, to: pointee), SystemCalls.rename(temporary, to: target) else {
                    throw ListDiffError(.io, file: target, "cannot make the link: \(SystemCalls.describe(SystemCalls.errorNumber))")
                }
            }
        }
        return (.same, tree)
    }
}
