import Foundation
import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// A YAML NEW scanned against a YAML OLD: a record that is byte for byte the OLD record
/// expected next, at the same column, is taken with OLD's hashes, unread
/// (`YAMLScanState.copied`). The changesets and errors are the reference's either way.
@Suite struct YAMLCopyTests {
    /// The engine's changeset (or error) and the reference's for OLD and NEW, and how many
    /// of NEW's records the engine took from OLD's unread.
    static func diff(_ oldText: String, _ newText: String, in dir: URL, round: Int = 0) throws -> (
        engine: String, reference: String, copied: Int
    ) {
        let old = dir.appendingPathComponent("old-\(round).yaml"), new = dir.appendingPathComponent("new-\(round).yaml")
        try oldText.write(to: old, atomically: true, encoding: .utf8)
        try newText.write(to: new, atomically: true, encoding: .utf8)
        let engine = EngineTests.run(old, new, engine: true, key: ["id"])
        let reference = EngineTests.run(old, new, engine: false, key: ["id"])
        var copied = 0
        let run = Engine(key: try IdentityKey(parsing: ["id"]), differ: Differ(), duplicates: .error, options: LayoutOptions())
        if let sides = try? run.diffKeepingSides(
            old: MappedFile(name: "old.yaml", bytes: Array(oldText.utf8)), .yaml,
            new: MappedFile(name: "new.yaml", bytes: Array(newText.utf8)), .yaml)
        {
            copied = (sides.new.records as? YAMLRecords)?.details.copied ?? 0
        }
        return (engine, reference, copied)
    }

    /// A random record of block style with `id`, within the own scanner's subset (otherwise
    /// libyaml would read the whole input).
    static func entry(_ id: Int, _ generator: inout BlockYAMLGenerator) -> String {
        repeat {
            generator.outside = false
            generator.out = ""
            generator.collection(column: 2, depth: 1, first: false, mapping: true)
        } while generator.outside
        return "- id: \(id)\n" + generator.out
    }

    static func record(_ id: Int, _ name: String = "Ada") -> String {
        "- id: \(id)\n  name: \(name)\n  tags:\n    - a\n    - b\n  note: |\n    two\n    lines\n  more: plain\n    over lines\n"
    }

