/// The engine's scan of one YAML input, through libyaml's event API: each event is hashed
/// as it arrives (`CanonicalHash`: the same hashes a JSON spelling of the values has), the
/// records are found as in the JSON scan (at `--path`, in a plain list or in sections), and
/// each record's place, hash and key hash go into a `RecordTable`. No value tree is built:
/// values are built only for section objects' own members and for anchored nodes (an alias
/// is replayed as the events of its value).
///
/// It is the only walk of YAML events in listdiff: `YAMLReader` reads values through it too
/// (`buildsValues`), so the YAML 1.2 core schema, tags, duplicate keys, the nesting limit and
/// the alias budget are enforced in one place, with the same errors at the same places.
struct YAMLScan {
    let file: MappedFile
    let key: IdentityKey
    let keys: KeyTrie
    let options: LayoutOptions
    let reader: YAMLReader
    let keyHashing: KeyHashing
    let progress: Progress?
    /// Whether the input is a stream of several documents, each a record (as `YAMLReader`
    /// reads one): found when a scan meets a second document.
    var stream = false
    /// The depth each document starts at: `NestingLimit.topLevelRecord` where the documents
    /// are the records of a stream, so that each has the room a record in a list has.
    var documentDepth = 0
    /// Whether every node's value is built (as `YAMLReader` reads), not only anchored nodes
    /// and section objects. Empty documents of a stream are kept as null records.
    var buildsValues = false
    /// Where the events come from: listdiff's own scanner where the input is within its
    /// subset (`YAMLBlockScanner`), libyaml otherwise.
    var parsing = YAMLParsing.auto
    /// OLD's records, when this is NEW scanned against them: a record that is byte for byte
    /// the OLD record expected next is taken with OLD's hashes, unread
    /// (`YAMLScanState.copied`).
    var old: OldRecords? = nil
    /// Whether the input is all ASCII, once `YAMLBlockScanner.validate` has checked it (nil:
    /// not yet), so that the probe and the scans after it do not check it again.
    var ascii: Bool? = nil
    /// Parts a large plain list at the top level is scanned in at once, one per core, by
    /// listdiff's own scanner (`splitScan`), from inputs of `splitsFrom` bytes.
    var parts = 1
    var splitsFrom = 1 << 20
    /// The part of the input a part's scan reads (nil: all of it).
    var window: Range<Int>? = nil
    /// Called when the input goes to libyaml (the engine then scans NEW at once).
    var toLibYAML: (@Sendable () -> Void)? = nil

    var bytes: UnsafeBufferPointer<UInt8> { window.map { UnsafeBufferPointer(rebasing: file.bytes[$0]) } ?? file.bytes }

    /// The scan of the input as `shape`, or as the shape its first element suggests; a
    /// stream of documents is a list of them, whatever the shape asked.
    func scan(as forced: ContainerShape? = nil) throws(ListDiffError) -> ScannedDocument {
        guard parsing == .auto else { return try scanOnce(as: forced) }
        // listdiff's own scanner first; on anything outside it, or any error, libyaml reads
        // the input again from the start, and its result (or error) is the answer.
        var own = self
        own.parsing = .own
        let parts = bytes.count >= max(splitsFrom, 2) ? self.parts : 1
        if let base = bytes.baseAddress, let ascii = try? YAMLBlockScanner.validate(base, bytes.count, parts: parts) {
            own.ascii = ascii
            if let document = try? own.scanOnce(as: forced) { return document }
        } else if bytes.isEmpty, let document = try? own.scanOnce(as: forced) {
            return document
        }
        toLibYAML?()
        var libyaml = self
        libyaml.parsing = .libyaml
        return try libyaml.scanOnce(as: forced)
    }

    /// The scan of the input as a stream of documents, each a record with the room a
    /// record in a list has.
    var asStream: YAMLScan {
        var scan = self
        scan.stream = true
        scan.documentDepth = NestingLimit.topLevelRecord
        return scan
    }

    /// The scan, with the events from one source (`parsing` is not `auto`).
    func scanOnce(as forced: ContainerShape?) throws(ListDiffError) -> ScannedDocument {
        var shape = forced
        if options.path?.isPattern == true, !stream {
            try Layout.checkPattern(options)
            shape = .pattern
        }
        if shape == nil, !stream {
            var probe = YAMLScanState(scan: self, shape: .list, probing: true)
            try probe.run()
            shape = probe.probedShape ?? .list
        }
        if !stream, case .list? = shape, let state = splitScan() {
            progress?.advance(by: 2 * bytes.count)
            return state.result()
        }
        var state = YAMLScanState(scan: self, shape: stream ? .list : shape!, probing: false)
        try state.run()
        if state.secondDocument {
            // Several documents: the stream again, as a list of them.
            return try asStream.scanOnce(as: nil)
        }
        if !stream, state.loneMapping, !key.fields.isEmpty || key.isWholeRecord {
            // One mapping that holds no list of records but carries the key is one record:
            // a stream of one document, as a manifest file cut down to one object is.
            // Without the key it is what it was, an object that is not an object of lists.
            let lone: ScannedDocument
            do {
                lone = try asStream.scanOnce(as: nil)
            } catch {
                // As one record it would nest past the limit (one level deeper than a
                // mapping's members): the mapping it was.
                if error.kind == .limit { return state.result() }
                throw error
            }
            if lone.table.count == 1, lone.firstUnkeyed == nil { return lone }
            return state.result()
        }
        progress?.advance(by: 2 * bytes.count)
        return state.result()
    }
}

extension YAMLScan {
    /// A plain list of block style at the top level, scanned by listdiff's own scanner in two
    /// parts at once: split at the first line past the middle that starts with `- `, which
    /// there can only be an entry of the list, each part is read as a document of its own,
    /// and their records make one table. Nil when the input is not such a list, or either
    /// part is not one (an error, a construct outside the scanner's subset, another shape):
    /// the caller scans the whole, which decides.
    func splitScan() -> YAMLScanState? {
        let bytes = self.bytes
        guard parts > 1, parsing == .own, window == nil, bytes.count >= max(splitsFrom, 2), let base = bytes.baseAddress, !stream,
            !buildsValues, options.path == nil, options.items == nil, options.sectionKey == nil
        else { return nil }
        let n = bytes.count
        var at = n / 2
        var split = -1
        while at < n, let found = SystemCalls.find(0x0A, in: base + at, count: n - at) {
            let p = UnsafeRawPointer(found) - UnsafeRawPointer(base) + 1
            if p + 1 < n, base[p] == UInt8(ascii: "-"), base[p + 1] == 0x20 || base[p + 1] == 0x0A {
                split = p
                break
            }
            at = p
        }
        guard split > 0 else { return nil }
        var first = self, second = self
        first.window = 0..<split
        second.window = split..<n
        let scans = (first, second)
        let (a, b) = Concurrently.both(
            { () throws(ListDiffError) -> YAMLScanState in
                var state = YAMLScanState(scan: scans.0, shape: .list, probing: false)
                try state.run()
                return state
            },
            { () throws(ListDiffError) -> YAMLScanState in
                var state = YAMLScanState(scan: scans.1, shape: .list, probing: false)
                try state.run()
                return state
            })
        guard case .success(var state) = a, case .success(let later) = b, state.joins(later) else { return nil }
        state.append(later, at: split)
        state.details.parts = 2
        return state
    }
}

