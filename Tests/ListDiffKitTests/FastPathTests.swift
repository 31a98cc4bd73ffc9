import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Writes values as JSON text in random but valid spellings: white space, escapes, number
/// forms and member order vary; the values stay the same (`Value` equality).
struct RandomSpelling {
    var rng: SplitMix64
    var pretty: Bool
    /// Writing NDJSON: no line breaks inside a record.
    var oneLine = false

    mutating func space() -> String {
        guard pretty || Int.random(in: 0..<6, using: &rng) == 0 else { return "" }
        return ["", " ", oneLine ? "  " : "\n  ", "\t", oneLine ? " " : "\r\n"][Int.random(in: 0..<5, using: &rng)]
    }

    mutating func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "/" where Bool.random(using: &rng): out += "\\/"
            default:
                if scalar.value < 0x20 || Int.random(in: 0..<12, using: &rng) == 0 {
                    if scalar.value > 0xFFFF {
                        let v = scalar.value - 0x10000
                        out += String(format: "\\u%04X\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF))
                    } else {
                        out += String(format: Bool.random(using: &rng) ? "\\u%04x" : "\\u%04X", scalar.value)
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Another spelling of the same decimal value.
    mutating func number(_ n: Number) -> String {
        let text = n.text
        guard Int.random(in: 0..<3, using: &rng) == 0 else { return text }
        if !text.contains("e") && !text.contains("E") {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return text.contains(".") ? text + "0" : text + ".0"
            case 1: return text + "e0"
            default: return text.contains(".") || text.hasPrefix("0") || text.hasPrefix("-0") ? text : text + "0E-1"
            }
        }
        return text
    }

    mutating func write(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return number(n)
        case .string(let s): return string(s)
        case .array(let items):
            var parts: [String] = []
            for item in items { parts.append(space() + write(item) + space()) }
            return "[" + space() + parts.joined(separator: ",") + "]"
        case .object(let object):
            var parts: [String] = []
            for m in object.members { parts.append(space() + string(m.key) + space() + ":" + space() + write(m.value) + space()) }
            return "{" + space() + parts.joined(separator: ",") + "}"
        }
    }

    mutating func document(_ records: [Value], lines: Bool) -> String {
        oneLine = lines
        if lines { return records.map { write($0) + (Bool.random(using: &rng) ? " " : "") + "\n" }.joined() }
        return space() + "[" + records.map { space() + write($0) + space() }.joined(separator: ",") + "]" + space()
    }
}

/// Random lists of records and an edited copy.
struct RecordPairs {
    var rng: SplitMix64

    mutating func scalar() -> Value {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(Number(text: String(Int.random(in: -1000...1000, using: &rng))))
        case 3: return .number(Number(text: ["0.5", "-2.25", "1e3", "12345678901234567890123", "0"][Int.random(in: 0..<5, using: &rng)]))
        case 4: return .string(["", "a/b", "tab\there", "\"quoted\"", "back\\slash", "line\nbreak"][Int.random(in: 0..<6, using: &rng)])
        case 5: return .string(["é", "e\u{301}", "日本", "😀", "\u{1}"][Int.random(in: 0..<5, using: &rng)])
        default: return .string(String(Int.random(in: 0..<1000, using: &rng)))
        }
    }

    mutating func value(depth: Int) -> Value {
        guard depth < 3, Int.random(in: 0..<4, using: &rng) == 0 else { return scalar() }
        if Bool.random(using: &rng) {
            return .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in value(depth: depth + 1) })
        }
        return .object(
            Object(
                (0..<Int.random(in: 0..<4, using: &rng)).map { k in
                    Object.Member(key: ["a", "b", "c", "é"][k], value: value(depth: depth + 1))
                }))
    }

    mutating func record(_ id: Int, stringKey: Bool) -> Value {
        var members = [Object.Member(key: "id", value: stringKey ? .string("k\(id)") : .number(Number(exactly: id)))]
        for name in ["name", "tags", "n", "x/y", "ü"] where Bool.random(using: &rng) {
            members.append(Object.Member(key: name, value: value(depth: 0)))
        }
        members.shuffle(using: &rng)
        return .object(Object(members))
    }

    /// An old list and a new one with records deleted, inserted, updated, moved, and some
    /// records only re-spelled (members reordered), which is no change unless member order counts.
    mutating func next() -> ([Value], [Value]) {
        let stringKey = Int.random(in: 0..<3, using: &rng) == 0
        let count = Int.random(in: 0..<30, using: &rng)
        let old = (0..<count).map { record($0, stringKey: stringKey) }
        var new = old
        for _ in 0..<Int.random(in: 0..<4, using: &rng) where !new.isEmpty { new.remove(at: Int.random(in: 0..<new.count, using: &rng)) }
        for k in 0..<Int.random(in: 0..<4, using: &rng) {
            new.insert(record(count + k, stringKey: stringKey), at: Int.random(in: 0...new.count, using: &rng))
        }
        for _ in 0..<Int.random(in: 0..<4, using: &rng) where !new.isEmpty {
            let j = Int.random(in: 0..<new.count, using: &rng)
            guard case .object(var o) = new[j] else { continue }
            if Bool.random(using: &rng) {
                o.members.reverse()
            } else if let k = o.members.indices.filter({ o.members[$0].key != "id" }).randomElement(using: &rng) {
                o.members[k].value = value(depth: 0)
            } else {
                o.members.append(Object.Member(key: "added", value: scalar()))
            }
            new[j] = .object(o)
        }
        for _ in 0..<Int.random(in: 0..<4, using: &rng) where new.count > 1 {
            let r = new.remove(at: Int.random(in: 0..<new.count, using: &rng))
            new.insert(r, at: Int.random(in: 0...new.count, using: &rng))
        }
        return (old, new)
    }
}

