import Testing
@testable import ListDiffKit
import ListDiffKitTestSupport

/// Symbols for a sequence of words: equal words, equal symbols.
func symbolize(_ old: [String], _ new: [String]) -> (old: [Int], new: [Int], count: Int) {
    var table: [String: Int] = [:]
    func s(_ w: String) -> Int {
        if let v = table[w] { return v }
        table[w] = table.count
        return table.count - 1
    }
    let o = old.map(s)
    let n = new.map(s)
    return (o, n, table.count)
}

@Suite struct HeckelTests {
    /// The example of Heckel's paper (CACM 21(4), 1978, figure 1).
    static let old = "much writing is like snow , a mass of long words and phrases falls upon the relevant facts covering up the details ."
        .split(separator: " ").map(String.init)
    static let new = "a mass of latin words falls upon the relevant facts like soft snow , covering up the details ."
        .split(separator: " ").map(String.init)

    @Test func reproducesThePapersExample() throws {
        let (o, n, count) = symbolize(Self.old, Self.new)
        let pairs = HeckelDiff().pairs(old: o, new: n, symbolCount: count)
        // Every word of the new text is found in the old one but "latin" and "soft"; the
        // repeated "the" is paired through its unique neighbours (passes 4 and 5).
        let unpairedNew = Set(0..<n.count).subtracting(pairs.compactMap { $0 }).sorted().map { Self.new[$0] }
        let unpairedOld = pairs.indices.filter { pairs[$0] == nil }.map { Self.old[$0] }
        #expect(unpairedNew == ["latin", "soft"])
        #expect(unpairedOld == ["much", "writing", "is", "long", "and", "phrases"])
        for (i, j) in pairs.enumerated() { if let j { #expect(o[i] == n[j]) } }
        #expect(pairs[15] == 7 && pairs[20] == 16, "both 'the' follow their neighbours")
        // Minimal moves: "like snow ," moved; the 14 words of the longest common order stay.
        let paired = pairs.enumerated().compactMap { $0.element }
        let stay = longestIncreasingSubsequence(paired)
        #expect(stay.count == 14)
        let moved = Set(paired.indices).subtracting(stay).map { Self.new[paired[$0]] }.sorted()
        #expect(moved == [",", "like", "snow"])
        // The alignment as the paper draws it, one old word a line, kept as a golden file.
        let drawing =
            Self.old.indices.map { i in
                pairs[i].map { "\(Self.old[i]) → \($0) \(Self.new[$0])" } ?? "\(Self.old[i]) → (deleted)"
            } + Self.new.indices.filter { j in !pairs.contains(j) }.map { "(inserted) → \($0) \(Self.new[$0])" }
        try assertGolden(drawing.joined(separator: "\n") + "\n", "heckel-paper.txt")
    }

    @Test func pairsAFullReversalOfUniqueSymbols() {
        let n = 100_000
        let old = Array(0..<n)
        let new = Array(old.reversed())
        let pairs = HeckelDiff().pairs(old: old, new: new, symbolCount: n)
        #expect(pairs.allSatisfy { $0 != nil })
    }
}

@Suite struct LISTests {
    /// The engine's subsequence (`visitLongestIncreasingSubsequence`), ascending.
    static func engine(_ values: [Int]) -> [Int] {
        var run: [Int] = []
        visitLongestIncreasingSubsequence(count: values.count, value: { values[$0] }) { run.append($0) }
        return run.reversed()
    }

    @Test(arguments: [
        ([], 0), ([1], 1), ([3, 2, 1], 1), ([1, 2, 3], 3), ([2, 5, 3, 7, 11, 8, 10, 13, 6], 6), ([0, 8, 4, 12, 2, 10, 6, 14, 1, 9], 4),
    ])
    func length(values: [Int], expected: Int) {
        // The engine's and the reference's (`longestIncreasingSubsequence`).
        for lis in [Self.engine(values), longestIncreasingSubsequence(values)] {
            #expect(lis.count == expected)
            #expect(zip(lis, lis.dropFirst()).allSatisfy { $0 < $1 && values[$0] < values[$1] })
        }
    }

    @Test func matchesQuadraticOracle() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<500 {
            let values = (0..<Int.random(in: 0...30, using: &rng)).map { _ in Int.random(in: 0...20, using: &rng) }
            var best = [Int](repeating: 1, count: values.count)
            for i in values.indices { for j in 0..<i where values[j] < values[i] { best[i] = max(best[i], best[j] + 1) } }
            #expect(Self.engine(values).count == (best.max() ?? 0))
            #expect(longestIncreasingSubsequence(values).count == (best.max() ?? 0))
        }
    }
}

/// Random record lists and their edits.
struct RecordListGenerator {
    var rng: SplitMix64

