/// A file name pattern, as a configuration file's profiles name the files they are for.
///
/// - `*` matches any characters but `/`; `?` one character but `/`.
/// - `**` matches any characters, `/` included; `**/` matches no folder or any number of
///   them (`data/**/*.csv` matches `data/a.csv` and `data/x/y/a.csv`).
/// - `[abc]`, `[a-z]` and `[!a-z]` match one character in (or not in) the set.
/// - `{a,b}` matches either alternative (`*.{json,yaml}`); alternatives may nest.
/// - `\` takes the next character as it is.
/// - A glob without `/` matches a file's name in any folder (`*.users.json`). A glob with
///   `/` matches the path from the configuration file's folder (a leading `/` is dropped):
///   `data/*.csv` matches `data/a.csv`, not `x/data/a.csv`.
package struct Glob: Sendable, Hashable, CustomStringConvertible {
    package let description: String
    /// Whether the glob matches the whole relative path, not only the name.
    let anchored: Bool
    /// The alternatives its braces make, each a sequence of tokens.
    let alternatives: [[Token]]

    enum Token: Sendable, Hashable {
        case character(Unicode.Scalar)
        /// `?`
        case one
        /// `*`
        case star
        /// `**` not followed by `/`
        case anything
        /// `**/`
        case folders
        /// `[...]`: ranges, negated
        case set([ClosedRange<Unicode.Scalar>], Bool)
    }

    /// The most alternatives the braces of one glob may make.
    static let maxAlternatives = 256

    package init(_ spelling: String) throws(ListDiffError) {
        description = spelling
        func bad(_ why: String) -> ListDiffError { ListDiffError(.usage, "the glob '\(spelling)' \(why)") }
        guard !spelling.isEmpty else { throw bad("is empty") }
        var scalars = Array(spelling.unicodeScalars)
        anchored = scalars.contains("/")
        if scalars.first == "/" { scalars.removeFirst() }
        var expanded: [[Unicode.Scalar]] = []
        try Self.expandBraces(scalars[...], into: &expanded, bad: bad)
        var alternatives: [[Token]] = []
        for alternative in expanded { alternatives.append(try Self.tokens(alternative, bad: bad)) }
        self.alternatives = alternatives
    }

    /// Whether the glob matches `path`: a path relative to the configuration's folder, or
    /// (not `underFolder`) a path elsewhere, which only a glob without `/` can match, by name.
    package func matches(_ path: String, underFolder: Bool = true) -> Bool {
        var text = Array(path.unicodeScalars)
        if !anchored {
            if let slash = text.lastIndex(of: "/") { text.removeSubrange(...slash) }
        } else if !underFolder {
            return false
        }
        return alternatives.contains { Self.match($0, text) }
    }

    /// Every spelling the braces stand for.
    static func expandBraces(
        _ text: ArraySlice<Unicode.Scalar>, into out: inout [[Unicode.Scalar]], bad: (String) -> ListDiffError
    ) throws(ListDiffError) {
        // The first top-level brace group, with its alternatives split at top-level commas.
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == "\\" {
                i += 2
                continue
            }
            if text[i] == "{" { break }
            i += 1
        }
        guard i < text.endIndex else {
            out.append(Array(text))
            if out.count > maxAlternatives { throw bad("makes more than \(maxAlternatives) alternatives") }
            return
        }
        var depth = 0, j = i, parts: [Range<Int>] = [], start = i + 1
        while j < text.endIndex {
            switch text[j] {
            case "\\": j += 1
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth == 0 {
                    parts.append(start..<j)
                    for part in parts {
                        try expandBraces(text[text.startIndex..<i] + text[part] + text[(j + 1)...], into: &out, bad: bad)
                    }
                    return
                }
            case "," where depth == 1:
                parts.append(start..<j)
                start = j + 1
            default: break
            }
            j += 1
        }
        throw bad("has a '{' without its '}'")
    }

    static func tokens(_ text: [Unicode.Scalar], bad: (String) -> ListDiffError) throws(ListDiffError) -> [Token] {
        var tokens: [Token] = []
        var i = 0
        while i < text.count {
            let c = text[i]
            switch c {
            case "\\":
                guard i + 1 < text.count else { throw bad("ends with '\\'") }
                tokens.append(.character(text[i + 1]))
                i += 2
            case "?":
                tokens.append(.one)
                i += 1
            case "*":
                if i + 1 < text.count, text[i + 1] == "*" {
                    if i + 2 < text.count, text[i + 2] == "/" {
                        tokens.append(.folders)
                        i += 3
                    } else {
                        tokens.append(.anything)
                        i += 2
                    }
                } else {
                    tokens.append(.star)
                    i += 1
                }
            case "[":
                var j = i + 1
                let negated = j < text.count && (text[j] == "!" || text[j] == "^")
                if negated { j += 1 }
                var ranges: [ClosedRange<Unicode.Scalar>] = []
                var first = true
                while j < text.count, text[j] != "]" || first {
                    first = false
                    var low = text[j]
                    if low == "\\", j + 1 < text.count {
                        j += 1
                        low = text[j]
                    }
                    if j + 2 < text.count, text[j + 1] == "-", text[j + 2] != "]" {
                        let high = text[j + 2]
                        guard low <= high else { throw bad("has a range [\(low)-\(high)] that runs backwards") }
                        ranges.append(low...high)
                        j += 3
                    } else {
                        ranges.append(low...low)
                        j += 1
                    }
                }
                guard j < text.count else { throw bad("has a '[' without its ']'") }
                tokens.append(.set(ranges, negated))
                i = j + 1
            default:
                tokens.append(.character(c))
                i += 1
            }
        }
        return tokens
    }

    /// Whether `tokens` match all of `text`: each state (token, character) is worked out
    /// once, so the time is bounded by their product.
    static func match(_ tokens: [Token], _ text: [Unicode.Scalar]) -> Bool {
        let width = text.count + 1
        var known = [UInt8](repeating: 0, count: (tokens.count + 1) * width)  // 0 unknown, 1 no, 2 yes
        func at(_ t: Int, _ i: Int) -> Bool {
            let k = t * width + i
            if known[k] != 0 { return known[k] == 2 }
            let result: Bool
            if t == tokens.count {
                result = i == text.count
            } else {
                switch tokens[t] {
                case .character(let c): result = i < text.count && text[i] == c && at(t + 1, i + 1)
                case .one: result = i < text.count && text[i] != "/" && at(t + 1, i + 1)
                case .star: result = at(t + 1, i) || (i < text.count && text[i] != "/" && at(t, i + 1))
                case .anything: result = at(t + 1, i) || (i < text.count && at(t, i + 1))
                case .folders:
                    // No folder, or up to and past the next '/' and then any number more.
                    if at(t + 1, i) {
                        result = true
                    } else if let slash = text[i...].firstIndex(of: "/") {
                        result = at(t, slash + 1)
                    } else {
                        result = false
                    }
                case .set(let ranges, let negated):
                    result =
                        i < text.count && text[i] != "/" && ranges.contains { $0.contains(text[i]) } != negated && at(t + 1, i + 1)
                }
            }
            known[k] = result ? 2 : 1
            return result
        }
        return at(0, 0)
    }
}
