/// The changed fields between two versions of a record, as JSON Pointer paths.
///
/// Objects are compared member by member (removed and changed members in old order,
/// then added members in new order), arrays element by element (a longer or shorter
/// array adds or removes at the end; removals are listed last first, so that the fields
/// can be applied one after another), anything else as a whole. An object with a
/// duplicated key is compared as a whole, since a path could not name one of the twins.
package enum FieldDiff {
    static func changes(old: Value, new: Value) -> [Changeset.FieldChange] {
        var out: [FieldChange] = []
        collect(old, new, path: "", into: &out)
        return out
    }

    /// Adds the changes between `a` and `b` (none when they are equal). Objects and arrays
    /// are walked once, not compared as a whole first.
    static func collect(_ a: Value, _ b: Value, path: String, into out: inout [FieldChange]) {
        switch (a, b) {
        case let (.object(x), .object(y)) where sameKeys(x, y) && !x.hasDuplicateKeys:
            // Same keys in the same order (the common case): member by member.
            for (m, n) in zip(x.members, y.members) where mayDiffer(m.value, n.value) {
                collect(m.value, n.value, path: path + "/" + FieldPath.escape(m.key), into: &out)
            }
        case let (.object(x), .object(y)) where !x.hasDuplicateKeys && !y.hasDuplicateKeys:
            var newMembers: [ScalarKey: Value] = [:]
            for m in y.members { newMembers[ScalarKey(m.key)] = m.value }
            var oldKeys = Set<ScalarKey>()
            for m in x.members {
                let k = ScalarKey(m.key)
                oldKeys.insert(k)
                if let nv = newMembers[k] {
                    if mayDiffer(m.value, nv) { collect(m.value, nv, path: path + "/" + FieldPath.escape(m.key), into: &out) }
                } else {
                    out.append(FieldChange(path: path + "/" + FieldPath.escape(m.key), old: m.value, new: nil))
                }
            }
            for m in y.members where !oldKeys.contains(ScalarKey(m.key)) {
                out.append(FieldChange(path: path + "/" + FieldPath.escape(m.key), old: nil, new: m.value))
            }
        case let (.array(x), .array(y)):
            for i in 0..<min(x.count, y.count) where mayDiffer(x[i], y[i]) {
                collect(x[i], y[i], path: path + "/\(i)", into: &out)
            }
            if x.count > y.count {
                for i in (y.count..<x.count).reversed() { out.append(FieldChange(path: path + "/\(i)", old: x[i], new: nil)) }
            } else if y.count > x.count {
                for i in x.count..<y.count { out.append(FieldChange(path: path + "/\(i)", old: nil, new: y[i])) }
            }
        default:
            if a != b { out.append(FieldChange(path: path, old: a, new: b)) }
        }
    }

    /// Whether two values need a look: two objects or two arrays are walked (which compares
    /// them as it goes), anything else is compared here, before a path is built for it.
    @inline(__always)
    static func mayDiffer(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.object, .object), (.array, .array): return true
        default: return a != b
        }
    }

    /// Whether two objects have the same keys in the same order.
    static func sameKeys(_ x: Object, _ y: Object) -> Bool {
        x.members.count == y.members.count && zip(x.members, y.members).allSatisfy { $0.key.scalarEquals($1.key) }
    }
}

extension FieldDiff {
    /// Room for `written` to list the members of two records in, kept from record to record.
    struct WrittenMembers {
        var old: [JSONParser.WrittenMember] = []
        var new: [JSONParser.WrittenMember] = []
    }

    /// Two JSON records as written (`oldBytes` from `oldOffset`, `newBytes` from
    /// `newOffset`), compared member by member as their values would be: a member whose
    /// bytes are the same in both is equal unread; only the others are read, and walked as
    /// `collect` walks them. Returns whether the records are the same (their members equal,
    /// or identical when member order is `significant`) and the fields that changed.
    ///
    /// Nil when the values must be compared whole instead: either record is not an object,
    /// a name has escapes, the names differ or are in another order, a name is given twice,
    /// or a member named in `fixed` (where the key starts) is missing or not the same bytes.
    static func written(
        old: JSONRecords, _ oldBytes: UnsafeBufferPointer<UInt8>, at oldOffset: Int,
        new: JSONRecords, _ newBytes: UnsafeBufferPointer<UInt8>, at newOffset: Int,
        fixed: [String], significant: Bool, room: inout WrittenMembers
    ) throws(ListDiffError) -> (same: Bool, fields: [FieldChange])? {
        guard JSONParser.members(in: oldBytes, at: oldOffset, into: &room.old),
            JSONParser.members(in: newBytes, at: newOffset, into: &room.new), room.old.count == room.new.count
        else { return nil }
        let a = room.old, b = room.new
        let oldBase = oldBytes.baseAddress!, newBase = newBytes.baseAddress!
        func equal(_ p: UnsafePointer<UInt8>, _ x: Range<Int>, _ q: UnsafePointer<UInt8>, _ y: Range<Int>) -> Bool {
            x.count == y.count && (x.isEmpty || SystemCalls.compare(p + x.lowerBound, q + y.lowerBound, x.count) == 0)
        }
        for k in a.indices where !equal(oldBase, a[k].name, newBase, b[k].name) { return nil }
        // A name given twice: a path could not name one of the twins.
        if a.count <= 16 {
            for k in a.indices.dropFirst() {
                for l in 0..<k where equal(oldBase, a[l].name, oldBase, a[k].name) { return nil }
            }
        } else {
            var seen = Set<ScalarKey>()
            for m in a
            where !seen.insert(ScalarKey(String(decoding: UnsafeBufferPointer(rebasing: oldBytes[m.name]), as: UTF8.self))).inserted {
                return nil
            }
        }
        for name in fixed {
            guard let k = a.firstIndex(where: { name.utf8.elementsEqual(UnsafeBufferPointer(rebasing: oldBytes[$0.name])) }),
                equal(oldBase, a[k].value, newBase, b[k].value)
            else { return nil }
        }
        var same = true
        var fields: [FieldChange] = []
        for k in a.indices where !equal(oldBase, a[k].value, newBase, b[k].value) {
            let x = try old.memberValue(in: oldBytes, at: a[k].value.lowerBound)
            let y = try new.memberValue(in: newBytes, at: b[k].value.lowerBound)
            if significant ? x.isIdentical(to: y) : x == y { continue }
            same = false
            let name = String(decoding: UnsafeBufferPointer(rebasing: oldBytes[a[k].name]), as: UTF8.self)
            collect(x, y, path: "/" + FieldPath.escape(name), into: &fields)
        }
        return (same, fields)
    }
}
