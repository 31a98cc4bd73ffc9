import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// RFC 7386 §2's MergePatch function, written here from the RFC, independent of listdiff's
/// own code.
enum RFC7386 {
    static func apply(_ patch: Value, to target: Value) -> Value {
        guard case .object(let p) = patch else { return patch }
        var members: [Object.Member] = if case .object(let t) = target { t.members } else { [] }
        for m in p.members {
            let k = members.firstIndex { $0.key.unicodeScalars.elementsEqual(m.key.unicodeScalars) }
            if case .null = m.value {
                if let k { members.remove(at: k) }
            } else if let k {
                members[k].value = apply(m.value, to: members[k].value)
            } else {
                members.append(.init(key: m.key, value: apply(m.value, to: .null)))
            }
        }
        return .object(Object(members))
    }
}

@Suite struct MergePatchTests {
    /// The merge patch from OLD to NEW, made from OLD whole; for a map of records, checked
    /// to be the patch made from the changed records alone.
    static func patch(
        _ old: String, _ new: String, files: FileDiffer = FileDiffer(key: try! IdentityKey(parsing: ["id"]))
    ) throws -> Value {
        let changeset = try files.diff(old: Array(old.utf8), new: Array(new.utf8), oldName: "old.json", newName: "new.json")
        let oldValue = try json(old)
        func render(_ renderer: MergePatchRenderer) throws -> Value {
            var out = StringStream()
            try renderer.render(changeset, to: &out)
            return try json(out.text)
        }
        let whole = Result { try render(MergePatchRenderer(old: oldValue)) }
        if MergePatchRenderer.mapPatchApplies(changeset) {
            var map = oldValue
            for step in changeset.layout.path?.components ?? [] {
                if case .object(let object) = map, let inner = object[step] { map = inner }
            }
            guard case .object(let records) = map else { throw RFC6902.Failure(description: "not a map") }
            let fromRecords = Result { try render(MergePatchRenderer { records.members[$0].value }) }
            // (The same patch, or the same refusal.)
            #expect((try? fromRecords.get()) == (try? whole.get()), "the patch from the changed records")
        }
        return try whole.get()
    }

    /// The value a JSON Pointer leads to, or nil.
    static func resolve(_ value: Value, _ pointer: String) throws -> Value? {
        var value: Value? = value
        for token in try RFC6902.tokens(pointer) {
            guard case .object(let object)? = value else { return nil }
            value = object[token]
        }
        return value
    }

    /// Random maps of records with records deleted, inserted and edited at any depth, nulls
    /// and arrays included: the patch, applied by the RFC's own function, gives NEW. A patch
    /// that would have to set a member to null is refused, naming a member that is null in
    /// NEW and not in OLD.
    @Test func appliedByTheRFCsFunctionAMapsPatchGivesNew() throws {
        var rng = SplitMix64(seed: 7386)
        var refused = 0, applied = 0
        for round in 0..<1500 {
            let old = (0..<Int.random(in: 1..<8, using: &rng)).map {
                Object.Member(key: "u\($0)", value: ComparisonTests.randomRecord(&rng))
            }
            var new: [Object.Member] = []
            for member in old {
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: continue
                case 1, 2:
                    // (A record stays an object: the document stays a map of records.)
                    let edited = ComparisonTests.edited(member.value, &rng)
                    if case .object = edited { new.append(.init(key: member.key, value: edited)) } else { new.append(member) }
                default: new.append(member)
                }
            }
            for k in 0..<Int.random(in: 0..<3, using: &rng) {
                new.append(.init(key: "n\(k)", value: ComparisonTests.randomRecord(&rng)))
            }
            if new.isEmpty { continue }
            let oldValue = Value.object(Object(old)), newValue = Value.object(Object(new))
            do {
                let patch = try Self.patch(JSONWriter.compact(oldValue), JSONWriter.compact(newValue))
                #expect(RFC7386.apply(patch, to: oldValue) == newValue, "round \(round)")
                // Only what changed: records neither deleted nor edited are not named.
                if case .object(let members) = patch {
                    for m in members.members {
                        #expect(try Self.resolve(oldValue, "/" + m.key) != Self.resolve(newValue, "/" + m.key), "round \(round)")
                    }
                }
                applied += 1
            } catch let error as ListDiffError {
                let prefix = "a JSON merge patch cannot set "
                guard error.message.hasPrefix(prefix) else { throw error }
                refused += 1
                let pointer = String(error.message.dropFirst(prefix.count).prefix { $0 != " " })
                #expect(try Self.resolve(newValue, pointer) == .null, "round \(round): \(pointer)")
                #expect(try Self.resolve(oldValue, pointer) != .null, "round \(round): \(pointer)")
            }
        }
        #expect(applied > 500 && refused > 0, "\(applied) applied, \(refused) refused")
    }

    /// A list has no members to name: any change writes it whole, nulls in it included;
    /// under `--path`, inside the objects that lead to it. A document that did not change
    /// is `{}`, unless its top level is a list, which `{}` would turn into an object.
    @Test func aListIsWrittenWhole() throws {
        var generator = RecordListGenerator(rng: SplitMix64(seed: 7387))
        for _ in 0..<300 {
            let (o, n) = generator.pair()
            let old = Value.array(o),
                new = Value.array(n + [.object(Object([.init(key: "id", value: -1), .init(key: "x", value: .null)]))])
            let patch = try Self.patch(JSONWriter.compact(old), JSONWriter.compact(new))
            #expect(patch == new)
            #expect(RFC7386.apply(patch, to: old) == new)
        }
        let files = FileDiffer(key: try IdentityKey(parsing: ["id"]), layout: LayoutOptions(path: try FieldPath("/data/users")))
        let old = #"{"meta": {"n": 1}, "data": {"users": [{"id": 1}, {"id": 2}], "other": 3}}"#
        let new = #"{"meta": {"n": 1}, "data": {"users": [{"id": 2}, {"id": 1, "a": null}], "other": 3}}"#
        #expect(try Self.patch(old, new, files: files) == (try json(#"{"data": {"users": [{"id": 2}, {"id": 1, "a": null}]}}"#)))
        #expect(try Self.patch(old, old, files: files) == (try json("{}")))
        #expect(try Self.patch("[{\"id\": 1}]", "[{\"id\": 1}]") == (try json("[{\"id\": 1}]")))
    }
}
