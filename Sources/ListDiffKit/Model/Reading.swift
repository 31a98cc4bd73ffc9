/// The nesting limit every reader applies, JSON and YAML alike.
package enum NestingLimit {
    /// The deepest nesting read.
    package static let standard = 1000
    /// The depth a record standing at the top level starts at (an NDJSON line, a document of
    /// a YAML stream, a lone object): one, as if it sat in a list. A record then has the same
    /// room in each of these layouts as in a list, so that apply can write NDJSON's records
    /// as a JSON list, or a stream's documents as a list, and listdiff reads its own output.
    package static let topLevelRecord = 1
}

/// The UTF-8 byte order mark a text may start with. Every reader skips it (RFC 8259 §8.1
/// permits it in JSON; YAML and CSV files from Windows tools often have it), and places on
/// a text's first line count their columns from after it.
package enum ByteOrderMark {
    /// The length of the mark at the start of `text`: 3, or 0 where there is none.
    @inline(__always)
    package static func length<Text: Collection<UInt8>>(at text: Text) -> Int {
        var bytes = text.makeIterator()
        return bytes.next() == 0xEF && bytes.next() == 0xBB && bytes.next() == 0xBF ? 3 : 0
    }
}

/// How `apply` is asked to read OLD: nil where the caller leaves it to the changeset
/// (`listdiff apply` without `--input-format`, `--csv-types` or `--yaml-version`).
package struct ReadingRequest: Sendable, Hashable {
    package var format: InputFormat?
    package var csvInfersTypes: Bool?
    package var yamlVersion: YAMLVersion?

    package init(format: InputFormat? = nil, csvInfersTypes: Bool? = nil, yamlVersion: YAMLVersion? = nil) {
        self.format = format
        self.csvInfersTypes = csvInfersTypes
        self.yamlVersion = yamlVersion
    }
}

/// A way of reading OLD asked of `apply` that the changeset says otherwise: the changeset
/// records how the diff read OLD, and OLD read otherwise is not the document it was made from.
package struct ReadingConflict: Sendable, Hashable {
    package enum Setting: Sendable, Hashable {
        case format, csvTypes, yamlVersion
    }

    package var setting: Setting
    /// The value asked for, and the changeset's, as the command spells them.
    package var asked: String
    package var recorded: String

    /// The error, in the library's words (the command names its options instead).
    package var error: ListDiffError {
        let name =
            switch setting {
            case .format: "input format"
            case .csvTypes: "CSV types"
            case .yamlVersion: "YAML version"
            }
        var error = ListDiffError(
            .usage, "\(name) \(asked) was asked for, but the changeset records \(recorded); apply reads OLD as the changeset says")
        error.conflict = self
        return error
    }
}

extension Layout {
    /// The first of `request`'s settings that contradicts how the changeset says OLD was read.
    /// A setting the changeset does not record (one made by an older listdiff) or that does
    /// not apply to OLD's format (CSV types for a JSON OLD) contradicts nothing.
    package func conflict(with request: ReadingRequest) -> ReadingConflict? {
        if let asked = request.format, let format, asked != format {
            return ReadingConflict(setting: .format, asked: asked.rawValue, recorded: format.rawValue)
        }
        if let asked = request.csvInfersTypes, format == .csv || format == .tsv, asked != csvInfersTypes {
            func spelled(_ infers: Bool) -> String { infers ? "infer" : "string" }
            return ReadingConflict(setting: .csvTypes, asked: spelled(asked), recorded: spelled(csvInfersTypes))
        }
        // A YAML OLD read as 1.2 records no version; one that records its format records
        // that it is YAML.
        if let asked = request.yamlVersion, let recorded = yamlVersion ?? (format == .yaml ? .v1_2 : nil), asked != recorded {
            return ReadingConflict(setting: .yamlVersion, asked: asked.rawValue, recorded: recorded.rawValue)
        }
        return nil
    }
}
