import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// An RFC 6902 applier written here from the RFC, independent of listdiff's own code:
/// §4.1 add, §4.2 remove, §4.3 replace, §4.4 move; pointers per RFC 6901.
enum RFC6902 {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func tokens(_ pointer: String) throws -> [String] {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { throw Failure(description: "bad pointer \(pointer)") }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            // RFC 6901 §4: ~1 to / first, then ~0 to ~.
            String($0).split(separator: "~1", omittingEmptySubsequences: false).joined(separator: "/")
                .split(separator: "~0", omittingEmptySubsequences: false).joined(separator: "~")
        }
    }

    static func apply(_ patch: Value, to document: Value) throws -> Value {
        guard case .array(let ops) = patch else { throw Failure(description: "patch is not an array") }
        var doc = document
        for op in ops {
            guard case .object(let o) = op, case .string(let name)? = o["op"], case .string(let path)? = o["path"] else {
                throw Failure(description: "bad operation")
            }
            switch name {
            case "add": doc = try add(doc, try tokens(path), o["value"] ?? .null)
            case "remove": doc = try remove(doc, try tokens(path)).0
            case "replace": doc = try add(try remove(doc, try tokens(path)).0, try tokens(path), o["value"] ?? .null)
            case "move":
                guard case .string(let from)? = o["from"] else { throw Failure(description: "move without from") }
                let (rest, value) = try remove(doc, try tokens(from))
                doc = try add(rest, try tokens(path), value)
            default: throw Failure(description: "unknown op \(name)")
            }
        }
        return doc
    }

    static func index(_ token: String, count: Int, allowEnd: Bool) throws -> Int {
        if allowEnd && token == "-" { return count }
        guard let i = Int(token), String(i) == token, i >= 0, i < count || (allowEnd && i == count) else {
            throw Failure(description: "index \(token) out of range 0..<\(count)")
        }
        return i
    }

    static func add(_ doc: Value, _ path: [String], _ value: Value) throws -> Value {
        guard let first = path.first else { return value }
        let rest = Array(path.dropFirst())
        switch doc {
        case .array(var items):
            if rest.isEmpty {
                items.insert(value, at: try index(first, count: items.count, allowEnd: true))
            } else {
                let i = try index(first, count: items.count, allowEnd: false)
                items[i] = try add(items[i], rest, value)
            }
            return .array(items)
        case .object(var object):
            if let k = object.members.firstIndex(where: { $0.key.unicodeScalars.elementsEqual(first.unicodeScalars) }) {
                object.members[k].value = rest.isEmpty ? value : try add(object.members[k].value, rest, value)
            } else {
                guard rest.isEmpty else { throw Failure(description: "no member \(first)") }
                object.members.append(.init(key: first, value: value))
            }
            return .object(object)
        default:
            throw Failure(description: "cannot add into a \(doc.typeName)")
        }
    }

    static func remove(_ doc: Value, _ path: [String]) throws -> (Value, Value) {
        guard let first = path.first else { throw Failure(description: "cannot remove the root") }
        let rest = Array(path.dropFirst())
        switch doc {
        case .array(var items):
            let i = try index(first, count: items.count, allowEnd: false)
            if rest.isEmpty {
                let removed = items.remove(at: i)
                return (.array(items), removed)
            }
            let (child, removed) = try remove(items[i], rest)
            items[i] = child
            return (.array(items), removed)
        case .object(var object):
            guard let k = object.members.firstIndex(where: { $0.key.unicodeScalars.elementsEqual(first.unicodeScalars) }) else {
                throw Failure(description: "no member \(first)")
            }
            if rest.isEmpty {
                let removed = object.members.remove(at: k).value
                return (.object(object), removed)
            }
            let (child, removed) = try remove(object.members[k].value, rest)
            object.members[k].value = child
            return (.object(object), removed)
        default:
            throw Failure(description: "cannot remove from a \(doc.typeName)")
        }
    }
}

@Suite struct JSONPatchTests {
    static func patch(_ changeset: Changeset) throws -> Value {
        var out = StringStream()
        try JSONPatchRenderer().render(changeset, to: &out)
        return try json(out.text)
    }

    /// Render, parse back, apply with the RFC's applier: the new document, every time.
    @Test(arguments: AlgorithmContractTests.names)
    func roundTripsThroughAnIndependentApplier(name: String) throws {
        let differ = Differ(algorithm: AlgorithmContractTests.algorithms[name]!)
        let key = try IdentityKey(parsing: [])
        var generator = RecordListGenerator(rng: SplitMix64(seed: 314))
        for _ in 0..<2000 {
            let (o, n) = generator.pair()
            let old = try document(o), new = try document(n)
            let changeset = try differ.diff(old: old, new: new, key: key)
            let patch = try Self.patch(changeset)
            #expect(try RFC6902.apply(patch, to: .array(old.values)) == .array(new.values))
            // Moves are moves: one per moved record, no remove-and-add in their place.
            guard case .array(let ops) = patch else { continue }
            let moves = ops.filter { if case .object(let op) = $0 { return op["op"] == "move" } else { return false } }
            #expect(moves.count == changeset.summary.moved)
        }
    }

    @Test func escapesPointersAndSaysNothingWhenSame() throws {
        let old = try document([json(#"{"id":1,"a/b":1,"m~n":[1,2,3]}"#)])
        let new = try document([json(#"{"id":1,"a/b":2,"m~n":[1]}"#)])
        let changeset = try Differ().diff(old: old, new: new, key: try IdentityKey(parsing: []))
        var out = StringStream()
        try JSONPatchRenderer().render(changeset, to: &out)
        #expect(
            out.text == """
                [
                  {"op": "replace", "path": "/0/a~1b", "value": 2},
                  {"op": "remove", "path": "/0/m~0n/2"},
                  {"op": "remove", "path": "/0/m~0n/1"}
                ]

                """)
        var same = StringStream()
        try JSONPatchRenderer().render(try Differ().diff(old: old, new: old, key: try IdentityKey(parsing: [])), to: &same)
        #expect(same.text == "[]\n")
    }

    @Test func peopleGolden() throws {
        try assertGolden(
            RendererTests.render(JSONPatchRenderer(), try RendererTests.changeset("people-old.json", "people-new.json")),
            "people.jsonpatch.json")
    }
}
