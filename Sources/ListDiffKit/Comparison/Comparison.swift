/// The rules under which two versions of a record count as the same: fields left out,
/// lists and arrays whose order means nothing, numbers within a tolerance, strings
/// compared without case or extra white space.
///
/// It is the one place these rules live. The diff (the engine, `Differ` and `--sorted`)
/// consults it to decide whether a record changed and which fields changed, and a changeset
/// carries it, so that `apply` hashes its result as the diff did (`Fingerprint.ofResult`).
///
/// Rules never touch identity: records are matched by their key exactly, and a rule whose
/// path would reach a key field is refused when the diff starts.
///
/// A rule's path is a JSON Pointer into a record (RFC 6901), where the segment `*` matches
/// any one member or index. A rule applies to the value at its path and to everything
/// inside it. The path `/` alone names the whole record (so `--unordered-arrays /` makes
/// every array unordered, and `--ignore-case /` every string).
public struct Comparison: Sendable, Hashable {
    /// A JSON Pointer into a record, where `*` matches any one member or index.
    public struct Pattern: Sendable, Hashable, CustomStringConvertible {
        /// The steps; `*` matches any one.
        package let segments: [String]
        /// The pointer as written.
        public let spelling: String

        /// Parses a JSON Pointer (`/a/b`, with `~0` for `~` and `~1` for `/`); `/` alone
        /// is the whole record.
        public init(_ spelling: String) throws(ListDiffError) {
            guard spelling.hasPrefix("/") else {
                throw ListDiffError(.usage, "invalid path '\(spelling)': write a JSON Pointer such as /updated_at or /tags/*/name")
            }
            self.spelling = spelling
            segments = spelling == "/" ? [] : try FieldPath.pointerComponents(spelling)
        }

        public var description: String { spelling }

        /// Whether the pattern names `path` itself.
        package func matches(_ path: [String]) -> Bool {
            segments.count == path.count && covers(path)
        }

        /// Whether the pattern names a list somewhere in `value`.
        package func namesAList(in value: Value) -> Bool {
            func walk(_ value: Value, _ k: Int) -> Bool {
                if k == segments.count {
                    if case .array = value { return true } else { return false }
                }
                switch value {
                case .object(let object):
                    return object.members.contains { (segments[k] == "*" || segments[k] == $0.key) && walk($0.value, k + 1) }
                case .array(let items):
                    return items.indices.contains { (segments[k] == "*" || segments[k] == String($0)) && walk(items[$0], k + 1) }
                default:
                    return false
                }
            }
            return walk(value, 0)
        }

        /// Whether the pattern names `path` or a value that holds it.
        func covers(_ path: [String]) -> Bool {
            guard segments.count <= path.count else { return false }
            for (s, p) in zip(segments, path) where s != "*" && s != p { return false }
            return true
        }

        /// Whether `path` leads to what the pattern names (the pattern goes on below it).
        func leadsTo(_ path: [String]) -> Bool {
            guard path.count < segments.count else { return false }
            for (s, p) in zip(segments, path) where s != "*" && s != p { return false }
            return true
        }
    }

    /// Numbers under `path` are equal when they differ by at most `absolute`, or by at most
    /// `relative` times the larger of their magnitudes.
    public struct Tolerance: Sendable, Hashable {
        /// The fields the tolerance applies to.
        public var path: Pattern
        /// Numbers within this distance of each other are equal.
        public var absolute: Value.Number?
        /// Numbers within this fraction of the larger magnitude are equal.
        public var relative: Value.Number?

        /// A tolerance: two numbers at `path` are equal when either bound holds.
        public init(path: Pattern, absolute: Value.Number? = nil, relative: Value.Number? = nil) {
            self.path = path
            self.absolute = absolute
            self.relative = relative
        }
    }

    /// The elements of the lists at `path` (a list inside each record) are matched by
    /// `key`, as records are: the changed fields of an updated record then name inserted,
    /// deleted, updated and moved elements by their key, instead of changes by index.
    public struct ArrayKey: Sendable, Hashable, CustomStringConvertible {
        /// The lists keyed: a pointer into a record, where `*` matches any member or index.
        public var path: Pattern
        /// The fields that identify an element: one, or several together.
        public var key: IdentityKey

