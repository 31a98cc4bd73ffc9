import Dispatch

/// The engine's scan of one JSON or NDJSON input: it finds the records (at `--path`, in a
/// plain list or in sections), keeps each record's place, hash and key hash in a
/// `RecordTable`, builds values only for section objects' own members, and checks the whole
/// text as `JSONReader` does, with the same errors at the same places.
///
/// A large input is scanned in parts at once, one per core. Every part after the first
/// starts at a record start guessed near its share of the input (`splitPoint`) and, knowing
/// the shape of the layout, reads on across the ends of sections. The part before it stops
/// at the first record that starts at or after that place: when that is exactly the guess,
/// the two join; when not (the guess fell inside a record), the part goes on alone.
struct JSONScan {
    let file: MappedFile
    let lines: Bool
    let key: IdentityKey
    let keys: KeyTrie
    let options: LayoutOptions
    let maxDepth: Int
    let keyHashing: KeyHashing
    /// OLD's records, when this is NEW scanned against them.
    let old: OldRecords?
    /// Hand back pages behind the scan (NEW's: few are read again).
    let release: Bool
    let progress: Progress?
    /// How many parts a large input is scanned in, and from what size.
    var parts = 2
    var splitsFrom = 1 << 20
    /// Whether NEW, scanned against OLD, keeps each record's hash too (under comparison
    /// rules, for the fingerprint of what `apply` makes).
    var keepsHashes = false

    var bytes: UnsafeBufferPointer<UInt8> { file.bytes }

    /// Skips a byte order mark at the text's start, unless the text is a part of an input
    /// that starts inside it (where such bytes are a line's text, as in memory).
    func skipByteOrderMark(_ parser: inout JSONParser) {
        if !file.startsMidText { parser.skipByteOrderMark() }
    }
    var what: String { options.path.map { "the value at \($0.spelling)" } ?? "the top level" }

    /// The scan of the input as `shape`, or as the shape its start suggests.
    func scan(as forced: ContainerShape? = nil) throws(ListDiffError) -> ScannedDocument {
        if let path = options.path, path.isPattern {
            try Layout.checkPattern(options)
            do throws(JSONParseFailure) {
                let scanned = try patternScan(path)
                if release { file.release(0..<bytes.count) }
                return scanned
            } catch {
                throw file.placed(error.error(file: file.name, in: bytes))
            }
        }
        do throws(JSONParseFailure) {
            let probe: Probe?
            if let forced { probe = Probe(shape: forced) } else { probe = try self.probe() }
            var guesses: [Int] = []
            if parts > 1, bytes.count >= splitsFrom, let probe, probe.splittable {
                guesses = Self.splitPoints(
                    bytes, lines: lines, count: parts, after: probe.firstRecord,
                    opener: probe.shape == .map ? UInt8(ascii: "\"") : UInt8(ascii: "{"))
            }
            let splits = guesses
            let shape = forced ?? probe?.shape
            let stops = splits + [Int.max]
            let results = UnsafeMutableBufferPointer<ScanPart?>.allocate(capacity: stops.count)
            results.initialize(repeating: nil)
            defer { results.deinitialize(); results.deallocate() }
            nonisolated(unsafe) let out = results
            let recordDepth = probe?.recordDepth ?? 1
            DispatchQueue.concurrentPerform(iterations: stops.count) { k in
                if k == 0 {
                    out[0] = self.head(shape: shape, stop: stops[0])
                } else {
                    out[k] = self.continuation(
                        from: splits[k - 1], shape: shape ?? .list, depth: recordDepth,
                        stop: stops[k])
                }
            }
            var document = results[0]!
            var next = 1
            while document.failure == nil, let paused = document.pausedAt {
                let later: ScanPart
                if next < stops.count, splits[next - 1] == paused {
                    later = results[next]!
                    next += 1
                } else {
                    // A wrong guess: this part goes on alone, up to the next guess after it.
                    while next < stops.count, splits[next - 1] <= paused { next += 1 }
                    later = continuation(
                        from: paused, shape: document.shape, depth: document.recordDepth,
                        stop: next < stops.count ? splits[next - 1] : .max)
                }
                document.join(later)
            }
            if let failure = document.failure { throw failure }
            if next > 1 {
                // Objects that spanned parts: each part saw only some of their names.
                for section in document.sections where !section.members.isEmpty { try checkMembers(section) }
                if document.shape == .objectOfLists, document.containerEnd != nil {
                    try JSONParser.checkNames(&document.containerNames, objectAt: document.containerOffset, in: bytes, maxDepth: maxDepth)
                }
            }
            if let end = document.containerEnd, !document.finished {
                var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
                parser.index = end
                parser.depth = document.enclosureDepth
                try finish(&parser, document.enclosures)
            }
            // An object at the top level that may be one record carrying the key (see `lone`).
            if document.shape == .map && document.loneCandidate || document.layoutProblem?.wrapper != nil,
                options == LayoutOptions(), !lines, !key.fields.isEmpty || key.isWholeRecord,
                let lone = try lone(fallback: document.layoutProblem == nil),
                lone.firstUnkeyed == nil
            {
                if release { file.release(0..<bytes.count) }
                return lone
            }
            if release { file.release(0..<bytes.count) }
            return document.scanned
        } catch {
            throw file.placed(error.error(file: file.name, in: bytes))
        }
    }

    /// The lists that a path with `*` names, each a section named by its JSON Pointer, in one
    /// pass (in one part: such documents are rarely large). A value it names that is not a
    /// list is a layout problem; a place it does not reach is no list, not an error.
    func patternScan(_ path: FieldPath) throws(JSONParseFailure) -> ScannedDocument {
        var part = ScanPart(
            table: RecordTable(capacity: max(16, bytes.count / 64), against: old != nil, keepsHashes: old == nil || keepsHashes))
        part.shape = .pattern
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.recordsOffsets = false
        skipByteOrderMark(&parser)
        let state = PartState(scan: self, table: part.table, startsList: true)
        if lines {
            // (NDJSON: the first step picks lines, as for any path; a line is one level
            // deep, as in a list.)
            parser.depth = NestingLimit.topLevelRecord
            var k = 0
            let first = path.components[0]
            while true {
                parser.skipWhitespace()
                if parser.index >= bytes.count { break }
                let start = parser.index
                if first == "*" || String(k) == first {
                    try walk(&parser, path.components.dropFirst(), pointer: "/\(k)", &part, state)
                } else {
                    _ = try parser.hashValue()
                }
                try parser.endOfLine(recordStart: start)
                k += 1
            }
        } else {
            try walk(&parser, path.components[...], pointer: "", &part, state)
            parser.skipWhitespace()
            if parser.index < bytes.count { throw parser.fail("unexpected \(parser.describe(parser.index)) after the JSON value") }
        }
        state.done(&part, at: parser.index)
        part.containerOffset = part.sections.first?.offset ?? 0
        part.recordDepth = path.components.count + 1
        return part.scanned
    }