extension YAMLScanState {
    /// Whether this part's scan and `later`'s, of the part after it, are each a plain list
    /// of records at one depth, nothing else: together, the list of the whole.
    func joins(_ later: YAMLScanState) -> Bool {
        func plain(_ s: YAMLScanState) -> Bool {
            !s.stopped && !s.secondDocument && !s.loneMapping && s.documents == 1 && s.actualShape == .list && s.sections.count == 1
                && s.sections[0].closed && s.containerFound && s.layoutProblem == nil && s.pathProblem == nil && s.anchors.isEmpty
                && !s.tagDirectives && s.recordDepth > 0
        }
        return plain(self) && plain(later) && recordDepth == later.recordDepth
    }

    /// Appends the records of `later`, the scan of the part from byte `offset` on.
    mutating func append(_ later: YAMLScanState, at offset: Int) {
        let count = table.count
        let other = later.table
        for i in 0..<other.count {
            table.starts.append(other.starts[i] + offset)
            table.hashes.append(other.hashes[i])
            list.add(other.hashes[i])
        }
        table.lengths.append(contentsOf: other.lengths)
        table.keyHashes.append(contentsOf: other.keyHashes)
        details.scalars.append(contentsOf: later.details.scalars)
        details.standalone.append(contentsOf: later.details.standalone)
        details.copied += later.details.copied
        sections[0].recordCount += later.sections[0].recordCount
        sections[0].listHash = list.finish()
        if firstUnkeyed == nil, let k = later.firstUnkeyed { firstUnkeyed = count + k }
        missingKeys += later.missingKeys
        deepest = max(deepest, later.deepest)
    }
}

/// What the YAML scan keeps beyond the table, for reading records back.
final class YAMLDetails: @unchecked Sendable {
    /// Whether each record is a scalar.
    let scalars: PageBuffer<Bool>
    /// Whether each record reads alike wherever it stands: no alias in it, no `%TAG`
    /// directive in the document.
    let standalone: PageBuffer<Bool>
    /// The anchors as the scan left them, for reading a record that uses one.
    var anchors: [String: Value] = [:]
    /// Whether the input is a stream of documents, each a record.
    var stream = false
    /// Whether listdiff's own scanner read the input (not libyaml).
    var ownScanner = false
    /// How many nodes hold the records (all at one depth), or -1 where they differ or there
    /// are none.
    var recordDepth = -1
    /// The records taken byte for byte from OLD's, unread (NEW scanned against OLD).
    var copied = 0
    /// The parts the input was scanned in at once (`YAMLScan.splitScan`).
    var parts = 1

    init(capacity: Int) {
        scalars = PageBuffer(capacity: capacity)
        standalone = PageBuffer(capacity: capacity)
    }
}

/// An anchored node: its value and the nodes it counts for.
struct YAMLAnchor {
    var value: Value
    var nodes: Int
}

/// A node's kind, as `Value.typeName` names it.
enum NodeKind: UInt8 {
    case null, boolean, number, string, array, object

    var name: String {
        switch self {
        case .null: return "null"
        case .boolean: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    var isScalar: Bool { self == .boolean || self == .number || self == .string }

    init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .bool: self = .boolean
        case .number: self = .number
        case .string: self = .string
        case .array: self = .array
        case .object: self = .object
        }
    }
}

/// Turns libyaml's marks (character indexes) into byte offsets, going forward. libyaml
/// does not count a byte order mark: index 0 is the byte after it.
struct MarkConverter {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where index 0 is: past a byte order mark.
    let start: Int
    var index = 0
    var offset: Int
    /// Every character after the start is one byte (an ASCII text): an index is its offset
    /// from the start.
    var ascii = false

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        start = ByteOrderMark.length(at: bytes)
        offset = start
    }

    mutating func offset(ofIndex target: Int) -> Int {
        if ascii { return start + target }
        if target < index {
            index = 0
            offset = start
        }
        guard let base = bytes.baseAddress else { return 0 }
        let n = bytes.count
        while index < target, offset < n {
            // Eight ASCII bytes at a time are eight characters.
            if target - index >= 8, offset + 8 <= n,
                UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                offset += 8
                index += 8
                continue
            }
            offset += 1
            while offset < n, base[offset] & 0xC0 == 0x80 { offset += 1 }
            index += 1
        }
        return offset
    }
}

/// The scan's state as it reads events.
struct YAMLScanState: YAMLEventSink {
    enum Role {
        case plain
        /// The records' container: an object of lists, or a list of section objects.
        case container
        /// An element of a list of section objects.
        case sectionObject
        /// A list whose elements are records.
        case records
    }

    /// What a node is, decided when it begins from its parent's state.
    struct Placement {
        var role: Role = .plain
        /// Steps of `--path` matched down to this node, or -1 off the path.
        var pathStep = -1
        /// The key trie's level for this node's members or elements, or -1.
        var keyLevel = -1
        /// The key fields this node's value is.
        var keyMask: UInt64 = 0
        var building = false
        var isKey = false
        var isRecord = false
        var isContainer = false
        /// A section object's records list, or an object of lists' member list.
        var opensSection = false
        /// The parent is a section object and this is its records member's value.
        var isItemsValue = false
        /// A member of the container (object of lists) or an element (list of sections).
        var inContainer = false
        var offset = 0
    }

    struct Frame {
        var isMapping: Bool
        var placement: Placement
        var object = CanonicalHash.ObjectHasher()
        var array = CanonicalHash.ArrayHasher()
        var count = 0
        var nodes = 1
        var anchor: String?
        /// A mapping's key read, its value to come.
        var keyPending = false
        var keyHash = Hash128(a: 0, b: 0)
        var keyText: String?
        /// A map of records' own mapping: where the key being read starts, in bytes.
        var keyStart = 0
        var keyEntry: Int?
        var keyOnPath = false
        var keyIsItems = false
        var itemsSeen = false
        /// A path step was taken below this node.
        var stepTaken = false
        /// Under a path with `*`: where this node is, as a JSON Pointer (on the path only).
        var pointer = ""
        var items: [Value] = []
        var members: [Object.Member] = []
        /// A record's members that are lists named like a records list (for the probe).
        var lists: [String] = []

        init(isMapping: Bool, placement: Placement) {
            self.isMapping = isMapping
            self.placement = placement
        }
    }

