import Foundation
import Testing

/// `-f side`, and long values cut in the patch, Markdown and annotations, run through the binary.
@Suite struct SideBySideCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    /// The cells a line takes on a terminal, its colours left out.
    static func cells(_ line: Substring) -> Int {
        var cells = 0
        let plain = String(line).replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        for character in plain {
            let scalar = character.unicodeScalars.first!
            switch scalar.value {
            case 0x3000...0x9FFF, 0xAC00...0xD7A3, 0xFF00...0xFF60: cells += 2
            case _ where scalar.properties.isEmojiPresentation: cells += 2
            case _ where scalar.properties.generalCategory == .nonspacingMark: break
            default: cells += 1
            }
        }
        return cells
    }

    @Test(arguments: [
        ("people-old.json", "people-new.json", 80, "people.side80.txt"),
        ("people-old.json", "people-new.json", 120, "people.side120.txt"),
        ("people-sections-old.yaml", "people-sections-new.yaml", 80, "people-sections.side80.txt"),
        ("people-sections-old.yaml", "people-sections-new.yaml", 120, "people-sections.side120.txt"),
        ("articles-old.json", "articles-new.json", 80, "articles.side80.txt"),
        ("people-old.json", "people-new.json", 30, "people.side30.txt"),
    ])
    func sideMatchesTheGoldenFiles(old: String, new: String, width: Int, golden name: String) throws {
        let run = try Binary.run(["-f", "side", "--width", String(width), old, new], in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stderr == "")
        #expect(run.stdout == (try golden(name)))
        // No line is wider than the page. In two columns, every line but the summary has
        // its mark (|, < or >) in the one column between the sides, wide characters or not.
        let lines = run.stdout.split(separator: "\n")
        for line in lines { #expect(Self.cells(line) <= width, "\(line)") }
        guard width >= 40, !old.contains("sections") else { return }
        let gutter = (width - 3) / 2 + 1
        for line in lines.dropLast() {
            let mark = line.indices.first { Self.cells(line[..<$0]) == gutter }.map { line[$0] }
            #expect(mark == "|" || mark == "<" || mark == ">", "\(line)")
        }
    }

    /// Without --width, the width is the terminal's, else COLUMNS; the output here is a file.
    @Test func widthComesFromColumns() throws {
        let run = try Binary.run(["-f", "side", "people-old.json", "people-new.json"], environment: ["COLUMNS": "120"], in: Self.examples)
        #expect(run.stdout == (try golden("people.side120.txt")))
        let fallback = try Binary.run(
            ["-f", "side", "people-old.json", "people-new.json"], environment: ["COLUMNS": "wide"], in: Self.examples)
        #expect(fallback.stdout == (try golden("people.side80.txt")))
    }

    /// Colour marks the changed words in reverse; without it they are bracketed. Colour
    /// follows --color and NO_COLOR as the patch does.
    @Test func colourMarksChangedWords() throws {
        let colored = try Binary.run(
            ["-f", "side", "--width", "100", "--color", "always", "articles-old.json", "articles-new.json"], in: Self.examples)
        #expect(colored.stdout == (try golden("articles.ansi.side100.txt")))
        #expect(colored.stdout.contains("\u{1B}[32;7menough\u{1B}[0m"))
        #expect(!colored.stdout.contains("{+"))
        let plain = try Binary.run(["-f", "side", "--width", "100", "articles-old.json", "articles-new.json"], in: Self.examples)
        #expect(plain.stdout.contains("{+enough+}") && plain.stdout.contains("[-some-]"))
        #expect(!plain.stdout.contains("\u{1B}["))
        let noColor = try Binary.run(
            ["-f", "side", "--width", "100", "articles-old.json", "articles-new.json"], environment: ["NO_COLOR": "1"], in: Self.examples)
        #expect(noColor.stdout == plain.stdout)
    }

    @Test func badWidthsAreRefused() throws {
        for arguments in [
            ["-f", "side", "--width", "5"], ["-f", "side", "--width", "x"], ["--width", "80"], ["--max-value-width=-1"],
            ["--full-values", "--max-value-width", "50"],
        ] {
            let run = try Binary.run(arguments + ["people-old.json", "people-new.json"], in: Self.examples)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stdout == "")
            #expect(run.stderr.hasPrefix("listdiff: error:") || run.stderr.hasPrefix("Error:"), "\(run.stderr)")
        }
    }

    // MARK: long values

    /// A long changed value is shown around where it changed, in every format for people.
    /// The patch in colour marks the changed words too, in reverse.
    @Test func longValuesAreCutInThePatchMarkdownAndAnnotations() throws {
        for (arguments, name) in [
            ([String](), "articles.patch"), (["--color", "always"], "articles.ansi.patch"), (["-f", "github"], "articles.github"),
            (["-f", "markdown"], "articles.md"),
        ] {
            let run = try Binary.run(arguments + ["articles-old.json", "articles-new.json"], in: Self.examples)
            #expect(run.status == 1)
            #expect(run.stdout == (try golden(name)), "\(name)")
        }
        // Whole, when asked.
        let body = try #require(
            (try JSONSerialization.jsonObject(with: Data(contentsOf: Self.examples.appendingPathComponent("articles-new.json")))
                as? [[String: Any]])?
                .first?["body"] as? String)
        for arguments in [["--full-values"], ["--max-value-width", "0"], ["--full-values", "--max-value-width", "0"]] {
            let run = try Binary.run(arguments + ["articles-old.json", "articles-new.json"], in: Self.examples)
            #expect(run.stdout.contains(body) && !run.stdout.contains("chars]…"), "\(arguments)")
        }
        let narrow = try Binary.run(["--max-value-width", "40", "articles-old.json", "articles-new.json"], in: Self.examples)
        #expect(narrow.stdout.contains(#"~ id=2 /title: "東京の地図" → "東京と大阪の地図""#))
        // 1,270 + 20 + 1,300 + 19 = the 2,609 characters of the old body, quotes included.
        #expect(narrow.stdout.contains("~ id=1 /body: …[+1,270 chars]…ged, with some conte…[+1,300 chars]…the first edition.\" → "))
    }

    /// Megabytes that differ in one character: a few hundred characters of output, each
    /// side's parts and counts adding up to the whole value.
    @Test func megabyteValuesChangedInOneCharacter() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = String(repeating: "abcdefghij", count: 300_000)
        var new = Array(old)
        new[1_500_000] = "X"
        try "[{\"id\": 1, \"text\": \"\(old)\"}]".write(to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try "[{\"id\": 1, \"text\": \"\(String(new))\"}]".write(
            to: dir.appendingPathComponent("new.json"), atomically: true, encoding: .utf8)
        for (format, marks) in [
            ("patch", ["…[+1,499,951 chars]…", "…[+1,499,950 chars]…"]), ("github", ["…[+1,499,951 chars]…", "…[+1,499,950 chars]…"]),
            ("markdown", [#"…\[+1,499,951 chars\]…"#, #"…\[+1,499,950 chars\]…"#]), ("side", ["…[+1,499,951 chars]…", "{+X+}"]),
        ] {
            let run = try Binary.run(["-f", format, "old.json", "new.json"], in: dir)
            #expect(run.status == 1)
            #expect(run.stdout.utf8.count < 2_000, "\(format): \(run.stdout.utf8.count) bytes")
            for mark in marks { #expect(run.stdout.contains(mark), "\(format): \(mark)") }
        }
        let patch = try Binary.run(["old.json", "new.json"], in: dir)
        let line = try #require(patch.stdout.split(separator: "\n").first { $0.hasPrefix("~ ") })
        let sides = line.dropFirst("~ id=1 /text: ".count).components(separatedBy: " → ")
        #expect(sides.count == 2)
        for side in sides {
            // 1,499,951 + the 101 shown + 1,499,950 = the value's 3,000,002 characters, quotes included.
            let shown = side.replacingOccurrences(of: #"…\[\+[0-9,]+ chars\]…"#, with: "", options: .regularExpression)
            #expect(shown.count == 101, "\(side)")
        }
        #expect(sides[1].contains("abcdefghijXbcdefghij"))
    }
}
