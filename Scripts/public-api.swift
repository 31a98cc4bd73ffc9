// Prints a module's public API from its symbol graph (`swift package dump-symbol-graph`):
// one line per declaration, its path and then its declaration as the compiler spells it,
// sorted. Scripts/public-api.sh runs it.
//
//     swift Scripts/public-api.swift .build/…/symbolgraph/ListDiffKit.symbols.json
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 2, let data = FileManager.default.contents(atPath: arguments[1]),
    let graph = try JSONSerialization.jsonObject(with: data) as? [String: Any],
    let symbols = graph["symbols"] as? [[String: Any]]
else {
    FileHandle.standardError.write("usage: public-api.swift SYMBOLGRAPH.json\n".data(using: .utf8)!)
    exit(2)
}
var lines: [String] = []
for symbol in symbols {
    let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
    let fragments = symbol["declarationFragments"] as? [[String: Any]] ?? []
    let declaration = fragments.compactMap { $0["spelling"] as? String }.joined()
        .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    lines.append("\(path)  \(declaration)")
}
// Symbols of the same path (overloads) sort by their declaration.
for line in lines.sorted() { print(line) }