    let scan: YAMLScan
    let shape: ContainerShape
    let probing: Bool
    let path: [String]
    let explicit: Bool
    var stack: [Frame] = []
    /// The deepest nesting met so far.
    var deepest = 0
    /// Each depth's mapping keys so far (kept between mappings to save allocations).
    var keySets: [[(hash: Hash128, line: Int, column: Int)]] = []
    /// Past 32 keys, a depth's mapping keys as a dictionary, so that a wide mapping is read
    /// in linear time.
    var longKeySets: [[Hash128: (line: Int, column: Int)]] = []
    var marks: MarkConverter
    var table: RecordTable
    var details: YAMLDetails
    var sections: [ScannedSection] = []
    var actualShape: ContainerShape
    var containerOffset = 0
    var containerFound = false
    var layoutProblem: LayoutProblem?
    var pathProblem: LayoutProblem?
    var firstUnkeyed: Int?
    var missingKeys = 0
    var documents = 0
    var tagDirectives = false
    var anchors: [String: YAMLAnchor] = [:]
    var rules: YAMLRules
    /// The record being read: where it starts, what of its key was found.
    var recordStart = 0
    var finding = KeyFinding()
    var standalone = true
    var replaying = 0
    let memory: ScanMemory
    var list = CanonicalHash.ArrayHasher()
    /// Under a path with `*`: the lists it names are sections, keyed each on its own; the
    /// hash of the current one's name.
    let pattern: Bool
    var sectionName = Hash128(a: 0, b: 0)
    /// In a map of records: each record's member name, and the map's hash so far.
    var names: MemberNames?
    var map = CanonicalHash.ObjectHasher()
    var probedShape: ContainerShape?
    var stopped = false
    /// A second document began while the input was read as one (see `YAMLScan.stream`).
    var secondDocument = false
    /// The document is a mapping that is not an object of lists (one member is no list), or
    /// a map with a member named like the key's first step, with no `--path`,
    /// `--section-key` or `--items`: it may be one record alone.
    var loneMapping = false
    /// With `buildsValues`: each record's value, the start offset of every value node in
    /// preorder (mapping keys left out), and where each document's offsets start.
    var values: [Value] = []
    var valueOffsets: [Int] = []
    var documentStarts: [Int] = []
    /// The depth of the records so far: -1 before the first, -2 once two differ.
    var recordDepth = -1
    /// The table's and details' buffers, appended to without reference counting, and the
    /// key's shape, read once.
    let starts: PageBuffer<Int>, lengths: PageBuffer<UInt32>
    let hashes: PageBuffer<Hash128>, keyHashes: PageBuffer<UInt64>
    let scalars: PageBuffer<Bool>, standaloneFlags: PageBuffer<Bool>
    let wholeRecord: Bool
    /// NEW scanned against OLD (`copied`): whether records may be taken from OLD's, the OLD
    /// record expected next, and OLD's tables read without reference counting.
    let copying: Bool
    var cursor = 0
    let oldBytes: UnsafePointer<UInt8>
    let oldStarts: UnsafeMutableBufferPointer<Int>, oldLengths: UnsafeMutableBufferPointer<UInt32>
    let oldHashes: UnsafeMutableBufferPointer<Hash128>, oldKeyHashes: UnsafeMutableBufferPointer<UInt64>
    let oldScalars: UnsafeMutableBufferPointer<Bool>, oldStandalone: UnsafeMutableBufferPointer<Bool>
    let oldDepth: Int

    init(scan: YAMLScan, shape: ContainerShape, probing: Bool) {
        self.scan = scan
        self.shape = shape
        self.probing = probing
        actualShape = shape
        path = scan.options.path?.components ?? []
        explicit = scan.options.items != nil || scan.options.sectionKey != nil
        pattern = shape == .pattern
        marks = MarkConverter(bytes: scan.bytes)
        let capacity = probing ? 16 : max(16, scan.bytes.count / 128)
        table = RecordTable(capacity: capacity)
        details = YAMLDetails(capacity: capacity)
        memory = ScanMemory(keyHashing: scan.keyHashing)
        rules = YAMLRules(scan.reader, file: scan.file.name)
        starts = table.starts
        lengths = table.lengths
        hashes = table.hashes
        keyHashes = table.keyHashes
        scalars = details.scalars
        standaloneFlags = details.standalone
        wholeRecord = scan.key.isWholeRecord
        // Only OLD's own scanner's records, at one depth, each with its key hash; not for
        // values built, a stream's documents, or the lists of a pattern (keyed each alone).
        let old = scan.old, details = old?.yaml
        copying =
            details?.ownScanner == true && (details?.recordDepth ?? 0) > 0 && scan.parsing == .own && !probing
            && !scan.buildsValues && !scan.stream && shape != .pattern && old?.table.keyHashes.count == old?.table.count
        oldBytes = old?.bytes ?? UnsafePointer(bitPattern: 8)!
        oldStarts = old?.table.starts.buffer ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        oldLengths = old?.table.lengths.buffer ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        oldHashes = old?.table.hashes.buffer ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        oldKeyHashes = old?.table.keyHashes.buffer ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        oldScalars = details?.scalars.buffer ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        oldStandalone = details?.standalone.buffer ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        oldDepth = copying ? details!.recordDepth : -1
    }

    var what: String { scan.options.path.map { "the value at \($0.spelling)" } ?? "the top level" }

    /// Where an event starts, 1-based.
    func place(_ event: YAMLRawEvent) -> SourceLocation {
        SourceLocation(line: event.start.line + 1, column: event.start.column + 1)
    }

    /// A mapping key `text` met again, first at the 0-based place `earlier`.
    func duplicateKey(_ text: UnsafeRawBufferPointer, _ earlier: (line: Int, column: Int), _ event: YAMLRawEvent) -> ListDiffError {
        rules.duplicateKey(
            String(decoding: text, as: UTF8.self), first: SourceLocation(line: earlier.line + 1, column: earlier.column + 1),
            at: place(event))
    }

    func result() -> ScannedDocument {
        details.anchors = anchors.mapValues(\.value)
        details.stream = scan.stream
        details.ownScanner = scan.parsing == .own
        details.recordDepth = max(-1, recordDepth)
        var document = ScannedDocument(
            table: table, shape: actualShape, sections: sections, containerOffset: containerOffset,
            recordDepth: 0, firstUnkeyed: firstUnkeyed, missingKeys: missingKeys,
            layoutProblem: layoutProblem?.pointing(toTheOnlyList: sections.compactMap(\.memberName)))
        document.yaml = details
        document.names = names
        return document
    }

    // MARK: - Events

