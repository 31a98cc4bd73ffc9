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

/// libyaml's emitter (`yaml_emitter_emit`), writing block-style YAML into memory.
final class LibYAMLEmitter {
    enum ScalarStyle { case plain, any, doubleQuoted }

    private var emitter = yaml_emitter_t()
    /// The bytes written so far; a class so that the C write handler can reach it.
    final class Sink { var bytes: [UInt8] = [] }
    let sink = Sink()
    private(set) var failure: String?

    init() {
        yaml_emitter_initialize(&emitter)
        yaml_emitter_set_unicode(&emitter, 1)
        yaml_emitter_set_width(&emitter, -1)  // no folding of long scalars
        yaml_emitter_set_output(&emitter, { data, buffer, size in
            let sink = Unmanaged<Sink>.fromOpaque(data!).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: buffer, count: size))
            return 1
        }, Unmanaged.passUnretained(sink).toOpaque())
    }

    deinit { yaml_emitter_delete(&emitter) }

    private func emit(_ event: inout yaml_event_t, ok: Int32) {
        guard failure == nil else { yaml_event_delete(&event); return }
        guard ok == 1, yaml_emitter_emit(&emitter, &event) == 1 else {
            failure = emitter.problem.map { String(cString: $0) } ?? "the YAML emitter failed"
            return
        }
    }

    func streamStart() {
        var e = yaml_event_t()
        emit(&e, ok: yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING))
    }

    func streamEnd() {
        var e = yaml_event_t()
        emit(&e, ok: yaml_stream_end_event_initialize(&e))
        yaml_emitter_flush(&emitter)
    }

    func documentStart() {
        var e = yaml_event_t()
        emit(&e, ok: yaml_document_start_event_initialize(&e, nil, nil, nil, 1))
    }

    func documentEnd() {
        var e = yaml_event_t()
        emit(&e, ok: yaml_document_end_event_initialize(&e, 1))
    }

    func sequenceStart() {
        var e = yaml_event_t()
        emit(&e, ok: yaml_sequence_start_event_initialize(&e, nil, nil, 1, YAML_BLOCK_SEQUENCE_STYLE))
    }

    func sequenceEnd() {
        var e = yaml_event_t()
        emit(&e, ok: yaml_sequence_end_event_initialize(&e))
    }

    func mappingStart() {
        var e = yaml_event_t()
        emit(&e, ok: yaml_mapping_start_event_initialize(&e, nil, nil, 1, YAML_BLOCK_MAPPING_STYLE))
    }

    func mappingEnd() {
        var e = yaml_event_t()
        emit(&e, ok: yaml_mapping_end_event_initialize(&e))
    }

    /// A scalar without a tag: `plain` must be read back as meant by the core schema;
    /// `any` lets libyaml choose plain or quoted; `doubleQuoted` forces quotes.
    func scalar(_ text: String, style: ScalarStyle) {
        var text = text
        let cStyle: yaml_scalar_style_t
        switch style {
        case .plain: cStyle = YAML_PLAIN_SCALAR_STYLE
        case .any: cStyle = YAML_ANY_SCALAR_STYLE
        case .doubleQuoted: cStyle = YAML_DOUBLE_QUOTED_SCALAR_STYLE
        }
        var e = yaml_event_t()
        let ok = text.withUTF8 { utf8 in
            yaml_scalar_event_initialize(&e, nil, nil, utf8.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(utf8.count), 1, 1, cStyle)
        }
        emit(&e, ok: ok)
    }
}
