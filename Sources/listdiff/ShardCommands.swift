import ArgumentParser
import ListDiffKit

extension DiffOptions {
    /// What `--partition` and `--shard-positions` go with.
    func validateShard() throws {
        if shardPositions != nil, partition == nil { throw ValidationError("--shard-positions goes with --partition") }
        if preSplit, partition == nil { throw ValidationError("--pre-split goes with --partition") }
        if preSplit, shardPositions != nil {
            throw ValidationError("--pre-split shards carry no positions; --shard-positions gives them: give one or the other")
        }
        guard partition != nil else { return }
        if format != .json || stat || show != nil || quiet || brief {
            throw ValidationError(
                "--partition writes a shard's changeset: it goes with -f json, without --stat, --show, --quiet or --brief")
        }
        if sorted { throw ValidationError("--partition reads its inputs whole; --sorted does not go with it") }
    }

    /// Diffs one shard and writes its changeset (exit 0: whether the shard differs is only
    /// known once the shards are joined).
    func runShard(_ files: FileDiffer, _ partition: String) throws(ListDiffError) -> (ExitStatus, retained: Any) {
        let shard = try Shard(parsing: partition)
        let positions =
            preSplit
            ? ShardPositions.unplaced
            : try shardPositions.map { path throws(ListDiffError) in try ShardPositions(json: try InputFile.read(path), name: path) }
        let result = try files.diffShard(old: old, new: new, shard: shard, positions: positions)
        try Output.write(to: output) { stream throws(ListDiffError) in
            try result.render(context: displayContext) { stream.write(bytes: $0) }
        }
        return (.same, result)
    }
}

struct JoinCommand: ParsableCommand, Executable {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join the changesets of every shard of a diff (made with --partition) into the whole diff's changeset.",
        discussion: """
            The result is byte for byte the changeset 'listdiff -f json OLD NEW' writes: the \
            shards' changes in order, the fewest moves, found over every shard's matched \
            pairs, and both fingerprints, computed from the shards' record hashes. The shards \
            may come in any order. A shard that is missing or given twice, shards of \
            different diffs (their settings, record counts or fingerprints differ), and \
            shards whose records do not cover the documents once are refused. (It is not \
            'compose', which chains the changesets from A to B and from B to C.)

            Exit status: 0 when the changeset was written, 2 on trouble (one line on \
            standard error).
            """
    )

    @Argument(
        help: ArgumentHelp("The changesets of all the shards, as 'listdiff --partition I/N -f json' writes them.", valueName: "shard"),
        completion: .file())
    var shards: [String]

    @Option(name: [.customShort("o"), .long], help: ChangesetOutput.outputHelp, completion: .file())
    var output: String?

    func validate() throws {
        if shards.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input ('-') can be read once") }
    }

    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        let progress = Timings.progress
        defer { Timings.report(progress) }
        let joined = try Changeset.joined(files: shards)
        progress?.lap("read and join")
        let names = joined.inputNames ?? (old: "old", new: "new")
        try ChangesetOutput.write(joined, oldName: names.old, newName: names.new, to: output)
        progress?.lap("write")
        return (.same, joined)
    }
}

struct HashCommand: ParsableCommand, Executable {
    static let configuration = CommandConfiguration(
        commandName: "hash",
        abstract: "Print the key hash of each record of a file, which chooses its shard under --partition.",
        discussion: """
            FILE is read as a diff reads an input, with the key, layout and reading options \
            in force for it. One line per record, in order: the key's hash as 16 hex digits, \
            or with --shards N the shard (0 to N-1) it falls in, the hash modulo N. The hash \
            is the first 64 bits of listdiff's canonical hash of the key as a changeset \
            writes it (README: "Larger than memory, and on a cluster"); it is the same on \
            every machine.

            Exit status: 0 when the hashes were written, 2 on trouble.
            """
    )

    @Argument(help: ArgumentHelp("The file ('-' for standard input).", valueName: "file"), completion: .file())
    var file: String

    @Option(help: ArgumentHelp("Print each record's shard of N instead of its hash.", valueName: "n"))
    var shards: Int?

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    @OptionGroup var matching: MatchingOptions

    @OptionGroup var config: ConfigOptions

    func validate() throws {
        if let shards, !(1...(1 << 20)).contains(shards) { throw ValidationError("--shards must be from 1 to 1048576") }
        if matching.keys == ["auto"] { throw ValidationError("hash reads one file; --key auto needs both sides of a diff") }
    }

    func execute() throws(ListDiffError) -> (ExitStatus, retained: Any) {
        let settings = try config.settings(for: file, given: matching.given)
        let hashes = try FileDiffer(reader: try settings.reader()).keyHashes(file)
        try Output.write(to: output) { stream in
            var text = ""
            text.reserveCapacity(1 << 16)
            for h in hashes {
                text += shards.map { String(KeyHash.shard(h, of: $0)) } ?? KeyHash.hexDigits(h)
                text += "\n"
                if text.utf8.count >= 1 << 16 {
                    stream.write(text)
                    text.removeAll(keepingCapacity: true)
                }
            }
            stream.write(text)
        }
        return (.same, hashes)
    }
}
