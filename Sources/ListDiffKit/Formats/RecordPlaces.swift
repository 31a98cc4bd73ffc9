// Where values sit inside records: the offset of the value a path leads to, for an
// annotation on a changed field or an error at an element of a keyed list. Each record is
// walked once for all the paths asked of it, and only the records asked about are read.

/// Paths into one record, merged where they share steps, so that one walk over the record
/// finds where each leads.
///
/// A step is a member name (`.string`; in a list, a name of decimal digits is an index, as
/// in a JSON Pointer), an index (`.number`), or an element of a keyed list named by its key
/// fields and their values (`.object`, as `FieldChange.keyedPath` writes it). The walk notes
/// each step it finds; a path leads to the last of its steps found, or to the record itself
/// when none is (a field removed in this version leads to its parent).
struct PathTrie {
    struct Node {
        let parent: Int
        /// The member name (or index, in decimal) that leads here, to check a match found by hash.
        var name: [UInt8] = []
        /// Where the walk found the value, when it did.
        var offset: Int?
        /// Children by the hash of their member name (`CanonicalHash.string`), and by index.
        var names: [Hash128: Int] = [:]
        var indexes: [Int: Int] = [:]
        /// Children that are elements of a keyed list: for each key, its elements' identities.
        var keyed: [(key: IdentityKey, ids: [RecordID: Int])] = []

        var leadsOn: Bool { !names.isEmpty || !indexes.isEmpty || !keyed.isEmpty }
    }

    private(set) var nodes = [Node(parent: -1)]
    /// The node each path ends at.
    private var ends: [Int] = []

    init(_ paths: [[Value]]) {
        for path in paths {
            var at = 0
            for step in path { at = child(of: at, step) }
            ends.append(at)
        }
    }

    /// For each path, where the last of its steps that the walk found starts; `start` (the
    /// record's) when it found none.
    func offsets(orElse start: Int) -> [Int] {
        ends.map { end in
            var n = end
            while n > 0, nodes[n].offset == nil { n = nodes[n].parent }
            return nodes[n].offset ?? start
        }
    }

    private mutating func add(under parent: Int) -> Int {
        nodes.append(Node(parent: parent))
        return nodes.count - 1
    }

    /// The child of `at` that `step` leads to, added if new. A step that names nothing a
    /// record can hold gets a child that no walk reaches.
    private mutating func child(of at: Int, _ step: Value) -> Int {
        switch step {
        case .string(let name):
            let hash = CanonicalHash.string(name)
            if let c = nodes[at].names[hash] { return c }
            let c = add(under: at)
            nodes[c].name = Array(name.utf8)
            nodes[at].names[hash] = c
            if let index = Int(name), index >= 0, String(index) == name { nodes[at].indexes[index] = c }
            return c
        case .number(let number):
            guard let index = Int(number.text), index >= 0 else { return add(under: at) }
            return child(of: at, .string(String(index)))
        case .object(let fields):
            let spellings = fields.members.map(\.key)
            var paths: [FieldPath] = []
            for spelling in spellings {
                guard let path = try? FieldPath(spelling) else { return add(under: at) }
                paths.append(path)
            }
            let key = IdentityKey(paths)
            let written: Value = fields.members.count == 1 ? fields.members[0].value : .array(fields.members.map(\.value))
            let id = key.id(ofWritten: written)
            let g =
                nodes[at].keyed.firstIndex { $0.key.spellings == spellings }
                ?? {
                    nodes[at].keyed.append((key, [:]))
                    return nodes[at].keyed.count - 1
                }()
            if let c = nodes[at].keyed[g].ids[id] { return c }
            let c = add(under: at)
            nodes[at].keyed[g].ids[id] = c
            return c
        default:
            return add(under: at)
        }
    }

    /// The child of `at` for the member `name` (its UTF-8, and the hash of that), if any.
    private func child(of at: Int, named name: UnsafeRawBufferPointer, _ hash: Hash128) -> Int? {
        guard let c = nodes[at].names[hash], nodes[c].name.elementsEqual(name) else { return nil }
        return c
    }

    /// The child of `at` for the element of a keyed list whose value is `element`, if any.
    private func child(of at: Int, keyedElement element: Value) -> Int? {
        for (key, ids) in nodes[at].keyed {
            if case .success(let identity) = key.identify(element), let c = ids[identity.id] { return c }
        }
        return nil
    }

    // MARK: - Walks