@Suite struct FastPathTests {
    static let key = try! IdentityKey(parsing: [])
    static let algorithms: [any DiffAlgorithm] = [HeckelDiff(), MyersDiff(), LCSDiff()]

    static func directory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("listdiff-fast-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The changeset, as the JSON changeset renders it, or the error, by one path.
    static func run(_ old: URL, _ new: URL, fast: Bool, differ: Differ, key: IdentityKey = key) -> (String, Bool) {
        let files = FileDiffer(reader: DocumentReader(key: key), differ: differ)
        do throws(ListDiffError) {
            let changeset =
                fast
                ? try files.diff(old: old.path, new: new.path).changeset
                : try ReferenceDiffer(files).diff(old: old.path, new: new.path).changeset
            var out = StringStream()
            try JSONChangesetRenderer(context: RenderContext(oldName: "old", newName: "new")).render(changeset, to: &out)
            return (out.text, fast)
        } catch {
            return ("error: \(error)" + (error.hint.map { " (hint: \($0))" } ?? ""), false)
        }
    }

    /// On random lists in random spellings (JSON or NDJSON), the fast path gives exactly the
    /// changeset of the full reader, fingerprints included, for every algorithm and both
    /// member-order modes; and the changeset, read back and applied to OLD, gives NEW.
    @Test(arguments: 0..<3) func sameChangesetAsTheFullReaderAndItApplies(algorithmIndex: Int) throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = RecordPairs(rng: SplitMix64(seed: UInt64(40 + algorithmIndex)))
        var spelling = RandomSpelling(rng: SplitMix64(seed: UInt64(90 + algorithmIndex)), pretty: false)
        var fastRuns = 0, updates = 0, respelled = 0
        for round in 0..<150 {
            let (oldValues, newValues) = pairs.next()
            let lines = round % 3 == 0
            spelling.pretty = round % 4 == 1
            let ext = lines ? "ndjson" : "json"
            let old = dir.appendingPathComponent("old-\(round).\(ext)"), new = dir.appendingPathComponent("new-\(round).\(ext)")
            try spelling.document(oldValues, lines: lines).write(to: old, atomically: true, encoding: .utf8)
            // NEW re-spells every record, so equal records are often written differently.
            try spelling.document(newValues, lines: lines).write(to: new, atomically: true, encoding: .utf8)
            for order in Differ.MemberOrder.allCases {
                let differ = Differ(algorithm: Self.algorithms[algorithmIndex], memberOrder: order)
                let (fast, tookFastPath) = Self.run(old, new, fast: true, differ: differ)
                let (full, _) = Self.run(old, new, fast: false, differ: differ)
                #expect(fast == full, "round \(round), \(order)")
                if tookFastPath { fastRuns += 1 }
                guard fast == full, !fast.hasPrefix("error") else { continue }
                updates += fast.components(separatedBy: "\"op\": \"update\"").count - 1
                // Apply: read the changeset back and apply it to OLD.
                let changeset = try ChangesetReader().read(Array(fast.utf8), name: "changes.json")
                let document = try DocumentReader(key: Self.key).read(old.path)
                let result = try changeset.apply(to: document)
                let expected = try DocumentReader(key: Self.key).read(new.path).root
                #expect(order == .significant ? result.isIdentical(to: expected) : result == expected, "round \(round)")
                #expect(Fingerprint.of(result) == changeset.fingerprints?.new)
            }
            if oldValues.count > 0, oldValues == newValues { respelled += 1 }
        }
        #expect(fastRuns == 300)  // every run took the engine
        #expect(updates > 100)
    }

