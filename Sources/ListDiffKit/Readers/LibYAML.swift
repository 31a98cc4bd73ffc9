internal import CYAML

/// One parsing event from libyaml, copied out of C memory.
enum YAMLEvent {
    case streamStart, streamEnd, documentStart, documentEnd
    case alias(anchor: String)
    case scalar(value: String, anchor: String?, tag: String?, plain: Bool)
    case sequenceStart(anchor: String?, tag: String?)
    case sequenceEnd
    case mappingStart(anchor: String?, tag: String?)
    case mappingEnd
}

/// The only place that talks to libyaml: owns a `yaml_parser_t` over a byte buffer
/// and turns its event API (`yaml_parser_parse`) into Swift values.
final class LibYAMLParser {
    private var parser = yaml_parser_t()
    private let input: UnsafeMutableBufferPointer<UInt8>

    init(bytes: [UInt8]) {
        // libyaml keeps a pointer to the input for the parser's whole life: give it a stable copy.
        input = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        yaml_parser_initialize(&parser)
        yaml_parser_set_input_string(&parser, input.baseAddress, bytes.count)
    }

    deinit {
        yaml_parser_delete(&parser)
        input.deallocate()
    }

    /// The next event and the 0-based line and column (in characters) where it starts.
    func next() throws(ListDiffError) -> (YAMLEvent, line: Int, column: Int) {
        var event = yaml_event_t()
        guard yaml_parser_parse(&parser, &event) == 1 else {
            let mark = parser.problem_mark
            var message = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
            if let context = parser.context.map({ String(cString: $0) }) {
                message += " " + context
            }
            throw ListDiffError(
                location: SourceLocation(line: Int(mark.line) + 1, column: Int(mark.column) + 1), message)
        }
        defer { yaml_event_delete(&event) }
        let line = Int(event.start_mark.line)
        let column = Int(event.start_mark.column)
        switch event.type {
        case YAML_STREAM_START_EVENT: return (.streamStart, line, column)
        case YAML_STREAM_END_EVENT: return (.streamEnd, line, column)
        case YAML_DOCUMENT_START_EVENT: return (.documentStart, line, column)
        case YAML_DOCUMENT_END_EVENT: return (.documentEnd, line, column)
        case YAML_ALIAS_EVENT:
            return (.alias(anchor: Self.string(event.data.alias.anchor) ?? ""), line, column)
        case YAML_SCALAR_EVENT:
            let s = event.data.scalar
            let value = String(decoding: UnsafeBufferPointer(start: s.value, count: Int(s.length)), as: UTF8.self)
            let plain = s.style == YAML_PLAIN_SCALAR_STYLE
            return (.scalar(value: value, anchor: Self.string(s.anchor), tag: Self.string(s.tag), plain: plain), line, column)
        case YAML_SEQUENCE_START_EVENT:
            let s = event.data.sequence_start
            return (.sequenceStart(anchor: Self.string(s.anchor), tag: Self.string(s.tag)), line, column)
        case YAML_SEQUENCE_END_EVENT: return (.sequenceEnd, line, column)
        case YAML_MAPPING_START_EVENT:
            let m = event.data.mapping_start
            return (.mappingStart(anchor: Self.string(m.anchor), tag: Self.string(m.tag)), line, column)
        case YAML_MAPPING_END_EVENT: return (.mappingEnd, line, column)
        default:
            throw ListDiffError(location: SourceLocation(line: line + 1, column: column + 1), "unexpected YAML event")
        }
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }
}
