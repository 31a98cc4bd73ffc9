/// Checks listdiff's own YAML scanner against libyaml on any bytes, for the tests and the
/// fuzzer: where the own scanner reads an input, libyaml must give the same events with the
/// same marks; and the walk and the engine's scan, with their fallback, must give what
/// libyaml alone gives (the same values, hashes, places and errors).
package enum YAMLScannerCheck {
    /// What a check found: whether the own scanner read the input, and what disagreed (nil
    /// when nothing did).
    package struct Outcome: Sendable {
        package var ownScanner: Bool
        package var problem: String?
    }

    /// Runs every check on `bytes`.
    package static func check(_ bytes: [UInt8]) -> Outcome {
        let file = MappedFile(name: "a", bytes: bytes)
        let own = ownEvents(file.bytes)
        var outcome = Outcome(ownScanner: own != nil, problem: nil)
        if let own {
            let libyaml = libyamlEvents(file.bytes)
            if let difference = firstDifference(own, libyaml) {
                outcome.problem = "events differ: \(difference)"
                return outcome
            }
        }
        for version in YAMLVersion.allCases {
            var reader = YAMLReader()
            reader.version = version
            if let problem = compareWalks(file, reader, own: own != nil) {
                outcome.problem = "YAML \(version.rawValue) walk: \(problem)"
                return outcome
            }
            if let problem = compareScans(file, reader, own: own != nil) {
                outcome.problem = "YAML \(version.rawValue) scan: \(problem)"
                return outcome
            }
        }
        return outcome
    }

    /// An event as text: kind, marks, style, value, anchor and tag.
    static func describe(_ event: YAMLRawEvent) -> String {
        func text(_ bytes: UnsafeRawBufferPointer?) -> String {
            guard let bytes else { return "-" }
            return String(reflecting: String(decoding: bytes, as: UTF8.self))
        }
        return
            "\(event.kind) \(event.start) \(event.end) plain=\(event.plain) \(text(event.value)) &\(text(event.anchor)) !\(text(event.tag))"
    }

    struct Log: YAMLEventSink {
        var events: [String] = []
        mutating func take(_ event: YAMLRawEvent) throws(ListDiffError) -> Bool {
            events.append(YAMLScannerCheck.describe(event))
            return false
        }
    }

    /// The own scanner's events, or nil where it leaves the input to libyaml.
    static func ownEvents(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        var log = Log()
        do {
            var scanner = try YAMLBlockScanner(bytes: bytes)
            try scanner.run(into: &log)
        } catch {
            if SystemCalls.environment("LISTDIFF_DEBUG_YAML_SCANNER") != nil { print(error) }
            return nil
        }
        return log.events
    }

    /// libyaml's events, up to its error (as the last line).
    static func libyamlEvents(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        let parser = LibYAMLEvents(bytes: bytes)
        var events: [String] = []
        while true {
            do {
                let event = try parser.next()
                events.append(describe(event))
                if event.kind == .streamEnd { return events }
            } catch {
                events.append("error: \(error)")
                return events
            }
        }
    }

    static func firstDifference(_ a: [String], _ b: [String]) -> String? {
        for k in 0..<max(a.count, b.count) {
            let x = k < a.count ? a[k] : "(none)"
            let y = k < b.count ? b[k] : "(none)"
            if x != y { return "event \(k): own \(x) / libyaml \(y)" }
        }
        return nil
    }

    /// The walk that reads values (as `YAMLReader` reads), with the fallback, against libyaml's.
    static func compareWalks(_ file: MappedFile, _ reader: YAMLReader, own: Bool) -> String? {
        let expected = Result { () throws(ListDiffError) in try reader.walk(file, parsing: .libyaml) }
        let actual = Result { () throws(ListDiffError) in try reader.walk(file) }
        switch (expected, actual) {
        case (.failure(let a), .failure(let b)):
            return "\(a)" == "\(b)" ? nil : "errors differ: \(a) / \(b)"
        case (.success(let a), .success(let b)):
            if a.values != b.values { return "values differ" }
            if a.valueOffsets != b.valueOffsets || a.documentStarts != b.documentStarts { return "places differ" }
            if !sameTables(a.table, b.table) { return "hashes differ" }
            if own, b.scan.parsing != .own { return "the own scanner read the input, but the walk fell back" }
            return nil
        default:
            return "one read, the other refused: \(expected) / \(actual)"
        }
    }

    /// The engine's scan of the records (default key), with the fallback, against libyaml's.
    static func compareScans(_ file: MappedFile, _ reader: YAMLReader, own: Bool) -> String? {
        guard let key = try? IdentityKey(parsing: []), let keys = KeyTrie(key) else { return "no default key" }
        var scan = YAMLScan(
            file: file, key: key, keys: keys, options: LayoutOptions(), reader: reader, keyHashing: KeyHashing(), progress: nil)
        let actual = Result { () throws(ListDiffError) in try scan.scan() }
        scan.parsing = .libyaml
        let expected = Result { () throws(ListDiffError) in try scan.scan() }
        switch (expected, actual) {
        case (.failure(let a), .failure(let b)):
            return "\(a)" == "\(b)" ? nil : "errors differ: \(a) / \(b)"
        case (.success(let a), .success(let b)):
            if !sameTables(a.table, b.table) { return "record tables differ" }
            if a.shape != b.shape || a.containerOffset != b.containerOffset || a.firstUnkeyed != b.firstUnkeyed
                || a.missingKeys != b.missingKeys || a.sections.count != b.sections.count
                || a.layoutProblem?.message != b.layoutProblem?.message || a.layoutProblem?.offset != b.layoutProblem?.offset
            {
                return "layouts differ"
            }
            if own, b.yaml?.ownScanner != true { return "the own scanner read the input, but the scan fell back" }
            return nil
        default:
            return "one read, the other refused: \(expected) / \(actual)"
        }
    }

    static func sameTables(_ a: RecordTable, _ b: RecordTable) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0..<a.count
        where a.starts[k] != b.starts[k] || a.lengths[k] != b.lengths[k] || a.hashes[k] != b.hashes[k]
            || a.keyHashes[k] != b.keyHashes[k]
        {
            return false
        }
        return true
    }
}