    /// Records in NEW that are OLD's, byte for byte and in place, are taken unread; an
    /// update, an insert, a delete and a move around them are found as the reference finds
    /// them.
    @Test func unchangedRecordsAreTakenUnread() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let ids = Array(0..<100)
        let old = ids.map { Self.record($0) }.joined()
        var newIDs = ids
        newIDs.remove(at: 10)  // deleted
        newIDs.insert(1000, at: 20)  // inserted
        newIDs.insert(newIDs.remove(at: 50), at: 80)  // moved
        let new = newIDs.map { Self.record($0, $0 == 30 ? "Grace" : "Ada") }.joined()
        let result = try Self.diff(old, new, in: dir)
        #expect(result.engine == result.reference)
        #expect(result.engine.contains("update"))
        // All but six, each read for its key: the update, the insert, the moved record, and
        // the records after the deleted one and after the moved one.
        #expect(result.copied >= 94 && result.copied <= 97, "copied \(result.copied)")
        // The same file on both sides: every record is taken.
        let same = try Self.diff(old, old, in: dir, round: 1)
        #expect(same.engine == same.reference)
        #expect(same.copied == 100)
    }

    /// A record one byte apart, one that goes on past OLD's (more lines, or more on its last
    /// line), and one with OLD's bytes at another column are read, not taken.
    @Test func recordsThatDifferAreRead() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        let tail = "- id: 9\n  v: 9\n"
        let cases: [(old: String, new: String)] = [
            // One byte.
            ("- id: 1\n  v: 2\n" + tail, "- id: 1\n  v: 3\n" + tail),
            // More lines after OLD's bytes.
            ("- id: 1\n  v: 2\n" + tail, "- id: 1\n  v: 2\n  w: 4\n" + tail),
            // A plain scalar that goes on, on a line OLD's bytes end before.
            ("- id: 1\n  v: 2\n" + tail, "- id: 1\n  v: 2\n   more\n" + tail),
            // OLD's last record ends the input without a line break: NEW goes on after it.
            ("- id: 1\n  v: 2", "- id: 1\n  v: 23\n"),
            // OLD's bytes at another column (the same value here, but read, not taken).
            ("- id: a\n      b\n" + tail, "-   id: a\n      b\n" + tail),
            // A comment after the record is part of its bytes.
            ("- id: 1\n  v: 2\n# note\n" + tail, "- id: 1\n  v: 2\n" + tail),
        ]
        for (k, c) in cases.enumerated() {
            let result = try Self.diff(c.old, c.new, in: dir, round: k)
            #expect(result.engine == result.reference, "case \(k)")
            let tailCopied = c.new.hasSuffix(tail) ? 1 : 0
            #expect(result.copied == tailCopied, "case \(k): copied \(result.copied)")
        }
        // libyaml reads OLD (an anchor) or NEW (a tag): nothing is taken, all is read.
        let anchored = try Self.diff("- id: 1\n  v: &a 2\n" + tail, "- id: 1\n  v: 3\n" + tail, in: dir, round: 7)
        #expect(anchored.engine == anchored.reference)
        #expect(anchored.copied == 0)
        let tagged = try Self.diff("- id: 1\n  v: 2\n" + tail, "- id: 1\n  v: !!str 3\n" + tail, in: dir, round: 8)
        #expect(tagged.engine == tagged.reference)
        #expect(tagged.copied == 0)
        // Indented as OLD's but one level deeper: OLD's bytes, the next line is not theirs.
        let nested = try Self.diff("- id: 1\n  v:\n  - x\n" + tail, "- id: 1\n  v:\n  - x\n  - y\n" + tail, in: dir, round: 9)
        #expect(nested.engine == nested.reference)
        #expect(nested.copied == 1)
    }

    /// Random block-style records, edited at random (changed, deleted, inserted, moved,
    /// indented otherwise, a byte added): the engine's changeset or error is the
    /// reference's, and most records left alone are taken unread.
    @Test func randomEditsReadAsTheReferenceReadsThem() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var generator = BlockYAMLGenerator(random: SplitMix64(seed: 0xC0_B1E5))
        var random = SplitMix64(seed: 7)
        func entry(_ id: Int) -> String { Self.entry(id, &generator) }
        var copied = 0, kept = 0
        for round in 0..<150 {
            let count = 1 + random.below(12)
            let old = (0..<count).map { entry($0) }
            var new: [String] = []
            for (k, text) in old.enumerated() {
                switch random.below(16) {
                case 0: continue  // deleted
                case 1: new.append(entry(k))  // changed
                case 2: new.append(entry(1000 + k)); new.append(text)  // inserted before
                case 3: new.insert(text, at: random.below(new.count + 1))  // moved
                case 4: new.append("-  " + text.dropFirst(2))  // another column
                case 5: new.append(String(text.dropLast()) + " x\n")  // a byte more on its last line
                default:
                    new.append(text)
                    kept += 1
                }
            }
            let result = try Self.diff(old.joined(), new.joined(), in: dir, round: round)
            #expect(result.engine == result.reference, "round \(round)\nOLD:\n\(old.joined())\nNEW:\n\(new.joined())")
            copied += result.copied
        }
        #expect(copied > kept / 2, "copied \(copied) of \(kept) kept")
    }

    /// A plain list at the top level, scanned in two parts at once (`YAMLScan.splitScan`),
    /// on its own and against OLD, gives the table of one pass: each record's place, hashes
    /// and key hash, the list's hash and count. What is not such a list, or has a part that
    /// does not read alone (an error, a construct left to libyaml, a second document), is
    /// scanned whole, with the same result or error.
    @Test func splitScanAgreesWithOnePass() throws {
        var generator = BlockYAMLGenerator(random: SplitMix64(seed: 0x5_9117))
        func entry(_ id: Int) -> String { Self.entry(id, &generator) }
        var inputs: [String] = (0..<40).map { round in (0..<(8 + round)).map(entry).joined() }
        let plain = (0..<40).map { "- id: \($0)\n  v: [\($0), x]\n" }
        inputs += [
            plain.joined(),
            plain.joined() + "- id: 99\n  v: &a 1\n",  // an anchor late: libyaml reads it
            plain.joined() + "- id: 99\n  v: : 1\n",  // an error late
            plain.joined(separator: "---\n"),  // documents
            "items:\n" + plain.joined(),  // an indentless list in a mapping
            plain.map { "- " + $0 }.joined(),  // lists as records
            (0..<40).map { "- \($0)\n# note\n\n" }.joined(),  // scalars, comments
            plain.joined() + "- id: 3\n",  // a key twice
        ]
        let key = try IdentityKey(parsing: ["id"])
        func scan(_ text: String, parts: Int, against old: OldRecords? = nil) -> Result<ScannedDocument, ListDiffError> {
            var scan = YAMLScan(
                file: MappedFile(name: "in.yaml", bytes: Array(text.utf8)), key: key, keys: KeyTrie(key)!, options: LayoutOptions(),
                reader: YAMLReader(), keyHashing: KeyHashing(), progress: nil)
            scan.parts = parts
            scan.splitsFrom = 0
            scan.old = old
            return Result { () throws(ListDiffError) -> ScannedDocument in try scan.scan() }
        }
        func describe(_ result: Result<ScannedDocument, ListDiffError>) -> [String] {
            let depth = (try? result.get()).map { "\($0.shape) \($0.yaml?.recordDepth ?? -9)" }
            return FastPathTests.describe(result) + [depth ?? ""]
        }
        var split = 0, copied = 0
        for (k, text) in inputs.enumerated() {
            let one = scan(text, parts: 1)
            let two = scan(text, parts: 2)
            #expect(describe(one) == describe(two), "input \(k)")
            if case .success(let d) = two, d.yaml?.parts == 2 { split += 1 }
            // Against itself as OLD: the same table, most records taken from OLD's.
            guard case .success(let old) = one, old.yaml?.ownScanner == true else { continue }
            let (keys, _) = OldKeys.build(old.table)
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buffer in
                let against = OldRecords(
                    bytes: buffer.baseAddress!, table: old.table, keys: keys, copies: true, depth: old.yaml!.recordDepth, yaml: old.yaml)
                let again = scan(text, parts: 2, against: against)
                #expect(describe(again) == describe(one), "input \(k) against itself")
                copied += try again.get().yaml?.copied ?? 0
            }
        }
        #expect(split >= 40, "split \(split)")
        #expect(copied > 1000, "copied \(copied)")
    }
}