    mutating func record(id: Int) -> Value {
        var members = [Object.Member(key: "id", value: .number(Number(exactly: id)))]
        members.append(.init(key: "name", value: .string(["ann", "bob", "cy", "dee"].randomElement(using: &rng)!)))
        if Bool.random(using: &rng) { members.append(.init(key: "n", value: .number(Number(exactly: Int.random(in: 0...3, using: &rng))))) }
        if Int.random(in: 0..<4, using: &rng) == 0 { members.append(.init(key: "tags", value: .array([.string("x"), .bool(true)]))) }
        return .object(Object(members))
    }

    /// An old list and an edited new one: deletes, inserts, updates, moves, or a full shuffle.
    mutating func pair(maxCount: Int = 40) -> (old: [Value], new: [Value]) {
        let count = Int.random(in: 0...maxCount, using: &rng)
        let ids = Array(0..<(count * 2)).shuffled(using: &rng)
        let old = ids.prefix(count).map { record(id: $0) }
        var new = old
        var spare = ids.suffix(from: count).makeIterator()
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: new.reverse()
        case 1: new.shuffle(using: &rng)
        case 2: new = (0..<Int.random(in: 0...maxCount, using: &rng)).compactMap { _ in spare.next().map { record(id: $0) } }
        case 3: break
        default:
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0 where !new.isEmpty: new.remove(at: Int.random(in: 0..<new.count, using: &rng))
                case 1: if let id = spare.next() { new.insert(record(id: id), at: Int.random(in: 0...new.count, using: &rng)) }
                case 2 where !new.isEmpty:
                    let v = new.remove(at: Int.random(in: 0..<new.count, using: &rng))
                    new.insert(v, at: Int.random(in: 0...new.count, using: &rng))
                case 3 where !new.isEmpty:
                    let i = Int.random(in: 0..<new.count, using: &rng)
                    guard case .object(let o) = new[i], case .number(let n)? = o["id"] else { break }
                    new[i] = record(id: Int(n.text)!)
                default: break
                }
            }
        }
        return (old, new)
    }
}

func document(_ values: [Value], key: IdentityKey = try! IdentityKey(parsing: [])) throws -> Document {
    let root = Value.array(values)
    var text = ""
    JSONWriter.write(root, to: &text)
    let (parsed, source) = try JSONReader().read(Array(text.utf8), name: "mem.json")
    return try Document.keyed(parsed, source: source, key: key)
}

@Suite struct DifferTests {
    /// An adaptor that pairs nothing: the differ must still match every shared key.
    struct PairsNothing: DiffAlgorithm {
        var name: String { "nothing" }
        func pairs(old: [Int], new: [Int], symbolCount: Int) -> [Int?] { [] }
    }

    /// An adaptor that proposes wrong pairs: the differ must drop them.
    struct PairsWrongly: DiffAlgorithm {
        var name: String { "wrong" }
        func pairs(old: [Int], new: [Int], symbolCount: Int) -> [Int?] { old.indices.map { _ in new.isEmpty ? nil : 0 } }
    }

    static let algorithms: [any DiffAlgorithm] = [HeckelDiff(), PairsNothing(), PairsWrongly()]

    @Test(arguments: 0..<3)
    func everyChangesetAppliesExactly(algorithmIndex: Int) throws {
        let algorithm = Self.algorithms[algorithmIndex]
        var generator = RecordListGenerator(rng: SplitMix64(seed: 42 + UInt64(algorithmIndex)))
        for _ in 0..<3000 {
            let (oldValues, newValues) = generator.pair()
            let old = try document(oldValues)
            let new = try document(newValues)
            let changeset = try Differ(algorithm: algorithm).diff(old: old, new: new, key: try IdentityKey(parsing: []))
            let applied = try changeset.apply(to: old.values)
            #expect(applied == new.values)
            let s = changeset.summary
            #expect(s.inserted + s.deleted + s.moved + s.updated == changeset.changes.count)
            #expect(old.records.count - s.deleted + s.inserted == new.records.count)
            // Minimal moves: matched records minus the longest run that kept its order.
            let matched = old.records.count - s.deleted
            let oldIndex = Dictionary(uniqueKeysWithValues: old.records.enumerated().map { ($1.id, $0) })
            let order = new.records.compactMap { oldIndex[$0.id] }
            #expect(s.moved == matched - longestIncreasingSubsequence(order).count)
            #expect(changeset.isEmpty == (oldValues == newValues))
        }
    }

    @Test func sameListIsEmptyAndAppliesToItself() throws {
        var generator = RecordListGenerator(rng: SplitMix64(seed: 1))
        let (values, _) = generator.pair()
        let doc = try document(values)
        let changeset = try Differ().diff(old: doc, new: doc, key: try IdentityKey(parsing: []))
        #expect(changeset.isEmpty)
        #expect(try changeset.apply(to: doc.values) == doc.values)
    }