    mutating func run() throws(ListDiffError) {
        if scan.stream {
            // One list: the stream's documents.
            if !path.isEmpty || explicit {
                throw Layout.streamRefuses(scan.file.name)
            }
            var section = ScannedSection(offset: 0)
            section.items = .list
            sections.append(section)
            containerFound = true
            actualShape = .list
        }
        if scan.parsing == .own {
            var scanner = try YAMLBlockScanner(bytes: scan.bytes, ascii: scan.ascii)
            marks.ascii = scanner.ascii
            try scanner.run(into: &self)
        } else {
            try runLibYAML()
        }
        if stopped { return }
        if scan.stream {
            sections[0].closed = true
            sections[0].listHash = list.finish()
            return
        }
        guard documents == 1 else {
            throw ListDiffError(
                .shape,
                file: scan.file.name, location: documents == 0 ? nil : SourceLocation(line: 1, column: 1),
                documents == 0 ? "no YAML document in the input" : "expected one YAML document, found \(documents)")
        }
        if !containerFound, layoutProblem == nil { layoutProblem = pathProblem }
    }

    /// The events of libyaml's parser, into `handle`.
    mutating func runLibYAML() throws(ListDiffError) {
        let parser = LibYAMLEvents(bytes: scan.bytes)
        while !stopped {
            let end: Bool
            do {
                end = try handle(try parser.next())
            } catch {
                throw error.inFile(scan.file.name)
            }
            if end { break }
        }
    }

    /// Handles one event from listdiff's own scanner; true when no more are wanted.
    mutating func take(_ event: YAMLRawEvent) throws(ListDiffError) -> Bool {
        try handle(event) || stopped
    }

    /// Handles one event; true at the end of the stream.
    mutating func handle(_ event: YAMLRawEvent) throws(ListDiffError) -> Bool {
        switch event.kind {
        case .streamStart, .documentEnd:
            return false
        case .documentStart:
            documents += 1
            if documents == 2, !scan.stream {
                secondDocument = true
                stopped = true
                return true
            }
            if documents == 1 || scan.stream { tagDirectives = event.tagDirectives }
            documentStarts.append(valueOffsets.count)
            return false
        case .streamEnd:
            return true
        case .alias:
            let name = String(decoding: event.anchor ?? UnsafeRawBufferPointer(start: nil, count: 0), as: UTF8.self)
            try rules.alias(name, anchors[name].map { ($0.value, $0.nodes) }, at: place(event))
            let anchored = anchors[name]!
            standalone = false
            replaying += 1
            defer { replaying -= 1 }
            try replay(anchored.value, event)
        case .scalar:
            if try !plainScalar(event) { try scalar(event) }
        case .sequenceStart, .mappingStart:
            try open(event, mapping: event.kind == .mappingStart)
        case .sequenceEnd, .mappingEnd:
            try close(event)
        }
        return false
    }

    /// An alias, replayed as the events of its value at the alias's place.
    mutating func replay(_ value: Value, _ at: YAMLRawEvent) throws(ListDiffError) {
        var event = at
        event.anchor = nil
        event.tag = nil
        switch value {
        case .object(let object):
            event.kind = .mappingStart
            try open(event, mapping: true)
            for member in object.members {
                try replayScalar(.string(member.key), at)
                try replay(member.value, at)
            }
            event.kind = .mappingEnd
            try close(event)
        case .array(let items):
            event.kind = .sequenceStart
            try open(event, mapping: false)
            for item in items { try replay(item, at) }
            event.kind = .sequenceEnd
            try close(event)
        default:
            try replayScalar(value, at)
        }
    }

