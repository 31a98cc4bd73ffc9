import Foundation
import Testing

/// The comparison rules from the command line, on the shipped inventory pair.
@Suite struct ComparisonCommandTests {
    static let examples = Binary.repository.appendingPathComponent("Examples")
    static let rules = [
        "--key", "sku", "--ignore", "/updated_at", "--unordered", "--unordered-arrays", "/tags", "--ignore-case=/email",
        "--ignore-whitespace=/name", "--tolerance", "/price=0.01",
    ]

    @Test func rulesLeaveOnlyTheRealChange() throws {
        let plain = try Binary.run(["--key", "sku", "inventory-old.json", "inventory-new.json"], in: Self.examples)
        #expect(plain.status == 1)
        #expect(plain.stdout.hasSuffix("0 inserted, 0 deleted, 1 moved, 4 updated, 0 unchanged\n"))
        let run = try Binary.run(Self.rules + ["inventory-old.json", "inventory-new.json"], in: Self.examples)
        #expect(run.status == 1)
        #expect(run.stderr == "")
        #expect(
            run.stdout == """
                --- inventory-old.json
                +++ inventory-new.json
                # compared under --ignore /updated_at --unordered --unordered-arrays /tags --tolerance /price=0.01 --ignore-case=/email --ignore-whitespace=/name
                ~ sku="B-200" /price: 149.00 → 139.00
                ~ sku="B-200" /tags: added "sale"
                0 inserted, 0 deleted, 0 moved, 1 updated, 3 unchanged

                """)
    }

    @Test func onlyPositionsOrIgnoredFieldsChangedExitsZero() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"[{"id":1,"at":1},{"id":2,"at":1}]"#.write(to: dir.appendingPathComponent("old.json"), atomically: true, encoding: .utf8)
        try #"[{"id":2,"at":1},{"id":1,"at":1}]"#.write(to: dir.appendingPathComponent("moved.json"), atomically: true, encoding: .utf8)
        try #"[{"id":1,"at":5},{"id":2,"at":6}]"#.write(to: dir.appendingPathComponent("touched.json"), atomically: true, encoding: .utf8)
        #expect(try Binary.run(["old.json", "moved.json"], in: dir).status == 1)
        let unordered = try Binary.run(["--unordered", "old.json", "moved.json"], in: dir)
        #expect(unordered.status == 0 && unordered.stdout == "" && unordered.stderr == "")
        #expect(try Binary.run(["old.json", "touched.json"], in: dir).status == 1)
        let ignored = try Binary.run(["--ignore", "/at", "-f", "json", "old.json", "touched.json"], in: dir)
        #expect(ignored.status == 0)
        #expect(ignored.stdout.contains(#""comparison": {"ignore":["/at"]}"#))
        #expect(ignored.stdout.contains(#""summary": {"inserted": 0, "deleted": 0, "moved": 0, "updated": 0, "unchanged": 2}"#))
    }

    @Test func aChangesetMadeUnderRulesApplies() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let changes = dir.appendingPathComponent("changes.json").path
        let diff = try Binary.run(
            Self.rules + ["-f", "json", "-o", changes, "inventory-old.json", "inventory-new.json"], in: Self.examples)
        #expect(diff.status == 1)
        let apply = try Binary.run(["apply", "inventory-old.json", changes], in: Self.examples)
        #expect(apply.status == 0, "\(apply.stderr)")
        // The result: NEW's record where it changed (B-200), OLD's elsewhere, in OLD's order.
        let result = try JSONSerialization.jsonObject(with: Data(apply.stdout.utf8)) as! [[String: Any]]
        #expect(result.map { $0["sku"] as! String } == ["A-100", "B-200", "C-300", "D-400"])
        #expect(result[1]["tags"] as! [String] == ["seat", "sale"])
        #expect(result[0]["updated_at"] as! String == "2026-11-01T08:00:00Z")
        // A changeset edited to claim other rules no longer checks out.
        let text = try String(contentsOfFile: changes, encoding: .utf8).replacingOccurrences(of: "\"unordered\":true,", with: "")
        try text.write(toFile: changes, atomically: true, encoding: .utf8)
        let edited = try Binary.run(["apply", "inventory-old.json", changes], in: Self.examples)
        #expect(edited.status == 2)
        #expect(edited.stderr.contains("the new fingerprint differs"))
    }

    @Test func badRulesAreOneLineErrors() throws {
        let cases: [([String], String)] = [
            (["--ignore", "/sku"], "--ignore /sku reaches the key field sku: keys are identity, and no rule applies to them"),
            (["--ignore", "updated_at"], "invalid path 'updated_at': write a JSON Pointer such as /updated_at or /tags/*/name"),
            (["--tolerance", "/price=cheap"], "--tolerance /price=cheap: the tolerance must be a number of zero or more, such as 0.01"),
            (["--tolerance=-1"], "--tolerance -1: the tolerance must be a number of zero or more, such as 0.01"),
            (["--ignore-case=/sku"], "--ignore-case /sku reaches the key field sku"),
            (["--ignore", "/x", "--member-order", "significant"], "--member-order significant compares records exactly"),
        ]
        for (arguments, message) in cases {
            let run = try Binary.run(["--key", "sku"] + arguments + ["inventory-old.json", "inventory-new.json"], in: Self.examples)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stdout == "")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments)")
        }
    }
}