    @Test func updatesListChangedFieldsAsPointers() throws {
        let old = try document([json(#"{"id":1,"a":{"b/c":1,"x~":[1,2,3]},"gone":true,"same":1}"#)])
        let new = try document([json(#"{"id":1,"a":{"b/c":2,"x~":[1,5]},"same":1.0,"added":null}"#)])
        let changes = try Differ().diff(old: old, new: new, key: try IdentityKey(parsing: [])).changes
        #expect(changes.count == 1 && changes[0].operation == .update)
        #expect(
            changes[0].fields == [
                FieldChange(path: "/a/b~1c", old: 1, new: 2),
                FieldChange(path: "/a/x~0/1", old: 2, new: 5),
                FieldChange(path: "/a/x~0/2", old: 3, new: nil),
                FieldChange(path: "/gone", old: true, new: nil),
                FieldChange(path: "/added", old: nil, new: .null),
            ])
    }

    @Test func typeAwareContent() throws {
        let old = try document([json(#"{"id":1,"v":true}"#), json(#"{"id":2,"v":"1"}"#)])
        let new = try document([json(#"{"id":1,"v":1}"#), json(#"{"id":2,"v":1}"#)])
        #expect(try Differ().diff(old: old, new: new, key: try IdentityKey(parsing: [])).summary.updated == 2)
    }

    @Test func movedAndChangedAppearsTwice() throws {
        let old = try document([json(#"{"id":1}"#), json(#"{"id":2}"#), json(#"{"id":3}"#)])
        let new = try document([json(#"{"id":2}"#), json(#"{"id":3}"#), json(#"{"id":1,"x":1}"#)])
        let c = try Differ().diff(old: old, new: new, key: try IdentityKey(parsing: []))
        #expect(c.changes.map(\.operation) == [.move, .update])
        #expect(c.changes.map(\.old) == [RecordPosition(index: 0), RecordPosition(index: 0)])
        #expect(c.changes.map(\.new) == [RecordPosition(index: 2), RecordPosition(index: 2)])
    }
}

@Suite struct IdentityTests {
    func keyed(_ text: String, _ keys: [String] = []) throws -> Document {
        let (root, source) = try JSONReader().read(Array(text.utf8), name: "k.json")
        return try Document.keyed(root, source: source, key: IdentityKey(parsing: keys))
    }

    func message(_ text: String, _ keys: [String] = []) -> String {
        do { _ = try keyed(text, keys); return "no error" } catch {
            return "\(error)" + ((error as? ListDiffError)?.hint.map { " (hint: \($0))" } ?? "")
        }
    }

    @Test func errorsArePositionedAndNameTheKey() {
        #expect(message("[{\"id\":1},\n {\"name\":2}]") == "k.json:2:2: error: record 1 has no key field 'id'")
        #expect(
            message("[{\"id\":{\"a\":1}}]")
                == "k.json:1:2: error: key field 'id' of record 0 is an object; a key must be a string, number or boolean")
        #expect(
            message("[{\"id\":1},\n {\"id\":1.0}]")
                == "k.json:2:2: error: duplicate key id=1.0 (records 0 and 1; the first is at line 1, column 2) (hint: matchDuplicates)"
        )
        #expect(
            message("{\"id\":1}")
                == "k.json:1:7: error: the top level is an object whose member \"id\" is a number, not a list; expected a list of records, a map of records, an object of lists, or a list of section objects (hint: path)"
        )
        #expect(message("[[1]]") == "k.json:1:2: error: record 0 is an array; expected an object or a scalar")
        #expect(
            message("[\"a\",\n \"b\", \"a\"]")
                == "k.json:2:7: error: duplicate key \"a\" (records 0 and 2; the first is at line 1, column 2) (hint: matchDuplicates)"
        )
    }

    @Test func pathsCompositesAndScalars() throws {
        let nested = try keyed(#"[{"user":{"id":"u1"}},{"user":{"id":"u2"}}]"#, ["user.id"])
        #expect(nested.records.map(\.key) == ["u1", "u2"])
        let pointer = try keyed(#"[{"a/b":{"id":1}}]"#, ["/a~1b/id"])
        #expect(pointer.records.map(\.key) == [1])
        let composite = try keyed(#"[{"region":"eu","id":1},{"region":"us","id":1}]"#, ["region", "id"])
        #expect(composite.records.map(\.key) == [["eu", 1], ["us", 1]])
        let scalars = try keyed(#"["x", 1, "1", true]"#)
        #expect(scalars.records.count == 4)
        // NFC and NFD spellings are different keys.
        #expect(throws: Never.self) { try keyed("[\"\u{E9}\", \"e\u{301}\"]") }
        #expect(throws: ListDiffError.self) { try FieldPath("a..b") }
        #expect(throws: ListDiffError.self) { try FieldPath("/a~2") }
    }
}