    /// Records compared member by member as written (only the members whose bytes differ
    /// are read) give the full reader's changeset, and where that reading does not apply
    /// (a name twice or escaped, names in another order, the key spelled anew, a wide
    /// record, records that are not objects) the values are compared whole, as before.
    @Test func membersComparedAsWrittenMatchTheFullReader() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let wide = (0..<20).map { "\"m\($0)\": \($0)" }.joined(separator: ", ")
        let pairs: [(String, String)] = [
            // One member changed, one re-spelled only (a number's other form, an escape).
            (#"{"id": 1, "a": 1, "b": "x", "c": [1, 2]}"#, #"{"id": 1, "a": 1.0, "b": "y", "c": [1, 2]}"#),
            (#"{"id": 1, "a": "\u0041", "b": 2}"#, #"{"id": 1, "a": "A", "b": 2}"#),
            // Nested objects and lists: the walk goes inside the member.
            (#"{"id": 1, "o": {"p": 1, "q": [1, {"r": 2}]}}"#, #"{"id": 1, "o": {"q": [1, {"r": 3}, 4], "p": 1}}"#),
            (#"{"id": 1, "o": {"p": 1, "q": 2}}"#, #"{"id": 1, "o": {"q": 2, "p": 1}}"#),
            // A name given twice, escaped, or the names in another order.
            (#"{"id": 1, "a": 1, "a": 2}"#, #"{"id": 1, "a": 1, "a": 3}"#),
            (#"{"id": 1, "\u0061": 1}"#, #"{"id": 1, "\u0061": 2}"#),
            (#"{"id": 1, "a": 1, "b": 2}"#, #"{"id": 1, "b": 2, "a": 3}"#),
            // A member added or removed.
            (#"{"id": 1, "a": 1}"#, #"{"id": 1, "a": 1, "b": 2}"#),
            // The key spelled anew (the same key), and a nested object with a name twice.
            (#"{"id": 1, "a": 1}"#, #"{"id": 1.0, "a": 2}"#),
            (#"{"id": 1, "o": {"p": 1, "p": 2}}"#, #"{"id": 1, "o": {"p": 1, "p": 3}}"#),
            // Wide records, one with a name twice among more than 16.
            ("{\"id\": 1, \(wide), \"z\": 1}", "{\"id\": 1, \(wide), \"z\": 2}"),
            ("{\"id\": 1, \(wide), \"m3\": 1}", "{\"id\": 1, \(wide), \"m3\": 2}"),
            // Empty objects, white space only.
            (#"{"id": 1, "e": {}}"#, #"{ "id": 1 , "e": { } }"#),
        ]
        var updates = 0
        for (n, (a, b)) in pairs.enumerated() {
            // The pair, after a record that moves, so that the compare reads it (not a copy).
            let old = dir.appendingPathComponent("old-\(n).json"), new = dir.appendingPathComponent("new-\(n).json")
            try "[\(a), {\"id\": 2}, {\"id\": 3}]".write(to: old, atomically: true, encoding: .utf8)
            try "[{\"id\": 3}, \(b), {\"id\": 2}]".write(to: new, atomically: true, encoding: .utf8)
            for order in Differ.MemberOrder.allCases {
                let differ = Differ(memberOrder: order)
                let (fast, _) = Self.run(old, new, fast: true, differ: differ)
                let (full, _) = Self.run(old, new, fast: false, differ: differ)
                #expect(fast == full, "pair \(n), \(order)")
                updates += fast.components(separatedBy: "\"op\": \"update\"").count - 1
            }
        }
        #expect(updates >= 20)
    }

    /// Errors are the full reader's, word for word and at the same place, whichever
    /// path finds them: malformed input, duplicate keys, records without a key.
    @Test func sameErrorsAsTheFullReader() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let good = #"[{"id":1,"a":"x"},{"id":2},{"id":3,"b":[1,2]}]"#
        let cases: [(String, String)] = [
            (#"[{"id":1},{"id":2},{"id":1}]"#, good),  // duplicate in OLD
            (good, #"[{"id":1},{"id":2},{"id":2.0}]"#),  // duplicate in NEW, spelled otherwise
            (good, #"[{"id":9},{"id":8},{"id":9}]"#),  // duplicate among NEW's own keys
            (#"[{"id":1},{"name":"x"}]"#, good),  // no key
            (#"[{"id":1},{"id":[1]}]"#, good),  // key not a scalar
            (#"[{"id":1},null]"#, good),  // not a record
            (#"[{"id":1},{"id":2"#, good),  // truncated
            (good, #"[{"id":1},{"id":2}] x"#),  // trailing garbage
            (#"[{"id":1,"s":"\ud800"}]"#, good),  // lone surrogate
            (#"[{"id":1},{"id":1}]"#, #"[{"id":1"#),  // OLD's duplicate before NEW's syntax error
            ("[1, 2, \"a\", true]", "[2, 1, false, \"a\"]"),  // scalars keyed by themselves
            (#"{"a":[{"id":1}],"b":[{"id":2}]}"#, #"{"a":[{"id":2}],"b":[{"id":1}]}"#),  // sections: the full reader's
            (#"[{"name":"A","items":[{"id":1}]}]"#, #"[{"name":"A","items":[]}]"#),  // a list of section objects
            ("[]", "[]"),
            ("", good),
        ]
        for (k, (oldText, newText)) in cases.enumerated() {
            let old = dir.appendingPathComponent("old-\(k).json"), new = dir.appendingPathComponent("new-\(k).json")
            try oldText.write(to: old, atomically: true, encoding: .utf8)
            try newText.write(to: new, atomically: true, encoding: .utf8)
            let (fast, _) = Self.run(old, new, fast: true, differ: Differ())
            let (full, _) = Self.run(old, new, fast: false, differ: Differ())
            #expect(fast == full, "case \(k): \(oldText) → \(newText)")
        }
        // NDJSON: one value per line.
        let lines = dir.appendingPathComponent("bad.ndjson")
        try "{\"id\":1} {\"id\":2}\n".write(to: lines, atomically: true, encoding: .utf8)
        let (fast, _) = Self.run(lines, lines, fast: true, differ: Differ())
        #expect(
            fast.hasSuffix(
                "bad.ndjson:1:10: error: expected the end of the line after the record (NDJSON holds one JSON value per line), found '{'"))
    }

    /// Composite keys, string keys and key paths all run on the engine, and agree.
    @Test func compositeKeysAndPaths() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let old = dir.appendingPathComponent("old.json"), new = dir.appendingPathComponent("new.json")
        try #"[{"r":"eu","id":1,"u":{"k":5}},{"r":"us","id":1,"u":{"k":6}},{"id":2,"r":"eu","u":{"k":7}}]"#
            .write(to: old, atomically: true, encoding: .utf8)
        try #"[{"id":2,"r":"eu","u":{"k":7},"x":1},{"r":"us","id":1.0,"u":{"k":6}}]"#.write(to: new, atomically: true, encoding: .utf8)
        for spellings in [["r", "id"], ["u.k"], ["/u/k"]] {
            let key = try IdentityKey(parsing: spellings)
            let (fast, tookFastPath) = Self.run(old, new, fast: true, differ: Differ(), key: key)
            let (full, _) = Self.run(old, new, fast: false, differ: Differ(), key: key)
            #expect(fast == full)
            #expect(tookFastPath)
            #expect(fast.contains("\"op\": \"delete\""))
        }
    }

    /// The fast reader's hash of every JSONTestSuite text equals the hash of the value the
    /// full reader builds, and it accepts and refuses exactly what the full reader does.
    @Test func hashesAgreeWithTheReaderOnJSONTestSuite() throws {
        let files = try FileManager.default.contentsOfDirectory(at: JSONConformanceTests.parsing, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
        #expect(files.count > 300)
        for file in files {
            let input = try bytes(file)
            let value = try? JSONReader().value(input)
            let hash: Hash128? = input.withUnsafeBufferPointer { buffer in
                var parser = JSONParser(bytes: buffer, maxDepth: 1000)
                return try? parser.hashText()
            }
            #expect((value == nil) == (hash == nil), "\(file.lastPathComponent)")
            if let value, let hash { #expect(hash == CanonicalHash.of(value), "\(file.lastPathComponent)") }
        }
    }

    /// Equal values hash alike however they are written; different ones differ.
    @Test func canonicalHashFollowsEquality() throws {
        var pairs = RecordPairs(rng: SplitMix64(seed: 5))
        var spelling = RandomSpelling(rng: SplitMix64(seed: 6), pretty: true)
        var seen: [Hash128: Value] = [:]
        for _ in 0..<2000 {
            let value = pairs.value(depth: 0)
            let text = Array(spelling.write(value).utf8)
            let hash = text.withUnsafeBufferPointer { buffer in
                var parser = JSONParser(bytes: buffer, maxDepth: 1000)
                return try? parser.hashText()
            }
            #expect(hash == CanonicalHash.of(value), "\(String(decoding: text, as: UTF8.self))")
            if let earlier = seen.updateValue(value, forKey: CanonicalHash.of(value)) { #expect(earlier == value) }
        }
        #expect(seen.count > 300)
        #expect(CanonicalHash.of(try json(#"{"a":1,"b":2}"#)) == CanonicalHash.of(try json(#"{"b":2.0,"a":1}"#)))
        #expect(CanonicalHash.of(try json(#"[1,2]"#)) != CanonicalHash.of(try json(#"[2,1]"#)))
        #expect(CanonicalHash.of(try json(#"{"a":[]}"#)) != CanonicalHash.of(try json(#"{"a":{}}"#)))
        #expect(CanonicalHash.of(try json(#"["a\u0000"]"#)) != CanonicalHash.of(try json(#"["a"]"#)))
        for length in 0..<40 {
            // Every length of string, so that each way of reading a tail is used.
            let a = String(repeating: "x", count: length), b = String(repeating: "x", count: max(0, length - 1)) + "y"
            #expect(length == 0 || CanonicalHash.string(a) != CanonicalHash.string(b))
        }
    }

    /// The scan of one input, or its error as the reader words it.
    static func scan(_ bytes: [UInt8], parts: Int = 1, against old: OldRecords? = nil, key: [String] = ["id"]) -> Result<
        ScannedDocument, ListDiffError
    > {
        let file = MappedFile(name: "in.json", bytes: bytes)
        let identity = try! IdentityKey(parsing: key)
        var scan = JSONScan(
            file: file, lines: false, key: identity, keys: KeyTrie(identity)!, options: LayoutOptions(), maxDepth: 1000,
            keyHashing: KeyHashing(), old: old, release: false, progress: nil)
        scan.parts = parts
        scan.splitsFrom = 0
        return Result { () throws(ListDiffError) in try scan.scan() }
    }

    /// The record scanner reads members the common way on a fast path and hands anything
    /// else to the general one; on every prefix of a list, and on every one-byte change to
    /// it, it must agree with the full reader: the same error at the same place, or the
    /// hash of the reader's value for every record and for the list.
    @Test func recordScannerAgreesWithTheReaderOnDamagedInput() throws {
        let text =
            #"[{"id":1,"name":"Ada","n":-0.50,"t":true,"f":false,"z":null,"e":1E3,"u":"é\"x","o":{"a":[1,{}]}},"#
            + "\n" + #" { "id" : 2 , "s":"x" , "x\u0041":0.0 } ,{"big":123456789012345678901234,"id":"k","q":[]},"#
            // Names like the previous record's at the same place, but longer, shorter, or past 16 bytes.
            + #"{"id":3,"s":"x","xA":1},{"id":4,"s2":"x","x":1},{"id":5,"0123456789abcdef":1,"0123456789abcdefg":2},"#
            + #"{"id":6,"0123456789abcdeX":1,"0123456789abcdef":2},{"id":7,"s":true,"xA":[]}]"#
        let original = Array(text.utf8)
        var inputs = (0...original.count).map { Array(original[..<$0]) }
        for k in original.indices {
            for b in [" ", "\"", "0", "}", ",", ":", "e", ".", "-", "t", "\\"].map({ UInt8(ascii: Unicode.Scalar($0)!) }) + [0x80, 0x0A]
            where b != original[k] {
                var changed = original
                changed[k] = b
                inputs.append(changed)
            }
        }
        // The intact list as OLD, for scanning every input as NEW too: a NEW record is taken
        // as OLD's when its bytes are, which must not let damage through.
        let oldFile = MappedFile(name: "old.json", bytes: original)
        let oldScan = try Self.scan(original).get()
        let old = OldRecords(
            bytes: oldFile.bytes.baseAddress!, table: oldScan.table, keys: OldKeys.build(oldScan.table).0,
            copies: true, depth: 1)
        var scanned = 0
        for input in inputs {
            let spelled = String(decoding: input, as: UTF8.self)
            let read = Result { () throws(ListDiffError) in try JSONReader().read(input, name: "in.json").0 }
            for asNew in [false, true] {
                let scan = withExtendedLifetime(oldFile) { Self.scan(input, against: asNew ? old : nil) }
                switch (read, scan) {
                case (.failure(let a), .failure(let b)):
                    #expect(a == b, "\(spelled)")
                case (.success(.array(let records)), .success(let document)):
                    #expect(document.table.count == records.count, "\(spelled)")
                    for (i, record) in records.enumerated() where i < document.table.count && !asNew {
                        #expect(document.table.hashes[i] == CanonicalHash.of(record), "\(spelled)")
                    }
                    if case .found(let layout, let sections) = document.layout(key: FastPathTests.key, options: LayoutOptions(), path: nil)
                    {
                        #expect(document.fingerprint(layout, sections) == CanonicalHash.of(.array(records)), "\(spelled)")
                    }
                    scanned += 1
                case (.success, .success):
                    break  // not a list: sections, or a layout problem reported after the scan
                default:
                    Issue.record("one reads and the other refuses: \(spelled)")
                }
            }
        }
        #expect(scanned > 100)
    }

    /// A list scanned in parts at once (each from a guessed record start) gives what one
    /// pass gives, whether the guess is right or falls inside a record: the same records,
    /// hashes and matches, the same error at the same place.
    /// A scan's records (place, hashes, key hash), sections and unkeyed records, or its
    /// error, line by line, to compare two scans of one input.
    static func describe(_ result: Result<ScannedDocument, ListDiffError>) -> [String] {
        switch result {
        case .failure(let error): return ["\(error)"]
        case .success(let d):
            let t = d.table
            return (0..<t.count).map { i in "\(t.starts[i]) \(t.lengths[i]) \(t.hashes[i].hex) \(t.keyHashes[i])" }
                + d.sections.map { "\($0.memberName ?? "-") \($0.recordCount) \($0.listHash?.hex ?? "-") \($0.members.count)" }
                + ["\(d.firstUnkeyed ?? -1) \(d.missingKeys)"]
        }
    }

    @Test func splitScanAgreesWithOnePass() throws {
        func records(_ count: Int, _ shape: (Int) -> String) -> [String] { (0..<count).map(shape) }
        let flat = records(400) { #"{"id":\#($0),"name":"n\#($0 % 7)","v":\#($0 * 3 % 11).5}"# }
        let nested = records(300) { #"{"id":\#($0),"tags":[{"a":1},{"b":\#($0)}],"o":{"p":[{"q":2}]}}"# }
        var inputs: [String] = [
            "[\n" + flat.joined(separator: ",\n") + "\n]\n",  // one record a line
            "[" + flat.joined(separator: ",") + "]",  // one line
            "[" + nested.joined(separator: ",") + "]",  // guesses inside records
            "[\n  " + nested.joined(separator: ",\n  ").replacingOccurrences(of: ",\"o\"", with: ",\n    \"o\"") + "\n]",
            "[" + flat.joined(separator: ",") + ",{\"id\":9999,\"x\":[1,}]",  // an error late
            "[" + flat.joined(separator: ",").replacingOccurrences(of: #"{"id":390,"#, with: #"{"name":1,"#) + "]",
            "[{\"id\":1,]" + flat.joined(separator: ","),  // an error early
            // Sections: an object of lists, a list of section objects, a list at a path.
            "{\"a\": [" + flat.prefix(150).joined(separator: ",\n") + "],\n\"b\": [],\n\"c\": [" + flat.suffix(250).joined(separator: ",\n")
                + "]}",
            "[{\"name\":\"a\",\"items\":[" + flat.prefix(150).joined(separator: ",\n") + "],\"x\":1},\n{\"items\":["
                + flat.suffix(250).joined(separator: ",\n") + "],\"name\":\"b\"}]",
        ]
        // A record across the middle, holding objects in a list: the guess falls inside it.
        let big = #"{"id":-1,"big":["# + records(500) { #"{"x":\#($0)}"# }.joined(separator: ",") + "]}"
        inputs.append("[" + ([big] + flat.prefix(20)).joined(separator: ",") + "]")
        inputs.append("[\n" + ([big.replacingOccurrences(of: ",{", with: ",\n  {")] + flat.prefix(20)).joined(separator: ",\n") + "\n]")
        // An error right at a guessed record start, and just before it.
        let plain = Array(inputs[1].utf8)
        if let guess = plain.withUnsafeBufferPointer({ JSONScan.splitPoint($0, lines: false, from: $0.count / 2) }) {
            for k in [guess, guess - 1] {
                var bytes = plain
                bytes[k] = UInt8(ascii: "x")
                inputs.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        for (k, text) in inputs.enumerated() {
            let bytes = Array(text.utf8)
            let one = Self.describe(Self.scan(bytes))
            for parts in [2, 3, 5] {
                let many = Self.describe(Self.scan(bytes, parts: parts))
                let first = one.indices.first { $0 < many.count && one[$0] != many[$0] }
                #expect(
                    one.count == many.count && first == nil,
                    "input \(k), \(parts) parts: first difference \(first.map { "\(one[$0]) / \(many[$0])" } ?? "in length")")
            }
        }
    }

    /// Numbers hash by value however they are spelled, through the one-pass way for plain
    /// decimals and the general one (exponents, more than 19 significant digits) alike.
    @Test func numbersHashByValue() {
        func hash(_ text: String) -> Hash128 {
            var text = text
            return text.withUTF8 { CanonicalHash.number(text: UnsafeRawBufferPointer($0)) }
        }
        let classes: [[String]] = [
            ["0", "-0", "0.0", "0e5", "-0.000", "0E-3"],
            ["1", "1.0", "1e0", "10E-1", "0.1e1", "1.000000000000000000000000"],
            ["679.34", "679.340", "67934e-2", "0.67934E3", "6793400e-4"],
            ["-0.05", "-5e-2", "-0.0500", "-50E-3"],
            ["100", "1e2", "100.00", "0.001e5"],
            ["1234567890123456789", "1234567890123456789.0", "1.234567890123456789e18"],
            ["12345678901234567890", "12345678901234567890.0", "1.2345678901234567890e19"],  // 20 digits
            ["123456789012345678901234567890", "1.23456789012345678901234567890e29"],
            ["10000000000000000000000000", "1e25"],  // 26 digits written, one significant
        ]
        for members in classes {
            let first = hash(members[0])
            for text in members { #expect(hash(text) == first, "\(text) and \(members[0])") }
        }
        let firsts = Set(classes.map { hash($0[0]) })
        #expect(firsts.count == classes.count)
        #expect(hash("1") != hash("-1") && hash("1") != hash("10") && hash("12") != hash("1.2"))
    }
}

@Suite struct SortedMergeTests {
    /// Sorted random pairs: the streaming merge gives the changeset of the full reader (but
    /// for its algorithm's name), with blocks so small that records straddle them.
    @Test func sameChangesetAsTheFullReader() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var pairs = RecordPairs(rng: SplitMix64(seed: 77))
        var spelling = RandomSpelling(rng: SplitMix64(seed: 78), pretty: false)
        var changes = 0
        for round in 0..<200 {
            let (a, b) = pairs.next()
            func sortedByKey(_ values: [Value]) -> [Value] {
                values.sorted { x, y in
                    let kx = try! FastPathTests.key.identify(x).get().id.bytes, ky = try! FastPathTests.key.identify(y).get().id.bytes
                    return kx.withUnsafeBytes { p in ky.withUnsafeBytes { q in KeyOrder.compare(p, q) < 0 } }
                }
            }
            let old = dir.appendingPathComponent("old-\(round).ndjson"), new = dir.appendingPathComponent("new-\(round).ndjson")
            try spelling.document(sortedByKey(a), lines: true).write(to: old, atomically: true, encoding: .utf8)
            try spelling.document(sortedByKey(b), lines: true).write(to: new, atomically: true, encoding: .utf8)
            for order in Differ.MemberOrder.allCases {
                var merge = SortedMerge(key: FastPathTests.key, memberOrder: order)
                merge.blockSize = [16, 64, 1 << 20][round % 3]
                var out = StringStream()
                try JSONChangesetRenderer(context: RenderContext(oldName: "old", newName: "new"))
                    .render(try merge.diff(old: old.path, new: new.path), to: &out)
                let (full, _) = FastPathTests.run(old, new, fast: false, differ: Differ(memberOrder: order))
                #expect(out.text.replacingOccurrences(of: "\"merge\"", with: "\"heckel\"") == full, "round \(round)")
                changes += out.text.components(separatedBy: "\"op\"").count - 1
            }
        }
        #expect(changes > 500)
    }

    /// jq's order: false, true, numbers by value, strings by scalars; field by field.
    @Test func keyOrder() throws {
        let ordered: [Value] = [
            false, true, .number(Number(text: "-10")), .number(Number(text: "-0.5")), 0,
            .number(Number(text: "0.25")), 1, .number(Number(text: "1.5")), 2, 10, .number(Number(text: "1e2")),
            "", "A", "a", "ab", "b", "é",
        ]
        func id(_ v: Value) -> [UInt8] { try! FastPathTests.key.identify(v).get().id.bytes }
        for (x, a) in ordered.enumerated() {
            for (y, b) in ordered.enumerated() {
                let c = id(a).withUnsafeBytes { p in id(b).withUnsafeBytes { q in KeyOrder.compare(p, q) } }
                #expect((c < 0) == (x < y) && (c == 0) == (x == y), "\(a) vs \(b)")
            }
        }
        #expect(id(.number(Number(text: "100"))) == id(.number(Number(text: "1e2"))))
    }

    /// Out of order, or repeated: the place and both keys.
    @Test func refusesUnsortedAndRepeatedKeys() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let good = dir.appendingPathComponent("good.ndjson"), bad = dir.appendingPathComponent("bad.ndjson")
        try "{\"id\":1}\n{\"id\":2}\n".write(to: good, atomically: true, encoding: .utf8)
        for (text, message) in [
            (
                "{\"id\":1}\n\n{\"id\":3}\n{\"id\":2}\n",
                "bad.ndjson:4:1: error: not sorted by key: record 2 (id=2) comes after id=3; --sorted needs both inputs in ascending key order, as jq's sort_by gives (false, true, numbers, strings)"
            ),
            (
                "{\"id\":1}\n  {\"id\":1.0}\n",
                "bad.ndjson:2:3: error: duplicate key id=1.0 (records 0 and 1; the first is at line 1, column 1) (hint: matchDuplicates)"
            ),
            ("{\"id\":1}\n{\"x\":1}\n", "bad.ndjson:2:1: error: record 1 has no key field 'id'"),
            (
                "{\"id\":1}\n{\"id\":2,\n\"a\":1}\n",
                "bad.ndjson:2:9: error: a record must be on one line (NDJSON); this one goes on past the end of its line"
            ),
        ] {
            try text.write(to: bad, atomically: true, encoding: .utf8)
            let message = bad.path + ":" + message.dropFirst("bad.ndjson:".count)
            for blockSize in [8, 1 << 20] {
                var merge = SortedMerge(key: FastPathTests.key)
                merge.blockSize = blockSize
                #expect(throws: ListDiffError.self) { try merge.diff(old: good.path, new: bad.path) }
                do { _ = try merge.diff(old: good.path, new: bad.path) } catch {
                    #expect("\(error)" + (error.hint.map { " (hint: \($0))" } ?? "") == message, "block \(blockSize)")
                }
            }
        }
    }

    /// The library, not the command, refuses what the streaming merge cannot do: a layout,
    /// repeated keys, a sequence, or an input that is not NDJSON. Nothing is read first.
    @Test func fileDifferRefusesWhatItCannotStream() throws {
        func refusal(_ change: (inout FileDiffer) throws -> Void, old: String = "a.ndjson") throws -> String? {
            var files = FileDiffer(reader: DocumentReader(key: FastPathTests.key))
            files.sorted = true
            try change(&files)
            do { _ = try files.diff(old: old, new: "missing.ndjson") } catch {
                return error.kind == .usage ? error.message : "\(error.kind): \(error.message)"
            }
            return nil
        }
        #expect(
            try refusal { $0.reader.layout = LayoutOptions(path: try FieldPath("/x")) }
                == "--sorted diffs plain NDJSON lists; --path, --section-key and --items do not apply")
        #expect(
            try refusal { $0.reader.layout = LayoutOptions(items: "rows") }
                == "--sorted diffs plain NDJSON lists; --path, --section-key and --items do not apply")
        #expect(try refusal { $0.reader.duplicates = .match } == "--sorted refuses repeated keys; --duplicates match does not apply")
        #expect(
            try refusal { $0.reader.key = .wholeRecord } == "--sorted merges by key; --key . diffs a sequence, which needs both lists whole"
        )
        #expect(
            try refusal({ _ in }, old: "a.json")
                == "--sorted streams NDJSON: 'a.json' is not .ndjson or .jsonl (or use --input-format ndjson)")
        // Told the format, any name will do: the error is then the missing file's.
        #expect(try refusal({ $0.reader.format = .ndjson }, old: "a.json")?.hasPrefix("io: ") == true)
    }
}

extension FileManager {
    func removeAtPath(_ url: URL) throws { try removeItem(at: url) }
}

extension JSONParser {
    /// The `CanonicalHash` of one whole JSON text, checked as `JSONReader.read` checks it.
    mutating func hashText() throws(JSONParseFailure) -> Hash128 {
        skipByteOrderMark()
        skipWhitespace()
        if index >= bytes.count { throw fail("expected a JSON value, found the end of the input") }
        let hash = try hashValue()
        try end()
        return hash
    }
}