        /// Elements of the lists at `path` are matched by `key`.
        public init(path: Pattern, key: IdentityKey) {
            self.path = path
            self.key = key
        }

        /// Reads `POINTER=FIELD` specs; a pointer given twice makes a composite key, its
        /// fields in the order given. `auto` is left out (`Comparison.automaticArrayKeys`).
        public static func parsing(_ specs: [String]) throws(ListDiffError) -> [ArrayKey] {
            var pointers: [String] = []
            var fields: [String: [String]] = [:]
            for spec in specs where spec != "auto" {
                guard let cut = spec.lastIndex(of: "="), spec.hasPrefix("/"), spec.index(after: cut) < spec.endIndex else {
                    throw ListDiffError(
                        .usage,
                        "invalid array key '\(spec.prefix(80))': write POINTER=FIELD, such as /spec/containers=name")
                }
                let pointer = String(spec[..<cut])
                if spec[spec.index(after: cut)...] == "." {
                    throw ListDiffError(.usage, "invalid array key '\(spec.prefix(80))': the key of a nested list is a field, not '.'")
                }
                if fields[pointer] == nil { pointers.append(pointer) }
                fields[pointer, default: []].append(String(spec[spec.index(after: cut)...]))
            }
            var keys: [ArrayKey] = []
            for pointer in pointers {
                let path = try Pattern(pointer)
                guard !path.segments.isEmpty else {
                    throw ListDiffError(.usage, "invalid array key '\(pointer)': the pointer must name a list inside a record")
                }
                keys.append(ArrayKey(path: path, key: try IdentityKey(parsing: fields[pointer]!)))
            }
            return keys
        }

        /// The specs `parsing` reads: `POINTER=FIELD`, once per field.
        public var spellings: [String] { key.spellings.map { "\(path.spelling)=\($0)" } }

        public var description: String { spellings.joined(separator: " ") }
    }

    /// Lists inside records whose elements are matched by key.
    public var arrayKeys: [ArrayKey] = []
    /// Whether lists of objects that no array key names are matched by a conventional
    /// field when one keys both versions (`--array-key auto`): `id`, `key`, `uuid`, `name`
    /// and the other names key discovery prefers, present, scalar and unique in each
    /// version of the list, with at least one key in both. `Changeset.keyedLists` says
    /// which were chosen.
    public var automaticArrayKeys = false
    /// Paths whose values are not compared at all (present, absent or changed).
    public var ignore: [Pattern] = []
    /// When not empty, the only paths compared.
    public var only: [Pattern] = []
    /// Whether the order of the records in a list means nothing: no moves within a list.
    public var unorderedRecords = false
    /// Arrays compared as multisets (`[1, 2]` equals `[2, 1]`).
    public var unorderedArrays: [Pattern] = []
    /// Numeric tolerances; the one with the longest path that applies wins.
    public var tolerances: [Tolerance] = []
    /// Strings compared without regard to case.
    public var ignoreCase: [Pattern] = []
    /// Strings compared with white space at either end trimmed and runs of it as one space.
    public var ignoreWhitespace: [Pattern] = []

    /// Exact comparison: no rules.
    public init() {}

    /// Whether there are no rules and no array keys.
    public var isEmpty: Bool { self == Comparison() }

    /// Whether any rule decides sameness: all but the array keys, which only name the
    /// changes found inside a record.
    package var hasRules: Bool { comparesContent || unorderedRecords }

    /// Whether no list is keyed (`arrayKeys` empty, no automatic keys).
    package var arrayKeysFree: Bool { arrayKeys.isEmpty && !automaticArrayKeys }

    /// The key of the lists at `path`, the last given that names it.
    func arrayKey(_ path: [String]) -> ArrayKey? { arrayKeys.last { $0.path.matches(path) } }

    /// Whether any rule looks inside records (all but `unorderedRecords`).
    package var comparesContent: Bool {
        !ignore.isEmpty || !only.isEmpty || !unorderedArrays.isEmpty || !tolerances.isEmpty || !ignoreCase.isEmpty
            || !ignoreWhitespace.isEmpty
    }

