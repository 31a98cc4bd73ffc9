// Embedding ListDiffKit: diff two lists of records built in code, print the patch, and
// apply the changeset to the old list. It uses only the library's public API.
//
//     swift run listdiff-embedding-example
import ListDiffKit

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

/// Standard output as a stream the renderers write to.
struct StandardOutput: TextOutputStream {
    mutating func write(_ text: String) { print(text, terminator: "") }
}

do {
    let key = try IdentityKey(parsing: ["id"])
    let changeset = try Differ().diff(old: old, new: new, key: key)
    var out = StandardOutput()
    PatchRenderer(context: RenderContext(oldName: "old", newName: "new")).render(changeset, to: &out)
    print("\(changeset.changes.count) changes, to the records keyed \(changeset.changes.map(\.key.description).joined(separator: ", "))")
    let applied = try changeset.apply(to: old)
    print(applied == new ? "applied to old, it gives new" : "applied to old, it does not give new")
} catch {
    print("error: \(error)")
}
