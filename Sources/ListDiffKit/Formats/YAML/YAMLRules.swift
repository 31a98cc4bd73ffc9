/// The rules the YAML walk (`YAMLScanState`) enforces on libyaml's events, with their
/// messages: the alias budget, the nesting limit, and the checks on mapping keys. The walk
/// reads values and scans records alike, so a document is refused the same way either way.
struct YAMLRules {
    let reader: YAMLReader
    /// The file named in errors (nil: the caller names it).
    let file: String?
    /// Nodes and bytes of text that aliases have added so far.
    private var expanded = 0
    private var expandedBytes = 0

    init(_ reader: YAMLReader, file: String?) {
        self.reader = reader
        self.file = file
    }

    func error(_ kind: ListDiffError.Kind, _ at: SourceLocation, _ message: String) -> ListDiffError {
        ListDiffError(kind, file: file, location: at, message)
    }

    /// An alias to `name`, whose anchor holds `anchored` (nil when no anchor of that name
    /// came before): it adds the anchored nodes and their text to the budget.
    /// What an alias without its anchor is told.
    static let noAnchor = "refers to no anchor defined before it"

    mutating func alias(_ name: String, _ anchored: (value: Value, nodes: Int)?, at: SourceLocation) throws(ListDiffError) {
        guard let anchored else { throw error(.syntax, at, "alias *\(name) \(Self.noAnchor)") }
        expanded += anchored.nodes
        if expanded > reader.maxAliasExpansion {
            throw error(.limit, at, "aliases expand to more than \(reader.maxAliasExpansion) nodes; refusing (possible alias bomb)")
        }
        expandedBytes += anchored.value.textBytes
        if expandedBytes > reader.maxAliasBytes {
            throw error(.limit, at, "aliases expand to more than \(reader.maxAliasBytes) bytes of text; refusing (possible alias bomb)")
        }
    }

    /// Nesting `depth` deep (1 for a top-level list or mapping), written out or through an
    /// alias: refused past the limit.
    func nest(_ depth: Int, at: SourceLocation) throws(ListDiffError) {
        if depth > reader.maxDepth { throw error(.limit, at, "nesting is deeper than the limit of \(reader.maxDepth)") }
    }

    /// A mapping key met a second time in one mapping, first at `first`.
    func duplicateKey(_ text: String, first: SourceLocation, at: SourceLocation) -> ListDiffError {
        error(.syntax, at, Self.duplicateKey(text, first: first))
    }

    /// The message for a mapping key met a second time, first at `first`.
    static func duplicateKey(_ text: String, first: SourceLocation) -> String {
        "duplicate mapping key '\(text)' \(ListDiffError.firstAt(first))"
    }

    /// A mapping key that is a list or a mapping (`typeName`).
    func keyNotScalar(_ typeName: String, at: SourceLocation) -> ListDiffError {
        error(.shape, at, "a mapping key that is \(typeName.withArticle) is not supported; keys must be scalars")
    }
}
