import Foundation
import Testing

@testable import ListDiffKit
import ListDiffKitTestSupport

/// `--key .`: the whole record is its identity, so a list diffs as a sequence and each
/// algorithm gives its own result.
@Suite struct SequenceTests {
    static let algorithms: [any DiffAlgorithm] = [HeckelDiff(), MyersDiff(), LCSDiff()]

    /// A record from a small pool, so that records repeat; objects are written with their
    /// members in either order, which is the same record.
    static func record(_ rng: inout SplitMix64) -> Value {
        let n = Int.random(in: 0..<6, using: &rng)
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return .string("line \(n)")
        case 1: return .number(Number(exactly: n))
        default:
            var members = [
                Object.Member(key: "n", value: .number(Number(exactly: n))), Object.Member(key: "tag", value: .string("t\(n % 3)")),
            ]
            if Bool.random(using: &rng) { members.reverse() }
            if n == 5 { members.append(Object.Member(key: "sub", value: .array([.null, .bool(true)]))) }
            return .object(Object(members))
        }
    }

    static func list(_ rng: inout SplitMix64) -> [Value] {
        (0..<Int.random(in: 0...14, using: &rng)).map { _ in record(&rng) }
    }

    /// Applying each algorithm's changeset to OLD gives NEW; the engine gives the
    /// reference's changeset byte for byte, in JSON, NDJSON and YAML, plain or in sections.
    @Test func everyAlgorithmsSequenceChangesetAppliesAndTheEngineAgrees() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SplitMix64(seed: 404)
        var spelling = RandomSpelling(rng: SplitMix64(seed: 405), pretty: false)
        var moved = 0, unchanged = 0
        for round in 0..<300 {
            let sectioned = round % 5 == 4
            let oldValue: Value, newValue: Value
            if sectioned {
                oldValue = .object(
                    Object([.init(key: "a", value: .array(Self.list(&rng))), .init(key: "b", value: .array(Self.list(&rng)))]))
                newValue = .object(
                    Object([.init(key: "b", value: .array(Self.list(&rng))), .init(key: "a", value: .array(Self.list(&rng)))]))
            } else {
                let old = Self.list(&rng)
                var new = Bool.random(using: &rng) ? old.shuffled(using: &rng) : Self.list(&rng)
                if Bool.random(using: &rng), !new.isEmpty { new.remove(at: Int.random(in: 0..<new.count, using: &rng)) }
                oldValue = .array(old)
                newValue = .array(new)
            }
            let (old, new) = try EngineTests.write(
                oldValue, newValue, in: dir, round: round, lines: !sectioned && round % 3 == 1, yaml: round % 3 == 2, &spelling)
            let differ = Differ(algorithm: Self.algorithms[round % 3], memberOrder: Differ.MemberOrder.allCases[round / 3 % 2])
            let engine = EngineTests.run(old, new, engine: true, key: ["."], differ: differ)
            let reference = EngineTests.run(old, new, engine: false, key: ["."], differ: differ)
            #expect(engine == reference, "round \(round)")
            #expect(!reference.hasPrefix("error"), "round \(round): \(reference)")
            guard engine == reference, !reference.hasPrefix("error") else { continue }
            let changeset = try ChangesetReader().read(Array(engine.utf8), name: "changes.json")
            #expect(changeset.key.isWholeRecord && changeset.duplicates == .match)
            #expect(changeset.summary.updated == 0 || differ.memberOrder == .significant, "round \(round)")
            let reader = DocumentReader(key: changeset.key, duplicates: .match, layout: changeset.layout.options)
            let result = try changeset.apply(to: try reader.read(old.path))
            let expected = try reader.read(new.path).root
            #expect(differ.memberOrder == .significant ? result.isIdentical(to: expected) : result == expected, "round \(round)")
            let applier = try FileApplier(changeset: changeset, old: old.path, reader: DocumentReader(key: changeset.key))
            #expect(applier.newFingerprint == changeset.fingerprints?.new, "round \(round)")
            moved += changeset.summary.moved
            if let range = engine.range(of: #""unchanged": [0-9]+"#, options: .regularExpression) {
                unchanged += Int(engine[range].split(separator: " ")[1])!
            }
        }
        #expect(moved > 50 && unchanged > 200, "\(moved) moved, \(unchanged) unchanged")
    }

    /// What each adaptor gives, on plain lists with repeats: Myers and LCS a longest common
    /// subsequence and no move; Heckel pairs every record unique on both sides, and moves.
    @Test func eachAlgorithmGivesItsOwnDocumentedResult() throws {
        var rng = SplitMix64(seed: 9)
        var heckelMoves = 0, differs = 0
        for round in 0..<600 {
            let alphabet = Int.random(in: 2...7, using: &rng)
            let symbolsOld = (0..<Int.random(in: 0...12, using: &rng)).map { _ in Int.random(in: 0..<alphabet, using: &rng) }
            let symbolsNew = (0..<Int.random(in: 0...12, using: &rng)).map { _ in Int.random(in: 0..<alphabet, using: &rng) }
            let old = symbolsOld.map { Value.number(Number(exactly: $0)) }, new = symbolsNew.map { Value.number(Number(exactly: $0)) }
            var outputs: [String] = []
            for algorithm in Self.algorithms {
                let changeset = try Differ(algorithm: algorithm).diff(old: old, new: new, key: .wholeRecord)
                #expect(try changeset.apply(to: old) == new, "round \(round) \(algorithm.name)")
                let s = changeset.summary
                if algorithm is HeckelDiff {
                    heckelMoves += s.moved
                    for symbol in Set(symbolsOld) where symbolsOld.count(of: symbol) == 1 && symbolsNew.count(of: symbol) == 1 {
                        #expect(!changeset.changes.contains { $0.operation == .delete && $0.key == .number(Number(exactly: symbol)) })
                    }
                } else {
                    #expect(s.moved == 0, "round \(round) \(algorithm.name)")
                    #expect(s.unchanged == AlgorithmContractTests.lcsLength(symbolsOld, symbolsNew), "round \(round) \(algorithm.name)")
                }
                var out = JSONBytes()
                for change in changeset.changes { try JSONChangesetRenderer.write(change, to: &out) }
                outputs.append(out.string)
            }
            if Set(outputs).count == 3 { differs += 1 }
        }
        #expect(heckelMoves > 10)
        #expect(differs > 10, "the three adaptors should differ on some lists")
    }

    @Test func theKeyIsSpelledAsADotAndRefusesCompanions() throws {
        #expect(try IdentityKey(parsing: ["."]).isWholeRecord)
        #expect(IdentityKey.wholeRecord.spellings == ["."])
        #expect(throws: ListDiffError.self) { try IdentityKey(parsing: [".", "id"]) }
        var rules = Comparison()
        rules.ignore = [try Comparison.Pattern("/t")]
        #expect(throws: ListDiffError.self) {
            try Differ(comparison: rules).diff(old: [1], new: [2], key: .wholeRecord)
        }
    }
}

extension Array where Element: Equatable {
    fileprivate func count(of element: Element) -> Int { self.reduce(0) { $1 == element ? $0 + 1 : $0 } }
}
