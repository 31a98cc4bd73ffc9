import Foundation

/// The commands and their arguments, as the built binary describes them
/// (`listdiff --experimental-dump-help`, argument-parser's own description of what it parses),
/// for the tests that hold the completions and the docs to every option.
struct HelpDump {
    struct Argument {
        enum Kind: String { case positional, option, flag }
        var kind: Kind
        /// `--format`, `-f`: the long names first.
        var spellings: [String]
        var valueName: String
        /// The values an enumerated option takes, in the order the help gives them.
        var values: [String]
        /// Completed with file names.
        var completesFiles: Bool
        var shown: Bool
        /// What the help says of it.
        var help: String
    }

    struct Command {
        /// `["diff"]`, `["git", "install"]`.
        var path: [String]
        var arguments: [Argument]
        var subcommands: [String]
    }

    /// Every command that parses arguments, `help` aside, the root first.
    var commands: [Command] = []

    init() throws {
        let run = try Binary.run(["--experimental-dump-help"])
        guard run.status == 0, let root = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
            let command = root["command"] as? [String: Any]
        else { throw Unreadable(stderr: run.stderr) }
        walk(command, path: [])
    }

    struct Unreadable: Error { var stderr: String }

    private mutating func walk(_ command: [String: Any], path: [String]) {
        let subcommands = (command["subcommands"] as? [[String: Any]] ?? []).filter { $0["commandName"] as? String != "help" }
        let arguments = (command["arguments"] as? [[String: Any]] ?? []).compactMap { argument -> Argument? in
            guard let kind = (argument["kind"] as? String).flatMap(Argument.Kind.init) else { return nil }
            let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                guard let text = name["name"] as? String else { return nil }
                return (name["kind"] as? String == "short" ? "-" : "--") + text
            }
            let completion = argument["completionKind"] as? [String: Any]
            let list = (completion?["list"] as? [String: Any])?["values"] as? [String]
            return Argument(
                kind: kind, spellings: names.filter { $0.hasPrefix("--") } + names.filter { !$0.hasPrefix("--") },
                valueName: argument["valueName"] as? String ?? "", values: list ?? argument["allValueStrings"] as? [String] ?? [],
                completesFiles: completion?["file"] != nil, shown: argument["shouldDisplay"] as? Bool ?? true,
                help: argument["abstract"] as? String ?? "")
        }
        commands.append(Command(path: path, arguments: arguments, subcommands: subcommands.compactMap { $0["commandName"] as? String }))
        for subcommand in subcommands {
            walk(subcommand, path: path + [subcommand["commandName"] as? String ?? ""])
        }
    }
}
