/// listdiff as git's external diff: a diff that never stops `git diff`.
///
/// git runs the external diff once per file and stops the whole `git diff` ("external diff
/// died") when one run fails. So a file that cannot be read as records (broken JSON, a
/// text file, a document that is not a list) is diffed by lines instead (`LineDiff`),
/// under one line that says why, and git goes on to the next file.
///
/// git hands over temporary files (`/tmp/git-blob-XXXX/notes.json`); errors name the path
/// in the repository instead, the one git passes first.
package struct GitDiffer {
    /// How each file is diffed as records.
    package var files: FileDiffer
    /// The repository paths of OLD and NEW (they differ for a renamed file).
    package var oldPath: String
    package var newPath: String

    package init(files: FileDiffer, oldPath: String, newPath: String) {
        self.files = files
        self.oldPath = oldPath
        self.newPath = newPath
    }

    /// What a run gives: the records' diff, or why not and the line diff instead.
    package enum Outcome {
        case records(FileDiffer.Result)
        case lines(reason: ListDiffError, LineDiff)
        /// Either file holds a NUL byte in its first 8000 bytes, as git tells binary files.
        case binary(reason: ListDiffError, same: Bool)
    }

    /// Diffs git's files `old` and `new` (either may be `/dev/null`: an empty list, or an
    /// empty text). Falls back to lines on any error but a usage error (a bad option, which
    /// every file would meet again).
    ///
    /// - Throws: a usage error; an error reading a file for its lines. Either names the
    ///   repository path.
    package func diff(old: String, new: String) throws(ListDiffError) -> Outcome {
        var files = files
        files.emptyPaths = Set([old, new].filter { $0 == "/dev/null" })
        do {
            return .records(try files.diff(old: old, new: new))
        } catch {
            let reason = named(error, old: old, new: new)
            guard error.kind != .usage else { throw reason }
            do {
                let a = try InputFile.read(old, text: false), b = try InputFile.read(new, text: false)
                if a.prefix(8000).contains(0) || b.prefix(8000).contains(0) { return .binary(reason: reason, same: a == b) }
                return .lines(reason: reason, LineDiff(old: a, new: b))
            } catch {
                throw named(error, old: old, new: new)
            }
        }
    }

    /// The error with git's temporary file replaced by the repository path.
    func named(_ error: ListDiffError, old: String, new: String) -> ListDiffError {
        var error = error
        if error.file == old, old != "/dev/null" {
            error.file = oldPath
        } else if error.file == new, new != "/dev/null" {
            error.file = newPath
        }
        return error
    }

    /// A repository path as git shows it under `prefix` (`a/`, `b/`): git passes an
    /// absolute path under `--no-index`, whose own slash is not doubled (`a/tmp/x.json`).
    package static func shown(_ prefix: String, _ path: String) -> String {
        prefix + path.drop { $0 == "/" }
    }
}
