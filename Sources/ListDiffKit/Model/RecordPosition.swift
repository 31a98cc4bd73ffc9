/// A record's place: a section and an index in it (section 0 for a plain list).
///
/// Changesets call it `Changeset.Position`. It is declared here, in the model, because
/// the model's documents name it too.
public struct RecordPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The section, counted from 0 in document order.
    public var section: Int
    /// The record's index in its section, from 0.
    public var index: Int

    /// A position in a section (section 0 for a plain list).
    public init(section: Int = 0, index: Int) {
        self.section = section
        self.index = index
    }

    public static func < (a: RecordPosition, b: RecordPosition) -> Bool {
        (a.section, a.index) < (b.section, b.index)
    }

    public var description: String { "[\(section), \(index)]" }

    /// How people read a position: `4`, or `1.4` (section 1, index 4) in sectioned files; `none`
    /// when there is no position.
    package static func spelling(_ p: RecordPosition?, sectioned: Bool, none: String = "?") -> String {
        guard let p else { return none }
        return sectioned ? "\(p.section).\(p.index)" : "\(p.index)"
    }
}
