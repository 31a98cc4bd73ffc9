// Embedding ListDiffKit: diff lists of records built in code, print the patch, and apply
// the changeset; diff lists in sections; write the JSON changeset and read it back; diff
// two documents held as bytes; tell errors apart and act on their hints. It uses only the library's public API.
//
//     swift run listdiff-embedding-example
import ListDiffKit

/// Standard output as a stream the renderers write to.
struct StandardOutput: TextOutputStream {
    mutating func write(_ text: String) { print(text, terminator: "") }
}

var out = StandardOutput()
let names = RenderContext(oldName: "old", newName: "new")

do {
    // Two lists of records, matched by their "id".
    let old: [Value] = [
        ["id": 1, "name": "Ada Lovelace", "role": "analyst"],
        ["id": 2, "name": "Alan Turing", "role": "logician"],
        ["id": 3, "name": "Grace Hopper", "role": "admiral"],
        ["id": 4, "name": "Edsger Dijkstra", "role": "shortest paths"],
    ]
    let new: [Value] = [
        ["id": 3, "name": "Grace Hopper", "role": "rear admiral"],
        ["id": 1, "name": "Ada Lovelace", "role": "analyst"],
        ["id": 2, "name": "Alan Turing", "role": "logician"],
        ["id": 5, "name": "Barbara Liskov", "role": "substitution"],
    ]
    let key = try IdentityKey(parsing: ["id"])
    let changeset = try Differ().diff(old: old, new: new, key: key)
    try PatchRenderer(context: names).render(changeset, to: &out)
    print("\(changeset.changes.count) changes, to the records keyed \(changeset.changes.map(\.key.description).joined(separator: ", "))")
    print(try changeset.apply(to: old) == new ? "applied to old, it gives new" : "applied to old, it does not give new")

    // The same changes as UIKit's batch updates: deletes at old positions, inserts at new
    // ones, moves from old to new.
    for stage in changeset.stages where !stage.changes.isEmpty {
        let steps = stage.changes.map { change in
            let places = [change.old.map { "old \($0.index)" }, change.new.map { "new \($0.index)" }]
            return "\(change.operation.rawValue) \(places.compactMap { $0 }.joined(separator: " → "))"
        }
        print("\(stage.kind.rawValue): \(steps.joined(separator: ", "))")
    }

    // Lists in sections: an object of lists, one section per member. A record that changes
    // list is a move across sections.
    let board: Value = ["todo": [["id": "a", "title": "Write"], ["id": "b", "title": "Test"]], "done": [["id": "c", "title": "Plan"]]]
    let later: Value = ["todo": [["id": "b", "title": "Test"]], "done": [["id": "c", "title": "Plan"], ["id": "a", "title": "Write"]]]
    let moved = try Differ().diff(old: board, new: later, key: key)
    try PatchRenderer(context: names).render(moved, to: &out)
    print(try moved.apply(to: board) == later ? "applied to the old board, it gives the new" : "the boards differ")

    // The versioned JSON changeset, read back and applied.
    var json = ""
    try JSONChangesetRenderer(context: names).render(changeset, to: &json)
    let readBack = try Changeset(json: Array(json.utf8))
    print("read back from JSON: \(readBack.summary.updated) updated; applied, it gives new: \(try readBack.apply(to: old) == new)")

    // Two documents held as bytes, here NDJSON, diffed as files are.
    let differ = FileDiffer(key: key, format: .ndjson)
    let lines = try differ.diff(
        old: Array("{\"id\":1,\"qty\":2}\n{\"id\":2,\"qty\":5}\n".utf8),
        new: Array("{\"id\":2,\"qty\":6}\n".utf8))
    StatRenderer(context: names).render(lines, to: &out)
} catch {
    print("error: \(error)")
}

// Errors carry a kind to switch on, the place and a message.
do {
    _ = try Differ().diff(old: [["name": "no id"]], new: [], key: IdentityKey(parsing: ["id"]))
} catch {
    // Every call here throws only ListDiffError, so `error` is one.
    switch error.kind {
    case .key: print("a key error: \(error.message)")
    default: print("another error: \(error)")
    }
}
do {
    _ = try FileDiffer(key: IdentityKey(parsing: ["id"])).diff(old: Array("[{\"id\": 1,]".utf8), new: Array("[]".utf8), oldName: "old.json")
} catch {
    print("\(error.kind) error at line \(error.location?.line ?? 0), column \(error.location?.column ?? 0): \(error.description)")
}
// Where a setting gets past an error, the error names it as a hint: here, pairing records
// that share a key by occurrence.
do {
    let twice: [Value] = [["id": 1, "n": "a"], ["id": 1, "n": "b"]]
    do {
        _ = try Differ().diff(old: twice, new: [], key: IdentityKey(parsing: ["id"]))
    } catch  where error.hint == .matchDuplicates {
        let paired = try Differ().diff(old: twice, new: [], key: IdentityKey(parsing: ["id"]), duplicates: .match)
        print("\(error.message); with duplicates: .match, \(paired.summary.deleted) deleted")
    }
} catch {
    print("error: \(error)")
}