    /// The value at the parser, where `steps` of the pattern are left to match and
    /// `pointer` says where it is: read through, with the lists the steps name scanned as
    /// sections.
    func walk(
        _ parser: inout JSONParser, _ steps: ArraySlice<String>, pointer: String, _ part: inout ScanPart, _ state: PartState
    ) throws(JSONParseFailure) {
        parser.skipWhitespace()
        guard parser.index < bytes.count else { throw parser.fail("expected a JSON value, found the end of the input") }
        let start = parser.index
        guard let step = steps.first else {
            guard bytes[start] == UInt8(ascii: "[") else {
                if part.layoutProblem == nil, let path = options.path {
                    part.layoutProblem = .notAList(pointer, JSONParser.typeName(bytes[start]), pattern: path, at: start)
                }
                _ = try parser.hashValue()
                return
            }
            state.openSection(&part, ScannedSection(memberName: pointer, offset: start))
            state.scoped = true
            state.sectionName = CanonicalHash.string(pointer)
            var opening = true
            if try parser.nextElement(opening: &opening) {
                while true {
                    try state.record(&parser)
                    var next = false
                    if try !parser.nextElement(opening: &next) { break }
                }
            }
            state.closeList(&part)
            return
        }
        switch bytes[start] {
        case UInt8(ascii: "{"):
            var names: [UInt64] = [], opening = true
            while let name = try parser.nextMember(opening: &opening) {
                names.append(CanonicalHash.string(name).a)
                if step == "*" || name.scalarEquals(step) {
                    try walk(&parser, steps.dropFirst(), pointer: pointer + "/" + FieldPath.escape(name), &part, state)
                } else {
                    _ = try parser.hashValue()
                }
            }
            try JSONParser.checkNames(&names, objectAt: start, in: bytes, maxDepth: maxDepth)
        case UInt8(ascii: "["):
            var k = 0, opening = true
            while try parser.nextElement(opening: &opening) {
                if step == "*" || String(k) == step {
                    try walk(&parser, steps.dropFirst(), pointer: pointer + "/\(k)", &part, state)
                } else {
                    _ = try parser.hashValue()
                }
                k += 1
            }
        default:
            _ = try parser.hashValue()
        }
    }

    /// What the start of the input says about its layout, before its records are read.
    struct Probe {
        var shape: ContainerShape
        var firstRecord = 0
        var recordDepth = 1
        /// Whether parts may start at guessed record starts (a guess must be able to tell a
        /// record start, and the parts know how to go on across sections).
        var splittable = false
    }

    /// Finds the container (following `--path`, skipping what lies before it) and guesses its
    /// shape from its first element; nil when it is not found (the head then reports why).
    func probe() throws(JSONParseFailure) -> Probe? {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.recordsOffsets = false
        skipByteOrderMark(&parser)
        let path = options.path?.components ?? []
        if lines {
            guard path.isEmpty else { return nil }
            let shape = decideArrayShape(parser, lines: true)
            return Probe(shape: shape, firstRecord: 0, recordDepth: NestingLimit.topLevelRecord, splittable: shape == .list)
        }
        parser.skipWhitespace()
        // Where the path leads nowhere, the head reads the input again and reports why.
        var enclosures: [Enclosure] = [], problem: LayoutProblem? = nil
        for step in path {
            guard try navigate(&parser, to: step, &problem, &enclosures) else { return nil }
        }
        guard parser.index < bytes.count else { return nil }
        let depth = parser.depth
        switch bytes[parser.index] {
        case UInt8(ascii: "["):
            let shape = decideArrayShape(parser, lines: false)
            var first = parser
            _ = try? first.openIsEmpty(close: UInt8(ascii: "]"))
            first.skipWhitespace()
            let recordDepth = shape == .list ? depth + 1 : depth + 3
            return Probe(shape: shape, firstRecord: first.index, recordDepth: recordDepth, splittable: true)
        case UInt8(ascii: "{"):
            guard options.items == nil, options.sectionKey == nil else { return nil }
            let shape = decideObjectShape(parser)
            var first = parser
            _ = try? first.openIsEmpty(close: UInt8(ascii: "}"))
            first.skipWhitespace()
            return Probe(shape: shape, firstRecord: first.index, recordDepth: depth + (shape == .map ? 1 : 2), splittable: true)
        default:
            return nil
        }
    }

    /// Whether the object at the parser (at its `{`) is a map of records or an object of
    /// lists, judged on its first member as the scan then holds every member to it: an
    /// object makes a map, anything else (or no member) an object of lists.
    func decideObjectShape(_ start: JSONParser) -> ContainerShape {
        var parser = start
        var opening = true
        guard (try? parser.nextMember(opening: &opening)) != nil, parser.index < bytes.count,
            bytes[parser.index] == UInt8(ascii: "{")
        else { return .objectOfLists }
        return .map
    }

    /// `lone()`, or nil where `fallback` and the object, read as one record, would nest past
    /// the limit (a record counts one level deeper than a map's members): the input then
    /// reads as it was first read, a map with a member named like the key.
    func lone(fallback: Bool) throws(JSONParseFailure) -> ScannedDocument? {
        do throws(JSONParseFailure) {
            return try lone()
        } catch {
            if fallback, error.kind == .limit { return nil }
            throw error
        }
    }

