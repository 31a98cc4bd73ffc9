/// Finding and reading `.listdiff.yaml` files.
extension Configuration {
    /// The configuration for the file at `path`, found as `.editorconfig` is: in its folder,
    /// then each folder above, up to and including the first that holds `.git` (a folder,
    /// or the file a worktree has), or the file system's root, or a file that says
    /// `root: true`. Standard input (`-`) has no folder: no file applies to it.
    ///
    /// - Throws: a file that cannot be read, is not valid YAML, or sets anything wrongly, with
    ///   its line and column.
    package static func discover(for path: String) throws(ListDiffError) -> Configuration {
        guard path != "-" else { return Configuration() }
        var folder = parent(of: absolute(path))
        var found: [File] = []
        while true {
            let candidate = join(folder, fileName)
            if SystemCalls.status(ofPath: candidate)?.kind == .regular {
                let file = try load(candidate, shownAs: shown(candidate))
                found.append(file)
                if file.isRoot { break }
            }
            if SystemCalls.status(ofPath: join(folder, ".git")) != nil || folder == "/" { break }
            folder = parent(of: folder)
        }
        return Configuration(files: found.reversed())
    }

    /// The configuration of the one file at `path` (`--config FILE`): no other is looked for.
    package static func only(_ path: String) throws(ListDiffError) -> Configuration {
        Configuration(files: [try load(absolute(path), shownAs: path)])
    }

    /// Reads and checks the file at `path`; `shownAs` names it in messages and origins.
    static func load(_ path: String, shownAs name: String) throws(ListDiffError) -> File {
        var bytes: [UInt8]
        do throws(ListDiffError) { bytes = try InputFile.read(path) } catch {
            var named = error
            named.file = name
            throw named
        }
        return try parse(bytes, name: name, folder: parent(of: path))
    }

    /// Parses a configuration file's text. `folder` is where its globs start from.
    ///
    ///     root: true                  # optional: look no further up
    ///     profiles:
    ///       - files: "*.users.json"   # a glob, or a list of them
    ///         key: id
    ///         ignore: [/updated_at]
    package static func parse(_ bytes: [UInt8], name: String, folder: String) throws(ListDiffError) -> File {
        var file = File(path: name, folder: folder, isRoot: false, profiles: [])
        // A file of nothing but comments is a configuration that sets nothing.
        let meaningful = String(decoding: bytes, as: UTF8.self).split(separator: "\n").contains { line in
            let text = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            return !text.isEmpty && !text.hasPrefix("#") && text != "---" && text != "..."
        }
        guard meaningful else { return file }
        let (root, source) = try YAMLReader().read(bytes, name: name)
        let top = ValueCursor(source: source, preorder: 0, kind: .usage)
        guard !source.isStream else { throw top.error("a configuration file holds one YAML document") }
        guard case .object(let object) = root else {
            throw top.error("a configuration file is a mapping (root:, profiles:); this is \(root.typeName.withArticle)")
        }
        for (key, value, at) in top.fields(of: object).members {
            switch key {
            case "root":
                guard case .bool(let b) = value else { throw at.error("root must be true or false") }
                file.isRoot = b
            case "profiles":
                guard case .array(let items) = value else { throw at.error("profiles is a list of profiles, each with files:") }
                for (item, itemAt) in at.elements(of: items) { file.profiles.append(try profile(item, at: itemAt, file: name)) }
            default:
                throw at.error("unknown member '\(key)' (a configuration file holds root: and profiles:)")
            }
        }
        return file
    }

    /// One profile: its globs and its settings, each checked.
    static func profile(_ value: Value, at: ValueCursor, file: String) throws(ListDiffError) -> Profile {
        guard case .object(let object) = value else {
            throw at.error("a profile is a mapping of files: and settings; this is \(value.typeName.withArticle)")
        }
        var globs: [Glob]?
        var settings = Settings()
        for (key, member, memberAt) in at.fields(of: object).members {
            if key == "files" {
                let spellings = try scalars(member, at: memberAt, "files: takes a glob or a list of globs")
                var made: [Glob] = []
                for spelling in spellings {
                    do throws(ListDiffError) { made.append(try Glob(spelling)) } catch { throw memberAt.error(error.message) }
                }
                globs = made
                continue
            }
            if let reason = refused[key] { throw memberAt.error("'\(key)' is refused: \(reason)") }
            guard let name = Name(rawValue: key) else {
                throw memberAt.error("unknown setting '\(key)'; the settings are " + Name.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let values = try settingValues(name, member, at: memberAt)
            do throws(ListDiffError) { try name.check(values, as: name.rawValue) } catch { throw memberAt.error(error.message) }
            settings[name] = Entry(values, .file(file, memberAt.location))
        }
        guard let globs, !globs.isEmpty else { throw at.error("a profile names the files it is for with files:") }
        return Profile(globs: globs, settings: settings)
    }

    /// A setting's value as its strings: a flag's `true` or `false`; `ignore-case: true` as
    /// `/` (every value); a list's values.
    static func settingValues(_ name: Name, _ value: Value, at: ValueCursor) throws(ListDiffError) -> [String] {
        switch (name.kind, value) {
        case (.flag, .bool(let b)): return [b ? "true" : "false"]
        case (.flag, _): throw at.error("\(name.rawValue) must be true or false")
        case (.flagOrList, .bool(let b)): return b ? ["/"] : []
        case (.flagOrList, _), (.list, _):
            return try scalars(value, at: at, "\(name.rawValue) takes a value or a list of values")
        case (.one, _):
            let values = try scalars(value, at: at, "\(name.rawValue) takes one value")
            if case .array = value { throw at.error("\(name.rawValue) takes one value, not a list") }
            return values
        }
    }

    /// A scalar, or a list of scalars, as strings (numbers as written).
    static func scalars(_ value: Value, at: ValueCursor, _ message: String) throws(ListDiffError) -> [String] {
        func text(_ value: Value) -> String? {
            switch value {
            case .string(let s): return s
            case .number(let n): return n.text
            case .bool(let b): return b ? "true" : "false"
            default: return nil
            }
        }
        if case .array(let items) = value {
            var out: [String] = []
            for (item, itemAt) in at.elements(of: items) {
                guard let s = text(item) else { throw itemAt.error(message) }
                out.append(s)
            }
            guard !out.isEmpty else { throw at.error(message) }
            return out
        }
        guard let s = text(value) else { throw at.error(message) }
        return [s]
    }
}

// MARK: Paths

extension Configuration {
    /// `path` made absolute against the working directory, with `.` and `..` steps and
    /// repeated slashes taken out by their spelling (links are not followed).
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : join(SystemCalls.currentDirectory() ?? "/", path)
        var parts: [Substring] = []
        for part in full.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    static func join(_ folder: String, _ name: String) -> String { folder.hasSuffix("/") ? folder + name : folder + "/" + name }

    /// `path` relative to `folder`, or nil when it is not under it.
    static func relative(_ path: String, to folder: String) -> String? {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
    }

    /// A path as messages show it: relative to the working directory when under it.
    static func shown(_ path: String) -> String {
        relative(path, to: SystemCalls.currentDirectory() ?? "/") ?? path
    }
}