    /// Refuses a rule whose path reaches a key field: keys are identity, never compared
    /// under rules.
    package func check(key: IdentityKey) throws(ListDiffError) {
        try checkWholeRecord(key)
        let named: [(String, [Pattern])] = [
            ("--ignore", ignore), ("--unordered-arrays", unorderedArrays.filter { !$0.segments.isEmpty }),
            ("--tolerance", tolerances.map(\.path).filter { !$0.segments.isEmpty }),
            ("--ignore-case", ignoreCase.filter { !$0.segments.isEmpty }),
            ("--ignore-whitespace", ignoreWhitespace.filter { !$0.segments.isEmpty }),
        ]
        for (option, patterns) in named {
            for pattern in patterns {
                if let field = key.fields.first(where: { pattern.covers($0.components) }) {
                    throw ListDiffError(
                        .usage,
                        "\(option) \(pattern.spelling) reaches the key field \(field.spelling): keys are identity, and no rule applies to them"
                    )
                }
            }
        }
    }

    /// Refuses rules when the whole record is the key (`--key .`): records then match only
    /// when equal, so nothing is left for a rule to compare.
    private func checkWholeRecord(_ key: IdentityKey) throws(ListDiffError) {
        if key.isWholeRecord, hasRules {
            throw ListDiffError(.usage, "comparison rules cannot be used with --key . (the whole record is the identity)")
        }
    }

    // MARK: Which rules apply where

    func isLeftOut(_ path: [String]) -> Bool {
        if ignore.contains(where: { $0.covers(path) }) { return true }
        if !only.isEmpty, !only.contains(where: { $0.covers(path) || $0.leadsTo(path) }) { return true }
        return false
    }

    func isUnorderedArray(_ path: [String]) -> Bool { unorderedArrays.contains { $0.covers(path) } }

    func foldsCase(_ path: [String]) -> Bool { ignoreCase.contains { $0.covers(path) } }

    func foldsWhitespace(_ path: [String]) -> Bool { ignoreWhitespace.contains { $0.covers(path) } }

    /// The absolute and relative tolerance for a number at `path`: each from the rule with
    /// the longest path that applies and sets it.
    func tolerance(_ path: [String]) -> (absolute: Number?, relative: Number?)? {
        guard !tolerances.isEmpty else { return nil }
        var absolute: (Int, Number)? = nil, relative: (Int, Number)? = nil
        for rule in tolerances where rule.path.covers(path) {
            let length = rule.path.segments.count
            if let a = rule.absolute, absolute.map({ length >= $0.0 }) ?? true { absolute = (length, a) }
            if let r = rule.relative, relative.map({ length >= $0.0 }) ?? true { relative = (length, r) }
        }
        if absolute == nil, relative == nil { return nil }
        return (absolute?.1, relative?.1)
    }

    // MARK: Records as the rules see them

    /// A value standing for any number under a tolerance, in hashes: two numbers within a
    /// tolerance must hash alike, so no number under one is hashed.
    static let anyNumber = Value.string("\u{0}number under a tolerance")

