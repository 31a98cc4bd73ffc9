/// Diffs two folders: pairs their files by relative path, recursively, and diffs each pair
/// by key with one `FileDiffer` (one key, one set of rules, for every file).
///
/// ```swift
/// let tree = try TreeDiffer(files: FileDiffer(key: try IdentityKey(parsing: ["id"])))
///     .diff(old: "exports-2024", new: "exports-2025")
/// ```
///
/// - A file whose name says it holds records (`.json`, `.ndjson`, `.jsonl`, `.yaml`,
///   `.yml`, `.csv`, `.tsv`), or every file when the reader names a format, is read as
///   records; one that cannot be is an error for that path.
/// - Any other file is compared as bytes when both sides are the same, else read as
///   records if its content allows (a Kubernetes object that `kubectl diff` names
///   `apps.v1.Deployment.shop.web`), else compared as bytes.
/// - A file only one side holds is counted (its records, or its bytes), not diffed.
/// - Symbolic links are never followed (see `FolderWalk`): two links compare by the text
///   they point at. A FIFO, socket or device is refused for its path.
/// - An error at one path (unreadable, malformed, refused) is kept for that path, and the
///   other paths are still diffed: the result is then incomplete (`TreeChangeset.errors`).
public struct TreeDiffer: Sendable {
    /// How each pair of files is diffed.
    public var files: FileDiffer
    /// How the pair at a path is diffed where its settings are its own: given NEW's path
    /// (OLD's, where only OLD holds the file), the differ for it (the command's, made from
    /// the configuration profiles that match the file). Nil: `files` for every pair.
    package var differ: (@Sendable (_ path: String) throws(ListDiffError) -> FileDiffer)? = nil

    /// A differ of folders that diffs each pair of files with `files`.
    public init(files: FileDiffer) {
        self.files = files
    }

    /// Diffs the folders at `old` and `new`.
    ///
    /// - Throws: a `.io` error when either root is not a folder that can be listed. An
    ///   error below the roots is kept in the result, at its path.
    public func diff(old: String, new: String) throws(ListDiffError) -> TreeChangeset {
        try diffKeepingResults(old: old, new: new).tree
    }

    /// The tree, and each record pair's `FileDiffer.Result` by index in `tree.files` (for the
    /// outputs that read the records again).
    package func diffKeepingResults(old: String, new: String) throws(ListDiffError) -> (
        tree: TreeChangeset, results: [Int: FileDiffer.Result]
    ) {
        let oldWalk = try Self.walk(old), newWalk = try Self.walk(new)
        var paths: [String: (old: FolderWalk.Entry?, new: FolderWalk.Entry?)] = [:]
        for (path, entry) in oldWalk.entries { paths[path, default: (nil, nil)].old = entry }
        for (path, entry) in newWalk.entries { paths[path, default: (nil, nil)].new = entry }
        // A path that could not be walked (OLD's first) is an error in its place.
        var problems: [String: ListDiffError] = [:]
        for (root, walk) in [(old, oldWalk), (new, newWalk)] {
            for problem in walk.problems where problems[problem.path] == nil {
                problems[problem.path] = ListDiffError(
                    .io, file: FolderWalk.join(root, problem.path), "cannot be walked: " + problem.reason)
            }
        }
        var files: [TreeChangeset.File] = []
        var results: [Int: FileDiffer.Result] = [:]
        for path in Set(paths.keys).union(problems.keys).sorted(by: FolderWalk.precedes) {
            if let error = problems[path] {
                files.append(TreeChangeset.File(path: path, outcome: .failed(error)))
                continue
            }
            let (a, b) = paths[path]!
            let (outcome, result) = pair(FolderWalk.join(old, path), a, FolderWalk.join(new, path), b)
            var file = TreeChangeset.File(path: path, outcome: outcome)
            if let result {
                file.locator = result.locator
                results[files.count] = result
            }
            files.append(file)
        }
        return (TreeChangeset(oldRoot: old, newRoot: new, files: files), results)
    }

    /// Whether the path is a folder (links followed), the test the command makes to choose
    /// the folder mode.
    package static func isFolder(_ path: String) -> Bool {
        SystemCalls.status(ofPath: path)?.kind == .directory
    }

    static func walk(_ root: String) throws(ListDiffError) -> FolderWalk {
        guard isFolder(root) else { throw ListDiffError(.io, file: root, "is not a folder") }
        let walk = FolderWalk(root: root)
        if let problem = walk.problems.first, problem.path.isEmpty {
            throw ListDiffError(.io, file: root, "cannot be listed: " + problem.reason)
        }
        return walk
    }

