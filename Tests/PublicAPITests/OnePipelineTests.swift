import ListDiffKit
import ListDiffKitTestSupport
import Testing

/// `Differ` on values and `FileDiffer` on bytes are one pipeline: on the same records, under
/// the same rules, they give the same changeset or the same error. The cases include the
/// combinations the command refuses, so that a refusal made only by the command cannot hide
/// a disagreement.
@Suite struct OnePipelineTests {
    let key = try! IdentityKey(parsing: ["id"])

    /// The changeset as JSON text, or the error (without its place: bytes have lines and
    /// columns, values do not).
    func outcome(_ diff: () throws(ListDiffError) -> Changeset) -> String {
        do {
            let changeset = try diff()
            var text = ""
            try JSONChangesetRenderer(context: RenderContext(oldName: "old", newName: "new")).render(changeset, to: &text)
            return text
        } catch {
            return "error: \(error.kind) \(error.message)"
        }
    }

    func agree(_ old: [Value], _ new: [Value], _ differ: Differ, key: IdentityKey) -> (Bool, String, String) {
        let values = outcome { () throws(ListDiffError) in try differ.diff(old: old, new: new, key: key) }
        let bytes = outcome { () throws(ListDiffError) in
            try FileDiffer(key: key, differ: differ, format: .json)
                .diff(old: Array(Value.array(old).description.utf8), new: Array(Value.array(new).description.utf8))
        }
        return (values == bytes, values, bytes)
    }

    /// A record that changed only in an ignored field, with member order significant: the
    /// two were once answered differently (updated on values, unchanged on bytes). Now the
    /// library refuses the combination, on both.
    @Test func significantMemberOrderWithRulesIsRefusedByBoth() throws {
        let old: [Value] = [["id": 1, "name": "a", "stamp": 1]]
        let new: [Value] = [["id": 1, "name": "a", "stamp": 2]]
        var rules = Comparison()
        rules.ignore = [try Comparison.Pattern("/stamp")]
        let differ = Differ(memberOrder: .significant, comparison: rules)
        let refusal = ListDiffError(
            .usage, "--member-order significant compares records exactly; it does not go with comparison rules")
        #expect(throws: refusal) { try differ.diff(old: old, new: new, key: key) }
        #expect(throws: refusal) {
            try FileDiffer(key: key, differ: differ).diff(
                old: Array(Value.array(old).description.utf8), new: Array(Value.array(new).description.utf8))
        }
        let (same, values, bytes) = agree(old, new, differ, key: key)
        #expect(same, "\(values)\n\(bytes)")
    }

    /// A rule on a key field is refused by the library, whichever way it is called.
    @Test func aRuleOnAKeyFieldIsRefused() throws {
        var rules = Comparison()
        rules.ignore = [try Comparison.Pattern("/id")]
        let refusal = ListDiffError(.usage, "--ignore /id reaches the key field id: keys are identity, and no rule applies to them")
        let records: [Value] = [["id": 1, "v": 1]]
        #expect(throws: refusal) { try Differ(comparison: rules).diff(old: records, new: records, key: key) }
        #expect(throws: refusal) {
            try FileDiffer(key: key, differ: Differ(comparison: rules)).diff(
                old: Array(Value.array(records).description.utf8), new: Array(Value.array(records).description.utf8))
        }
        #expect(throws: ListDiffError.self) {
            try Differ(comparison: rules).diff(old: records, new: records, key: .wholeRecord)
        }
    }

    /// Random records, random rules (key fields and significant member order included) and
    /// both member orders: values and bytes agree on every one.
    @Test func randomRecordsUnderRandomRulesAgree() throws {
        var random = SplitMix64(seed: 30)
        let patterns = ["/a", "/b", "/c", "/c/*", "/id", "/", "/d/x"]
        func pattern() throws -> Comparison.Pattern { try Comparison.Pattern(patterns[random.below(patterns.count)]) }
        func scalar() -> Value {
            switch random.below(5) {
            case 0: return .number(Value.Number(exactly: random.below(4)))
            case 1: return .number(Value.Number(text: "\(random.below(4)).5"))
            case 2: return .string(["x", "X", " x ", "y"][random.below(4)])
            case 3: return .bool(random.below(2) == 0)
            default: return .null
            }
        }
        func record(_ id: Int) -> Value {
            var members = [Value.Object.Member(key: "id", value: .number(Value.Number(exactly: id)))]
            for name in ["a", "b"] where random.below(4) > 0 { members.append(.init(key: name, value: scalar())) }
            if random.below(2) == 0 { members.append(.init(key: "c", value: .array((0..<random.below(3)).map { _ in scalar() }))) }
            if random.below(3) == 0 { members.append(.init(key: "d", value: ["x": scalar(), "y": scalar()])) }
            if random.below(3) == 0 { members.reverse() }
            return .object(Value.Object(members))
        }
        var refused = 0, compared = 0
        for _ in 0..<300 {
            // Distinct keys on each side; some records keep their key and change.
            let ids = Array((0..<8).shuffled(using: &random).prefix(random.below(6)))
            let old = ids.map { record($0) }
            var new = ids.map { random.below(3) == 0 ? record($0) : old[ids.firstIndex(of: $0)!] }
            new.shuffle(using: &random)
            new += (8..<8 + random.below(3)).map { record($0) }
            var rules = Comparison()
            if random.below(2) == 0 { rules.ignore = [try pattern()] }
            if random.below(4) == 0 { rules.only = [try pattern(), try pattern()] }
            rules.unorderedRecords = random.below(4) == 0
            if random.below(3) == 0 { rules.unorderedArrays = [try pattern()] }
            if random.below(4) == 0 {
                rules.tolerances = [Comparison.Tolerance(path: try pattern(), absolute: Value.Number(text: "0.5"))]
            }
            if random.below(4) == 0 { rules.ignoreCase = [try pattern()] }
            if random.below(4) == 0 { rules.ignoreWhitespace = [try pattern()] }
            let order: Differ.MemberOrder = random.below(2) == 0 ? .ignore : .significant
            let differ = Differ(memberOrder: order, comparison: rules)
            let (same, values, bytes) = agree(old, new, differ, key: key)
            #expect(same, "\(old) → \(new) under \(rules), \(order)\n\(values)\n\(bytes)")
            if values.hasPrefix("error: usage") { refused += 1 } else { compared += 1 }
        }
        // Both refusals and comparisons were reached.
        #expect(refused > 20 && compared > 100, "\(refused) refused, \(compared) compared")
    }
}
