import Foundation
import Testing

/// The completion scripts, driven in bash, zsh and fish as a user's TAB drives them: every
/// enumerated option completes its values and every file argument file names, on every
/// command, and the first word completes the subcommands' names.
@Suite struct CompletionTests {
    /// A command line, cut where TAB is pressed, and what must be offered there.
    struct Case {
        var line: String
        var expected: Set<String>
    }

    /// The cases, from the binary's own description of its arguments: the diff's at the top
    /// level too, where `diff` is implied.
    static func cases() throws -> [Case] {
        let dump = try HelpDump()
        var cases = [
            Case(line: "listdiff a", expected: ["apply"]),
            Case(line: "listdiff git i", expected: ["install"]),
        ]
        var commands = dump.commands.filter { !$0.path.isEmpty }
        if let diff = commands.first(where: { $0.path == ["diff"] }) {
            commands.append(.init(path: [], arguments: diff.arguments, subcommands: []))
        }
        for command in commands {
            let prefix = (["listdiff"] + command.path).joined(separator: " ") + " "
            var positionals = 0
            for argument in command.arguments where argument.shown {
                if argument.kind == .positional {
                    positionals += 1
                    guard argument.completesFiles else { continue }
                    // Earlier arguments given, the last one begun.
                    let given = String(repeating: "people-old.json ", count: positionals - 1)
                    let (typed, file) = positionals == 1 ? ("people-o", "people-old.json") : ("people-n", "people-new.json")
                    cases.append(Case(line: prefix + given + typed, expected: [file]))
                } else if let option = argument.spellings.first, argument.kind == .option {
                    if !argument.values.isEmpty {
                        cases.append(Case(line: prefix + option + " ", expected: Set(argument.values)))
                    } else if argument.completesFiles {
                        cases.append(Case(line: prefix + option + " people-o", expected: ["people-old.json"]))
                    }
                }
            }
        }
        return cases
    }

    /// A folder with the two files the cases complete, and the cases one a line.
    func setUp() throws -> (dir: URL, cases: [Case]) {
        let dir = try temporaryDirectory()
        for name in ["people-old.json", "people-new.json"] {
            try "[]".write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let cases = try Self.cases()
        try cases.map { $0.line + "\n" }.joined().write(to: dir.appendingPathComponent("lines"), atomically: true, encoding: .utf8)
        return (dir, cases)
    }

    /// Each case's line is offered exactly what it expects; `output` holds "LINE=> a b c".
    func check(_ output: Run, _ cases: [Case], shell: String) {
        #expect(output.status == 0, "\(shell): \(output.stderr)")
        var offered: [String: Set<String>] = [:]
        for line in output.stdout.split(separator: "\n") {
            guard let arrow = line.range(of: "=> ") ?? line.range(of: "=>", options: .backwards) else { continue }
            offered[String(line[..<arrow.lowerBound])] = Set(line[arrow.upperBound...].split(separator: " ").map(String.init))
        }
        #expect(cases.count > 50 && cases.contains { $0.line == "listdiff apply --output-format " })
        for test in cases {
            #expect(offered[test.line] == test.expected, "\(shell): '\(test.line)'")
        }
    }

    @Test func bashCompletesEveryEnumeratedOptionAndFileArgument() throws {
        let (dir, cases) = try setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Binary.run(
            [
                "-c",
                """
                source <("$LISTDIFF" --generate-completion-script bash) || exit 3
                complete -p listdiff | grep -q -- ' -F _listdiff listdiff$' || exit 4
                while IFS= read -r COMP_LINE; do
                    COMP_POINT=${#COMP_LINE}
                    read -ra COMP_WORDS <<< "$COMP_LINE"; [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
                    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
                    _listdiff listdiff "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                    echo "$COMP_LINE=> ${COMPREPLY[*]}"
                done < lines
                """,
            ], environment: ["LISTDIFF": Binary.url.path], in: dir, executable: "/bin/bash")
        check(run, cases, shell: "bash")
    }

    @Test func zshCompletesEveryEnumeratedOptionAndFileArgument() throws {
        let zsh = try Programs.require("zsh", package: "zsh")
        let (dir, cases) = try setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let functions = dir.appendingPathComponent("functions")
        try FileManager.default.createDirectory(at: functions, withIntermediateDirectories: true)
        let script = try Binary.run(["--generate-completion-script", "zsh"])
        try script.stdout.write(to: functions.appendingPathComponent("_listdiff"), atomically: true, encoding: .utf8)
        try Self.zshDriver.write(to: dir.appendingPathComponent("complete.zsh"), atomically: true, encoding: .utf8)
        let run = try Binary.run(["-f", "complete.zsh", functions.path, "lines"], in: dir, executable: zsh)
        check(run, cases, shell: "zsh")
    }

    @Test func fishCompletesEveryEnumeratedOptionAndFileArgument() throws {
        let fish = try Programs.require("fish", package: "fish")
        let (dir, cases) = try setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = try Binary.run(["--generate-completion-script", "fish"])
        try script.stdout.write(to: dir.appendingPathComponent("listdiff.fish"), atomically: true, encoding: .utf8)
        let run = try Binary.run(
            [
                "--no-config", "-c",
                """
                source listdiff.fish; or exit 3
                for line in (cat lines)
                    echo "$line=> "(string join ' ' (complete -C "$line" | string replace -r '\\t.*' ''))
                end
                """,
            ], in: dir, executable: fish)
        check(run, cases, shell: "fish")
    }

    /// Prints what zsh's completion offers for each line of the file $2, as "LINE=> a b c";
    /// $1 is the folder that holds _listdiff. An interactive zsh runs in a pseudo-terminal
    /// (zsh/zpty) with compadd wrapped to print each match it adds; each line is typed, then
    /// a TAB, then the line is cleared for the next.
    static let zshDriver = #"""
        zmodload zsh/zpty || exit 3
        local folder=$1 setup=$(mktemp)
        local -a lines=("${(@f)$(<$2)}")
        cat >$setup <<SETUP
        PROMPT='' RPROMPT='' PS2=''
        bindkey -e
        unsetopt auto_list auto_menu list_beep
        fpath=(${(q)folder} \$fpath)
        autoload -Uz compinit && compinit -u -D
        compadd() {
            # Calls that only collect matches (-O, -A, -D) are compadd's own business.
            if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "\$@"; return; fi
            local -a hits
            builtin compadd -A hits "\$@"
            (( \$#hits )) && print -rl -- "candidate:"\${^hits}
            builtin compadd "\$@"
        }
        finished() { print -r -- 'completion:done'; comppostfuncs=(finished) }
        comppostfuncs=(finished)
        bindkey '^I' complete-word
        print -r -- 'completion:ready'
        SETUP
        zpty shell zsh -f -i
        zpty -w shell "source ${(q)setup}"
        local out
        local -a found
        integer next=0 deadline=$(( SECONDS + 120 ))
        while (( SECONDS < deadline )); do
            zpty -rt shell out || { sleep 0.02; continue }
            if [[ $out == *completion:ready* || $out == *completion:done* ]]; then
                (( next )) && print -r -- "$lines[next]=> ${(j: :)found}"
                found=()
                (( next == $#lines )) && { rm -f $setup; exit 0 }
                (( next++ ))
                zpty -w -n shell $'\C-u'"$lines[next]"$'\t'
            elif [[ $out == *candidate:* ]]; then
                # (The first may follow the echo of the line.)
                found+=("${${out#*candidate:}%%$'\r'*}")
            fi
        done
        rm -f $setup
        print -u2 "zsh gave no completion for '$lines[next]' within 120 seconds"
        exit 4
        """#
}