    /// A scalar of a replayed value, as its key text: as a mapping key, that text names the
    /// member; as a value, it resolves to the value again (quoted for a string, plain for
    /// the rest: an empty plain scalar is null). A key's style is not looked at.
    mutating func replayScalar(_ value: Value, _ at: YAMLRawEvent) throws(ListDiffError) {
        var event = at
        event.kind = .scalar
        event.anchor = nil
        event.tag = nil
        if case .string = value { event.plain = false } else { event.plain = true }
        let utf8 = Array((YAMLScalar.keyText(value) ?? "").utf8)
        try utf8.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(ListDiffError) in
            event.value = UnsafeRawBufferPointer(buffer)
            try scalar(event)
        }
    }

    // MARK: - Nodes beginning

    /// Where a node beginning now stands, from its parent's state (`kind`: 0 scalar, 1 list,
    /// 2 mapping); notes on the parent what the node takes (a path step, a key entry).
    mutating func place(kind: Int, _ event: YAMLRawEvent) -> Placement {
        var placement = Placement()
        placement.building = event.anchor != nil || scan.buildsValues
        guard !stack.isEmpty else {
            if scan.stream {
                // Each document of a stream is a record.
                placement.isRecord = true
                placement.keyLevel = kind == 2 ? 0 : -1
                return placement
            }
            if documents == 1 {
                placement.pathStep = 0
                placement.isContainer = path.isEmpty
            }
            return placement
        }
        let p = stack.count - 1
        if stack[p].isMapping, !stack[p].keyPending {
            placement.isKey = true
            return placement
        }
        let parent = stack[p].placement
        placement.building = placement.building || parent.building
        if stack[p].isMapping {
            if stack[p].keyOnPath {
                placement.pathStep = parent.pathStep + 1
                stack[p].stepTaken = true
            }
            if parent.keyLevel >= 0, let e = stack[p].keyEntry {
                placement.keyLevel = scan.keys.levels[parent.keyLevel].next[e]
                placement.keyMask = scan.keys.levels[parent.keyLevel].fields[e]
            }
            switch parent.role {
            case .container:
                placement.inContainer = true
                if probing {
                    // The first member decides: an object makes a map of records, anything
                    // else an object of lists.
                    probedShape = kind == 2 ? .map : .objectOfLists
                    stopped = true
                }
                if case .map = actualShape {
                    // A map's record, keyed by its member name (not by fields inside it).
                    if kind == 2 { placement.isRecord = true }
                } else if kind == 1 {
                    placement.role = .records
                    placement.opensSection = true
                }
            case .sectionObject:
                if stack[p].keyIsItems {
                    placement.isItemsValue = true
                    if kind == 1 { placement.role = .records; placement.opensSection = true }
                }
                if placement.role != .records { placement.building = true }
            default:
                break
            }
        } else {
            let index = stack[p].count
            if parent.pathStep >= 0, parent.pathStep < path.count, path[parent.pathStep] == "*" || String(index) == path[parent.pathStep] {
                placement.pathStep = parent.pathStep + 1
                stack[p].stepTaken = true
            }
            if parent.keyLevel >= 0, let e = scan.keys.entry(parent.keyLevel, index: index) {
                let bit = UInt64(1) << UInt64(scan.keys.levels[parent.keyLevel].ids[e])
                if finding.visited & bit == 0 {
                    finding.visited |= bit
                    placement.keyLevel = scan.keys.levels[parent.keyLevel].next[e]
                    placement.keyMask = scan.keys.levels[parent.keyLevel].fields[e]
                }
            }
            switch parent.role {
            case .records:
                placement.isRecord = true
                placement.keyLevel = kind == 2 ? 0 : -1
                placement.keyMask = 0
            case .container:
                placement.inContainer = true
                if kind == 2 { placement.role = .sectionObject }
            default:
                break
            }
        }
        placement.isContainer = placement.pathStep == path.count && placement.pathStep > 0 || placement.isContainer
        return placement
    }

    mutating func begin(_ placement: inout Placement, kind: Int, _ event: YAMLRawEvent) {
        if scan.buildsValues { valueOffsets.append(marks.offset(ofIndex: event.start.index)) }
        // Byte offsets only for nodes that may be named in a record, section or message.
        if placement.isRecord || placement.isContainer || placement.inContainer || placement.isItemsValue || placement.pathStep >= 0
            || placement.role != .plain
        {
            placement.offset = marks.offset(ofIndex: event.start.index)
        }
        if placement.isRecord {
            recordStart = placement.offset
            finding = KeyFinding()
            standalone = !tagDirectives && replaying == 0
        }
        if placement.isContainer {
            containerFound = true
            containerOffset = placement.offset
            switch kind {
            case 1 where pattern:
                // One of the lists the pattern names: a section, named by its path.
                placement.role = .records
                placement.opensSection = true
            case 2 where pattern:
                noteLayout(patternProblem(pointer(of: placement), "object", at: placement.offset))
            case 1:
                if case .sectionList = shape {
                    placement.role = .container
                } else {
                    placement.role = .records
                    placement.opensSection = true
                    actualShape = .list
                }
                if probing, explicit {
                    probedShape = .sectionList(items: scan.options.items ?? LayoutOptions.itemsCandidates[0])
                    stopped = true
                }
            case 2:
                if explicit {
                    noteLayout(.noRecords(what, "object", sectionOptions: true, at: placement.offset))
                } else if case .map = shape {
                    placement.role = .container
                    actualShape = .map
                    var section = ScannedSection(offset: placement.offset)
                    section.items = .list
                    sections.append(section)
                    names = MemberNames(capacity: probing ? 16 : max(16, scan.bytes.count / 128))
                } else {
                    placement.role = .container
                    actualShape = .objectOfLists
                }
                if probing {
                    // (Without section options, the first member decides the shape.)
                    probedShape = .objectOfLists
                    stopped = explicit
                }
            default:
                break
            }
        }
        if placement.opensSection {
            var section = ScannedSection(offset: placement.offset)
            let p = stack.count - 1
            if placement.isItemsValue {
                section = sections.removeLast()
                stack[p].itemsSeen = true
                stack[p].members.append(Object.Member(key: stack[p].keyText ?? "", value: .array([])))
            } else if p >= 0, placement.inContainer {
                section.memberName = stack[p].keyText ?? ""
            } else if pattern {
                section.memberName = pointer(of: placement)
                sectionName = CanonicalHash.string(section.memberName!)
            }
            section.items = .list
            sections.append(section)
            list = CanonicalHash.ArrayHasher()
        }
        if placement.role == .sectionObject {
            sections.append(ScannedSection(offset: placement.offset))
        }
    }

    /// The JSON Pointer of the node beginning now (under a path with `*`): its parent's, and
    /// its member name or index there.
    func pointer(of placement: Placement) -> String {
        guard let parent = stack.last else { return "" }
        let step = parent.isMapping ? FieldPath.escape(parent.keyText ?? "") : String(parent.count)
        return parent.pointer + "/" + step
    }

    /// A value a pattern names that is not a list.
    func patternProblem(_ pointer: String, _ typeName: String, at offset: Int) -> LayoutProblem {
        .notAList(pointer, typeName, pattern: scan.options.path!, at: offset)
    }

    mutating func noteLayout(_ problem: LayoutProblem) {
        if layoutProblem == nil { layoutProblem = problem }
    }

    mutating func open(_ event: YAMLRawEvent, mapping: Bool) throws(ListDiffError) {
        let depth = scan.documentDepth + stack.count + 1
        try rules.nest(depth, at: place(event))
        if depth > deepest { deepest = depth }
        let kind = mapping ? 2 : 1
        var placement = place(kind: kind, event)
        begin(&placement, kind: kind, event)
        var frame = Frame(isMapping: mapping, placement: placement)
        frame.anchor = event.anchor.map { String(decoding: $0, as: UTF8.self) }
        if pattern, placement.pathStep >= 0 { frame.pointer = pointer(of: placement) }
        if mapping {
            while keySets.count <= stack.count {
                keySets.append([])
                longKeySets.append([:])
            }
            keySets[stack.count].removeAll(keepingCapacity: true)
            if !longKeySets[stack.count].isEmpty { longKeySets[stack.count].removeAll() }
        }
        stack.append(frame)
    }

    /// A scalar without tag or anchor in a mapping that is neither built, nor on the path,
    /// nor the records' container (a member name or value of a record, most of a document):
    /// what `scalar` does for it, with less to decide. False, and nothing done, for any
    /// other scalar.
    @inline(__always)
    mutating func plainScalar(_ event: YAMLRawEvent) throws(ListDiffError) -> Bool {
        guard event.tag == nil, event.anchor == nil, !scan.buildsValues, !stack.isEmpty else { return false }
        let p = stack.count - 1
        guard stack[p].isMapping, stack[p].placement.role == .plain, !stack[p].placement.building else { return false }
        if !stack[p].keyPending {
            guard scan.reader.version != .kubernetes else { return false }
            try mappingKey(event)
            return true
        }
        guard !stack[p].keyOnPath else { return false }
        let (hash, kind, _) = try resolve(event, build: false)
        let level = stack[p].placement.keyLevel
        if level >= 0, let e = stack[p].keyEntry {
            let mask = scan.keys.levels[level].fields[e]
            if mask != 0 { finding.note(mask, scalar: kind.isScalar, hash: hash, memory: memory) }
        }
        stack[p].nodes += 1
        stack[p].object.add(key: stack[p].keyHash, value: hash)
        stack[p].keyPending = false
        return true
    }

    @inline(never)
    mutating func scalar(_ event: YAMLRawEvent) throws(ListDiffError) {
        var placement = place(kind: 0, event)
        if placement.isKey {
            // A tagged key is checked against its tag, as the reader checks it; an anchored
            // key can be aliased later, as a key or as a value.
            var tagged: Value? = nil
            if event.tag != nil || event.anchor != nil {
                tagged = try resolve(event, build: true).2
                if let anchor = event.anchor, let tagged {
                    anchors[String(decoding: anchor, as: UTF8.self)] = YAMLAnchor(value: tagged, nodes: 1)
                }
            }
            if scan.reader.version == .kubernetes, let name = try kubernetesKeyName(event, tagged: tagged) {
                var renamed = event
                try Array(name.utf8).withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(ListDiffError) in
                    renamed.value = UnsafeRawBufferPointer(buffer)
                    try mappingKey(renamed)
                }
                return
            }
            try mappingKey(event)
            return
        }
        begin(&placement, kind: 0, event)
        let (hash, kind, value) = try resolve(event, build: placement.building || event.anchor != nil)
        // An empty document of a stream is no record.
        if scan.stream, !scan.buildsValues, stack.isEmpty, kind == .null { return }
        let typeName = kind.name
        if placement.isContainer, pattern {
            noteLayout(patternProblem(pointer(of: placement), typeName, at: placement.offset))
        } else if placement.isContainer {
            noteLayout(.noRecords(what, typeName, sectionOptions: explicit, at: placement.offset))
            if probing { stopped = true }
        } else if placement.pathStep >= 0, placement.pathStep < path.count, !pattern {
            if pathProblem == nil {
                pathProblem = LayoutProblem(
                    offset: placement.offset,
                    message:
                        "there is no \(scan.options.path!.spelling) here: \(typeName.withArticle) has no member \"\(path[placement.pathStep])\""
                )
            }
        }
        if let anchor = event.anchor, let value {
            anchors[String(decoding: anchor, as: UTF8.self)] = YAMLAnchor(value: value, nodes: 1)
        }
        finish(
            hash: hash, kind: kind, value: value, nodes: 1, placement: placement, endIndex: event.end.index)
        if probing, placement.isRecord { decide(nil) }
    }

    /// The name Kubernetes reads a mapping key as, when it is not the key's text (nil): a
    /// plain key resolves as a value does (`yes` is `true`, `0x10` is `16`), a tagged one as
    /// its tag says; a quoted key, a string, keeps its text.
    func kubernetesKeyName(_ event: YAMLRawEvent, tagged: Value?) throws(ListDiffError) -> String? {
        let key: YAMLScalar.KubernetesKey?
        if let tag = event.tag {
            if tag.elementsEqual((YAMLScalar.tagPrefix + "merge").utf8) {
                key = YAMLScalar.kubernetesKey(event.value)
            } else if let tagged, case .string = tagged {
                return nil
            } else {
                // A boolean, number or null names the key as its plain spelling would.
                var text = tagged.flatMap(YAMLScalar.keyText) ?? ""
                key = text.withUTF8 { YAMLScalar.kubernetesKey(UnsafeRawBufferPointer($0)) } ?? .name(text)
            }
        } else {
            guard event.plain, GoYAML.mayResolve(event.value) || event.value.first == UInt8(ascii: "<") else { return nil }
            key = YAMLScalar.kubernetesKey(event.value)
        }
        switch key {
        case nil: return nil
        case .name(let name)?: return name
        case .refused(let why)?: throw rules.error(.shape, place(event), why)
        }
    }

    /// A scalar's hash, kind and (when `build`) value; an error names the file.
    func resolve(_ event: YAMLRawEvent, build: Bool) throws(ListDiffError) -> (Hash128, NodeKind, Value?) {
        do {
            return try YAMLScalar.resolve(event, build: build, version: scan.reader.version)
        } catch {
            throw error.inFile(scan.file.name)
        }
    }

    /// A scalar that is a mapping key: its text names the member.
    mutating func mappingKey(_ event: YAMLRawEvent) throws(ListDiffError) {
        let p = stack.count - 1
        let text = event.value
        let hash = CanonicalHash.string(text)
        // Duplicate keys, by the hash of their text: a short list, then a dictionary.
        if keySets[p].count < 32 {
            if let earlier = keySets[p].first(where: { $0.hash == hash }) {
                throw duplicateKey(text, (earlier.line, earlier.column), event)
            }
            keySets[p].append((hash, event.start.line, event.start.column))
        } else {
            if longKeySets[p].isEmpty {
                for k in keySets[p] { longKeySets[p][k.hash] = (k.line, k.column) }
            }
            if let earlier = longKeySets[p].updateValue((event.start.line, event.start.column), forKey: hash) {
                throw duplicateKey(text, earlier, event)
            }
        }
        let placement = stack[p].placement
        stack[p].keyPending = true
        stack[p].keyHash = hash
        let onPath = placement.pathStep >= 0 && placement.pathStep < path.count
        let needsText =
            placement.building || onPath || probing && placement.isRecord || placement.role == .container
            || placement.role == .sectionObject
        stack[p].keyText = needsText ? String(decoding: text, as: UTF8.self) : nil
        if names != nil, placement.role == .container { stack[p].keyStart = marks.offset(ofIndex: event.start.index) }
        if placement.role == .container, case .map = actualShape, path.isEmpty, !explicit,
            scan.key.isWholeRecord || scan.keys.entry(0, named: text) != nil
        {
            // A map with a member named like the key may be one record that carries it.
            loneMapping = true
        }
        // (A pattern's `*` takes every member; a name, its first member of that name.)
        stack[p].keyOnPath =
            onPath
            && (pattern && path[placement.pathStep] == "*"
                || !stack[p].stepTaken && text.elementsEqual(path[placement.pathStep].utf8))
        stack[p].keyEntry = nil
        if placement.keyLevel >= 0, let e = scan.keys.entry(placement.keyLevel, named: text) {
            let bit = UInt64(1) << UInt64(scan.keys.levels[placement.keyLevel].ids[e])
            if finding.visited & bit == 0 {
                finding.visited |= bit
                stack[p].keyEntry = e
            }
        }
        if placement.role == .sectionObject {
            var items = LayoutOptions.itemsCandidates[0]
            if case .sectionList(let named) = actualShape { items = named }
            stack[p].keyIsItems = !stack[p].itemsSeen && text.elementsEqual(items.utf8)
        }
    }

    mutating func close(_ event: YAMLRawEvent) throws(ListDiffError) {
        let frame = stack.removeLast()
        let placement = frame.placement
        if placement.isKey {
            throw rules.keyNotScalar(frame.isMapping ? "object" : "array", at: place(event))
        }
        let hash = frame.isMapping ? frame.object.finish() : frame.array.finish()
        let value: Value? = placement.building ? (frame.isMapping ? .object(Object(frame.members)) : .array(frame.items)) : nil
        if let anchor = frame.anchor, let value { anchors[anchor] = YAMLAnchor(value: value, nodes: frame.nodes) }
        // A path step not taken below a node on the path: its member or index is not there.
        if placement.pathStep >= 0, placement.pathStep < path.count, !frame.stepTaken, pathProblem == nil, !pattern {
            let step = path[placement.pathStep]
            pathProblem = LayoutProblem(
                offset: placement.offset,
                message: frame.isMapping
                    ? "there is no \(scan.options.path!.spelling) here: no member \"\(step)\""
                    : "there is no \(scan.options.path!.spelling) here: no index \(step) in a list of \(frame.count)")
        }
        switch placement.role {
        case .records:
            sections[sections.count - 1].closed = true
            sections[sections.count - 1].listHash = list.finish()
        case .container where actualShape == .map:
            sections[0].closed = true
            sections[0].listHash = map.finish()
        case .sectionObject:
            sections[sections.count - 1].members = frame.members
        default:
            break
        }
        finish(
            hash: hash, kind: frame.isMapping ? .object : .array, value: value, nodes: frame.nodes, placement: placement,
            endIndex: event.end.index)
        if probing, placement.isRecord { decide(frame.isMapping ? frame.lists : nil) }
    }

    /// Probing: the list's first element is read. Section objects lack the record key and
    /// hold a list in a member named like a records list (as `ScannedDocument.layout` judges them all).
    mutating func decide(_ lists: [String]?) {
        stopped = true
        probedShape = .list
        guard let lists, finding.status(scan.keys) == .missing,
            let items = LayoutOptions.itemsCandidates.first(where: lists.contains),
            !scan.key.fields.contains(where: { lists.contains($0.components[0]) })
        else { return }
        probedShape = .sectionList(items: items)
    }

    // MARK: - Nodes ending

    /// A value ends: it goes into its parent's hash (and value), it is a key part, a record,
    /// or a section's member, as its placement says.
    mutating func finish(hash: Hash128, kind: NodeKind, value: Value?, nodes: Int, placement: Placement, endIndex: Int) {
        let isScalar = kind.isScalar
        if placement.keyMask != 0 { finding.note(placement.keyMask, scalar: isScalar, hash: hash, memory: memory) }
        if placement.isRecord {
            record(hash: hash, kind: kind, endIndex: endIndex)
            if scan.buildsValues { values.append(value ?? .null) }
        }
        guard !stack.isEmpty else { return }
        let p = stack.count - 1
        stack[p].nodes += nodes
        let typeName = kind.name
        if stack[p].isMapping {
            stack[p].object.add(key: stack[p].keyHash, value: hash)
            if stack[p].placement.building || stack[p].placement.role == .sectionObject,
                placement.role != .records || !placement.isItemsValue
            {
                stack[p].members.append(Object.Member(key: stack[p].keyText ?? "", value: value ?? .null))
            }
            if placement.isItemsValue, !placement.opensSection, stack[p].placement.role == .sectionObject {
                sections[sections.count - 1].items = .notList(typeName: typeName, offset: placement.offset)
                stack[p].itemsSeen = true
            }
            if placement.inContainer, !placement.opensSection, case .objectOfLists = actualShape {
                if path.isEmpty, !explicit { loneMapping = true }
                noteLayout(.memberNotAList(what, member: stack[p].keyText ?? "", typeName, at: placement.offset, under: scan.options.path))
            }
            if placement.inContainer, !placement.isRecord, case .map = actualShape {
                if path.isEmpty, !explicit { loneMapping = true }
                noteLayout(
                    .memberNotARecord(what, member: stack[p].keyText ?? "", typeName, at: placement.offset, under: scan.options.path))
            }
            if probing, stack[p].placement.isRecord, kind == .array, LayoutOptions.itemsCandidates.contains(stack[p].keyText ?? "") {
                stack[p].lists.append(stack[p].keyText ?? "")
            }
            stack[p].keyPending = false
        } else {
            stack[p].array.add(hash)
            stack[p].count += 1
            if stack[p].placement.building { stack[p].items.append(value ?? .null) }
            if placement.inContainer, placement.role != .sectionObject {
                var section = ScannedSection(offset: placement.offset)
                section.notAnObject = typeName
                sections.append(section)
            }
        }
    }

    /// A record ends: into the table, with its key's hash or the note that it has none.
    mutating func record(hash: Hash128, kind: NodeKind, endIndex: Int) {
        let status: KeyStatus
        var keyHash: UInt64 = 0
        let isScalar = kind.isScalar
        if let names, let container = stack.last {
            // A map's record: keyed by its member name, as a string is keyed by itself.
            status = .keyed
            keyHash = memory.keyHashing.mix(container.keyHash)
            names.hashes.append(container.keyHash)
            names.starts.append(container.keyStart)
            names.texts.append(container.keyText ?? "")
            map.add(key: container.keyHash, value: hash)
        } else if wholeRecord {
            // Every record is its own key: its content hash is its key's.
            status = .keyed
            keyHash = memory.keyHashing.mix(hash)
        } else if kind == .object {
            status = finding.status(scan.keys)
            if status == .keyed { keyHash = memory.keyHash(fields: scan.keys.fieldCount, present: finding.present) }
        } else if isScalar {
            status = .keyed
            keyHash = memory.keyHashing.mix(hash)
        } else {
            status = .unusable
        }
        if status != .keyed {
            if firstUnkeyed == nil { firstUnkeyed = table.count }
            if status == .missing { missingKeys += 1 }
        } else if pattern {
            // Under a path with `*`, a record is keyed within its own list.
            keyHash = memory.keyHashing.scoped(keyHash, in: sectionName)
        }
        if copying, status == .keyed, let keys = scan.old?.keys {
            // The OLD record of its key: the one after it is expected next.
            let match = keys.lookup(keyHash)
            if match >= 0 { cursor = match + 1 }
        }
        noteDepth()
        let end = marks.offset(ofIndex: endIndex)
        starts.append(recordStart)
        lengths.append(UInt32(truncatingIfNeeded: max(0, end - recordStart)))
        hashes.append(hash)
        keyHashes.append(keyHash)
        scalars.append(isScalar)
        standaloneFlags.append(standalone)
        list.add(hash)
        sections[sections.count - 1].recordCount += 1
    }
}

