/// The diff of two folders: one entry per relative path found in either, in walk order
/// (`FolderWalk.precedes`), and what became of it.
public struct TreeChangeset: Sendable {
    /// OLD's folder, as given.
    public var oldRoot: String
    /// NEW's folder, as given.
    public var newRoot: String
    /// Every path found in either folder, in walk order.
    public var files: [File]

    /// One path and what became of it.
    public struct File: Sendable {
        /// The path relative to both roots (`a/b.json`).
        public var path: String
        /// What became of it.
        public var outcome: Outcome
        /// Finds where places are in the pair's files (NEW when `new`), for annotations.
        package var locator: (@Sendable (_ places: [RecordPlace], _ new: Bool) -> [SourceLocation?])?

        /// A path and what became of it.
        public init(path: String, outcome: Outcome) {
            self.path = path
            self.outcome = outcome
        }
    }

    /// What one side holds at a path.
    public enum Side: Sendable, Equatable {
        /// A file of records, and how many.
        case records(Int)
        /// A file read as bytes, of this many bytes.
        case bytes(Int)
        /// A symbolic link, and the text it points at (never followed).
        case link(String)
    }

    /// What became of a path.
    public enum Outcome: Sendable {
        /// Both sides are files of records: their changeset (empty when they hold the same).
        case records(Changeset)
        /// Both sides are compared as bytes (neither's name says it holds records, and its
        /// content could not be read as records), and are the same or not.
        case bytes(same: Bool)
        /// Both sides are symbolic links, compared by the text they point at.
        case links(old: String, new: String)
        /// Only NEW holds the path.
        case added(Side)
        /// Only OLD holds the path.
        case removed(Side)
        /// The sides are of different kinds (a link and a file): compared as unequal.
        case replaced(old: Side, new: Side)
        /// The path could not be diffed: the error says why.
        case failed(ListDiffError)
    }

    /// The diff of the folders `oldRoot` and `newRoot`: `files` in walk order.
    public init(oldRoot: String, newRoot: String, files: [File]) {
        self.oldRoot = oldRoot
        self.newRoot = newRoot
        self.files = files
    }

    /// The errors met, in walk order: the diff is incomplete when there is one.
    public var errors: [ListDiffError] {
        files.compactMap { if case .failed(let error) = $0.outcome { return error } else { return nil } }
    }

    /// The counts of paths by what became of them.
    public struct Summary: Sendable, Equatable {
        /// Paths both folders hold that differ, those only NEW holds, only OLD holds, both
        /// hold the same, and those not diffed for an error.
        public var changed = 0, added = 0, removed = 0, unchanged = 0, failed = 0
    }

    /// The paths counted by what became of them.
    public var summary: Summary {
        var s = Summary()
        for file in files {
            if case .added = file.outcome {
                s.added += 1
            } else if case .removed = file.outcome {
                s.removed += 1
            } else if case .failed = file.outcome {
                s.failed += 1
            } else if file.differs {
                s.changed += 1
            } else {
                s.unchanged += 1
            }
        }
        return s
    }

    /// The record changes of every pair of record files, added up.
    public var recordSummary: Changeset.Summary {
        var total = Changeset.Summary()
        for file in files {
            guard case .records(let changeset) = file.outcome else { continue }
            let s = changeset.summary
            total.inserted += s.inserted
            total.deleted += s.deleted
            total.moved += s.moved
            total.updated += s.updated
            total.unchanged += s.unchanged
            total.renamed += s.renamed
        }
        return total
    }

    /// Whether any path differs (errors aside).
    public var differs: Bool { files.contains { $0.differs } }
}

extension TreeChangeset.File {
    /// Whether the path differs between the folders (a failed one does not count).
    public var differs: Bool {
        switch outcome {
        case .records(let changeset): return !changeset.isEmpty
        case .bytes(let same): return !same
        case .links(let old, let new): return old != new
        case .added, .removed, .replaced: return true
        case .failed: return false
        }
    }
}

extension TreeChangeset.Side {
    /// The side in words: "3 records", "120 bytes", "a link to x".
    public var description: String {
        switch self {
        case .records(let n): return n == 1 ? "1 record" : "\(n) records"
        case .bytes(let n): return n == 1 ? "1 byte" : "\(n) bytes"
        case .link(let target): return "a symbolic link to " + SafeText.escape(target)
        }
    }
}

extension TreeChangeset {
    /// Whether any path differs, counting only record changes of `kinds` (`--fail-on`);
    /// every other difference (a file added, removed or changed as bytes) counts.
    package func differs(failingOn kinds: ChangeKinds) -> Bool {
        files.contains { file in
            if case .records(let changeset) = file.outcome { return changeset.hasChanges(of: kinds) }
            return file.differs
        }
    }

    /// The tree with each pair's changes filtered to `kinds` (`--show`).
    package func showing(_ kinds: ChangeKinds) -> TreeChangeset {
        var copy = self
        for i in copy.files.indices {
            if case .records(let changeset) = copy.files[i].outcome { copy.files[i].outcome = .records(changeset.showing(kinds)) }
        }
        return copy
    }
}
