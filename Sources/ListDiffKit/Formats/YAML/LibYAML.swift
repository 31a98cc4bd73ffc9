internal import CYAML

/// One libyaml event as it is in C memory, valid only inside the closure it is given to:
/// the scanner reads its bytes in place, without making strings.
struct YAMLRawEvent {
    /// The raw values are libyaml's `yaml_event_type_t` (`yaml.h`), which starts with
    /// `YAML_NO_EVENT` (0) and then lists these in this order.
    enum Kind: UInt32 {
        case streamStart = 1, streamEnd, documentStart, documentEnd, alias, scalar, sequenceStart, sequenceEnd, mappingStart, mappingEnd
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

    /// The text, for the place of an error libyaml's reader finds (a byte, not a mark).
    private let text: UnsafeBufferPointer<UInt8>

    init(bytes: UnsafeBufferPointer<UInt8>) {
        text = bytes
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
            // (The reader's errors, about bytes that are not text, name an offset and no mark.)
            let place =
                parser.error == YAML_READER_ERROR
                ? SourceLocation.of(offset: min(Int(parser.problem_offset), text.count), in: text, breaks: .yaml)
                : SourceLocation(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
            throw ListDiffError(.syntax, location: place, message)
        }
        held = true
        func bytes(_ p: UnsafeMutablePointer<yaml_char_t>?) -> UnsafeRawBufferPointer? {
            guard let p else { return nil }
            return UnsafeRawBufferPointer(start: p, count: strlen(UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self)))
        }
        guard let kind = YAMLRawEvent.Kind(rawValue: event.type.rawValue) else {
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

    /// The events that carry no text: starts and ends of the stream, of a document, of a
    /// block sequence and of a block mapping.
    enum Event { case streamStart, streamEnd, documentStart, documentEnd, sequenceStart, sequenceEnd, mappingStart, mappingEnd }

    /// Emits one of them; the stream's end flushes the emitter.
    func emit(_ kind: Event) {
        var e = yaml_event_t()
        let ok: Int32
        switch kind {
        case .streamStart: ok = yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING)
        case .streamEnd: ok = yaml_stream_end_event_initialize(&e)
        case .documentStart: ok = yaml_document_start_event_initialize(&e, nil, nil, nil, 1)
        case .documentEnd: ok = yaml_document_end_event_initialize(&e, 1)
        case .sequenceStart: ok = yaml_sequence_start_event_initialize(&e, nil, nil, 1, YAML_BLOCK_SEQUENCE_STYLE)
        case .sequenceEnd: ok = yaml_sequence_end_event_initialize(&e)
        case .mappingStart: ok = yaml_mapping_start_event_initialize(&e, nil, nil, 1, YAML_BLOCK_MAPPING_STYLE)
        case .mappingEnd: ok = yaml_mapping_end_event_initialize(&e)
        }
        emit(&e, ok: ok)
        if kind == .streamEnd { yaml_emitter_flush(&emitter) }
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
