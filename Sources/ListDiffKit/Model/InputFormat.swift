/// The formats listdiff reads.
public enum InputFormat: String, Sendable, CaseIterable {
    /// One JSON text.
    case json
    /// NDJSON / JSON Lines: one JSON value per line, read as a list of those values.
    case ndjson
    case yaml
    /// Comma-separated values (RFC 4180): a header row, then one record per row.
    case csv
    /// Tab-separated values, read as CSV with a tab between fields.
    case tsv

    /// The format a file name says, if it says one.
    package static func fromExtension(of path: String) -> InputFormat? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "json": return .json
        case "ndjson", "jsonl": return .ndjson
        case "yaml", "yml": return .yaml
        case "csv": return .csv
        case "tsv", "tab": return .tsv
        default: return nil
        }
    }

    /// Guesses from the content: a first significant byte of `[`, `{` or `"` means JSON
    /// (a YAML flow document that starts so is read strictly as JSON), anything else YAML.
    package static func sniff(_ bytes: [UInt8]) -> InputFormat {
        var i = ByteOrderMark.length(at: bytes)
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        guard i < bytes.count else { return .yaml }
        return [UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\"")].contains(bytes[i]) ? .json : .yaml
    }
}