    /// The input read as one record: an object at the top level that is not an object of
    /// lists, and carries the key, is one (as a lone YAML mapping is). Nil when the input
    /// is not an object.
    func lone() throws(JSONParseFailure) -> ScannedDocument? {
        var part = ScanPart(table: RecordTable(capacity: 1, keepsHashes: true))
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.recordsOffsets = false
        skipByteOrderMark(&parser)
        parser.skipWhitespace()
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "{") else { return nil }
        let start = parser.index
        parser.depth = NestingLimit.topLevelRecord
        let state = PartState(scan: self, table: part.table, startsList: false)
        state.openSection(&part, ScannedSection(offset: start))
        try state.record(&parser)
        try finish(&parser, [])
        state.closeList(&part)
        state.done(&part, at: parser.index)
        part.containerOffset = start
        part.recordDepth = NestingLimit.topLevelRecord
        var scanned = part.scanned
        scanned.lone = true
        return scanned
    }

    /// Whether the list at the parser (JSON: at its `[`; NDJSON: the lines) holds records or
    /// section objects, judged on its first element as `ScannedDocument.layout` judges all of them:
    /// section objects lack the record key and hold a list in a member named like
    /// `LayoutOptions.itemsCandidates`. The scan checks the guess on every element.
    func decideArrayShape(_ start: JSONParser, lines: Bool) -> ContainerShape {
        var parser = start
        parser.recordsOffsets = false
        let explicit = options.items != nil || options.sectionKey != nil
        // Without a first object to judge: sections only when section options are given.
        let fallback: ContainerShape = explicit ? .sectionList(items: options.items ?? LayoutOptions.itemsCandidates[0]) : .list
        if !lines {
            guard (try? parser.openIsEmpty(close: UInt8(ascii: "]"))) == false else { return fallback }
        }
        parser.skipWhitespace()
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "{") else { return fallback }
        // The first element's members; lists in members named like records lists are
        // skipped (one may be a whole section) and stand as empty lists.
        var members: [Object.Member] = []
        var lists: [String] = []
        let candidates = options.items.map { [$0] } ?? LayoutOptions.itemsCandidates
        do throws(JSONParseFailure) {
            var opening = true
            while let name = try parser.nextMember(opening: &opening) {
                if candidates.contains(name), parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "["),
                    let end = JSONParser.skipFast(bytes, from: parser.index)
                {
                    parser.index = end
                    lists.append(name)
                    members.append(Object.Member(key: name, value: .array([])))
                } else {
                    members.append(Object.Member(key: name, value: try parser.parseValue()))
                }
            }
        } catch {
            return fallback
        }
        let items = candidates.first { lists.contains($0) }
        if explicit { return items.map { .sectionList(items: $0) } ?? fallback }
        guard let items, !key.fields.contains(where: { lists.contains($0.components[0]) }),
            case .failure(let failure) = key.identify(.object(Object(members))), failure.isMissing
        else { return .list }
        return .sectionList(items: items)
    }

    /// Up to `count - 1` guessed record starts after `after`, one near each share of the input:
    /// in NDJSON a line's start; in JSON an `opener` (`{`, or a map's member name's `"`)
    /// after a `,` and white space, preferably at a line's start. Increasing; may be fewer.
    static func splitPoints(
        _ bytes: UnsafeBufferPointer<UInt8>, lines: Bool, count: Int, after: Int, opener: UInt8 = UInt8(ascii: "{")
    ) -> [Int] {
        var points: [Int] = []
        for k in 1..<max(1, count) {
            let from = max(after + 1, bytes.count * k / count, (points.last ?? 0) + 1)
            guard from < bytes.count, let point = splitPoint(bytes, lines: lines, from: from, opener: opener) else { continue }
            if point > (points.last ?? after) { points.append(point) }
        }
        return points
    }

    /// The first likely record start from `from` on (see `splitPoints`), or nil.
    static func splitPoint(
        _ bytes: UnsafeBufferPointer<UInt8>, lines: Bool, from middle: Int, opener: UInt8 = UInt8(ascii: "{")
    ) -> Int? {
        let n = bytes.count
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        func nextToken(from k: Int) -> Int {
            var k = k
            while k < n, isSpace(bytes[k]) { k += 1 }
            return k
        }
        func precededByComma(_ k: Int) -> Bool {
            var q = k - 1
            while q >= 0, isSpace(bytes[q]) { q -= 1 }
            return q >= 0 && bytes[q] == UInt8(ascii: ",")
        }
        let window = min(n, middle + (1 << 20))
        if lines {
            guard let base = bytes.baseAddress, middle < n, let newline = SystemCalls.find(0x0A, in: base + middle, count: n - middle)
            else { return nil }
            let k = nextToken(from: UnsafeRawPointer(newline) - UnsafeRawPointer(base) + 1)
            return k < n ? k : nil
        }
        var comma: Int? = nil
        var k = middle
        while k < window {
            if bytes[k] == 0x0A {
                let q = nextToken(from: k + 1)
                if q < n, bytes[q] == opener, precededByComma(k) { return q }
                k = q
                continue
            }
            if comma == nil, bytes[k] == UInt8(ascii: ","), case let q = nextToken(from: k + 1), q < n, bytes[q] == opener {
                comma = q
            }
            k += 1
        }
        return comma
    }

    // MARK: - The head: from the start of the input to the container

    /// Scans from the start: follows `--path` to the container, opens it as `shape` (or
    /// reports why it cannot), and reads its records up to `stop`.
    func head(shape: ContainerShape?, stop: Int) -> ScanPart {
        var part = ScanPart(
            table: RecordTable(capacity: max(16, bytes.count / 64), against: old != nil, keepsHashes: old == nil || keepsHashes))
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.recordsOffsets = false
        let state = PartState(scan: self, table: part.table, startsList: true)
        do throws(JSONParseFailure) {
            skipByteOrderMark(&parser)
            var enclosures: [Enclosure] = []
            let path = options.path?.components ?? []
            var steps = path[...]
            if lines {
                // A line is one level deep, as in a list.
                parser.depth = NestingLimit.topLevelRecord
                if let step = steps.first {
                    // The first step picks a line.
                    guard try navigateLines(&parser, to: step, &part) else { return part }
                    enclosures.append(.line(start: parser.index))
                    steps = steps.dropFirst()
                } else {
                    part.shape = shape ?? decideArrayShape(parser, lines: true)
                    part.containerOffset = parser.index
                    part.recordDepth = NestingLimit.topLevelRecord
                    part.enclosureDepth = 0
                    try openContainer(&parser, &part, state, stop: stop, lines: true)
                    state.done(&part, at: parser.index)
                    return part
                }
            } else {
                parser.skipWhitespace()
                if parser.index >= bytes.count { throw parser.fail("expected a JSON value, found the end of the input") }
            }
            for step in steps {
                guard try navigate(&parser, to: step, &part.layoutProblem, &enclosures) else {
                    try finish(&parser, enclosures)
                    part.finished = true
                    return part
                }
            }
            parser.skipWhitespace()
            guard parser.index < bytes.count else { throw parser.fail("expected a JSON value, found the end of the input") }
            part.enclosures = enclosures
            part.enclosureDepth = parser.depth
            part.containerOffset = parser.index
            let explicit = options.items != nil || options.sectionKey != nil
            switch bytes[parser.index] {
            case UInt8(ascii: "["):
                part.shape = shape ?? decideArrayShape(parser, lines: false)
            case UInt8(ascii: "{") where !explicit:
                part.shape = shape ?? decideObjectShape(parser)
            default:
                let start = parser.index
                let typeName = JSONParser.typeName(bytes[start])
                part.layoutProblem = .noRecords(what, typeName, sectionOptions: explicit, at: start)
                _ = try parser.hashValue()
                try finish(&parser, enclosures)
                part.finished = true
                return part
            }
            part.recordDepth = parser.depth + (part.shape == .list || part.shape == .map ? 1 : part.shape == .objectOfLists ? 2 : 3)
            try openContainer(&parser, &part, state, stop: stop, lines: false)
            if part.containerEnd != nil, part.pausedAt == nil {
                try finish(&parser, enclosures)
                part.finished = true
            }
        } catch {
            part.failure = error
        }
        state.done(&part, at: parser.index)
        return part
    }

    /// Walks one step of `--path` into the value at the parser; false (with the problem
    /// noted and the value read through) when there is no such member or index.
    func navigate(_ parser: inout JSONParser, to step: String, _ problem: inout LayoutProblem?, _ enclosures: inout [Enclosure])
        throws(JSONParseFailure) -> Bool
    {
        parser.skipWhitespace()
        guard parser.index < bytes.count else { throw parser.fail("expected a JSON value, found the end of the input") }
        let start = parser.index
        let spelling = options.path?.spelling ?? ""
        switch bytes[start] {
        case UInt8(ascii: "{"):
            var names: [UInt64] = [], opening = true
            while let name = try parser.nextMember(opening: &opening) {
                names.append(CanonicalHash.string(name).a)
                if name.scalarEquals(step) {
                    enclosures.append(.object(start: start, names: names))
                    return true
                }
                _ = try parser.hashValue()
            }
            try JSONParser.checkNames(&names, objectAt: start, in: bytes, maxDepth: maxDepth)
            problem = LayoutProblem(offset: start, message: "there is no \(spelling) here: no member \"\(step)\"")
        case UInt8(ascii: "["):
            let wanted = Int(step).flatMap { String($0) == step ? $0 : nil }
            var count = 0, opening = true
            while try parser.nextElement(opening: &opening) {
                if count == wanted {
                    enclosures.append(.array)
                    return true
                }
                _ = try parser.hashValue()
                count += 1
            }
            problem = LayoutProblem(offset: start, message: "there is no \(spelling) here: no index \(step) in a list of \(count)")
        default:
            let typeName = JSONParser.typeName(bytes[start])
            _ = try parser.hashValue()
            problem = LayoutProblem(
                offset: start, message: "there is no \(spelling) here: \(typeName.withArticle) has no member \"\(step)\"")
        }
        return false
    }

    /// The first step of `--path` in NDJSON: the line it names; false when there is none.
    func navigateLines(_ parser: inout JSONParser, to step: String, _ part: inout ScanPart) throws(JSONParseFailure) -> Bool {
        let wanted = Int(step).flatMap { String($0) == step ? $0 : nil }
        var count = 0
        while true {
            parser.skipWhitespace()
            if parser.index >= bytes.count { break }
            if count == wanted { return true }
            let start = parser.index
            _ = try parser.hashValue()
            try parser.endOfLine(recordStart: start)
            count += 1
        }
        let spelling = options.path?.spelling ?? ""
        part.layoutProblem = LayoutProblem(offset: 0, message: "there is no \(spelling) here: no index \(step) in a list of \(count)")
        part.finished = true
        return false
    }

    /// Checks the rest of the input after a value inside `enclosures` (innermost last):
    /// the rest of each, then nothing but white space.
    func finish(_ parser: inout JSONParser, _ enclosures: [Enclosure]) throws(JSONParseFailure) {
        for enclosure in enclosures.reversed() {
            switch enclosure {
            case .object(let start, var names):
                var opening = false
                while let name = try parser.nextMember(opening: &opening) {
                    names.append(CanonicalHash.string(name).a)
                    _ = try parser.hashValue()
                }
                try JSONParser.checkNames(&names, objectAt: start, in: bytes, maxDepth: maxDepth)
            case .array:
                var opening = false
                while try parser.nextElement(opening: &opening) { _ = try parser.hashValue() }
            case .line(let start):
                try parser.endOfLine(recordStart: start)
                while true {
                    parser.skipWhitespace()
                    if parser.index >= bytes.count { return }
                    let lineStart = parser.index
                    _ = try parser.hashValue()
                    try parser.endOfLine(recordStart: lineStart)
                }
            }
        }
        try parser.end()
    }

    // MARK: - The container

    /// Where the scan of the container is.
    enum Position {
        /// At a records list's `[` (NDJSON: at the start of the lines).
        case atList
        /// At a record's start, white space skipped.
        case atRecord
        /// Just after a records list's end.
        case listClosed
        /// At the container's `{` (object of lists) or `[` (list of section objects; NDJSON:
        /// at the start of the lines).
        case atContainer
    }

    /// Scans the container at the parser (`[` or `{`; NDJSON: the lines).
    func openContainer(_ parser: inout JSONParser, _ part: inout ScanPart, _ state: PartState, stop: Int, lines: Bool)
        throws(JSONParseFailure)
    {
        if part.shape == .list {
            part.sections.append(ScannedSection(offset: parser.index))
            state.folds = true
            try run(&parser, from: .atList, &part, state, stop: stop, lines: lines)
        } else if part.shape == .map {
            part.sections.append(ScannedSection(offset: parser.index))
            state.folds = true
            state.beginMap(&part, head: true)
            try run(&parser, from: .atContainer, &part, state, stop: stop, lines: false)
        } else {
            try run(&parser, from: .atContainer, &part, state, stop: stop, lines: lines)
        }
    }

    /// A part after the first: from a record start (guessed, or where the part before
    /// stopped) to the first record at or after `stop`, or to the container's end.
    func continuation(from start: Int, shape: ContainerShape, depth: Int, stop: Int) -> ScanPart {
        var part = ScanPart(table: RecordTable(capacity: max(16, bytes.count / 128), against: old != nil, keepsHashes: true))
        part.shape = shape
        part.recordDepth = depth
        var section = ScannedSection(offset: start)
        section.began = false
        part.sections.append(section)
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.recordsOffsets = false
        parser.index = start
        parser.depth = depth
        let state = PartState(scan: self, table: part.table, startsList: false, from: start)
        state.folds = false
        if shape == .map { state.beginMap(&part, head: false) }
        do throws(JSONParseFailure) {
            try run(&parser, from: .atRecord, &part, state, stop: stop, lines: lines && shape == .list)
        } catch {
            part.failure = error
        }
        state.done(&part, at: parser.index)
        return part
    }

    /// The container's state machine: records lists, and between them the members of the
    /// object of lists or the section objects, until `stop` or the container's end.
    func run(
        _ parser: inout JSONParser, from position: Position, _ part: inout ScanPart, _ state: PartState,
        stop: Int, lines: Bool
    ) throws(JSONParseFailure) {
        var position = position
        // NDJSON's lines are the records only in a plain list; section objects hold theirs
        // in JSON lists inside their line.
        let recordLines = lines && part.shape == .list
        while true {
            switch position {
            case .atList:
                // Into the list: at its first record, or closed at once when it is empty.
                var opening = true
                if recordLines {
                    parser.skipWhitespace()
                    position = parser.index < bytes.count ? .atRecord : .listClosed
                } else {
                    position = try parser.nextElement(opening: &opening) ? .atRecord : .listClosed
                }
                if position == .listClosed { state.closeList(&part) }
            case .atRecord where part.shape == .map:
                // A map's members, each at its name's opening quote.
                while true {
                    if parser.index >= stop {
                        part.pausedAt = parser.index
                        return
                    }
                    try state.member(&parser, &part)
                    var opening = false
                    if try !parser.nextItem(opening: &opening, close: UInt8(ascii: "}"), "object") { break }
                    parser.skipWhitespace()
                }
                // (A name given twice is a key found twice: the engine's index finds it.)
                state.closeList(&part)
                part.containerEnd = parser.index
                return
            case .atRecord:
                while true {
                    if parser.index >= stop {
                        part.pausedAt = parser.index
                        return
                    }
                    let start = parser.index
                    try state.record(&parser)
                    // The next record, or the list's end.
                    if recordLines {
                        try parser.endOfLine(recordStart: start)
                        parser.skipWhitespace()
                        if parser.index >= bytes.count { break }
                    } else {
                        var opening = false
                        if try !parser.nextElement(opening: &opening) { break }
                    }
                }
                state.closeList(&part)
                position = .listClosed
            case .listClosed, .atContainer:
                let first = position == .atContainer
                switch part.shape {
                case .list, .pattern:
                    // (A pattern's lists are read by `walk`, each to its end.)
                    part.containerEnd = parser.index
                    return
                case .map:
                    // (Only at its `{`: its members are read as records, to its end.)
                    var opening = true
                    if try parser.nextItem(opening: &opening, close: UInt8(ascii: "}"), "object") {
                        parser.skipWhitespace()
                        position = .atRecord
                    } else {
                        state.closeList(&part)
                        part.containerEnd = parser.index
                        return
                    }
                case .objectOfLists:
                    var opening = first
                    guard let name = try parser.nextMember(opening: &opening) else {
                        part.containerEnd = parser.index
                        // Names in an earlier part are checked once the parts are joined.
                        if part.sections.first?.began ?? true {
                            try JSONParser.checkNames(&part.containerNames, objectAt: part.containerOffset, in: bytes, maxDepth: maxDepth)
                        }
                        return
                    }
                    position = try objectMember(name, &parser, &part, state) ? .atList : .listClosed
                case .sectionList(let items):
                    if !first {
                        // The rest of the section object's members.
                        var opening = false
                        while let name = try parser.nextMember(opening: &opening) {
                            let value = try parser.parseValue()
                            part.sections[part.sections.count - 1].members.append(Object.Member(key: name, value: value))
                        }
                        // A section object that began in an earlier part is checked once the parts are joined.
                        if let section = part.sections.last, section.began { try checkMembers(section) }
                    }
                    guard try nextSection(&parser, &part, state, items: items, lines: lines, first: first) else {
                        part.containerEnd = parser.index
                        return
                    }
                    position = .atList
                }
            }
        }
    }

    /// One member of the object of lists, its name read: true when its value is a list, a
    /// new section's records (the parser at its `[`); false when it is not (the problem
    /// noted, the value checked).
    func objectMember(_ name: String, _ parser: inout JSONParser, _ part: inout ScanPart, _ state: PartState)
        throws(JSONParseFailure) -> Bool
    {
        part.containerNames.append(CanonicalHash.string(name).a)
        let start = parser.index
        if start < bytes.count, bytes[start] == UInt8(ascii: "[") { part.listMembers.append(name) }
        if start < bytes.count, bytes[start] == UInt8(ascii: "["), part.layoutProblem == nil {
            state.openSection(&part, ScannedSection(memberName: name, offset: start))
            return true
        }
        if part.layoutProblem == nil, start < bytes.count {
            let typeName = JSONParser.typeName(bytes[start])
            part.layoutProblem = .memberNotAList(what, member: name, typeName, at: start, under: options.path)
        }
        _ = try parser.hashValue()
        return false
    }

    /// Reads the next element of a list of section objects, up to the records list in its
    /// `items` member (true, the parser at its `[`), or to the container's end (false). An
    /// element that is not an object, or has no records list, is noted and read through.
    func nextSection(
        _ parser: inout JSONParser, _ part: inout ScanPart, _ state: PartState, items: String, lines: Bool,
        first: Bool
    ) throws(JSONParseFailure) -> Bool {
        while true {
            // The separator before the element (before the first, the list's `[`).
            var atList = first && part.sections.isEmpty
            if lines {
                if !atList { try parser.endOfLine(recordStart: state.elementStart) }
                parser.skipWhitespace()
                if parser.index >= bytes.count { return false }
            } else if try !parser.nextElement(opening: &atList) {
                return false
            }
            let start = parser.index
            state.elementStart = start
            guard start < bytes.count else { throw parser.fail("expected a JSON value, found the end of the input") }
            var section = ScannedSection(offset: start)
            guard bytes[start] == UInt8(ascii: "{") else {
                section.notAnObject = JSONParser.typeName(bytes[start])
                _ = try parser.hashValue()
                state.addSection(&part, section)
                continue
            }
            var opening = true
            while let name = try parser.nextMember(opening: &opening) {
                let valueStart = parser.index
                if case .absent = section.items, name.scalarEquals(items) {
                    if valueStart < bytes.count, bytes[valueStart] == UInt8(ascii: "[") {
                        section.items = .list
                        section.members.append(Object.Member(key: name, value: .array([])))
                        state.openSection(&part, section)
                        return true
                    }
                    let value = try parser.parseValue()
                    section.items = .notList(typeName: value.typeName, offset: valueStart)
                    section.members.append(Object.Member(key: name, value: value))
                } else {
                    section.members.append(Object.Member(key: name, value: try parser.parseValue()))
                }
            }
            try checkMembers(section)
            state.addSection(&part, section)
        }
    }

    /// Refuses a section object with a member name given twice.
    func checkMembers(_ section: ScannedSection) throws(JSONParseFailure) {
        guard section.members.count > 1, section.notAnObject == nil else { return }
        var names = section.members.map { CanonicalHash.string($0.key).a }
        try JSONParser.checkNames(&names, objectAt: section.offset, in: bytes, maxDepth: maxDepth)
    }
}

