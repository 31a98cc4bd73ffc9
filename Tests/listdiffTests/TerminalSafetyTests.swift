import Foundation
import Testing

/// Hostile member names, keys, values and file names: every human-facing output shows them
/// escaped, so that nothing can act on the terminal or forge a line.
@Suite struct TerminalSafetyTests {
    /// What must never reach a terminal raw: C0 controls but the line feed, DEL, C1
    /// controls, line and paragraph separators, bidirectional controls, and the invisible
    /// characters that make two keys look alike.
    static func unsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: return false
        case 0x00..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        case 0x200B, 0x2060...0x2064, 0xFEFF: return true
        default: return false
        }
    }

    static let hostile = [
        "\u{1B}]0;owned\u{07}", "x\n+ id=999 #0 {\"admin\":true}", "\u{9B}2J", "\u{202E}gnp\u{FEFF}.exe\u{200B}\u{2060}",
        "a\u{2028}b", "c\u{85}d", "e\rf\u{08}g", "\u{1B}[2J",
    ]

    static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// OLD and NEW where every hostile string is a key, a member name, a value and a section name.
    func files() throws -> URL {
        let dir = try temporaryDirectory()
        let records = Self.hostile.enumerated().map { n, h in "{\"id\": \(Self.json(h)), \(Self.json(h)): \(n)}" }
        let changed = Self.hostile.enumerated().map { n, h in "{\"id\": \(Self.json(h)), \(Self.json(h)): \(Self.json(h))}" }
        try ("[" + records.joined(separator: ",\n") + "]").write(
            to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try ("[" + changed.reversed().joined(separator: ",\n") + ", {\"id\": \"new\", \"v\": \(Self.json(Self.hostile[0]))}]")
            .write(to: dir.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        let sections = "{" + Self.hostile.enumerated().map { n, h in "\(Self.json(h)): [{\"id\": \(n)}]" }.joined(separator: ", ") + "}"
        try sections.write(to: dir.appendingPathComponent("sections-old.json"), atomically: true, encoding: .utf8)
        try "{\"plain\": [{\"id\": 0}]}".write(to: dir.appendingPathComponent("sections-new.json"), atomically: true, encoding: .utf8)
        return dir
    }

    func expectSafe(_ text: String, lines: Int? = nil, _ what: String) {
        let raw = text.unicodeScalars.filter(Self.unsafe)
        #expect(raw.isEmpty, "\(what): \(raw.map { String($0.value, radix: 16) })")
        if let lines { #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count - 1 == lines, "\(what)") }
    }

    @Test func patchStatAndGithubShowHostileTextEscaped() throws {
        let dir = try files()
        let patch = try Binary.run(["--color", "never", "old.json", "new.json"], in: dir)
        #expect(patch.status == 1)
        // Two header lines, a move or update per record, an insert, the summary: no forged line.
        expectSafe(patch.stdout, "patch")
        #expect(!patch.stdout.contains("\n+ id=999"))
        #expect(patch.stdout.contains(#"id="\u001b]0;owned\u0007""#))
        #expect(patch.stdout.contains(#"~ id="x\n+ id=999 #0 {\"admin\":true}" /x\n+ id=999 #0 {"admin":true}: 1 → "#))
        #expect(patch.stdout.split(separator: "\n").count == 2 + 15 + 1 + 1)
        #expect(patch.stdout.contains(#"\u202egnp\ufeff.exe\u200b\u2060"#))
        let colored = try Binary.run(["--color", "always", "old.json", "new.json"], in: dir)
        // Colour adds listdiff's own escapes only: SGR sequences, nothing else.
        let stripped = colored.stdout.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        #expect(stripped == patch.stdout)

        for arguments in [
            ["--stat"], ["-f", "github"], ["-f", "markdown"], ["-f", "side"], ["-f", "side", "--width", "20"],
            ["-f", "side", "--color", "always"], ["--max-value-width", "8"], ["-f", "side", "--max-value-width", "8"],
        ] {
            let run = try Binary.run(arguments + ["old.json", "new.json"], in: dir)
            expectSafe(
                run.stdout.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression),
                arguments.joined(separator: " "))
        }
        let side = try Binary.run(["-f", "side", "--color", "never", "old.json", "new.json"], in: dir)
        #expect(!side.stdout.contains("\n+ id=999") && !side.stdout.contains("> + id=999"))
        let sections = try Binary.run(["sections-old.json", "sections-new.json"], in: dir)
        expectSafe(sections.stdout, "sections")
        expectSafe(try Binary.run(["-f", "side", "sections-old.json", "sections-new.json"], in: dir).stdout, "side sections")
        #expect(sections.stdout.contains(#"-§ "\u001b]0;owned\u0007" #0"#))
        let sectionStat = try Binary.run(["--stat", "-f", "markdown", "sections-old.json", "sections-new.json"], in: dir)
        expectSafe(sectionStat.stdout + sectionStat.stderr, "stat markdown")
    }

    @Test func errorsAreOneEscapedLine() throws {
        let dir = try files()
        let name = "evil\u{1B}]0;owned\u{07}\n.json"
        try "[{\"id\": 1}, {\"id\": 1}]".write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        try "[{\"id\": \"\u{1B}[2J\"}, {\"id\": \"\u{1B}[2J\"}]".write(
            to: dir.appendingPathComponent("dup.json"), atomically: true, encoding: .utf8)
        for arguments in [
            [name, "old.json"], ["dup.json", "old.json"], ["missing\u{9B}.json", "old.json"],
            ["--key", "a\u{1B}b", "old.json", "new.json"], ["--format", "x\u{1B}[2J", "old.json", "new.json"],
        ] {
            let run = try Binary.run(arguments, in: dir)
            #expect(run.status == 2)
            #expect(run.stdout == "")
            let firstLine = run.stderr.prefix { $0 != "\n" }
            expectSafe(String(firstLine), "\(arguments)")
            #expect(firstLine.contains("error"), "\(run.stderr)")
        }
        let named = try Binary.run([name, "old.json"], in: dir)
        #expect(named.stderr.hasPrefix(#"evil\u001b]0;owned\u0007\n.json:1:13: error: duplicate key id=1"#), "\(named.stderr)")
        #expect(named.stderr.split(separator: "\n").count == 1)
    }

    @Test func replayFramesShowHostileTextEscaped() throws {
        let dir = try files()
        let cast = dir.appendingPathComponent("r.cast").path
        let run = try Binary.run(
            ["-f", "replay", "--color", "never", "--record", cast, "old.json", "new.json"],
            environment: ["COLUMNS": "200", "LINES": "40"], in: dir)
        #expect(run.status == 1, "\(run.stderr)")
        var frames = ""
        for line in try String(contentsOfFile: cast, encoding: .utf8).split(separator: "\n").dropFirst() {
            let event = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any])
            frames += try #require(event[2] as? String)
        }
        // The player's own sequences (cursor home, clear line, clear below, CR LF) come out;
        // what is left must hold nothing raw.
        let own = frames.replacingOccurrences(of: "\u{1B}[H", with: "").replacingOccurrences(of: "\u{1B}[K", with: "")
            .replacingOccurrences(of: "\u{1B}[J", with: "").replacingOccurrences(of: "\u{1B}[2J", with: "")
            .replacingOccurrences(of: "\r\n", with: "\n")
        expectSafe(own, "replay")
        #expect(own.contains(#""\u001b]0;owned\u0007""#))
    }
}

