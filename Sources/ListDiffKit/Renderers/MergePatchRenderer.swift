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
    /// OLD, read whole: the patch is made from OLD and the document the changeset makes of it.
    public let old: Value

    /// A renderer of the merge patch that turns `old` into what the changeset makes of it.
    public init(old: Value) {
        self.old = old
    }

    /// Writes the merge patch, indented.
    ///
    /// - Throws: what applying the changeset to `old` throws; a `.usage` error when the
    ///   change sets an object's member to null, which a merge patch cannot say.
    public func render(_ changeset: Changeset, to out: inout some TextOutputStream) throws(ListDiffError) {
        let patch = try Self.patch(from: old, to: try changeset.apply(to: old))
        var text = ""
        JSONWriter.writePretty(patch, to: &text)
        out.write(text + "\n")
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
