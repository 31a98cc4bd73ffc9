import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

struct StringStream: TextOutputStream {
    var text = ""
    mutating func write(_ string: String) { text += string }
}

@Suite struct RendererTests {
    static func changeset(_ old: String, _ new: String, key: [String] = []) throws -> Changeset {
        let reader = DocumentReader(key: try IdentityKey(parsing: key))
        let examples = Paths.repository.appendingPathComponent("Examples")
        let o = try reader.parse(try bytes(examples.appendingPathComponent(old)), name: old)
        let n = try reader.parse(try bytes(examples.appendingPathComponent(new)), name: new)
        var changeset = try Differ().diff(old: o, new: n, key: try IdentityKey(parsing: key))
        // As the command does: both fingerprints, and how OLD was read.
        changeset.fingerprints = .init(old: Fingerprint.of(o.root), new: Fingerprint.of(n.root))
        reader.record(oldFormat: reader.format(for: old, bytes: []), in: &changeset.layout)
        return changeset
    }

    static func render(_ renderer: some ChangesetRenderer, _ changeset: Changeset) throws -> String {
        var out = StringStream()
        try renderer.render(changeset, to: &out)
        return out.text
    }

    static let people = RenderContext(oldName: "people-old.json", newName: "people-new.json")

    @Test func patchOfPeople() throws {
        let c = try Self.changeset("people-old.json", "people-new.json")
        try assertGolden(Self.render(PatchRenderer(context: Self.people), c), "people.patch")
        try assertGolden(Self.render(PatchRenderer(context: Self.people, style: .ansi), c), "people.ansi.patch")
    }

    @Test func jsonOfPeople() throws {
        let c = try Self.changeset("people-old.json", "people-new.json")
        let text = try Self.render(JSONChangesetRenderer(context: Self.people), c)
        try assertGolden(text, "people.json")
        // It is JSON, and it says what the README promises.
        guard case .object(let root) = try json(text) else { Issue.record("not an object"); return }
        #expect(root["version"] == 1)
        #expect(root["key"] == ["id"])
        #expect(root["algorithm"] == "heckel")
    }

    @Test func patchAndJSONOfNumbers() throws {
        let c = try Self.changeset("numbers-old.yaml", "numbers-new.yaml", key: ["number"])
        let context = RenderContext(oldName: "numbers-old.yaml", newName: "numbers-new.yaml")
        try assertGolden(Self.render(PatchRenderer(context: context), c), "numbers.patch")
        try assertGolden(Self.render(JSONChangesetRenderer(context: context), c), "numbers.json")
    }

    @Test func nothingToSayWhenSame() throws {
        let c = try Self.changeset("people-old.json", "people-old.json")
        #expect(try Self.render(PatchRenderer(context: Self.people), c) == "")
        // The changeset of a file against itself: no changes, every record unchanged, and
        // both fingerprints the same.
        guard case .object(let root) = try json(Self.render(JSONChangesetRenderer(context: Self.people), c)) else {
            Issue.record("not an object")
            return
        }
        #expect(root["changes"] == [])
        #expect(root["summary"].map(JSONWriter.compact) == #"{"inserted":0,"deleted":0,"moved":0,"updated":0,"unchanged":7}"#)
        #expect(root["records"].map(JSONWriter.compact) == #"{"old":7,"new":7}"#)
        guard case .object(let prints)? = root["fingerprints"] else { Issue.record("no fingerprints"); return }
        #expect(prints["old"] != nil && prints["old"] == prints["new"])
    }

    @Test func jsonChangesetStringsAreEscaped() {
        var out = ""
        JSONWriter.writeString("a\"b\\c\nd\u{1}\u{2028}é", to: &out)
        #expect(out == #""a\"b\\c\nd\u0001\u2028é""#)
    }
}
