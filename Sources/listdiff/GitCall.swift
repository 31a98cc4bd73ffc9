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

/// `--ignore-case=POINTER` and `--ignore-whitespace=POINTER` limit a flag to a path. The
/// argument parser takes no value after a flag, so each is rewritten as the hidden option
/// `--ignore-case-at POINTER` (or `--ignore-whitespace-at`) before parsing. Nothing after
/// `--` is touched.
enum RuleArguments {
    static let flags = ["--ignore-case", "--ignore-whitespace"]

    static func rewrite(_ arguments: [String]) -> [String] {
        var out: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument == "--" {
                out += arguments[index...]
                break
            }
            if let flag = flags.first(where: { argument.hasPrefix($0 + "=") }) {
                out += [flag + "-at", String(argument.dropFirst(flag.count + 1))]
            } else {
                out.append(argument)
            }
        }
        return out
    }
}
