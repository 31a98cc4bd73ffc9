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

    package init(name: String, bytes: [UInt8], valueOffsets: [Int], isStream: Bool = false) {
        self.name = name
        self.bytes = bytes
        self.valueOffsets = valueOffsets
        self.isStream = isStream
    }

    /// The line and column of a byte offset.
    package func location(ofOffset offset: Int) -> ListDiffError.Location {
        bytes.withUnsafeBufferPointer { SourceLocation.of(offset: offset, in: $0) }
    }

    /// The start offset of the value with the given pre-order index, if known.
    package func offset(ofValueAt preorderIndex: Int) -> Int? {
        valueOffsets.indices.contains(preorderIndex) ? valueOffsets[preorderIndex] : nil
    }
}
