/// The bytes of one input, its display name, and the start offset of every value read from it.
///
/// Values do not carry positions themselves (that would double the size of a large tree).
/// Instead each reader records the byte offset at which each value starts, in pre-order
/// (a container before its children), and `location(ofOffset:)` turns an offset into a
/// line and column on demand: only errors and reports pay for it.
package final class SourceText: @unchecked Sendable {
    /// The name used in messages: the path as the user gave it, or `-` for standard input.
    package let name: String
    let bytes: [UInt8]
    /// Start offsets of every value in pre-order; see `Value.nodeCount`.
    package let valueOffsets: [Int]
    /// Whether the value is the list of a YAML stream's documents: always a plain list.
    package let isStream: Bool
    /// What ends a line of the text (YAML has more breaks than JSON).
    let lineBreaks: LineBreaks

    package init(name: String, bytes: [UInt8], valueOffsets: [Int], isStream: Bool = false, lineBreaks: LineBreaks = .newline) {
        self.name = name
        self.bytes = bytes
        self.valueOffsets = valueOffsets
        self.isStream = isStream
        self.lineBreaks = lineBreaks
    }

    /// The line and column of a byte offset.
    package func location(ofOffset offset: Int) -> ListDiffError.Location {
        bytes.withUnsafeBufferPointer { SourceLocation.of(offset: offset, in: $0, breaks: lineBreaks) }
    }

    /// The start offset of the value with the given pre-order index, if known.
    package func offset(ofValueAt preorderIndex: Int) -> Int? {
        valueOffsets.indices.contains(preorderIndex) ? valueOffsets[preorderIndex] : nil
    }
}

/// Walks a value tree alongside its pre-order source offsets (`SourceText.valueOffsets`),
/// so that every error can name the line and column of the value it is about. A changeset
/// and a configuration file are read so.
package struct ValueCursor {
    package let source: SourceText
    /// The value's place in pre-order.
    package var preorder: Int {
        get {
            guard let (object, k) = member else { return start }
            // (Counted only when asked: most cursors never make an error.)
            return object.members[..<k].reduce(start + 1) { $0 + $1.value.nodeCount }
        }
        set {
            start = newValue
            member = nil
        }
    }
    /// `preorder`, or with `member`, the place of the object whose member `k` the value is.
    private var start: Int
    private var member: (object: Value.Object, k: Int)? = nil
    /// The kind of the errors it makes.
    package var kind: ListDiffError.Kind

    package init(source: SourceText, preorder: Int, kind: ListDiffError.Kind) {
        self.source = source
        self.start = preorder
        self.kind = kind
    }

    /// The byte offset of the value at this cursor (0 when unknown).
    package var offset: Int { source.offset(ofValueAt: preorder) ?? 0 }

    /// The place of the value at this cursor, when known.
    package var location: ListDiffError.Location? { source.offset(ofValueAt: preorder).map(source.location(ofOffset:)) }

    package func error(_ message: String) -> ListDiffError {
        ListDiffError(kind, file: source.name, location: location, message)
    }

    /// The members of an object at this cursor by name (the last of a repeated name wins).
    package func fields(of object: Value.Object) -> Fields { Fields(object: object, cursor: self) }

    /// An object's members, looked up by name. A change has a handful of members, so a
    /// look along them beats hashing each name into a dictionary.
    package struct Fields {
        package let object: Value.Object
        package let cursor: ValueCursor

        package subscript(name: String) -> (Value, ValueCursor)? {
            guard let k = object.members.lastIndex(where: { $0.key == name }) else { return nil }
            var at = cursor
            at.start = cursor.preorder
            at.member = (object, k)
            return (object.members[k].value, at)
        }

        /// Every member in order, each with its cursor.
        package var members: [(key: String, value: Value, cursor: ValueCursor)] {
            var next = cursor.preorder + 1
            return object.members.map { member in
                defer { next += member.value.nodeCount }
                var at = cursor
                at.preorder = next
                return (member.key, member.value, at)
            }
        }
    }

    package func elements(of items: [Value]) -> [(value: Value, cursor: ValueCursor)] {
        var next = preorder + 1
        return items.map { item in
            defer { next += item.nodeCount }
            var at = self
            at.preorder = next
            return (item, at)
        }
    }
}
