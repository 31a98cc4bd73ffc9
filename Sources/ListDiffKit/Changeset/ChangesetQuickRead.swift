/// A changeset read for apply: its changes are read from their members into their parts,
/// with no value built but the keys and the records apply places. What apply does not
/// read (a delete's record, an update's or a rename's fields, the stages) is checked as
/// the whole read checks it, and left out. No place is kept for every value, only each
/// change's.
///
/// It gives up (nil) on any error, and on a change not written the plain way listdiff
/// writes it: the whole read then gives the changeset, or the error with its place. So
/// both accept and refuse alike.
extension ChangesetReader {
    /// What a quick read found besides the top-level members.
    struct QuickRead {
        /// The top-level members no read of a changeset reads: the stages, which restate
        /// the changes in the order apply takes them (for people and other tools).
        static let unread: Set<String> = ["stages"]

        /// The changes' parts, and where the changes and section changes start (byte offsets).
        struct Offsets {
            var parts: [ChangeParts] = []
            var changes: [Int] = []
            var sections: [Int] = []
        }

        /// The failure that ends a quick read where the whole read is needed (its message
        /// is never shown: the whole read gives its own).
        static let giveUp = JSONParseFailure(offset: 0, message: "")
    }

    /// Reads a changeset for apply (see `QuickRead`); the whole read when the quick one
    /// gives up.
    package func readForApply(_ bytes: [UInt8], name: String) throws(ListDiffError) -> Changeset {
        if let changeset = quickRead(bytes, name: name) { return changeset }
        return try read(bytes, name: name)
    }

    /// The changeset, without the values apply does not read; nil on any error.
    func quickRead(_ bytes: [UInt8], name: String) -> Changeset? {
        let parsed: (Value, QuickRead.Offsets)? = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, maxDepth: maxDepth)
            parser.recordsOffsets = false
            parser.skipByteOrderMark()
            parser.skipWhitespace()
            guard parser.at(UInt8(ascii: "{")) else { return nil }
            var offsets = QuickRead.Offsets()
            var members: [Value.Object.Member] = []
            do throws(JSONParseFailure) {
                try parser.walkObject { (name, _, parser) throws(JSONParseFailure) in
                    let name = String(decoding: name, as: UTF8.self)
                    var value: Value
                    switch name {
                    case "changes" where parser.at(UInt8(ascii: "[")):
                        try parser.walkArray { (_, parser) throws(JSONParseFailure) in
                            offsets.changes.append(parser.index)
                            offsets.parts.append(try parser.changeParts())
                        }
                        // (The changes are in `offsets.parts`.)
                        value = .array([])
                    case "sections" where parser.at(UInt8(ascii: "[")):
                        var sections: [Value] = []
                        try parser.walkArray { (_, parser) throws(JSONParseFailure) in
                            offsets.sections.append(parser.index)
                            sections.append(try parser.parseValue())
                        }
                        value = .array(sections)
                    case _ where QuickRead.unread.contains(name):
                        // (Kept as an empty list: the whole read does not read it either.)
                        try parser.checkValue()
                        value = .array([])
                    default:
                        value = try parser.parseValue()
                    }
                    members.append(Value.Object.Member(key: name, value: value))
                }
                try parser.end()
            } catch {
                return nil
            }
            return (.object(Value.Object(members)), offsets)
        }
        guard let (root, offsets) = parsed else { return nil }
        var cursor = Cursor(source: SourceText(name: name, bytes: bytes, valueOffsets: []), preorder: 0, kind: .changeset)
        do throws(ListDiffError) {
            return try decode(root, at: &cursor, offsets: offsets)
        } catch {
            return nil
        }
    }
}