/// An open value around the records' container, to finish reading after it.
enum Enclosure: Sendable {
    /// An object from `start`, with the hashes of its member names before the step taken.
    case object(start: Int, names: [UInt64])
    case array
    /// NDJSON: the line the container is in, from its start.
    case line(start: Int)
}

/// One part of a scan, or the scan so far once parts are joined.
struct ScanPart: @unchecked Sendable {
    var table: RecordTable
    var shape: ContainerShape = .list
    /// Sections in order; the first may go on from the part before (`began` false).
    var sections: [ScannedSection] = []
    /// The first record start at or after the part's stop, when it stopped there.
    var pausedAt: Int?
    /// Just after the container, when the part read to its end.
    var containerEnd: Int?
    var failure: JSONParseFailure?
    var layoutProblem: LayoutProblem?
    /// In an object of lists: the hashes of its member names, to find one given twice.
    var containerNames: [UInt64] = []
    /// In an object of lists: the names of the members that are lists (for the hint when
    /// the others are not).
    var listMembers: [String] = []
    /// In a map of records: each record's member name, and the map's hash so far.
    var names: MemberNames?
    var map = CanonicalHash.ObjectHasher()
    /// A map at the top level with a member named like the key's first field: it may be
    /// one record that carries the key (`JSONScan.lone`).
    var loneCandidate = false
    var firstUnkeyed: Int?
    var missingKeys = 0
    /// The head's: where the container is, what encloses it, the records' depth.
    var containerOffset = 0
    var recordDepth = 1
    var enclosures: [Enclosure] = []
    var enclosureDepth = 0
    /// Whether the input was read to its end (nothing left to check after the container).
    var finished = false

