internal import CYAML

/// One libyaml event as it is in C memory, valid only inside the closure it is given to:
/// the scanner reads its bytes in place, without making strings.
struct YAMLRawEvent {
    enum Kind {
        case streamStart, streamEnd, documentStart, documentEnd, alias, scalar, sequenceStart, sequenceEnd, mappingStart, mappingEnd
    }
    var kind: Kind
    /// Start and end marks: character index, 0-based line and column.
    var start: (index: Int, line: Int, column: Int)
    var end: (index: Int, line: Int, column: Int)
    /// A scalar's text.
    var value = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The anchor a node defines, or the one an alias names.
    var anchor: UnsafeRawBufferPointer? = nil
    var tag: UnsafeRawBufferPointer? = nil
    var plain = false
    /// A document start with `%TAG` directives.
    var tagDirectives = false
}

/// libyaml's parser over bytes that outlive it (a mapped file), read event by event. An
/// event stays valid until the next one is asked for.
final class LibYAMLEvents {
    // One thread reads a parser: its fields skip the runtime's exclusivity checks.
    @exclusivity(unchecked) private var parser = yaml_parser_t()
    @exclusivity(unchecked) private var event = yaml_event_t()
    @exclusivity(unchecked) private var held = false

    init(bytes: UnsafeBufferPointer<UInt8>) {
        yaml_parser_initialize(&parser)
        yaml_parser_set_input_string(&parser, bytes.baseAddress ?? UnsafePointer(bitPattern: 1), bytes.count)
    }

    deinit {
        if held { yaml_event_delete(&event) }
        yaml_parser_delete(&parser)
    }

    /// Parses the next event (letting the previous one go); an error names libyaml's place.
    func next() throws(ListDiffError) -> YAMLRawEvent {
        if held {
            yaml_event_delete(&event)
            held = false
        }
        guard yaml_parser_parse(&parser, &event) == 1 else {
            let mark = parser.problem_mark
            var message = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
            if let context = parser.context.map({ String(cString: $0) }) {
                message += " " + context
            }
            throw ListDiffError(.syntax, location: SourceLocation(line: Int(mark.line) + 1, column: Int(mark.column) + 1), message)
        }
        held = true
        func bytes(_ p: UnsafeMutablePointer<yaml_char_t>?) -> UnsafeRawBufferPointer? {
            guard let p else { return nil }
            return UnsafeRawBufferPointer(start: p, count: strlen(UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self)))
        }
        let kind: YAMLRawEvent.Kind
        switch event.type {
        case YAML_STREAM_START_EVENT: kind = .streamStart
        case YAML_STREAM_END_EVENT: kind = .streamEnd
        case YAML_DOCUMENT_START_EVENT: kind = .documentStart
        case YAML_DOCUMENT_END_EVENT: kind = .documentEnd
        case YAML_ALIAS_EVENT: kind = .alias
        case YAML_SCALAR_EVENT: kind = .scalar
        case YAML_SEQUENCE_START_EVENT: kind = .sequenceStart
        case YAML_SEQUENCE_END_EVENT: kind = .sequenceEnd
        case YAML_MAPPING_START_EVENT: kind = .mappingStart
        case YAML_MAPPING_END_EVENT: kind = .mappingEnd
        default:
            throw ListDiffError(
                .syntax,
                location: SourceLocation(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1),
                "unexpected YAML event")
        }
        var raw = YAMLRawEvent(
            kind: kind,
            start: (Int(event.start_mark.index), Int(event.start_mark.line), Int(event.start_mark.column)),
            end: (Int(event.end_mark.index), Int(event.end_mark.line), Int(event.end_mark.column)))
        switch kind {
        case .alias:
            raw.anchor = bytes(event.data.alias.anchor)
        case .scalar:
            let s = event.data.scalar
            raw.value = UnsafeRawBufferPointer(start: s.value, count: Int(s.length))
            raw.anchor = bytes(s.anchor)
            raw.tag = bytes(s.tag)
            raw.plain = s.style == YAML_PLAIN_SCALAR_STYLE
        case .sequenceStart:
            raw.anchor = bytes(event.data.sequence_start.anchor)
            raw.tag = bytes(event.data.sequence_start.tag)
        case .mappingStart:
            raw.anchor = bytes(event.data.mapping_start.anchor)
            raw.tag = bytes(event.data.mapping_start.tag)
        case .documentStart:
            let d = event.data.document_start.tag_directives
            raw.tagDirectives = d.start != nil && d.start != d.end
        default:
            break
        }
        return raw
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
        yaml_emitter_set_output(
            &emitter,
            { data, buffer, size in
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
