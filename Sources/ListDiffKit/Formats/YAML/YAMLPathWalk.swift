/// Finds, at the start of a YAML text, the block sequence or mapping a path names, by libyaml's
/// events: the member names and item numbers on the path, every other node skipped. It
/// checks only what it must to find its way; the reader of each chunk checks the rest.
enum YAMLPathWalk {
    enum Outcome: Equatable {
        /// The sequence's first `-`, or the mapping's first key (`map`), is at this 0-based
        /// line and column.
        case found(line: Int, column: Int, map: Bool)
        /// The events end before the path is found: the text may go on, else the path
        /// names nothing (why).
        case ended(String)
        /// The path leads elsewhere: why.
        case notFound(String)
        /// libyaml stops with an error at this 0-based line.
        case malformed(line: Int)
    }

    static func find(_ steps: [String], in text: UnsafeBufferPointer<UInt8>) -> Outcome {
        let events = LibYAMLEvents(bytes: text)
        var anchored = false
        func next() throws(ListDiffError) -> YAMLRawEvent {
            let event = try events.next()
            if event.kind != .alias, event.anchor != nil { anchored = true }
            return event
        }
        /// Skips the node `first` starts; false when the events end first.
        func skip(_ first: YAMLRawEvent) throws(ListDiffError) -> Bool {
            guard first.kind == .sequenceStart || first.kind == .mappingStart else {
                return first.kind != .documentEnd && first.kind != .streamEnd
            }
            var depth = 1
            while depth > 0 {
                switch try next().kind {
                case .sequenceStart, .mappingStart: depth += 1
                case .sequenceEnd, .mappingEnd: depth -= 1
                case .documentEnd, .streamEnd: return false
                default: break
                }
            }
            return true
        }
        do throws(ListDiffError) {
            _ = try next()
            guard try next().kind == .documentStart else { return .ended("no document") }
            var node = try next()
            for step in steps {
                let name = JSONWriter.compact(.string(step))
                switch node.kind {
                case .mappingStart:
                    while true {
                        let key = try next()
                        if key.kind == .mappingEnd {
                            // (The text may end here only because it is cut short; when more
                            // follows, the member is not there.)
                            let after = try next().kind
                            return after == .documentEnd || after == .streamEnd
                                ? .ended("no member \(name)") : .notFound("no member \(name)")
                        }
                        let matches = key.kind == .scalar && key.value.elementsEqual(step.utf8)
                        guard try skip(key) else { return .ended("no member \(name)") }
                        let value = try next()
                        if matches {
                            node = value
                            break
                        }
                        guard try skip(value) else { return .ended("no member \(name)") }
                    }
                case .sequenceStart:
                    guard let index = Int(step), index >= 0, String(index) == step else {
                        return .notFound("a list where \(name) is not an index")
                    }
                    for _ in 0..<index {
                        let item = try next()
                        guard item.kind != .sequenceEnd, try skip(item) else { return .ended("no item \(index)") }
                    }
                    node = try next()
                    if node.kind == .sequenceEnd { return .ended("no item \(index)") }
                case .documentEnd, .streamEnd:
                    return .ended("no document")
                default:
                    return .notFound("a value that is not an object or a list")
                }
            }
            switch node.kind {
            case .sequenceStart:
                // (The text before the list leads every later chunk: an anchor there could
                // be named again by a record, and an alias after it would then mean another.)
                if anchored { return .notFound("an anchor before the list, or on it") }
                return .found(line: node.start.line, column: node.start.column, map: false)
            case .mappingStart:
                if anchored { return .notFound("an anchor before the map, or on it") }
                return .found(line: node.start.line, column: node.start.column, map: true)
            case .documentEnd, .streamEnd:
                return .ended("no document")
            default:
                return .notFound("a value that is not a list or a map of records")
            }
        } catch {
            return .malformed(line: (error.location?.line ?? 1) - 1)
        }
    }
}