extension JSONParser {
    /// Whether the next byte is `byte`.
    @inline(__always)
    func at(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    /// A change's parts, the parser at its first byte: an object of members written the
    /// plain way (a known op, positions of two whole numbers written as digits, an
    /// occurrence the same). A delete's or a move's `value` (after its `op`), any `fields`
    /// and any other member are checked as the whole read checks them, and left out.
    /// Anything else gives up (`QuickRead.giveUp`).
    mutating func changeParts() throws(JSONParseFailure) -> ChangesetReader.ChangeParts {
        guard at(UInt8(ascii: "{")) else { throw ChangesetReader.QuickRead.giveUp }
        var op: Change.Operation?, key: Value?, oldKey: Value?, old: RecordPosition?, new: RecordPosition?
        var record: Value?, occurrence: Int?
        try walkObject { (name, _, parser) throws(JSONParseFailure) in
            func named(_ word: StaticString) -> Bool {
                name.count == word.utf8CodeUnitCount && name.elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: name.count))
            }
            if named("op") {
                guard parser.at(UInt8(ascii: "\"")), let known = Change.Operation(rawValue: try parser.parseString()) else {
                    throw ChangesetReader.QuickRead.giveUp
                }
                op = known
            } else if named("key") {
                key = try parser.parseValue()
            } else if named("old") {
                old = try parser.position()
            } else if named("new") {
                new = try parser.position()
            } else if named("value") {
                if op == .delete || op == .move { try parser.checkValue() } else { record = try parser.parseValue() }
            } else if named("old_key") {
                oldKey = try parser.parseValue()
            } else if named("occurrence") {
                occurrence = try parser.wholeNumber()
            } else if named("fields") {
                try parser.checkFields()
            } else {
                try parser.checkValue()
            }
        }
        guard let op, let key else { throw ChangesetReader.QuickRead.giveUp }
        var parts = ChangesetReader.ChangeParts(op: op, key: key, oldKey: oldKey, old: old, new: new)
        parts.record = record
        parts.occurrence = occurrence
        return parts
    }

    /// A record's position written `[section, index]`, two whole numbers.
    mutating func position() throws(JSONParseFailure) -> RecordPosition {
        guard at(UInt8(ascii: "[")), try !openIsEmpty(close: UInt8(ascii: "]")) else { throw ChangesetReader.QuickRead.giveUp }
        skipWhitespace()
        let section = try wholeNumber()
        skipWhitespace()
        guard try separator(close: UInt8(ascii: "]"), "array") else { throw ChangesetReader.QuickRead.giveUp }
        skipWhitespace()
        let index = try wholeNumber()
        skipWhitespace()
        guard try !separator(close: UInt8(ascii: "]"), "array") else { throw ChangesetReader.QuickRead.giveUp }
        depth -= 1
        return RecordPosition(section: section, index: index)
    }

    /// A whole number ≥ 0 written as digits alone (of at most 18).
    mutating func wholeNumber() throws(JSONParseFailure) -> Int {
        guard index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else {
            throw ChangesetReader.QuickRead.giveUp
        }
        let range = try scanNumber()
        guard range.count <= 18 else { throw ChangesetReader.QuickRead.giveUp }
        var n = 0
        for i in range {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { throw ChangesetReader.QuickRead.giveUp }
            n = n * 10 + Int(digit)
        }
        return n
    }

    /// Checks a change's `fields` as the whole read does, building nothing: a list of
    /// objects, each with a string `path`.
    mutating func checkFields() throws(JSONParseFailure) {
        guard at(UInt8(ascii: "[")) else { throw ChangesetReader.QuickRead.giveUp }
        try walkArray { (_, parser) throws(JSONParseFailure) in
            guard parser.at(UInt8(ascii: "{")) else { throw ChangesetReader.QuickRead.giveUp }
            var path = false
            try parser.walkObject { (name, _, parser) throws(JSONParseFailure) in
                if name.elementsEqual("path".utf8), parser.at(UInt8(ascii: "\"")) { path = true }
                try parser.checkValue()
            }
            guard path else { throw ChangesetReader.QuickRead.giveUp }
        }
    }
}