    var scanned: ScannedDocument {
        var document = ScannedDocument(
            table: table, shape: shape, sections: sections, containerOffset: containerOffset, recordDepth: recordDepth,
            firstUnkeyed: firstUnkeyed, missingKeys: missingKeys,
            layoutProblem: layoutProblem?.pointing(toTheOnlyList: listMembers))
        document.names = names
        return document
    }

    /// Takes on `later`, the part that starts where this one paused: its first section
    /// goes on with this part's last, the rest follow.
    mutating func join(_ later: ScanPart) {
        let offset = table.count
        let first = later.sections[0]
        // The records of the section this part left open, hashed into its list (a part
        // after the first keeps every record's hash); a map's with their names.
        if let names, let laterNames = later.names {
            for k in 0..<first.recordCount { map.add(key: laterNames.hashes[k], value: later.table.hashes[k]) }
            names.hashes.append(contentsOf: laterNames.hashes)
            names.starts.append(contentsOf: laterNames.starts)
        } else {
            for k in 0..<first.recordCount { table.list.add(later.table.hashes[k]) }
        }
        table.appendRecords(of: later.table)
        let s = sections.count - 1
        sections[s].recordCount += first.recordCount
        sections[s].members += first.members
        if case .absent = sections[s].items { sections[s].items = first.items }
        if first.closed {
            sections[s].closed = true
            sections[s].listHash = names != nil ? map.finish() : table.list.finish()
            // The list hash of `later`'s last section, if it began there and is open.
            table.list = later.table.list
        }
        sections += later.sections.dropFirst()
        containerNames += later.containerNames
        listMembers += later.listMembers
        loneCandidate = loneCandidate || later.loneCandidate
        pausedAt = later.pausedAt
        containerEnd = later.containerEnd
        failure = later.failure
        if layoutProblem == nil { layoutProblem = later.layoutProblem }
        if firstUnkeyed == nil, let k = later.firstUnkeyed { firstUnkeyed = offset + k }
        missingKeys += later.missingKeys
    }
}