    /// Walks the JSON value at the parser's index (checked by the scan), from node `node`,
    /// skipping what leads nowhere; the parser ends after the value.
    mutating func walk(_ node: Int, _ parser: inout JSONParser) throws(JSONParseFailure) {
        let bytes = parser.bytes
        nodes[node].offset = parser.index
        guard nodes[node].leadsOn, parser.index < bytes.count else {
            parser.index = JSONParser.skip(bytes, from: parser.index)
            return
        }
        switch bytes[parser.index] {
        case UInt8(ascii: "{"):
            try parser.walkObject(checkingNames: false) { (name, hash, parser) throws(JSONParseFailure) in
                if let c = self.child(of: node, named: name, hash) {
                    try self.walk(c, &parser)
                } else {
                    parser.index = JSONParser.skip(parser.bytes, from: parser.index)
                }
            }
        case UInt8(ascii: "["):
            try parser.walkArray { (k, parser) throws(JSONParseFailure) in
                if let c = self.nodes[node].indexes[k] {
                    try self.walk(c, &parser)
                } else if !self.nodes[node].keyed.isEmpty {
                    // An element of a keyed list: read, for its key, then walked if it is one sought.
                    let start = parser.index
                    if let c = self.child(of: node, keyedElement: try parser.parseValue()) {
                        parser.index = start
                        try self.walk(c, &parser)
                    }
                } else {
                    parser.index = JSONParser.skip(parser.bytes, from: parser.index)
                }
            }
        default:
            parser.index = JSONParser.skip(bytes, from: parser.index)
        }
    }

    /// Walks `value` from node `node`, the value's nodes starting at `offsets` in preorder (as
    /// the YAML walk notes them) from index `p`, each moved by `shift`; `p` ends after the value.
    mutating func walk(_ node: Int?, _ value: Value, offsets: ArraySlice<Int>, shift: Int, at p: inout Int) {
        guard let node, p < offsets.endIndex else {
            p += value.nodeCount
            return
        }
        nodes[node].offset = offsets[p] + shift
        guard nodes[node].leadsOn else {
            p += value.nodeCount
            return
        }
        p += 1
        switch value {
        case .object(let object):
            for member in object.members {
                var name = member.key
                let c = name.withUTF8 { utf8 in
                    let raw = UnsafeRawBufferPointer(utf8)
                    return child(of: node, named: raw, CanonicalHash.string(raw))
                }
                walk(c, member.value, offsets: offsets, shift: shift, at: &p)
            }
        case .array(let items):
            for (k, item) in items.enumerated() {
                walk(nodes[node].indexes[k] ?? child(of: node, keyedElement: item), item, offsets: offsets, shift: shift, at: &p)
            }
        default:
            break
        }
    }
}

extension RecordSource {
    /// Where the values at `paths` start in record `record` (as `offsets(_:)` finds them).
    func offsets(of paths: [[Value]], in record: Int) -> [Int] {
        offsets([(record, paths)])[0]
    }
}

extension JSONRecords {
    /// Each record asked about, walked once over its text for all its paths.
    func offsetsInText(_ requests: [(record: Int, paths: [[Value]])]) -> [[Int]] {
        requests.map { record, paths in
            var trie = PathTrie(paths)
            var parser = JSONParser(bytes: file.bytes, maxDepth: maxDepth)
            parser.recordsOffsets = false
            parser.index = starts[record]
            parser.depth = depth
            // (The scan checked the record: a failure leaves the paths at what was found.)
            try? trie.walk(0, &parser)
            return trie.offsets(orElse: starts[record])
        }
    }
}

extension YAMLRecords {
    /// The records asked about read in one pass of libyaml, as `values(_:)` reads them, with
    /// the place of every node; a record that does not read alone points its paths at itself.
    func offsetsInStream(_ requests: [(record: Int, paths: [[Value]])]) -> [[Int]] {
        let records = requests.map(\.record)
        let (stream, at) = stream(records)
        guard let walked = try? reader.walk(MappedFile(name: name, bytes: stream), anchors: details.anchors),
            walked.values.count == records.count, walked.documentStarts.count == records.count
        else {
            // One record that does not read spoils the stream: each alone, then.
            if requests.count == 1 { return [requests[0].paths.map { _ in starts[records[0]] }] }
            return requests.map { offsetsInStream([$0])[0] }
        }
        return requests.enumerated().map { k, request in
            let r = request.record
            guard walked.table.hashes[k] == hashes[r] else { return request.paths.map { _ in starts[r] } }
            let end = k + 1 < records.count ? walked.documentStarts[k + 1] : walked.valueOffsets.count
            var trie = PathTrie(request.paths)
            var p = walked.documentStarts[k]
            trie.walk(0, walked.values[k], offsets: walked.valueOffsets[..<end], shift: starts[r] - at[k], at: &p)
            return trie.offsets(orElse: starts[r])
        }
    }
}