/// The same hostile files shown on a real terminal (tmux): the title stays, the screen is
/// not cleared, and the text shows escaped.
@Suite(.serialized) struct TerminalTitleTests {
    @Test func aHostileFileLeavesTheTerminalAsItWas() throws {
        let dir = try TerminalSafetyTests().files()
        let command = "'\(Binary.url.path)' --color always old.json new.json"
        let out = try Tmux.script(
            """
            t new-session -d -s s -x 200 -y 50 "printf 'before\\\\n'; \(command); echo EXIT=\\$?; sleep 60" </dev/null >/dev/null 2>&1
            t set-option -t s -g set-titles on
            wait_for 'screen | grep -q EXIT='
            echo "== title $(t display -p -t s '#{pane_title}')"
            echo "== screen"; screen
            """, in: dir)
        let screen = Tmux.section(out, "== screen")
        #expect(screen.first == "before", "the screen was not cleared: \(out)")
        let title = out.split(separator: "\n").first { $0.hasPrefix("== title") } ?? ""
        #expect(title.hasPrefix("== title"), "\(out)")
        #expect(!title.contains("owned"), "the file did not retitle the terminal: \(title)")
        #expect(screen.contains { $0.contains(#"id="\u001b]0;owned\u0007""#) })
        #expect(screen.contains("EXIT=1"))
    }
}
