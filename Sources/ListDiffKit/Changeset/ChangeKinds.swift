/// Kinds of change (`insert`, `delete`, `update`, `move`, `rename`), as `--fail-on` and `--show` name them.
package struct ChangeKinds: Sendable, Hashable {
    package var operations: Set<Change.Operation>

    package init(_ operations: Set<Change.Operation>) {
        self.operations = operations
    }

    package static let all = ChangeKinds(Set(Change.Operation.allCases))

    /// Parses a comma list such as `delete,update`. `all` names every kind, `none` no kind;
    /// plural and past forms (`inserts`, `deleted`) are accepted too.
    package init(parsing text: String) throws(ListDiffError) {
        var operations: Set<Change.Operation> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let word = part.trimmingWhitespace.lowercased()
            switch word {
            case "all": operations.formUnion(Change.Operation.allCases)
            case "none": break
            default:
                guard let op = Change.Operation.allCases.first(where: { [$0.rawValue, $0.rawValue + "s", $0.past].contains(word) })
                else {
                    throw ListDiffError(
                        .usage,
                        "unknown kind of change '\(word)'; expected a comma list of insert, delete, update, move, rename (or all, none)")
                }
                operations.insert(op)
            }
        }
        self.operations = operations
    }

    package func contains(_ operation: Change.Operation) -> Bool { operations.contains(operation) }

    /// The kinds in a fixed order (delete, insert, move, update, rename), for output.
    package var names: [String] {
        Change.Operation.allCases.filter(operations.contains).map(\.rawValue)
    }
}

extension Change.Operation {
    /// `inserted`, `deleted`, `moved`, `updated`, `renamed`.
    package var past: String {
        switch self {
        case .insert: return "inserted"
        case .delete: return "deleted"
        case .move: return "moved"
        case .update: return "updated"
        case .rename: return "renamed"
        }
    }
}

extension Changeset {
    /// Whether a change of one of `kinds` occurred, to records or to sections.
    package func hasChanges(of kinds: ChangeKinds) -> Bool {
        changes.contains { kinds.contains($0.operation) } || sections.contains { kinds.contains($0.operation) }
    }

    /// Whether the inputs differ, even when `showing(_:)` left every change out.
    package var differs: Bool {
        let s = summary
        return !isEmpty || s.inserted + s.deleted + s.moved + s.updated + s.renamed > 0 || !(allSections ?? []).isEmpty
    }

    /// The changeset with only the changes of `kinds`, to records and to sections. The
    /// summary still counts every change. Such a changeset describes; it does not apply.
    package func showing(_ kinds: ChangeKinds) -> Changeset {
        var copy = self
        if kinds != .all {
            copy.changes = changes.filter { kinds.contains($0.operation) }
            copy.sections = sections.filter { kinds.contains($0.operation) }
            copy.shown = kinds
            copy.allSections = allSections ?? sections
        }
        return copy
    }

    /// How many updated records changed each field, most often changed first (then by
    /// pointer). A record whose members only changed order counts under `(member order)`.
    package var fieldCounts: [(path: String, count: Int)] {
        var counts: [String: Int] = [:]
        for change in changes where change.operation == .update {
            if change.fields.isEmpty { counts["(member order)", default: 0] += 1 }
            var seen = Set<String>()
            for field in change.fields where seen.insert(field.readablePath).inserted {
                counts[field.readablePath.isEmpty ? "(record)" : field.readablePath, default: 0] += 1
            }
        }
        return counts.map { (path: $0.key, count: $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.path < $1.path }
    }
}

extension Substring {
    var trimmingWhitespace: Substring {
        var s = self
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s
    }
}