extension YAMLScanState {
    /// Notes the depth of a record read now.
    @inline(__always)
    mutating func noteDepth() {
        if recordDepth != stack.count { recordDepth = recordDepth == -1 ? stack.count : -2 }
    }

    /// A node begins at byte `offset`, at `column`, as an element of a block sequence. Against
    /// OLD, it is taken whole (its length returned, its events not read) when it is a record
    /// whose bytes are those of the OLD record expected next, at the same column and depth,
    /// and they end it as they ended that record: a mapping or list whose last line holds
    /// only the indentation of the token after it, left of its column, and that token is
    /// there (or the input ends). Read at that column, the same bytes make the same events,
    /// so its hashes and key are OLD's record's. Otherwise nil: the node is read.
    mutating func copied(at offset: Int, column: Int) -> Int? {
        guard copying, cursor < oldStarts.count, stack.count == oldDepth, !tagDirectives, replaying == 0 else { return nil }
        let p = stack.count - 1
        let parent = stack[p].placement
        // (A records list's elements: no path step and no key part below it, no value built.)
        guard !stack[p].isMapping, parent.role == .records, !parent.building, parent.keyLevel < 0,
            parent.pathStep < 0 || parent.pathStep >= path.count
        else { return nil }
        let i = cursor
        guard !oldScalars[i], oldStandalone[i], oldKeyHashes[i] != 0 else { return nil }
        let length = Int(oldLengths[i])
        let bytes = scan.bytes
        guard length > 0, length <= bytes.count - offset else { return nil }
        let end = offset + length
        if end < bytes.count {
            let b = bytes[end]
            guard b != 0x20, b != 0x0A, b != UInt8(ascii: "#") else { return nil }
        }
        let start = oldStarts[i]
        let old = oldBytes + start
        var k = length
        while k > 0, old[k - 1] == 0x20 { k -= 1 }
        guard k > 0, old[k - 1] == 0x0A, length - k < column, start >= column else { return nil }
        // OLD's record at the same column.
        for b in start - column..<start where oldBytes[b] == 0x0A { return nil }
        guard start == column || oldBytes[start - column - 1] == 0x0A else { return nil }
        guard SystemCalls.compare(bytes.baseAddress! + offset, old, length) == 0 else { return nil }
        let hash = oldHashes[i]
        starts.append(offset)
        lengths.append(oldLengths[i])
        hashes.append(hash)
        keyHashes.append(oldKeyHashes[i])
        scalars.append(false)
        standaloneFlags.append(true)
        details.copied += 1
        list.add(hash)
        sections[sections.count - 1].recordCount += 1
        stack[p].array.add(hash)
        stack[p].count += 1
        noteDepth()
        cursor += 1
        return length
    }
}