/// What one part's scan carries from record to record: the table being filled and OLD's
/// tables, as plain memory read without reference counting in the loop.
final class PartState {
    let scan: JSONScan
    let keys: KeyTrie
    // One thread uses a part's state: its hot fields skip the runtime's exclusivity checks.
    @exclusivity(unchecked) var parts: [[UInt8]]
    @exclusivity(unchecked) var key = NoKey()
    let memory: ScanMemory
    @exclusivity(unchecked) var keyHash: UInt64 = 0
    @exclusivity(unchecked) var status = KeyStatus.keyed
    /// The OLD record expected next (NEW's scan): -1 until one is found.
    @exclusivity(unchecked) var cursor: Int
    /// Where the cursor was before a record found out of order moved it (-1: none): the
    /// records after a moved one are most often those after the record before it. It is
    /// let go once taken, or once records are found in order again (`steady` in a row).
    @exclusivity(unchecked) var resume = -1
    @exclusivity(unchecked) var steady = 0
    /// Whether the list hash takes the records of the current section.
    @exclusivity(unchecked) var folds = true
    @exclusivity(unchecked) var list = CanonicalHash.ArrayHasher()
    /// In a map of records: the current record's member name (its key), the map's hash
    /// so far, and where the names go.
    @exclusivity(unchecked) var mapMode = false
    /// Under a path with `*`: records are keyed within their list, whose name's hash this is.
    @exclusivity(unchecked) var scoped = false
    @exclusivity(unchecked) var sectionName = Hash128(a: 0, b: 0)
    @exclusivity(unchecked) var nameHash = Hash128(a: 0, b: 0)
    @exclusivity(unchecked) var map = CanonicalHash.ObjectHasher()
    /// (Made for every part, so that the hot loop reads a constant; small until used.)
    let names: MemberNames
    /// `names`' buffers, read without reference counting in the loop.
    let nameHashes: PageBuffer<Hash128>, nameStarts: PageBuffer<Int>
    /// At the top level: the hashes of the key's first fields, a member named like one of
    /// which may make the map one record (`JSONScan.lone`); every member with `--key .`.
    var loneNames: [Hash128] = []
    @exclusivity(unchecked) var loneAlways = false, checksLone = false
    var elementStart = 0
    var reported = 0
    var released = 0
    /// Records of the current section not yet counted in the part's sections.
    @exclusivity(unchecked) var sectionRecords = 0
    @exclusivity(unchecked) var firstUnkeyed: Int?
    @exclusivity(unchecked) var missingKeys = 0

    /// The part's table, filled here (its buffers are shared, not copied).
    let table: RecordTable
    /// Whether each record is its own key (`--key .`).
    let wholeRecord: Bool

