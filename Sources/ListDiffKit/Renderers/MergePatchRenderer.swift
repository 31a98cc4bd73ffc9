/// The change as an RFC 7386 JSON Merge Patch: one JSON value that, merged into OLD by any
/// merge-patch tool, gives the document `apply` gives (NEW, or under comparison rules NEW
/// with OLD's records where they are the same under the rules).
///
/// A merge patch names objects' members: a changed member holds its new value (an object
/// merged member by member), a removed one holds null. Arrays have no members to name, so
/// a changed array is written whole, as the RFC says: a list of records with any change
/// (an insert, a delete, a move, or an update of one record) is the whole new list. A map of
/// records is an object, so its patch holds only the records that changed, and of those
/// only the fields that changed.
///
/// One change cannot be written, and is refused: setting an object's member to null (the
/// RFC reads null as removing it; a null inside an array is written, with its array). A
/// document whose top level is not an object is written whole, even when nothing changed:
/// `{}` would turn it into an object.
public struct MergePatchRenderer: ChangesetRenderer {
    /// What the patch is made from: OLD whole, or (for a map of records) OLD's records one
    /// by one, read only for the records that changed.
    enum Source {
        case document(Value)
        case records((Int) throws(ListDiffError) -> Value)
    }

    let source: Source

    /// A renderer of the merge patch that turns `old` into what the changeset makes of it.
    public init(old: Value) {
        source = .document(old)
    }

    /// A renderer for a changeset of a map of records (`mapPatchApplies`), which reads OLD's
    /// record at an index only for the records that changed.
    package init(oldRecord: @escaping (Int) throws(ListDiffError) -> Value) {
        source = .records(oldRecord)
    }

    /// Writes the merge patch, indented.
    ///
    /// - Throws: what applying the changeset to OLD throws; a `.usage` error when the
    ///   change sets an object's member to null, which a merge patch cannot say.
    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        let patch: Value
        switch source {
        case .document(let old): patch = try Self.patch(from: old, to: try changeset.apply(to: old))
        case .records(let oldRecord): patch = try Self.mapPatch(changeset, oldRecord: oldRecord)
        }
        var text = ""
        JSONWriter.writePretty(patch, to: &text)
        out.write(text + "\n")
    }

    /// Whether a changeset's patch can be made from its changes alone: a map of records, at
    /// the top level or under a path of member names (a step that may be an index would
    /// need the document to tell).
    package static func mapPatchApplies(_ changeset: Changeset) -> Bool {
        let layout = changeset.layout
        guard layout.shape == .map, !layout.isSectioned else { return false }
        return (layout.path?.components ?? []).allSatisfy { step in step != "*" && !step.allSatisfy(\.isNumber) }
    }

    /// A map of records' patch from its changes: a deleted record is null, an inserted one
    /// its value, an updated one the patch from its OLD record to its new one; inside the
    /// objects the path names. The same patch `patch(from:to:)` gives on the documents.
    static func mapPatch(_ changeset: Changeset, oldRecord: (Int) throws(ListDiffError) -> Value) throws(ListDiffError) -> Value {
        let prefix = (changeset.layout.path?.components ?? []).map { "/" + FieldPath.escape($0) }.joined()
        var removed: [Value.Object.Member] = [], changed: [Value.Object.Member] = []
        for change in changeset.changes {
            guard case .string(let name) = change.key else { continue }
            let at = prefix + "/" + FieldPath.escape(name)
            if change.operation == .rename, case .string(let was) = change.keyInOld { removed.append(.init(key: was, value: .null)) }
            switch change.operation {
            case .delete: removed.append(.init(key: name, value: .null))
            case .insert, .rename:
                if let value = try member(from: nil, to: try change.value() ?? .null, at: at) {
                    changed.append(.init(key: name, value: value))
                }
            case .update:
                guard let i = change.old?.index else { continue }
                if let value = try member(from: try oldRecord(i), to: try change.value() ?? .null, at: at) {
                    changed.append(.init(key: name, value: value))
                }
            case .move: continue
            }
        }
        if removed.isEmpty && changed.isEmpty { return .object(Value.Object()) }
        var patch = Value.object(Value.Object(removed + changed))
        for step in (changeset.layout.path?.components ?? []).reversed() {
            patch = .object(Value.Object([.init(key: step, value: patch)]))
        }
        return patch
    }

    /// The merge patch from `old` to `new`.
    package static func patch(from old: Value, to new: Value) throws(ListDiffError) -> Value {
        // (Only an object is merged: anything else at the top replaces the whole document.)
        guard case .object = new else { return new }
        return try member(from: old, to: new, at: "") ?? .object(Value.Object())
    }

    /// What a merge patch holds for a member that was `old` (nil: absent) and is `new`: nil
    /// when nothing changed. `path` is its JSON Pointer, for the refusal.
    static func member(from old: Value?, to new: Value, at path: String) throws(ListDiffError) -> Value? {
        guard case .object(let object) = new else {
            if let old, old == new { return nil }
            return new
        }
        // A merge into anything but an object starts from an empty object.
        let before: [Value.Object.Member]
        let replaced: Bool
        if case .object(let o)? = old {
            (before, replaced) = (o.members, false)
        } else {
            (before, replaced) = ([], true)
        }
        // OLD's members by name, compared as the readers compare names (by UTF-8 bytes).
        var index: [[UInt8]: Int] = [:]
        index.reserveCapacity(before.count)
        for (k, m) in before.enumerated() { index[Array(m.key.utf8)] = k }
        var kept = [Bool](repeating: false, count: before.count)
        var changed: [Value.Object.Member] = []
        for m in object.members {
            let k = index[Array(m.key.utf8)]
            if let k { kept[k] = true }
            let inner = path + "/" + FieldPath.escape(m.key)
            if case .null = m.value {
                if let k, case .null = before[k].value { continue }
                throw ListDiffError(
                    .usage,
                    "a JSON merge patch cannot set \(inner) to null (RFC 7386 reads null as removing it); a JSON Patch can")
            }
            if let value = try member(from: k.map { before[$0].value }, to: m.value, at: inner) {
                changed.append(.init(key: m.key, value: value))
            }
        }
        // Removed members first, in OLD's order, then the changed ones in NEW's.
        let removed = before.indices.filter { !kept[$0] }.map { Value.Object.Member(key: before[$0].key, value: .null) }
        if removed.isEmpty && changed.isEmpty && !replaced { return nil }
        return .object(Value.Object(removed + changed))
    }
}
