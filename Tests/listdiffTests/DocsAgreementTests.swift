import Foundation
import Testing

/// The README's option tables and the manual say what the tool parses: every option of every
/// command is in both, and an enumerated option has the same values in its help, its table
/// row and its manual entry.
@Suite struct DocsAgreementTests {
    static let readme = Binary.repository.appendingPathComponent("README.md")
    static let manual = Binary.repository.appendingPathComponent("man/listdiff.1")

    /// The options of each command, as the help shows them (hidden ones aside).
    static func options() throws -> [(command: String, option: HelpDump.Argument)] {
        try HelpDump().commands.filter { !$0.path.isEmpty }.flatMap { command in
            command.arguments.filter { $0.kind != .positional && $0.shown }.map { (command.path.joined(separator: " "), $0) }
        }
    }

    /// The words of `text`, as values are spelled (`1.2`, `ndjson`, `jsonpatch`).
    static func words(_ text: some StringProtocol) -> Set<String> {
        Set(
            text.split { !($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }.map {
                String($0).trimmingCharacters(in: .init(charactersIn: "."))
            })
    }

    /// Each option the README's tables name, with the values each of its rows gives
    /// (`--format patch\|json\|…`); a row that gives none, an empty set.
    static func readmeTables() throws -> [String: [Set<String>]] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        var options: [String: [Set<String>]] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            // The first cell (a `\|` inside it is part of a value list).
            let cell = line.dropFirst(2).replacing("\\|", with: "\u{1}").prefix { $0 != "|" }
            for span in cell.split(separator: "`").enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) {
                let words = span.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "=" })
                for (index, word) in words.enumerated() where word.hasPrefix("-") {
                    let next = words.dropFirst(index + 1).first
                    // Values are lower case or numbers (`kubernetes`, `1.2\|1.1`); FILE, N and
                    // /email are placeholders and examples.
                    let values: Set<String> =
                        next.map { value in
                            value.first?.isLowercase == true || value.first?.isNumber == true
                                ? Set(value.split(separator: "\u{1}").map(String.init)) : []
                        } ?? []
                    options[String(word), default: []].append(values)
                }
            }
        }
        return options
    }

    @Test func everyOptionIsInTheReadmeTablesWithItsValues() throws {
        let tables = try Self.readmeTables()
        let formats: Set = ["patch", "side", "json", "jsonpatch", "mergepatch", "markdown", "html", "github", "replay"]
        #expect(tables["--format"]?.contains(formats) == true)
        for (command, option) in try Self.options() {
            let name = option.spellings[0]
            guard let rows = tables[name] else {
                Issue.record("README's option tables lack \(name) (listdiff \(command))")
                continue
            }
            if !option.values.isEmpty {
                #expect(
                    rows.contains(Set(option.values)),
                    "README gives \(name) \(rows.filter { !$0.isEmpty }) but listdiff \(command) takes \(option.values)")
            }
            // A short spelling is given beside the long one.
            for short in option.spellings.dropFirst() {
                #expect(tables[short] != nil, "README's option tables lack \(short) (listdiff \(command) \(name))")
            }
        }
    }

    /// The manual's entry for each command's option, and its values in the entry's words.
    @Test func everyOptionIsInTheManualWithItsValues() throws {
        let text = try String(contentsOf: Self.manual, encoding: .utf8)
        // Each command's part of the page: from its `.It Em NAME` to the next command's.
        var parts: [String: Substring] = [:]
        let marks = text.ranges(of: "\n.It Em ")
        for (index, mark) in marks.enumerated() {
            let end = index + 1 < marks.count ? marks[index + 1].lowerBound : text.endIndex
            let name = text[mark.upperBound...].prefix { $0 != "\n" }
            if parts[String(name)] == nil { parts[String(name)] = text[mark.upperBound..<end] }
        }
        let dump = try HelpDump()
        for command in dump.commands where !command.path.isEmpty {
            let name = command.path.count == 1 ? command.path[0] : command.path.joined(separator: " ")
            guard let part = parts[name] ?? parts[command.path.last ?? ""] else {
                Issue.record("the manual has no part for listdiff \(name)")
                continue
            }
            for option in command.arguments where option.kind != .positional && option.shown {
                // mdoc writes --key as "Fl -key", and -f, --format as "Fl f , -format".
                let long = "-" + option.spellings[0].dropFirst(2)
                let lines = part.split(separator: "\n")
                guard let at = lines.firstIndex(where: { $0.hasPrefix(".It Fl") && $0.split(separator: " ").contains(Substring(long)) })
                else {
                    Issue.record("the manual lacks \(option.spellings[0]) for listdiff \(name)")
                    continue
                }
                guard !option.values.isEmpty else { continue }
                let entry = lines[(at + 1)...].prefix { !$0.hasPrefix(".It") }.joined(separator: " ")
                let missing = Set(option.values).subtracting(Self.words(entry))
                #expect(missing.isEmpty, "the manual's \(option.spellings[0]) for listdiff \(name) does not name \(missing.sorted())")
            }
        }
    }

    /// The help of an enumerated option names each of its values.
    @Test func everyEnumeratedOptionsHelpNamesItsValues() throws {
        let options = try Self.options().filter { !$0.option.values.isEmpty }
        #expect(options.count > 20)
        for (command, option) in options {
            let missing = Set(option.values).subtracting(Self.words(option.help))
            #expect(missing.isEmpty, "listdiff \(command) --help: \(option.spellings[0]) does not name \(missing.sorted())")
        }
    }

    /// `listdiff --help` says in its first lines where the diff's options are.
    @Test func topLevelHelpPointsToTheDiffsOptions() throws {
        let run = try Binary.run(["--help"])
        #expect(run.status == 0)
        let first = run.stdout.split(separator: "\n").prefix(4).joined(separator: " ")
        #expect(first.contains("'listdiff diff --help'"), "\(first)")
    }
}
