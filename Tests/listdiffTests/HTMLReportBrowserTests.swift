import Foundation
import Testing

/// `-f html` run in a real browser: headless Chromium dumps the page after its script ran,
/// and selenium drives it where a check needs interaction (`Tests/Browser/check_report.py`).
@Suite struct HTMLReportBrowserTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")

    /// Strings that would run or become markup if the report let them: each payload sets
    /// `window.__pwned`, the canary the browser checks.
    static let hostile = [
        "<script>window.__pwned=1</script>", "</script><script>window.__pwned=2</script>", "\"><img src=x onerror=\"window.__pwned=3\">",
        "javascript:window.__pwned=4", "<!-- <script>", "]]><svg onload=window.__pwned=5>",
    ]

    static func quoted(_ s: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: s, options: [.fragmentsAllowed]), as: UTF8.self)
    }

    /// Writes the reports and changesets the browser checks into `dir`.
    static func writeFixtures(in dir: URL) throws {
        func diff(_ arguments: [String], in directory: URL = examples) throws {
            let run = try Binary.run(arguments, in: directory)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
        }
        let people = ["people-old.json", "people-new.json"]
        try diff(["-f", "html", "-o", dir.appendingPathComponent("people.html").path] + people)
        try diff(["-f", "json", "-o", dir.appendingPathComponent("people.json").path] + people)
        let sections = ["people-sections-old.yaml", "people-sections-new.yaml"]
        try diff(["-f", "html", "-o", dir.appendingPathComponent("sections.html").path] + sections)

        // Keys, member names, values and labels, all hostile.
        var old: [String] = [], new: [String] = []
        for (n, text) in hostile.enumerated() {
            let member = quoted(hostile[(n + 1) % hostile.count])
            old.append("{\"id\": \(quoted(text)), \(member): \(quoted(text)), \"n\": \(n)}")
            new.append("{\"id\": \(quoted(text)), \(member): \(quoted(text + " changed")), \"n\": \(n)}")
        }
        new.append("{\"id\": \(quoted(hostile[3] + "x")), \(quoted(hostile[2])): \(quoted(hostile[4]))}")
        try "[\(old.joined(separator: ",\n"))]".write(to: dir.appendingPathComponent("hostile-old.json"), atomically: true, encoding: .utf8)
        try "[\(new.joined(separator: ",\n"))]".write(to: dir.appendingPathComponent("hostile-new.json"), atomically: true, encoding: .utf8)
        try diff(
            ["-f", "html", "--label", hostile[1], "--label", hostile[2], "-o", "hostile.html", "hostile-old.json", "hostile-new.json"],
            in: dir)

        // 250 updates: three pages.
        let records = (0..<300).map { "{\"id\": \($0), \"v\": \"value \($0)\"}" }
        let changed = (0..<300).map { "{\"id\": \($0), \"v\": \"value \($0)\($0 < 250 ? " changed" : "")\"}" }
        try "[\(records.joined(separator: ",\n"))]".write(
            to: dir.appendingPathComponent("many-old.json"), atomically: true, encoding: .utf8)
        try "[\(changed.joined(separator: ",\n"))]".write(
            to: dir.appendingPathComponent("many-new.json"), atomically: true, encoding: .utf8)
        try diff(["-f", "html", "-o", "many.html", "many-old.json", "many-new.json"], in: dir)
        try diff(["-f", "json", "-o", "many.json", "many-old.json", "many-new.json"], in: dir)
    }

    /// The page as Chromium has it once its script ran.
    static func dumpDOM(_ page: URL, chromium: String) throws -> String {
        let profile = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: profile) }
        let run = try Binary.run(
            ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile.path, "--dump-dom", page.absoluteString],
            executable: chromium)
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    /// The text of each match of `pattern`'s first group.
    static func matches(_ pattern: String, in text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
    }

    @Test func dumpedDOMShowsTheChangeset() throws {
        let chromium = try Programs.require("chromium", package: "chromium")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.writeFixtures(in: dir)
        let dom = try Self.dumpDOM(dir.appendingPathComponent("people.html"), chromium: chromium)
        #expect(dom.contains("data-ready="), "the script did not finish")
        #expect(dom.contains("<title>listdiff: people-old.json → people-new.json</title>"))
        // The counts shown are the changeset's.
        let changeset =
            try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("people.json"))) as! [String: Any]
        let summary = changeset["summary"] as! [String: Int]
        for (kind, count) in summary {
            #expect(dom.contains("data-kind=\"\(kind)\"><span class=\"mark\">"), "\(kind)")
            let shown = try Self.matches("data-kind=\"\(kind)\"><span class=\"mark\">[^<]*</span><span class=\"n\">([0-9]+)<", in: dom)
            #expect(shown == [String(count)], "\(kind): \(shown) shown, \(count) in the changeset")
        }
        // One card per change, of its kind, named by its key; the known pair's word marks.
        let changes = changeset["changes"] as! [[String: Any]]
        let ops = try Self.matches(#"<article class="card op-[a-z]" id="[^"]*" data-op="([a-z])""#, in: dom)
        #expect(ops == changes.map { String(($0["op"] as! String).prefix(1)) })
        let keys = try Self.matches(##"<a class="key" href="#([^"]*)">"##, in: dom)
        #expect(keys == changes.map { "id%3D\($0["key"]!)" })
        #expect(try Self.matches("<ins>([^<]*)</ins>", in: dom) == [".hopper"])
        #expect(try Self.matches("<del>([^<]*)</del>", in: dom) == [])

        // Hostile input: shown as text, no element made of it.
        let hostile = try Self.dumpDOM(dir.appendingPathComponent("hostile.html"), chromium: chromium)
        #expect(hostile.contains("data-ready="), "the script did not finish")
        #expect(hostile.components(separatedBy: "<script").count - 1 == 3)
        for tag in ["<img", "<svg", "<iframe", "<object", "<link"] { #expect(!hostile.contains(tag), "\(tag)") }
        #expect(hostile.contains("&lt;script&gt;window.__pwned=1&lt;/script&gt;"))
        #expect(hostile.contains("\\\"&gt;&lt;img src=x onerror=\\\"window.__pwned=3\\\"&gt;"))
        #expect(hostile.contains("href=\"#id%3D%22javascript%3Awindow.__pwned%3D4%22\""))
    }

    /// Renamed records: counted, a card each with the old key beside the new one.
    @Test func renamesInTheBrowser() throws {
        let chromium = try Programs.require("chromium", package: "chromium")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pair = ["--renames", "--key", "sku", "catalog-old.json", "catalog-new.json"]
        for (format, name) in [("html", "catalog.html"), ("json", "catalog.json")] {
            let run = try Binary.run(["-f", format, "-o", dir.appendingPathComponent(name).path] + pair, in: Self.examples)
            #expect(run.status == 1, "\(run.stderr)")
        }
        let dom = try Self.dumpDOM(dir.appendingPathComponent("catalog.html"), chromium: chromium)
        #expect(dom.contains("data-ready="), "the script did not finish")
        let changeset =
            try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("catalog.json"))) as! [String: Any]
        let summary = changeset["summary"] as! [String: Int]
        #expect(summary["renamed"] == 2)
        for (kind, count) in summary {
            let shown = try Self.matches("data-kind=\"\(kind)\"><span class=\"mark\">[^<]*</span><span class=\"n\">([0-9]+)<", in: dom)
            #expect(shown == [String(count)], "\(kind): \(shown) shown, \(count) in the changeset")
        }
        let changes = changeset["changes"] as! [[String: Any]]
        let ops = try Self.matches(#"<article class="card op-[a-z]" id="[^"]*" data-op="([a-z])""#, in: dom)
        #expect(ops == changes.map { String(($0["op"] as! String).prefix(1)) })
        let oldKeys = try Self.matches(#"<span class="key old-key">([^<]*)</span>"#, in: dom)
        #expect(oldKeys == ["sku=\"CHR-200\" →", "sku=\"SHF-300\" →"])
    }

    @Test func interactionInTheBrowser() throws {
        let chromium = try Programs.require("chromium", package: "chromium")
        let driver = try Programs.require("chromedriver", package: "chromium-driver")
        let python = try Programs.requirePython(module: "selenium", package: "python3-selenium")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.writeFixtures(in: dir)
        let script = Binary.repository.appendingPathComponent("Tests/Browser/check_report.py")
        let run = try Binary.run(
            [script.path, dir.path], environment: ["CHROMIUM": chromium, "CHROMEDRIVER": driver], executable: python)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasSuffix("ok\n"), "\(run.stdout)")
    }

    /// Without a browser: the format's exit statuses and its file.
    @Test func reportOfTheSameListsAndOfBadInput() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let same = try Binary.run(["-f", "html", "Examples/people-old.json", "Examples/people-old.json"])
        #expect(same.status == 0 && same.stdout.hasPrefix("<!DOCTYPE html>") && same.stdout.hasSuffix("</html>\n"))
        #expect(same.stdout.contains("id=\"listdiff-changes\">[]</script>"))
        try "[{\"id\": 1},".write(to: dir.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        let report = dir.appendingPathComponent("report.html")
        let bad = try Binary.run(["-f", "html", "-o", report.path, "Examples/people-old.json", dir.appendingPathComponent("bad.json").path])
        #expect(bad.status == 2 && bad.stdout.isEmpty)
        #expect(bad.stderr.contains("bad.json:1:"), "\(bad.stderr)")
        #expect(bad.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: report.path))
    }
}