/// Resolution of a scalar on its bytes, with its hash, without making a string for a plain
/// value (tags, unusual spellings and, in YAML 1.1 and for Kubernetes, whatever they may
/// read otherwise go the reader's way).
enum YAMLScalar {
    static func resolve(_ event: YAMLRawEvent, build: Bool, version: YAMLVersion) throws(ListDiffError) -> (Hash128, NodeKind, Value?) {
        let text = event.value
        if event.tag == nil {
            if !event.plain { return (CanonicalHash.string(text), .string, build ? .string(String(decoding: text, as: UTF8.self)) : nil) }
            if version == .v1_2 || !mayDifferFromCore(text) || isPlainInteger(text, version), let (hash, kind) = quick(text) {
                let value: Value? = build ? YAMLScalar.coreSchema(String(decoding: text, as: UTF8.self)) : nil
                return (hash, kind, value)
            }
        }
        let string = String(decoding: text, as: UTF8.self)
        let tag = event.tag.map { String(decoding: $0, as: UTF8.self) }
        let value = try YAMLScalar.resolve(
            string, tag: tag, plain: event.plain,
            at: SourceLocation(line: event.start.line + 1, column: event.start.column + 1), version: version)
        return (CanonicalHash.of(value), NodeKind(value), value)
    }

    /// Whether a plain scalar is an integer that YAML 1.1 and Kubernetes read as the core
    /// schema does: `-?[1-9][0-9]*` or `0`, for Kubernetes in 18 digits at most (within
    /// 64 bits).
    static func isPlainInteger(_ text: UnsafeRawBufferPointer, _ version: YAMLVersion) -> Bool {
        var i = text.first == UInt8(ascii: "-") ? 1 : 0
        guard i < text.count else { return false }
        if text[i] == UInt8(ascii: "0") { return text.count == 1 }
        if version == .kubernetes, text.count - i > 18 { return false }
        while i < text.count {
            guard text[i] &- UInt8(ascii: "0") < 10 else { return false }
            i += 1
        }
        return true
    }