    /// Whether `files` reads `path` as records by its name (or by the format it names).
    func readsByName(_ path: String, _ files: FileDiffer) -> Bool {
        files.reader.format != nil || InputFormat.fromExtension(of: path) != nil
    }

    /// What became of one path, and its result when both sides were diffed as records.
    func pair(_ old: String, _ a: FolderWalk.Entry?, _ new: String, _ b: FolderWalk.Entry?) -> (
        TreeChangeset.Outcome, FileDiffer.Result?
    ) {
        if case .special(let what)? = a {
            return (.failed(ListDiffError(.io, file: old, "is \(what): listdiff reads regular files only")), nil)
        }
        if case .special(let what)? = b {
            return (.failed(ListDiffError(.io, file: new, "is \(what): listdiff reads regular files only")), nil)
        }
        do throws(ListDiffError) {
            let files = try differ?(b == nil ? old : new) ?? self.files
            switch (a, b) {
            case (.file(let x)?, .file(let y)?): return try pairOfFiles(old, new, sizes: (x, y), files)
            case (.link(let x)?, .link(let y)?): return (.links(old: x, new: y), nil)
            case (let a?, nil): return (.removed(try side(old, a, files)), nil)
            case (nil, let b?): return (.added(try side(new, b, files)), nil)
            case (let a?, let b?): return (.replaced(old: try side(old, a, files), new: try side(new, b, files)), nil)
            case (nil, nil): return (.bytes(same: true), nil)
            }
        } catch {
            return (.failed(error), nil)
        }
    }

    /// Two regular files: diffed as records with `files`, or compared as bytes.
    func pairOfFiles(_ old: String, _ new: String, sizes: (Int, Int), _ files: FileDiffer) throws(ListDiffError) -> (
        TreeChangeset.Outcome, FileDiffer.Result?
    ) {
        if sizes == (0, 0) { return (.bytes(same: true), nil) }
        if sizes.0 == 0 || sizes.1 == 0 {
            // An empty file beside a file of records holds no records: kubectl writes an
            // object that does not exist (a new one's LIVE, a pruned one's MERGED) so.
            var differ = files
            differ.emptyPaths = [sizes.0 == 0 ? old : new]
            let nonEmpty = sizes.0 == 0 ? new : old
            if readsByName(nonEmpty, files) || (try? files.recordCount(nonEmpty)) != nil {
                let result = try differ.diff(old: old, new: new)
                return (.records(result.changeset), result)
            }
            return (.bytes(same: false), nil)
        }
        if readsByName(old, files) || readsByName(new, files) {
            let result = try files.diff(old: old, new: new)
            return (.records(result.changeset), result)
        }
        let a = try InputFile.read(old, text: false), b = try InputFile.read(new, text: false)
        if a == b { return (.bytes(same: true), nil) }
        let oldFile = MappedFile(name: old, bytes: a), newFile = MappedFile(name: new, bytes: b)
        if let result = try? files.diffOpened(
            oldFile, files.reader.format(for: old, bytes: oldFile.head), newFile, files.reader.format(for: new, bytes: newFile.head))
        {
            return (.records(result.changeset), result)
        }
        return (.bytes(same: false), nil)
    }

    /// One side alone: its records counted, or its bytes, or its link.
    func side(_ path: String, _ entry: FolderWalk.Entry, _ files: FileDiffer) throws(ListDiffError) -> TreeChangeset.Side {
        switch entry {
        case .link(let target): return .link(target)
        case .special(let what): throw ListDiffError(.io, file: path, "is \(what): listdiff reads regular files only")
        case .file(let size):
            // An empty file holds no records (see `pairOfFiles`).
            if size == 0 { return readsByName(path, files) ? .records(0) : .bytes(0) }
            if readsByName(path, files) { return .records(try files.recordCount(path)) }
            if let count = try? files.recordCount(path) { return .records(count) }
            return .bytes(size)
        }
    }
}

extension FileDiffer {
    /// The number of records in the file at `path`, read as a diff reads it.
    package func recordCount(_ path: String) throws(ListDiffError) -> Int {
        let file = try MappedFile(path)
        let (opened, format) = try reader.opened(file, reader.format(for: path, bytes: file.head))
        return try engine(key: reader.key, duplicates: reader.duplicates).side(opened, format, against: nil, KeyHashing()).count
    }
}
