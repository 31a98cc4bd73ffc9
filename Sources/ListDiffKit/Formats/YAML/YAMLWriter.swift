/// Writes values as block-style YAML through libyaml's emitter, so that `YAMLReader` reads
/// back the same values in every `YAMLVersion`: strings that would read as something else
/// (`"true"`, `"1.5"`, `"null"`, `""`, `"yes"`) are quoted, numbers keep their exact text,
/// members keep their order.
package enum YAMLWriter {
    package static func document(_ value: Value) throws(ListDiffError) -> String {
        let emitter = LibYAMLEmitter()
        emitter.emit(.streamStart)
        emitter.emit(.documentStart)
        write(value, to: emitter)
        emitter.emit(.documentEnd)
        emitter.emit(.streamEnd)
        if let failure = emitter.failure { throw ListDiffError(.io, "cannot write YAML: \(failure)") }
        return String(decoding: emitter.sink.bytes, as: UTF8.self)
    }

    /// Writes `value`. `fill` is asked first at each list and object: when it says true, it
    /// has written the elements or members itself (between the start and the end).
    static func write(_ value: Value, to emitter: LibYAMLEmitter, fill: (Value) -> Bool = { _ in false }) {
        switch value {
        case .null: emitter.scalar("null", style: .plain)
        case .bool(let b): emitter.scalar(b ? "true" : "false", style: .plain)
        case .number(let n): emitter.scalar(n.text, style: .plain)
        case .string(let s): string(s, to: emitter)
        case .array(let items):
            emitter.emit(.sequenceStart)
            if !fill(value) {
                for item in items { write(item, to: emitter, fill: fill) }
            }
            emitter.emit(.sequenceEnd)
        case .object(let object):
            emitter.emit(.mappingStart)
            if !fill(value) {
                for member in object.members {
                    string(member.key, to: emitter)
                    write(member.value, to: emitter, fill: fill)
                }
            }
            emitter.emit(.mappingEnd)
        }
    }

    /// A string, quoted when YAML 1.2, YAML 1.1 or Kubernetes would read it plain as
    /// another type (`yes`, `0644`, `1e3`, `0X1F`), or as a merge key (`<<`), so that each
    /// reads it back as a string.
    static func string(_ s: String, to emitter: LibYAMLEmitter) {
        if case .string = YAMLScalar.coreSchema(s), case .string = YAMLScalar.yaml11(s), case .string = YAMLScalar.kubernetes(s),
            s != "<<"
        {
            emitter.scalar(s, style: .any)
        } else {
            emitter.scalar(s, style: .doubleQuoted)
        }
    }
}
