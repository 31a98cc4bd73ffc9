/// git runs an external diff (`GIT_EXTERNAL_DIFF`, or a `diff.<driver>.command`) with seven
/// arguments after any the command holds:
///
///     path old-file old-hex old-mode new-file new-hex new-mode
///
/// and with two more (the new path and a note) for a renamed file. A hex is a blob name or
/// `.`, a mode six octal digits or `.`; a missing side's file is `/dev/null`.
enum GitCall {
    /// The arguments rewritten for `listdiff diff` (`--git-path PATH -- OLD NEW` after the
    /// command's own options), or nil when they are not git's.
    static func rewrite(_ arguments: [String]) -> [String]? {
        for count in [7, 9] where arguments.count >= count {
            let tail = Array(arguments.suffix(count))
            let head = Array(arguments.dropLast(count))
            guard isHex(tail[2]), isMode(tail[3]), isHex(tail[5]), isMode(tail[6]) else { continue }
            // An explicit `apply` is never git's call.
            if head.first == "apply" { return nil }
            // A renamed file (or two files under --no-index) shows both paths.
            let renamed = count == 9 ? ["--git-new-path", tail[7]] : []
            return head + ["--git-path", tail[0]] + renamed + ["--", tail[1], tail[4]]
        }
        return nil
    }

    static func isHex(_ s: String) -> Bool {
        s == "." || (s.utf8.count >= 4 && s.utf8.count <= 64 && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
    }

    static func isMode(_ s: String) -> Bool {
        s == "." || (s.utf8.count == 6 && s.utf8.allSatisfy { $0 >= 48 && $0 <= 55 })
    }
}