    /// OLD's, for NEW's scan against it. The table's `copies` then says whether a record's
    /// bytes are those of the OLD record in `matches` (under `match`, the claims may pick
    /// another); `copyCheck`: whether records may be found again byte for byte.
    let against: Bool, copyCheck: Bool
    let oldDepth: Int, oldCount: Int
    let oldBytes: UnsafePointer<UInt8>
    let oldStarts: UnsafeMutableBufferPointer<Int>, oldLengths: UnsafeMutableBufferPointer<UInt32>
    let oldHashes: UnsafeMutableBufferPointer<Hash128>
    /// OLD's member names, when it is a map: a record found byte for byte must have its name.
    let oldNames: UnsafeMutableBufferPointer<Hash128>
    let oldKeys: OldKeys?

    init(scan: JSONScan, table: RecordTable, startsList: Bool, from start: Int = 0) {
        self.scan = scan
        keys = scan.keys
        parts = [[UInt8]](repeating: [], count: scan.keys.fieldCount)
        memory = ScanMemory(keyHashing: scan.keyHashing)
        cursor = startsList ? 0 : -1
        reported = start
        released = start
        self.table = table
        names = MemberNames(capacity: 16)
        nameHashes = names.hashes
        nameStarts = names.starts
        wholeRecord = scan.key.isWholeRecord
        let old = scan.old
        against = old != nil
        copyCheck = old?.copies ?? false
        oldDepth = old?.depth ?? -1
        oldCount = old?.table.count ?? 0
        oldBytes = old?.bytes ?? UnsafePointer(bitPattern: 8)!
        oldStarts = old?.table.starts.buffer ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        oldLengths = old?.table.lengths.buffer ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        oldHashes = old?.table.hashes.buffer ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        oldNames = old?.names?.buffer ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        oldKeys = old?.keys
        memory.keySlots = old?.keys.slots
    }

    /// The part is in a map of records: its records are members, keyed by their names.
    /// `head`: the part that found the map (at the top level, it looks out for a member
    /// named like the key).
    func beginMap(_ part: inout ScanPart, head: Bool) {
        mapMode = true
        part.names = names
        // As much room as the part's table has.
        let room = max(16, scan.bytes.count / (head ? 64 : 128))
        nameHashes.reserve(room)
        nameStarts.reserve(room)
        if head, scan.options == LayoutOptions() {
            loneAlways = scan.key.isWholeRecord
            loneNames = scan.key.fields.map { CanonicalHash.string($0.components[0]) }
            checksLone = true
        }
    }

