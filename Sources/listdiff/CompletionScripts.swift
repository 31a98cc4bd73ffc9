import ArgumentParser
import ListDiffKit

/// The command line as the completion scripts see it: the diff's options at the top level,
/// where `diff` is implied (`listdiff --format <TAB>`), and the subcommands.
struct CompletionRoot: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "listdiff", subcommands: ListDiff.configuration.subcommands)

    @OptionGroup var options: DiffOptions

    /// The words that name a subcommand, as a completion script matches them.
    static var commandNames: [String] { ListDiff.configuration.subcommands.map { $0._commandName } + ["help"] }

    /// The script for `shell` (bash, zsh or fish), repaired, or nil for another shell.
    ///
    /// The generator gives the top level OLD and NEW as well as the subcommands, and it
    /// takes a first word that names a subcommand (`apply`) for OLD: after it, `apply`'s
    /// options completed as the diff's, and its arguments as nothing. Each repair makes a
    /// first word that names a subcommand hand the rest of the line to that subcommand, and
    /// offers the subcommands' names where OLD goes, beside the file names.
    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": bash(completionScript(for: .bash))
        case "zsh": zsh(completionScript(for: .zsh))
        case "fish": fish(completionScript(for: .fish))
        default: nil
        }
    }

    static func bash(_ generated: String) -> String {
        let names = commandNames.joined(separator: " ")
        let dispatch = """
                if [[ "${COMP_CWORD}" -gt 1 && " \(names) " == *" ${unparsed_words[0]} "* ]]; then
                    local -r named="${unparsed_words[0]}"
                    unparsed_words=("${unparsed_words[@]:1}")
                    "_listdiff_${named}"
                    return
                fi
                if [[ "${COMP_CWORD}" -eq 1 && "${cur}" != -* ]]; then
                    COMPREPLY+=($(compgen -W '\(names)' -- "${cur}"))
                fi

            """
        return inserting(dispatch, before: "    __listdiff_offer_flags_options 2\n", in: generated)
    }

    static func zsh(_ generated: String) -> String {
        let names = commandNames.joined(separator: " ")
        let dispatch = """
                if (( CURRENT > 2 )) && [[ " \(names) " == *" ${words[2]} "* ]]; then
                    shift words
                    (( CURRENT-- ))
                    "_listdiff_${words[1]}"
                    return
                fi
                if (( CURRENT == 2 )) && [[ ${PREFIX} != -* ]]; then
                    compadd -- \(names) && ret=0
                fi

            """
        return inserting(dispatch, before: "    local -ar arg_specs=(\n", in: generated)
    }

    static func fish(_ generated: String) -> String {
        let names = commandNames.joined(separator: " ")
        var script = generated
        // The top level's own arguments are parsed only when the first word names no subcommand.
        let top = "    case 'listdiff'\n"
        if let start = script.firstRange(of: top), let end = script[start.upperBound...].firstIndex(of: "\n") {
            let parse = script[start.upperBound..<end]
            let wrapped = [
                "        if contains -- \"$unparsed_tokens[2]\" \(names)",
                "            set -a commands $unparsed_tokens[1]",
                "            set -e unparsed_tokens[1]",
                "        else",
                "    " + parse,
                "        end",
            ]
            script.replaceSubrange(start.upperBound..<end, with: wrapped.joined(separator: "\n"))
        }
        // The subcommands' names go where OLD goes, not after NEW.
        return script.replacing(
            "__listdiff_should_offer_completions_for_positional \"listdiff\" -eq 3' -fa",
            with: "__listdiff_should_offer_completions_for_positional \"listdiff\" -eq 1' -fa")
    }

    /// `text` inserted before the first `marker` in `script`; the script as it was without one.
    private static func inserting(_ text: String, before marker: String, in script: String) -> String {
        var script = script
        if let range = script.firstRange(of: marker) { script.insert(contentsOf: text, at: range.lowerBound) }
        return script
    }
}