    func project(_ value: Value, _ path: inout [String]) -> Value {
        switch value {
        case .object(let object):
            var members: [Object.Member] = []
            members.reserveCapacity(object.members.count)
            for member in object.members {
                path.append(member.key)
                if !isLeftOut(path) { members.append(Object.Member(key: member.key, value: project(member.value, &path))) }
                path.removeLast()
            }
            return .object(Object(members))
        case .array(let items):
            var out: [Value] = []
            out.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                path.append(String(index))
                if !isLeftOut(path) { out.append(project(item, &path)) }
                path.removeLast()
            }
            if isUnorderedArray(path) {
                // One order for any order of a multiset: that of the canonical hashes.
                out = out.map { (CanonicalHash.of($0), $0) }.sorted { ($0.0.a, $0.0.b) < ($1.0.a, $1.0.b) }.map(\.1)
            }
            return .array(out)
        case .string(let text):
            return .string(normalized(text, path))
        case .number:
            return tolerance(path) == nil ? value : Self.anyNumber
        default:
            return value
        }
    }

    func normalized(_ text: String, _ path: [String]) -> String {
        Self.normalized(text, foldingCase: foldsCase(path), foldingWhitespace: foldsWhitespace(path))
    }

    /// A string as `--ignore-case` and `--ignore-whitespace` compare it: white space
    /// collapsed first, then the case folded.
    static func normalized(_ text: String, foldingCase: Bool, foldingWhitespace: Bool) -> String {
        var text = text
        if foldingWhitespace { text = collapsingWhitespace(text) }
        if foldingCase { text = text.lowercased() }
        return text
    }

    /// Trims white space at both ends and turns each run of it inside into one space.
    static func collapsingWhitespace(_ text: String) -> String {
        var out = ""
        var pending = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pending = !out.isEmpty
            } else {
                if pending { out.unicodeScalars.append(" ") }
                pending = false
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension Comparison: CustomStringConvertible {
    /// The rules as options would set them: `--ignore /updated_at --unordered`.
    public var description: String {
        var words: [String] = []
        for p in ignore { words.append("--ignore \(p)") }
        for p in only { words.append("--only \(p)") }
        if unorderedRecords { words.append("--unordered") }
        for p in unorderedArrays { words.append("--unordered-arrays \(p)") }
        for t in tolerances {
            let prefix = t.path.segments.isEmpty ? "" : "\(t.path)="
            if let a = t.absolute { words.append("--tolerance \(prefix)\(a)") }
            if let r = t.relative { words.append("--relative-tolerance \(prefix)\(r)") }
        }
        for p in ignoreCase { words.append(p.segments.isEmpty ? "--ignore-case" : "--ignore-case=\(p)") }
        for p in ignoreWhitespace { words.append(p.segments.isEmpty ? "--ignore-whitespace" : "--ignore-whitespace=\(p)") }
        // A preset's array keys are named by the preset.
        var keys = arrayKeys[...]
        for preset in Preset.allCases where keys.starts(with: preset.arrayKeys) {
            words.append("--preset \(preset.rawValue)")
            keys = keys.dropFirst(preset.arrayKeys.count)
        }
        for k in keys { words += k.spellings.map { "--array-key \($0)" } }
        if automaticArrayKeys { words.append("--array-key auto") }
        return words.joined(separator: " ")
    }
}

// MARK: - In a changeset

extension Comparison {
    /// The rules as a changeset's `comparison` member holds them: only the rules set.
    package var value: Value {
        var members: [Object.Member] = []
        func paths(_ name: String, _ patterns: [Pattern]) {
            if !patterns.isEmpty { members.append(.init(key: name, value: .array(patterns.map { .string($0.spelling) }))) }
        }
        paths("ignore", ignore)
        paths("only", only)
        if unorderedRecords { members.append(.init(key: "unordered", value: .bool(true))) }
        paths("unorderedArrays", unorderedArrays)
        if !tolerances.isEmpty {
            members.append(
                .init(
                    key: "tolerances",
                    value: .array(
                        tolerances.map { t in
                            var o = Object([.init(key: "path", value: .string(t.path.spelling))])
                            if let a = t.absolute { o.members.append(.init(key: "absolute", value: .number(a))) }
                            if let r = t.relative { o.members.append(.init(key: "relative", value: .number(r))) }
                            return .object(o)
                        })))
        }
        paths("ignoreCase", ignoreCase)
        paths("ignoreWhitespace", ignoreWhitespace)
        if !arrayKeys.isEmpty {
            let keys = arrayKeys.map { k in
                Value.object(
                    Object([
                        .init(key: "path", value: .string(k.path.spelling)),
                        .init(key: "key", value: .array(k.key.spellings.map { .string($0) })),
                    ]))
            }
            members.append(.init(key: "arrayKeys", value: .array(keys)))
        }
        if automaticArrayKeys { members.append(.init(key: "automaticArrayKeys", value: .bool(true))) }
        return .object(Object(members))
    }

    /// Reads a changeset's `comparison` member; the message says what is wrong.
    package init(value: Value) throws(ListDiffError) {
        let shape =
            "\"comparison\" must be an object of rules (ignore, only, unordered, unorderedArrays, tolerances, ignoreCase, ignoreWhitespace, arrayKeys, automaticArrayKeys)"
        guard case .object(let object) = value else { throw ListDiffError(.changeset, shape) }
        func paths(_ value: Value) throws(ListDiffError) -> [Pattern] {
            guard case .array(let items) = value else { throw ListDiffError(.changeset, shape) }
            var out: [Pattern] = []
            for item in items {
                guard case .string(let s) = item else { throw ListDiffError(.changeset, shape) }
                out.append(try Pattern(s))
            }
            return out
        }
        func number(_ value: Value?) throws(ListDiffError) -> Number? {
            guard let value else { return nil }
            guard case .number(let n) = value, n.isFinite, !n.text.hasPrefix("-") else {
                throw ListDiffError(.changeset, "a tolerance must be a number of zero or more")
            }
            return n
        }
        for member in object.members {
            switch member.key {
            case "ignore": ignore = try paths(member.value)
            case "only": only = try paths(member.value)
            case "unordered":
                guard case .bool(let b) = member.value else { throw ListDiffError(.changeset, shape) }
                unorderedRecords = b
            case "unorderedArrays": unorderedArrays = try paths(member.value)
            case "tolerances":
                guard case .array(let items) = member.value else { throw ListDiffError(.changeset, shape) }
                for item in items {
                    guard case .object(let o) = item, case .string(let path)? = o["path"] else { throw ListDiffError(.changeset, shape) }
                    tolerances.append(
                        Tolerance(path: try Pattern(path), absolute: try number(o["absolute"]), relative: try number(o["relative"])))
                }
            case "ignoreCase": ignoreCase = try paths(member.value)
            case "ignoreWhitespace": ignoreWhitespace = try paths(member.value)
            case "automaticArrayKeys":
                guard case .bool(let b) = member.value else { throw ListDiffError(.changeset, shape) }
                automaticArrayKeys = b
            case "arrayKeys":
                guard case .array(let items) = member.value else { throw ListDiffError(.changeset, shape) }
                for item in items {
                    guard case .object(let o) = item, case .string(let path)? = o["path"], case .array(let fields)? = o["key"],
                        !fields.isEmpty
                    else { throw ListDiffError(.changeset, shape) }
                    var spellings: [String] = []
                    for field in fields {
                        guard case .string(let f) = field, f != "." else { throw ListDiffError(.changeset, shape) }
                        spellings.append(f)
                    }
                    arrayKeys.append(ArrayKey(path: try Pattern(path), key: try IdentityKey(parsing: spellings)))
                }
            default: throw ListDiffError(.changeset, "\"comparison\" has an unknown rule \"\(member.key.prefix(60))\"")
            }
        }
    }
}

extension Comparison.Tolerance {
    /// Reads `ABS` (every number) or `/pointer=ABS` (numbers at or under the pointer), a
    /// JSON number of zero or more; `relative` makes it a relative tolerance.
    package init(parsing spec: String, relative: Bool) throws(ListDiffError) {
        let option = relative ? "--relative-tolerance" : "--tolerance"
        var path = try Comparison.Pattern("/")
        var text = spec
        if spec.hasPrefix("/") {
            guard let cut = spec.lastIndex(of: "=") else {
                throw ListDiffError(.usage, "\(option) \(spec.prefix(80)): write /pointer=number, or a number alone for every number")
            }
            path = try Comparison.Pattern(String(spec[..<cut]))
            text = String(spec[spec.index(after: cut)...])
        }
        guard case .number(let number)? = try? JSONReader().read(Array(text.utf8), name: option).0, number.isFinite,
            !text.hasPrefix("-")
        else {
            throw ListDiffError(.usage, "\(option) \(spec.prefix(80)): the tolerance must be a number of zero or more, such as 0.01")
        }
        self.init(path: path, absolute: relative ? nil : number, relative: relative ? number : nil)
    }
}
