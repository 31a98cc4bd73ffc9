import Foundation
import ListDiffKitTestSupport
import Testing

@testable import ListDiffKit

/// Random edits of one BASE on two sides, merged: disjoint edits merge cleanly into both
/// sides' edits, overlapping ones are each a conflict, and the merge is symmetric.
@Suite struct MergeTests {
    /// One side's edits of BASE: records deleted, fields changed (nil: removed), records
    /// inserted at places, records moved to places.
    struct Edits {
        var deletes: Set<Int> = []
        var changes: [Int: [String: Value?]] = [:]
        var inserts: [(record: Value, at: Int)] = []
        var moves: [(id: Int, to: Int)] = []

        func applied(to base: [Value]) -> [Value] {
            var list = base.filter { !deletes.contains(MergeTests.id($0)) }
            list = list.map { record in
                guard let fields = changes[MergeTests.id(record)], case .object(var object) = record else { return record }
                for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                    if let value {
                        if let k = object.members.firstIndex(where: { $0.key == name }) {
                            object.members[k].value = value
                        } else {
                            object.members.append(.init(key: name, value: value))
                        }
                    } else {
                        object.members.removeAll { $0.key == name }
                    }
                }
                return .object(object)
            }
            for (id, to) in moves {
                guard let k = list.firstIndex(where: { MergeTests.id($0) == id }) else { continue }
                let record = list.remove(at: k)
                list.insert(record, at: min(to, list.count))
            }
            for (record, at) in inserts { list.insert(record, at: min(at, list.count)) }
            return list
        }
    }

    static func id(_ record: Value) -> Int {
        if case .object(let object) = record, case .number(let n)? = object["id"] { return Int(n.text) ?? -1 }
        return -1
    }

    static func adding(_ name: String, _ value: Value, to record: Value) -> Value {
        guard case .object(var object) = record else { return record }
        object.members.append(.init(key: name, value: value))
        return .object(object)
    }

    static func record(_ id: Int, _ rng: inout SplitMix64) -> Value {
        .object(
            Object(
                ["a", "b", "c"].map { .init(key: $0, value: .number(Number(exactly: Int.random(in: 0..<5, using: &rng)))) } + [
                    .init(key: "id", value: .number(Number(exactly: id)))
                ]))
    }

    /// Edits of the records in `ids` only (and new records numbered from `fresh`).
    static func edits(_ base: [Value], ids: [Int], fresh: Int, moves: Bool, _ rng: inout SplitMix64) -> Edits {
        var edits = Edits()
        for id in ids {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: edits.deletes.insert(id)
            case 1:
                let field = ["a", "b", "c", "d"][Int.random(in: 0..<4, using: &rng)]
                edits.changes[id] = [
                    field: Int.random(in: 0..<4, using: &rng) == 0 ? nil : .string("v\(Int.random(in: 0..<3, using: &rng))")
                ]
            case 2 where moves: edits.moves.append((id, Int.random(in: 0...base.count, using: &rng)))
            default: break
            }
        }
        for k in 0..<Int.random(in: 0..<3, using: &rng) {
            edits.inserts.append((record(fresh + k, &rng), Int.random(in: 0...base.count, using: &rng)))
        }
        return edits
    }

    /// The list written as `format` writes it. CSV's header is every field in the order the
    /// records first hold it; an absent field is an empty cell.
    static func text(_ list: [Value], _ format: InputFormat) throws -> String {
        switch format {
        case .yaml: return try YAMLWriter.document(.array(list))
        case .csv:
            var header: [String] = []
            for case .object(let object) in list {
                for member in object.members where !header.contains(member.key) { header.append(member.key) }
            }
            if header.isEmpty { header = ["id"] }
            func cell(_ value: Value?) -> String {
                switch value {
                case nil, .null?: return ""
                case .string(let s)?: return s.contains(where: { ",\"\n".contains($0) }) ? "\"" + s.replacing("\"", with: "\"\"") + "\"" : s
                case let other?: return JSONWriter.compact(other)
                }
            }
            let rows = list.map { record -> String in
                guard case .object(let object) = record else { return "" }
                return header.map { cell(object[$0]) }.joined(separator: ",")
            }
            return ([header.joined(separator: ",")] + rows).map { $0 + "\n" }.joined()
        default: return JSONWriter.compact(.array(list))
        }
    }

    /// Merges the three lists, written as files in `format`, and reads the result back (nil
    /// when it does not read: markers). CSV is read with `--csv-types infer`.
    static func merge(
        _ base: [Value], _ ours: [Value], _ theirs: [Value], prefer: FileMerger.Side? = nil,
        preference: FileMerger.Preference? = nil, comparison: Comparison = Comparison(), format: InputFormat = .json, in dir: URL
    ) throws -> (result: FileMerger.Result, merged: [Value]?) {
        var paths: [String] = []
        for (name, list) in [("base", base), ("ours", ours), ("theirs", theirs)] {
            let url = dir.appendingPathComponent("\(name).\(format.rawValue)")
            try text(list, format).write(to: url, atomically: true, encoding: .utf8)
            paths.append(url.path)
        }
        let differ = Differ(comparison: comparison)
        let files = FileDiffer(key: try IdentityKey(parsing: ["id"]), differ: differ, csvInfersTypes: true)
        let merger = FileMerger(files: files, preference: preference ?? prefer.map(FileMerger.Preference.init) ?? .init())
        let result = try merger.merge(base: paths[0], ours: paths[1], theirs: paths[2])
        var bytes: [UInt8] = []
        try merger.write(result, base: paths[0]) { bytes.append(contentsOf: $0) }
        guard case .array(let merged)? = try? files.reader.root(bytes, format, name: "merged").0 else { return (result, nil) }
        return (result, merged)
    }

    /// Records by key, as a dictionary of their compact text with members sorted and null
    /// ones left out (as CSV cannot tell a null from an absent field), for order-free
    /// comparisons.
    static func content(_ list: [Value]) -> [Int: String] {
        Dictionary(list.map { (id($0), JSONWriter.compact(canonical($0))) }, uniquingKeysWith: { a, _ in a })
    }

    static func canonical(_ record: Value) -> Value {
        guard case .object(let object) = record else { return record }
        return .object(Object(object.members.filter { $0.value != .null }.sorted { $0.key < $1.key }))
    }

    /// Checks a clean merge of disjoint edits: each record as the side that edited it has
    /// it, and the side that moved records keeps its order among the records it holds.
    static func expectDisjoint(_ merged: [Value], base: [Value], mine: Edits, yours: Edits, oursMoves: Bool, round: Int) {
        let ours = mine.applied(to: base), theirs = yours.applied(to: base)
        var expected = content(base)
        for id in base.map(id) where mine.deletes.contains(id) || yours.deletes.contains(id) { expected[id] = nil }
        for (id, text) in content(ours) where mine.changes[id] != nil || id >= 100 { expected[id] = text }
        for (id, text) in content(theirs) where yours.changes[id] != nil || id >= 200 { expected[id] = text }
        #expect(content(merged) == expected, "round \(round)")
        let mover = oursMoves ? ours : theirs
        let kept = Set(merged.map(id)), held = Set(mover.map(id))
        #expect(merged.map(id).filter(held.contains) == mover.map(id).filter(kept.contains), "round \(round): order")
    }

    static let formats: [InputFormat] = [.json, .yaml, .csv]

    @Test(arguments: formats) func disjointEditsMergeCleanly(format: InputFormat) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var rng = SplitMix64(seed: 320)
        for round in 0..<150 {
            var base = (0..<Int.random(in: 0..<12, using: &rng)).map { Self.record($0, &rng) }
            // (A CSV side that adds a column gives every row of it a cell, read as null: every
            // record changes. BASE holds every field the edits touch, so that none is added.)
            if format == .csv { base = base.map { Self.adding("d", 0, to: $0) } }
            let ids = base.map(Self.id)
            // Each record is edited by one side at most; only one side moves records.
            let mineIDs = ids.filter { $0 % 2 == 0 }, yoursIDs = ids.filter { $0 % 2 == 1 }
            let oursMoves = round % 2 == 0
            let mine = Self.edits(base, ids: mineIDs, fresh: 100, moves: oursMoves, &rng)
            let yours = Self.edits(base, ids: yoursIDs, fresh: 200, moves: !oursMoves, &rng)
            let ours = mine.applied(to: base), theirs = yours.applied(to: base)
            let (result, merged) = try Self.merge(base, ours, theirs, format: format, in: dir)
            #expect(result.conflicts.isEmpty, "round \(round): \(result.conflicts.map(\.kind))")
            guard let merged else {
                Issue.record("round \(round): the merge does not read")
                continue
            }
            Self.expectDisjoint(merged, base: base, mine: mine, yours: yours, oursMoves: oursMoves, round: round)
            // Ours and theirs swapped: the same records.
            let (_, swapped) = try Self.merge(base, theirs, ours, format: format, in: dir)
            #expect(swapped.map(Self.content) == Self.content(merged), "round \(round): swapped")
        }
    }

    @Test(arguments: formats) func oneSidedAndEqualMergesAreThatSide(format: InputFormat) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var rng = SplitMix64(seed: 321)
        for round in 0..<80 {
            let base = (0..<Int.random(in: 0..<10, using: &rng)).map { Self.record($0, &rng) }
            let x = Self.edits(base, ids: base.map(Self.id), fresh: 100, moves: true, &rng).applied(to: base)
            for (ours, theirs) in [(x, x), (base, x), (x, base)] {
                let (result, merged) = try Self.merge(base, ours, theirs, format: format, in: dir)
                #expect(result.conflicts.isEmpty, "round \(round)")
                #expect(merged?.map(Self.canonical) == x.map(Self.canonical), "round \(round)")
            }
        }
    }

    /// A record `{"id", "a", "b"}` (no `a` when nil).
    static func r(_ id: Int, _ a: Value?, _ b: Value = 0) -> Value {
        var members: [Object.Member] = [.init(key: "id", value: .number(Number(exactly: id)))]
        if let a { members.append(.init(key: "a", value: a)) }
        members.append(.init(key: "b", value: b))
        return .object(Object(members))
    }

    /// A preference per kind resolves those kinds and reports the rest. `delete` and `keep`
    /// choose by what a side did, not by which side it is.
    @Test func aPreferencePerKind() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        func r(_ id: Int, _ a: Value?, _ b: Value = 0) -> Value { Self.r(id, a, b) }
        let base = [r(1, 0), r(2, 0), r(3, 0), r(4, 0)]
        // 1: a field both changed; 2: deleted by OURS, changed by THEIRS; 3: changed by OURS,
        // deleted by THEIRS; 5: inserted twice, differently.
        let ours = [r(1, 1), r(3, 7), r(4, 0), r(5, 1)], theirs = [r(1, 2), r(2, 8), r(4, 0), r(5, 2)]
        func merged(_ text: String) throws -> (open: [String], records: [Int: String]?) {
            let (result, list) = try Self.merge(base, ours, theirs, preference: try FileMerger.Preference(parsing: text), in: dir)
            let open = result.conflicts.filter { $0.resolvedBy == nil }.map { "\($0.kind.rawValue) \(JSONWriter.compact($0.key))" }
            return (open.sorted(), list.map(Self.content))
        }
        let some = try merged("field=theirs")
        #expect(some.open == ["delete/modify 2", "delete/modify 3", "insert/insert 5"] && some.records == nil)
        // The deleting side wins, wherever it is.
        let deleting = try merged("field=theirs,delete=delete,insert=ours")
        #expect(deleting.open.isEmpty)
        #expect(deleting.records == Self.content([r(1, 2), r(4, 0), r(5, 1)]))
        // The changing side wins, wherever it is.
        let keeping = try merged("field=ours,delete/modify=keep,insert/insert=theirs")
        #expect(keeping.records == Self.content([r(1, 1), r(2, 8), r(3, 7), r(4, 0), r(5, 2)]))
        #expect(try merged("theirs").records == Self.content([r(1, 2), r(2, 8), r(4, 0), r(5, 2)]))
        for bad in ["", "x", "field", "field=keep", "order=delete", "field=ours,field=theirs", "bogus=ours"] {
            #expect(throws: ListDiffError.self, "\(bad)") { try FileMerger.Preference(parsing: bad) }
        }
    }

    /// Each kind of overlapping edit is a conflict, none is lost, and a preference takes
    /// that side's record whole where the sides clash.
    @Test(arguments: formats) func overlappingEditsAreConflicts(format: InputFormat) throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        func r(_ id: Int, _ a: Value?, _ b: Value = 0) -> Value { Self.r(id, a, b) }
        let base = [r(1, 0), r(2, 0), r(3, 0), r(4, 0)]
        let ours = [r(1, 1), r(3, 1), r(4, nil, 0), r(5, 1), r(2, 0, 9)]
        let theirs = [r(1, 2), r(2, 0), r(3, 0), r(4, 3), r(5, 2)]
        let (result, merged) = try Self.merge(base, ours, theirs, format: format, in: dir)
        #expect(merged == nil, "markers: the file does not read")
        // 1: `a` changed to 1 and to 2; 4: `a` removed and changed; 5: inserted twice,
        // differently. Records 2 and 3 only ours changed (2 it moved too): no conflict.
        let kinds = result.conflicts.map { "\($0.kind.rawValue) \(JSONWriter.compact($0.key))" }.sorted()
        #expect(kinds == ["field 1", "field 4", "insert/insert 5"], "\(kinds)")
        for side in FileMerger.Side.allCases {
            let (resolved, list) = try Self.merge(base, ours, theirs, prefer: side, format: format, in: dir)
            #expect(resolved.conflicts.allSatisfy { $0.resolvedBy == side })
            let winner = Self.content(side == .ours ? ours : theirs)
            let got = Self.content(list ?? [])
            for id in [1, 4, 5] { #expect(got[id] == winner[id], "\(side) \(id)") }
        }
        // A record deleted on one side and changed on the other.
        let (deleted, _) = try Self.merge(
            base, [r(1, 0), r(2, 0), r(3, 0)], [r(1, 0), r(2, 0), r(3, 0), r(4, 7)], format: format, in: dir)
        #expect(deleted.conflicts.map(\.kind) == [.deleteModify])
        #expect(deleted.conflicts.first?.ours == nil && deleted.conflicts.first?.theirs.map(Self.canonical) == Self.canonical(r(4, 7)))
        // Both sides the same change: one change, no conflict.
        let (same, list) = try Self.merge(base, [r(1, 5)] + base.dropFirst(), [r(1, 5)] + base.dropFirst(), format: format, in: dir)
        #expect(same.conflicts.isEmpty && list?.first.map(Self.canonical) == Self.canonical(r(1, 5)))
    }

    /// A record whose `lines` list is keyed by `id` (`--array-key /lines=id`).
    static func order(_ lines: [Value]) -> Value {
        .object(Object([.init(key: "id", value: 0), .init(key: "lines", value: .array(lines))]))
    }

    static func lines(_ record: Value?) -> [Value]? {
        guard case .object(let object)? = record, case .array(let lines)? = object["lines"] else { return nil }
        return lines
    }

    static let linesKeyed: Comparison = {
        var comparison = Comparison()
        comparison.arrayKeys = try! Comparison.ArrayKey.parsing(["/lines=id"])
        return comparison
    }()

    /// The same random edits as `disjointEditsMergeCleanly`, made to a keyed list inside
    /// one record: the list merges element by element, as records do.
    @Test func disjointEditsInsideAKeyedListMergeCleanly() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        var rng = SplitMix64(seed: 322)
        for round in 0..<150 {
            let base = (0..<Int.random(in: 0..<12, using: &rng)).map { Self.record($0, &rng) }
            let ids = base.map(Self.id)
            let oursMoves = round % 2 == 0
            let mine = Self.edits(base, ids: ids.filter { $0 % 2 == 0 }, fresh: 100, moves: oursMoves, &rng)
            let yours = Self.edits(base, ids: ids.filter { $0 % 2 == 1 }, fresh: 200, moves: !oursMoves, &rng)
            let ours = mine.applied(to: base), theirs = yours.applied(to: base)
            let (result, records) = try Self.merge(
                [Self.order(base)], [Self.order(ours)], [Self.order(theirs)], comparison: Self.linesKeyed, in: dir)
            #expect(result.conflicts.isEmpty, "round \(round): \(result.conflicts.map(\.paths))")
            guard let merged = Self.lines(records?.first) else {
                Issue.record("round \(round): the merge does not read")
                continue
            }
            Self.expectDisjoint(merged, base: base, mine: mine, yours: yours, oursMoves: oursMoves, round: round)
            // Without the key, the list is one value that both sides changed: a conflict,
            // unless only one side changed it.
            if ours != base && theirs != base && ours != theirs {
                let (unkeyed, _) = try Self.merge([Self.order(base)], [Self.order(ours)], [Self.order(theirs)], in: dir)
                #expect(unkeyed.conflicts.first?.paths == ["/lines"], "round \(round)")
            }
        }
    }

    /// Inside a keyed list: a field both sides changed, an element deleted and changed,
    /// and one moved to two places are conflicts, named by key.
    @Test func overlappingEditsInsideAKeyedListAreConflictsNamedByKey() throws {
        let dir = try FastPathTests.directory()
        defer { try? FileManager.default.removeAtPath(dir) }
        func line(_ id: Int, _ a: Int) -> Value {
            .object(Object([.init(key: "id", value: .number(Number(exactly: id))), .init(key: "a", value: .number(Number(exactly: a)))]))
        }
        let base = [line(1, 0), line(2, 0), line(3, 0), line(4, 0)]
        let cases: [(ours: [Value], theirs: [Value], paths: [String])] = [
            ([line(1, 1), line(2, 0), line(3, 0), line(4, 0)], [line(1, 2), line(2, 0), line(3, 0), line(4, 0)], ["/lines[id=1]/a"]),
            ([line(1, 0), line(3, 0), line(4, 0)], [line(1, 0), line(2, 5), line(3, 0), line(4, 0)], ["/lines[id=2]"]),
            // (1 moved to the end, and after 3.)
            ([line(2, 0), line(3, 0), line(4, 0), line(1, 0)], [line(2, 0), line(3, 0), line(1, 0), line(4, 0)], ["/lines[id=1]"]),
            // (5 inserted twice, differently and at two places: one path.)
            (
                [line(1, 0), line(2, 0), line(3, 0), line(4, 0), line(5, 1)], [line(5, 2), line(1, 0), line(2, 0), line(3, 0), line(4, 0)],
                ["/lines[id=5]"]
            ),
        ]
        for (ours, theirs, paths) in cases {
            let (result, merged) = try Self.merge(
                [Self.order(base)], [Self.order(ours)], [Self.order(theirs)], comparison: Self.linesKeyed, in: dir)
            #expect(merged == nil, "markers: the file does not read")
            #expect(result.conflicts.map(\.kind) == [.field])
            #expect(result.conflicts.first?.paths == paths)
            for side in FileMerger.Side.allCases {
                let (_, list) = try Self.merge(
                    [Self.order(base)], [Self.order(ours)], [Self.order(theirs)], prefer: side, comparison: Self.linesKeyed, in: dir)
                #expect(Self.lines(list?.first) == (side == .ours ? ours : theirs), "\(side) \(paths)")
            }
        }
    }
}
