import ArgumentParser
import ListDiffKit

/// Writes a changeset as `listdiff --format json` writes one.
enum ChangesetOutput {
    static func write(_ changeset: Changeset, oldName: String, newName: String, to output: String?) throws(ListDiffError) {
        let renderer = JSONChangesetRenderer(context: RenderContext(oldName: oldName, newName: newName))
        try Output.write(to: output) { stream throws(ListDiffError) in
            try renderer.render(changeset) { stream.write(bytes: $0) }
        }
    }

    static func read(_ path: String) throws(ListDiffError) -> Changeset {
        try Changeset(json: try InputFile.read(path), name: path)
    }

    static let outputHelp = ArgumentHelp(
        "Write the changeset to this file instead of standard output (atomically: a temporary file in the same folder, renamed over the target).",
        valueName: "file")
}

struct InvertCommand: ParsableCommand, Executable {
    static let configuration = CommandConfiguration(
        commandName: "invert",
        abstract: "Write the changeset from NEW back to OLD, from a changeset made by 'listdiff --format json'.",
        discussion: """
            Applied to NEW, the inverse gives OLD, fingerprints included: deletes become \
            inserts of the records they held, inserts deletes, moves go back, and updates \
            bring back the old records, rebuilt from the new ones and the old values of \
            their changed fields. It is the changeset a diff of NEW and OLD writes, but for \
            the names of the inputs and the generator, the order of members in rebuilt \
            records, and, where several sets of fewest moves exist and the diff's would move \
            a record no change names, which records move; and renames (--renames), which \
            are the changeset's own, turned back, not those a diff of NEW and OLD would pair. \
            Keyed lists inside records \
            (--array-key) are handled; changesets of sections, made under comparison rules, \
            with --duplicates match or --key . are refused for now.

            Exit status: 0 when the inverse was written, 2 on trouble (one line on standard \
            error, with the changeset's file:line:column where it applies).
            """
    )

    @Argument(
        help: ArgumentHelp("The changeset, as written by 'listdiff --format json' ('-' for standard input).", valueName: "changeset"),
        completion: .file())
    var changeset: String

    @Option(name: [.customShort("o"), .long], help: ChangesetOutput.outputHelp, completion: .file())
    var output: String?

    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        let progress = Timings.progress
        defer { Timings.report(progress) }
        let forward = try ChangesetOutput.read(changeset)
        progress?.lap("read changeset")
        let inverse = try forward.inverted()
        progress?.lap("invert")
        let names = inverse.inputNames ?? (old: "new", new: "old")
        try ChangesetOutput.write(inverse, oldName: names.old, newName: names.new, to: output)
        progress?.lap("write")
        return (.same, (forward, inverse))
    }
}

struct ComposeCommand: ParsableCommand, Executable {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Write the changeset from A to C, given the changesets from A to B and from B to C.",
        discussion: """
            The result is the changeset a diff of A and C writes (with the fewest moves), but \
            for the generator, the order of members in records rebuilt from an update, and, \
            where several sets of fewest moves exist and the diff's would move a record \
            neither changeset names, which records move: compose refuses when even the \
            fewest moves must move such a record, whose key neither changeset holds. With \
            --old A, those keys are read from A (scanned as apply scans OLD, after its \
            fingerprint is checked against the first changeset's), and the moves are the \
            diff's. Changesets that do not chain (the \
            second's OLD fingerprint or record count is not the first's NEW, or their keys \
            or layouts differ) are refused. Keyed lists inside records (--array-key) are \
            handled; changesets of sections, made under comparison rules, with --duplicates \
            match or --key . are refused for now.

            Exit status: 0 when the result was written, 2 on trouble (one line on standard \
            error, with a changeset's file:line:column where it applies).
            """
    )

    @Argument(
        help: ArgumentHelp("The changeset from A to B, as written by 'listdiff --format json'.", valueName: "first"),
        completion: .file())
    var first: String

    @Argument(
        help: ArgumentHelp("The changeset from B to C, made from B.", valueName: "second"),
        completion: .file())
    var second: String

    @Option(name: [.customShort("o"), .long], help: ChangesetOutput.outputHelp, completion: .file())
    var output: String?

    @Option(
        help: ArgumentHelp(
            "A, the document the first changeset was made from, read as that changeset records: the keys of records neither changeset names are read from it, so that the moves are the direct diff's. Its fingerprint must be the first changeset's OLD fingerprint.",
            valueName: "file"),
        completion: .file())
    var old: String?

    func validate() throws {
        if [first, second, old].count(where: { $0 == "-" }) > 1 {
            throw ValidationError("only one of FIRST, SECOND and --old can be standard input ('-')")
        }
    }

    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        let progress = Timings.progress
        defer { Timings.report(progress) }
        // Read at once, each on a core; the first's error is reported first.
        let (first, second) = (first, second)
        let (a, b) = Concurrently.both(
            { () throws(ListDiffError) in try ChangesetOutput.read(first) },
            { () throws(ListDiffError) in try ChangesetOutput.read(second) })
        let one = try a.get(), two = try b.get()
        progress?.lap("read changesets")
        // With A, the keys neither changeset holds are read from it.
        let composed: Changeset
        if let old {
            composed = try one.composed(with: two, oldPath: old)
        } else {
            composed = try one.composed(with: two)
        }
        progress?.lap(old == nil ? "compose" : "scan A, compose")
        let names = composed.inputNames ?? (old: "old", new: "new")
        try ChangesetOutput.write(composed, oldName: names.old, newName: names.new, to: output)
        progress?.lap("write")
        return (.same, (one, two, composed))
    }
}
