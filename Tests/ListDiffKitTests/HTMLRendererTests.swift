import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// The HTML report as text: goldens, its policy, its data block under hostile input, the word
/// marks it carries and its size against the JSON changeset. The browser tests
/// (`HTMLReportBrowserTests`) run it.
@Suite struct HTMLRendererTests {
    static func render(_ changeset: Changeset, _ context: RenderContext = RendererTests.people) throws -> String {
        try RendererTests.render(HTMLRenderer(context: context), changeset)
    }

    /// The text between `open` and the next `close`, each time it occurs.
    static func between(_ text: String, _ open: String, _ close: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            found.append(String(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// The report's two data blocks, read back as values.
    static func data(_ html: String) throws -> (report: Value, changes: Value) {
        let report = between(html, #"<script type="application/json" id="listdiff-report">"#, "</script>")
        let changes = between(html, #"<script type="application/json" id="listdiff-changes">"#, "</script>")
        try #require(report.count == 1 && changes.count == 1)
        return (try json(report[0]), try json(changes[0]))
    }

    /// The page's data, the part that depends on the changeset; the rest is the fixed page.
    static func dataGolden(_ html: String, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        #expect(html.hasPrefix(HTMLReportPage.top), sourceLocation: sourceLocation)
        #expect(html.hasSuffix(HTMLReportPage.bottom), sourceLocation: sourceLocation)
        let data = html.dropFirst(HTMLReportPage.top.count).dropLast(HTMLReportPage.bottom.count)
        try assertGolden(String(data), name, sourceLocation: sourceLocation)
    }

    @Test func peopleGolden() throws {
        let c = try RendererTests.changeset("people-old.json", "people-new.json")
        try Self.dataGolden(Self.render(c), "people.html-data")
    }

    @Test func sectionsGolden() throws {
        let c = try RendererTests.changeset("people-sections-old.yaml", "people-sections-new.yaml")
        let html = try Self.render(c, RenderContext(oldName: "people-sections-old.yaml", newName: "people-sections-new.yaml"))
        try Self.dataGolden(html, "people-sections.html-data")
        // Changes come grouped by section, in the order the patch shows them.
        let (report, changes) = try Self.data(html)
        guard case .array(let groups) = report["groups"], case .array(let list) = changes else { throw Failure("no groups") }
        #expect(groups.count == c.changesBySection.count)
        let order = list.compactMap { entry -> Int? in
            if case .array(let parts) = entry, case .number(let n) = parts[1] { return Int(n.description) }
            return nil
        }
        #expect(order == order.sorted() && order.count == c.changes.count)
    }

    @Test func sha256KnownVectors() {
        func hex(_ text: String) -> String { SHA256.digest(Array(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(String(repeating: "a", count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        #expect(SHA256.base64Digest("abc") == "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
    }

    /// The policy allows the report's own style and script, by their hashes, and nothing else.
    @Test func policyNamesTheInlineCodeAndNothingElse() throws {
        let html = try Self.render(RendererTests.changeset("people-old.json", "people-new.json"))
        let styles = Self.between(html, "<style>", "</style>")
        let scripts = Self.between(html, "<script>", "</script>")
        try #require(styles.count == 1 && scripts.count == 1)
        let policy = try #require(Self.between(html, #"http-equiv="Content-Security-Policy" content=""#, "\"").first)
        #expect(policy.hasPrefix("default-src 'none'; "))
        #expect(policy.contains("script-src 'sha256-\(SHA256.base64Digest(scripts[0]))';"))
        #expect(policy.contains("style-src 'sha256-\(SHA256.base64Digest(styles[0]))';"))
        #expect(!policy.contains("unsafe") && !policy.contains("http") && !policy.contains("*"))
        // Nothing in the page names another resource.
        for attribute in ["src=", "href=", "url(", "@import"] { #expect(!html.contains(attribute), "\(attribute)") }
    }

    static let hostile = [
        "<script>window.__pwned=1</script>", "</script><script>window.__pwned=2</script>", "\"><img src=x onerror=\"window.__pwned=3\">",
        "javascript:window.__pwned=4", "<!-- <script>", "a\u{2028}b\u{2029}c", "&amp; &lt;", "]]><svg onload=window.__pwned=5>",
    ]

    /// A changeset whose keys, member names and values are all hostile.
    static func hostileChangeset() throws -> Changeset {
        func quoted(_ s: String) -> String { JSONWriter.compact(.string(s)) }
        let names = hostile.map(quoted)
        var old = "[", new = "["
        for (n, text) in names.enumerated() {
            let member = names[(n + 1) % names.count]
            old += (n == 0 ? "" : ",") + "{\"id\": \(text), \(member): \(text), \"n\": \(n)}"
            new += (n == 0 ? "" : ",") + "{\"id\": \(text), \(member): \(quoted(hostile[n] + " changed")), \"n\": \(n)}"
        }
        old += ",{\"id\": \"gone\", \(names[0]): \(names[1])}]"
        new += ",{\"id\": \(quoted(hostile[3] + "x")), \(names[2]): \(names[4])}]"
        let key = try IdentityKey(parsing: ["id"])
        let reader = DocumentReader(key: key)
        return try Differ().diff(
            old: reader.parse(Array(old.utf8), name: "old.json"), new: reader.parse(Array(new.utf8), name: "new.json"), key: key)
    }

    /// Hostile names and values stay inside the data: no markup, no end of the element, no
    /// comment; and they read back as written.
    @Test func hostileInputStaysData() throws {
        let context = RenderContext(oldName: Self.hostile[1], newName: Self.hostile[2])
        let html = try Self.render(Self.hostileChangeset(), context)
        #expect(html.components(separatedBy: "<script").count - 1 == 3)
        #expect(html.components(separatedBy: "</script>").count - 1 == 3)
        #expect(!html.contains("<!--") && !html.contains("<img") && !html.contains("<svg") && !html.contains("\u{2028}"))
        let (report, changes) = try Self.data(html)
        #expect(report["old"] == .string(Self.hostile[1]) && report["new"] == .string(Self.hostile[2]))
        // Every value is shown as compact JSON: each hostile string is there, as written.
        var shown: [String] = []
        func gather(_ value: Value) {
            switch value {
            case .string(let s): shown.append(s)
            case .array(let list): list.forEach(gather)
            default: break
            }
        }
        gather(changes)
        let text = shown.joined(separator: "\n")
        for value in Self.hostile { #expect(text.contains(JSONWriter.compact(.string(value)).dropFirst().dropLast()), "\(value)") }
    }

    /// An updated string carries the word diff's ranges, in UTF-16 offsets of the value shown.
    @Test func updatedStringsCarryTheirMarks() throws {
        let html = try Self.render(RendererTests.changeset("people-old.json", "people-new.json"))
        let (_, changes) = try Self.data(html)
        guard case .array(let list) = changes else { throw Failure("no changes") }
        let update = try #require(list.first { $0[0] == .string("u") && $0[2] == .string("id=3") })
        let email = try #require(update[5]?[0])
        #expect(email[0] == .string("/email"))
        guard case .string(let new) = email[2], case .array(let marks) = email[4] else { throw Failure("no marks") }
        let offsets = marks.compactMap { v -> Int? in if case .number(let n) = v { Int(n.description) } else { nil } }
        #expect(offsets.count == 2)
        let utf16 = Array(new.utf16)
        #expect(String(decoding: utf16[offsets[0]..<offsets[1]], as: UTF16.self) == ".hopper")
        // A non-BMP character before the change counts twice, as JavaScript counts it.
        var out = JSONBytes()
        let text = "\"😀 old word\""
        let diff = WordDiff(old: text, new: "\"😀 new word\"")
        HTMLRenderer.writeOffsets(diff.old, in: text, to: &out)
        #expect(out.string == "[4,7]")
    }

    /// Records like the benchmark's, 4% changed: the report is at most 1.5 times the JSON
    /// changeset.
    @Test func sizeAgainstTheJSONChangeset() throws {
        func record(_ i: Int, _ variant: Int = 0) -> String {
            "{\"id\":\(i),\"name\":\"Grace Hopper\",\"email\":\"grace.hopper\(i)@example.com\",\"age\":\(20 + i % 60 + variant),"
                + "\"active\":true,\"score\":\(Double(i % 997) / 4),\"team\":\"compilers\"}"
        }
        let count = 20_000
        var old: [String] = [], new: [String] = []
        for i in 0..<count {
            old.append(record(i))
            switch i % 100 {
            case 0: break  // deleted
            case 1: new.append(record(i, 1))  // updated
            default: new.append(record(i))
            }
            if i % 100 == 2 { new.append(record(count + i)) }  // inserted
        }
        new.swapAt(10, 5_000)
        let key = try IdentityKey(parsing: ["id"])
        let reader = DocumentReader(key: key)
        let changeset = try Differ().diff(
            old: reader.parse(Array("[\(old.joined(separator: ",\n"))]".utf8), name: "old.json"),
            new: reader.parse(Array("[\(new.joined(separator: ",\n"))]".utf8), name: "new.json"), key: key)
        let json = try RendererTests.render(JSONChangesetRenderer(context: RendererTests.people), changeset)
        let html = try Self.render(changeset)
        #expect(changeset.changes.count > 600)
        #expect(Double(html.utf8.count) <= 1.5 * Double(json.utf8.count), "html \(html.utf8.count) bytes, json \(json.utf8.count)")
    }

    @Test func escapeForScript() {
        let input = Array("a<b>&c\u{2028}d\u{2029}e\u{2027}é".utf8)
        var out: [UInt8] = []
        input.withUnsafeBufferPointer { HTMLRenderer.escapeForScript($0, into: &out) }
        #expect(String(decoding: out, as: UTF8.self) == #"a\u003cb\u003e\u0026c\u2028d\u2029e"# + "\u{2027}é")
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension Value {
    /// A member of an object, or nil.
    fileprivate subscript(_ name: String) -> Value? {
        if case .object(let object) = self { return object[name] }
        return nil
    }

    /// An element of an array, or nil.
    fileprivate subscript(_ index: Int) -> Value? {
        if case .array(let list) = self, index < list.count { return list[index] }
        return nil
    }
}