    /// The hash and kind of a plain scalar whose resolution needs no string: null, booleans,
    /// decimals and text that cannot be anything but a string; nil otherwise (`0o`, `0x`,
    /// `.inf`, `.nan`: the reader's way).
    @inline(__always)
    static func quick(_ text: UnsafeRawBufferPointer) -> (Hash128, NodeKind)? {
        guard let base = text.baseAddress, let first = text.first else { return (CanonicalHash.null, .null) }
        switch first {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."):
            // The common number first: a plain decimal, as JSON writes one.
            if let (hash, end) = CanonicalHash.plainDecimal(base.assumingMemoryBound(to: UInt8.self), from: 0, count: text.count),
                end == text.count
            {
                return (hash, .number)
            }
            if first == UInt8(ascii: "0"), text.count > 2, text[1] == UInt8(ascii: "o") || text[1] == UInt8(ascii: "x") { return nil }
            if first == UInt8(ascii: ".") || text.count > 1 && text[1] == UInt8(ascii: ".") {
                for b in text where b | 0x20 == UInt8(ascii: "i") || b | 0x20 == UInt8(ascii: "n") { return nil }  // .inf, .nan
            }
            guard isDecimal(text) else { return (CanonicalHash.string(text), .string) }
            var digits = Number.DigitBuffer()
            let (negative, exponent) = Number.canonicalDigits(text, into: &digits)
            return digits.withBytes { (CanonicalHash.number(negative: negative, digits: $0, exponent: exponent), .number) }
        case UInt8(ascii: "~"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "t"), UInt8(ascii: "T"), UInt8(ascii: "f"),
            UInt8(ascii: "F"):
            if text.count <= 5 {
                for (spelling, hash, kind) in literals where text.elementsEqual(spelling) { return (hash, kind) }
            }
            return (CanonicalHash.string(text), .string)
        default:
            return (CanonicalHash.string(text), .string)
        }
    }

    static let literals: [([UInt8], Hash128, NodeKind)] = [
        ("~", CanonicalHash.null, NodeKind.null), ("null", CanonicalHash.null, .null), ("Null", CanonicalHash.null, .null),
        ("NULL", CanonicalHash.null, .null), ("true", CanonicalHash.true, .boolean), ("True", CanonicalHash.true, .boolean),
        ("TRUE", CanonicalHash.true, .boolean), ("false", CanonicalHash.false, .boolean), ("False", CanonicalHash.false, .boolean),
        ("FALSE", CanonicalHash.false, .boolean),
    ].map { (Array($0.0.utf8), $0.1, $0.2) }

    /// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`, the exponent of at
    /// most 9 significant digits (the same range as the JSON reader). `YAMLNumbers.jsonText`
    /// respells what it accepts.
    static func isDecimal(_ b: UnsafeRawBufferPointer) -> Bool {
        func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }
        var i = 0
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") { i += 1 }
        var integer = 0
        while i < b.count, isDigit(b[i]) { i += 1; integer += 1 }
        var fraction = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, isDigit(b[i]) { i += 1; fraction += 1 }
        }
        if integer == 0 && fraction == 0 { return false }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") { i += 1 }
            var digits = 0, significant = 0
            while i < b.count, isDigit(b[i]) {
                if significant > 0 || b[i] != UInt8(ascii: "0") { significant += 1 }
                i += 1
                digits += 1
            }
            if digits == 0 || significant > 9 { return false }
        }
        return i == b.count
    }
}