    /// One member of a map: its name, then its value, a record keyed by that name (or,
    /// when it is not an object, the problem noted and the value read through).
    func member(_ parser: inout JSONParser, _ part: inout ScanPart) throws(JSONParseFailure) {
        try parser.nameStart()
        let nameStart = parser.index
        let name = try parser.hashString()
        try parser.colon()
        if checksLone, loneAlways || loneNames.contains(name) { part.loneCandidate = true }
        let bytes = parser.bytes
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "{") else {
            if part.layoutProblem == nil, parser.index < bytes.count {
                var spelled = parser
                spelled.index = nameStart
                part.layoutProblem = .memberNotARecord(
                    scan.what, member: (try? spelled.parseString()) ?? "", JSONParser.typeName(bytes[parser.index]),
                    at: parser.index, under: scan.options.path)
            }
            _ = try parser.hashValue()
            return
        }
        nameHash = name
        try record(&parser)
        nameHashes.append(name)
        nameStarts.append(nameStart)
    }

    /// Counts the current section's records so far into the part.
    func flush(_ part: inout ScanPart) {
        if sectionRecords > 0, !part.sections.isEmpty {
            part.sections[part.sections.count - 1].recordCount += sectionRecords
        }
        sectionRecords = 0
    }

    /// A new section whose records list is open.
    func openSection(_ part: inout ScanPart, _ section: ScannedSection) {
        flush(&part)
        part.sections.append(section)
        folds = true
        list = CanonicalHash.ArrayHasher()
    }

    /// A section with no records list (not an object, or no such member).
    func addSection(_ part: inout ScanPart, _ section: ScannedSection) {
        flush(&part)
        part.sections.append(section)
    }

    /// The current section's records list ended.
    func closeList(_ part: inout ScanPart) {
        flush(&part)
        guard !part.sections.isEmpty else { return }
        part.sections[part.sections.count - 1].closed = true
        if folds { part.sections[part.sections.count - 1].listHash = mapMode ? map.finish() : list.finish() }
    }

    /// Scans the record at the parser into the table.
    @inline(__always)
    func record(_ parser: inout JSONParser) throws(JSONParseFailure) {
        let start = parser.index
        let bytes = parser.bytes
        let n = bytes.count
        // (Not across the lists of a pattern: the OLD record next may be in another list. In
        // a map, only against a map: a lone record has no member name.)
        // Only a value that ends by itself (`{…}`, `[…]`, `"…"`): a number's bytes may go on.
        if copyCheck, !scoped, oldDepth == parser.depth, cursor >= 0, start < n,
            bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") || bytes[start] == UInt8(ascii: "\"")
        {
            // The OLD record after the last one found; else the one after it (the one
            // expected was deleted or moved away); else the one expected before a record
            // out of order moved the cursor.
            if copied(parser: &parser, start, cursor) || copied(parser: &parser, start, cursor + 1)
                || resume >= 0 && copied(parser: &parser, start, resume)
            {
                return
            }
        }
        let hash = try parser.scanRecord(keys, key: &key, parts: &parts, memory: memory, keyHash: &keyHash, status: &status)
        let length = parser.index - start
        // Lengths are kept in 32 bits.
        if length > Int(UInt32.max) {
            throw parser.fail("a record of 4 GiB or more is beyond what listdiff reads", at: start, kind: .limit)
        }
        if mapMode {
            // A map's record: keyed by its member name, as a string is keyed by itself.
            status = .keyed
            keyHash = memory.keyHashing.mix(nameHash)
        } else if wholeRecord {
            // Every record is its own key: its content hash is its key's.
            status = .keyed
            keyHash = memory.keyHashing.mix(hash)
        } else if status != .keyed {
            if firstUnkeyed == nil { firstUnkeyed = table.starts.count }
            if status == .missing { missingKeys += 1 }
            keyHash = 0
        }
        if scoped, status == .keyed { keyHash = memory.keyHashing.scoped(keyHash, in: sectionName) }
        if against, let oldKeys {
            // Where the cursor expected it, most often (an update in place, or after a
            // record deleted), else anywhere.
            let match: Int
            if status != .keyed {
                match = -1
            } else if cursor >= 0, cursor < oldCount, oldKeys.finds(cursor, keyHash) {
                match = cursor
            } else if cursor >= 0, cursor + 1 < oldCount, oldKeys.finds(cursor + 1, keyHash) {
                match = cursor + 1
            } else {
                match = oldKeys.lookup(keyHash)
            }
            append(start: start, end: parser.index, hash: hash)
            table.matches.append(Int32(truncatingIfNeeded: match))
            table.copies.append(false)
            // Its bytes may still be its match's (a record out of the order expected): seen
            // while they are at hand, so that the compare need not read them again.
            if match >= 0, copyCheck, oldDepth == parser.depth {
                checkLater(record: table.starts.count - 1, match: match, bytes.baseAddress! + start, length)
            }
            if match < 0 {
                if status == .keyed { table.strangers.append(RecordTable.Stranger(record: table.starts.count - 1, keyHash: keyHash)) }
            } else {
                // (The first jump is remembered: a run of records out of order goes back to it.)
                if match != cursor {
                    if resume < 0 { resume = cursor }
                    steady = 0
                } else {
                    moveOn()
                }
                cursor = match + 1
            }
        } else {
            append(start: start, end: parser.index, hash: hash)
            table.keyHashes.append(keyHash)
        }
    }

    /// Whether the record at `start` is byte for byte OLD record `c`, the next in OLD's
    /// order; if so it is taken as that record's copy, with its hashes, and the cursor
    /// goes on from it.
    @inline(__always)
    func copied(parser: inout JSONParser, _ start: Int, _ c: Int) -> Bool {
        guard c < oldCount, !mapMode || c < oldNames.count && oldNames[c] == nameHash else { return false }
        let length = Int(oldLengths[c])
        guard length <= parser.bytes.count - start,
            SystemCalls.compare(parser.bytes.baseAddress! + start, oldBytes + oldStarts[c], length) == 0
        else { return false }
        parser.index = start + length
        append(start: start, end: parser.index, hash: oldHashes[c])
        table.matches.append(Int32(truncatingIfNeeded: c))
        table.copies.append(true)
        if c == resume {
            resume = -1
        } else if c == cursor {
            moveOn()
        } else {
            steady = 0
        }
        cursor = c + 1
        return true
    }

    /// A record found where the cursor expected it: after two in a row, the records out of
    /// order are behind.
    @inline(__always)
    func moveOn() {
        steady += 1
        if steady >= 2 { resume = -1 }
    }

    @inline(__always)
    func append(start: Int, end: Int, hash: Hash128) {
        table.starts.append(start)
        table.lengths.append(UInt32(truncatingIfNeeded: end - start))
        sectionRecords &+= 1
        if folds {
            if mapMode { map.add(key: nameHash, value: hash) } else { list.add(hash) }
        }
        if table.keepsHashes { table.hashes.append(hash) }
        if table.starts.count & 0xFFF == 0 { checkpoint(end) }
    }

    /// The records looked up in OLD's index whose bytes are yet to be checked against their
    /// match's, in a batch: each match is somewhere in OLD, and its bytes far from those
    /// read last. Their places are fetched as they come, and the batch's bytes all at once
    /// before any is compared, so that the waits for memory overlap instead of adding up.
    struct Unchecked {
        var record: Int
        var match: Int
        var bytes: UnsafePointer<UInt8>
        var length: Int
    }
    static let batch = 16
    let unchecked = UnsafeMutablePointer<Unchecked>.allocate(capacity: PartState.batch)
    @exclusivity(unchecked) var uncheckedCount = 0

    deinit { unchecked.deallocate() }

    /// Notes record `record` (at `bytes`) for the check against OLD record `match`.
    @inline(__always)
    func checkLater(record: Int, match: Int, _ bytes: UnsafePointer<UInt8>, _ length: Int) {
        SystemCalls.prefetch(oldStarts.baseAddress! + match)
        SystemCalls.prefetch(oldLengths.baseAddress! + match)
        unchecked[uncheckedCount] = Unchecked(record: record, match: match, bytes: bytes, length: length)
        uncheckedCount &+= 1
        if uncheckedCount == Self.batch { checkCopies() }
    }

    /// Checks the records noted by `checkLater`: `copies` says which are their match's bytes.
    func checkCopies() {
        let n = uncheckedCount
        guard n > 0 else { return }
        uncheckedCount = 0
        for k in 0..<n where Int(oldLengths[unchecked[k].match]) == unchecked[k].length {
            // Its first three lines: all of a short record.
            let at = oldBytes + oldStarts[unchecked[k].match]
            SystemCalls.prefetch(at)
            SystemCalls.prefetch(at + min(64, unchecked[k].length - 1))
            SystemCalls.prefetch(at + min(128, unchecked[k].length - 1))
        }
        let copies = table.copies.buffer
        for k in 0..<n {
            let entry = unchecked[k]
            copies[entry.record] =
                Int(oldLengths[entry.match]) == entry.length
                && SystemCalls.compare(entry.bytes, oldBytes + oldStarts[entry.match], entry.length) == 0
        }
    }

    /// Progress and pages handed back, every 4096 records (and the copies checked first:
    /// the pages of those waiting go back too).
    func checkpoint(_ offset: Int) {
        checkCopies()
        if scan.release {
            scan.file.release(released..<offset)
            released = offset
        }
        scan.progress?.advance(by: offset - reported)
        reported = offset
    }

    /// The part's scan ended (or paused) at `offset`.
    func done(_ part: inout ScanPart, at offset: Int) {
        flush(&part)
        checkpoint(max(offset, reported))
        part.table.list = list
        part.map = map
        if part.firstUnkeyed == nil { part.firstUnkeyed = firstUnkeyed }
        part.missingKeys += missingKeys
    }
}

extension JSONParser {
    /// The type name of the value that starts with `byte` (the input is checked elsewhere).
    static func typeName(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "{"): return "object"
        case UInt8(ascii: "["): return "array"
        case UInt8(ascii: "\""): return "string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "boolean"
        case UInt8(ascii: "n"): return "null"
        default: return "number"
        }
    }

    /// The offset after the list or object at `start` (a `[` or `{`), found by matching
    /// brackets and skipping strings, without checking anything else; nil if it does not end.
    static func skipFast(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var depth = 0
        var i = start
        let n = bytes.count
        while i < n {
            switch bytes[i] {
            case UInt8(ascii: "\""):
                i += 1
                while i < n, bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return i + 1 }
            default:
                break
            }
            i += 1
        }
        return nil
    }

    /// The offset after the value at `start`, found without reading it (the scan checked it).
    static func skip(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return JSONParser.skipFast(bytes, from: start) ?? bytes.count
        case UInt8(ascii: "\""):
            var i = start + 1
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
            return min(i + 1, bytes.count)
        default:
            var i = start
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: return i
                default: i += 1
                }
            }
            return i
        }
    }
}
