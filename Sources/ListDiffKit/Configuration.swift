/// The settings of a run: what a `.listdiff.yaml` file sets for a path, what the command
/// line sets, and the defaults, each with where it came from.
///
/// A configuration file is found as `.editorconfig` is: from the input's folder upward,
/// stopping after a folder that holds `.git` (the repository's root), at the file system's
/// root, or at a file that says `root: true`. Each file holds profiles, each for the paths
/// its globs match (relative to the file's folder; see `Glob`). Nearer files win over
/// farther ones, and in one file a later profile wins over an earlier one, setting by
/// setting; the command line wins over every file. A file cannot set where output goes,
/// nor make listdiff run a program: such settings are refused by name.
///
/// The resolution is per path (`settings(for:)`), so that a caller that reads many files
/// resolves each on its own.
package struct Configuration: Sendable {
    /// The name of a configuration file.
    package static let fileName = ".listdiff.yaml"

    /// The files found, nearest last (the order their settings apply in).
    package var files: [File]

    package init(files: [File] = []) {
        self.files = files
    }

    /// A setting, named as the command line's long option without its dashes.
    package enum Name: String, CaseIterable, Sendable {
        // How records are found and keyed.
        case key, path, sectionKey = "section-key", items, preset, duplicates
        // How they are compared.
        case arrayKey = "array-key", ignore, only, unordered, unorderedArrays = "unordered-arrays", tolerance
        case relativeTolerance = "relative-tolerance", ignoreCase = "ignore-case", ignoreWhitespace = "ignore-whitespace"
        case algorithm, costLimit = "cost-limit", memberOrder = "member-order"
        case renames, renameThreshold = "rename-threshold"
        // How the inputs are read.
        case inputFormat = "input-format", csvTypes = "csv-types", yamlVersion = "yaml-version"
        // What the diff prints.
        case format, show, failOn = "fail-on", stat, limit, annotationLevel = "annotation-level", color

        /// The shape of a setting's value.
        package enum Kind: Sendable { case one, list, flag, flagOrList }

        package var kind: Kind {
            switch self {
            case .key, .arrayKey, .ignore, .only, .unorderedArrays, .tolerance, .relativeTolerance: return .list
            case .ignoreCase, .ignoreWhitespace: return .flagOrList
            case .unordered, .stat, .renames: return .flag
            default: return .one
            }
        }

        /// The value that holds when nothing sets one; nil for a setting that is off or empty.
        package var defaultValue: [String]? {
            switch self {
            case .key: return ["id"]
            case .duplicates: return [DuplicatePolicy.error.rawValue]
            case .algorithm: return [AlgorithmChoice.heckel.rawValue]
            case .costLimit: return [String(DiffCost.defaultLimit)]
            case .memberOrder: return [Differ.MemberOrder.ignore.rawValue]
            case .inputFormat: return ["auto"]
            case .csvTypes: return [CSVTypes.string.rawValue]
            case .yamlVersion: return [YAMLVersion.v1_2.rawValue]
            case .format: return [OutputFormat.patch.rawValue]
            case .limit: return ["50"]
            case .annotationLevel: return [GitHubRenderer.Level.notice.rawValue]
            case .color: return [ColorMode.auto.rawValue]
            case .unordered, .stat, .renames: return ["false"]
            case .renameThreshold: return [String(RenameRule.defaultThreshold)]
            default: return nil
            }
        }

        /// The values a setting takes, when they are a fixed set.
        package var choices: [String]? {
            switch self {
            case .preset: return Preset.allCases.map(\.rawValue)
            case .duplicates: return DuplicatePolicy.allCases.map(\.rawValue)
            case .algorithm: return AlgorithmChoice.allCases.map(\.rawValue)
            case .memberOrder: return Differ.MemberOrder.allCases.map(\.rawValue)
            case .inputFormat: return ["auto"] + InputFormat.allCases.map(\.rawValue)
            case .csvTypes: return CSVTypes.allCases.map(\.rawValue)
            case .yamlVersion: return YAMLVersion.allCases.map(\.rawValue)
            case .format: return OutputFormat.allCases.map(\.rawValue)
            case .annotationLevel: return GitHubRenderer.Level.allCases.map(\.rawValue)
            case .color: return ColorMode.allCases.map(\.rawValue)
            default: return nil
            }
        }

        /// Checks a value as the command line's option checks it; the error says what is wrong,
        /// without a place, naming the setting as `spelling` (`--limit`, or `limit` in a file).
        package func check(_ values: [String], as spelling: String) throws(ListDiffError) {
            func bad(_ message: String) -> ListDiffError { ListDiffError(.usage, "\(spelling) \(message)") }
            if let choices {
                for value in values where !choices.contains(value) {
                    throw bad("takes one of " + choices.joined(separator: ", ") + ", not '\(value)'")
                }
                return
            }
            switch self {
            case .key:
                if values.contains("auto") {
                    if values.count > 1 { throw bad("auto picks one field; it cannot be combined with other key fields") }
                } else {
                    _ = try IdentityKey(parsing: values)
                }
            case .path: _ = try FieldPath(values[0])
            case .sectionKey, .items:
                if values[0].isEmpty { throw bad("names an empty field") }
            case .arrayKey: _ = try Comparison.ArrayKey.parsing(values)
            case .ignore, .only, .unorderedArrays, .ignoreCase, .ignoreWhitespace:
                for value in values { _ = try Comparison.Pattern(value) }
            case .tolerance, .relativeTolerance:
                for value in values { _ = try Comparison.Tolerance(parsing: value, relative: self == .relativeTolerance) }
            case .unordered, .stat, .renames:
                if values != ["true"], values != ["false"] { throw bad("must be true or false") }
            case .renameThreshold: _ = try RenameRule(parsing: values[0])
            case .costLimit:
                guard let n = Int(values[0]), n >= 1 else { throw bad("must be a positive number of steps") }
            case .limit:
                guard let n = Int(values[0]), (0...1_000_000).contains(n) else { throw bad("must be from 0 to 1000000") }
            case .show, .failOn: _ = try ChangeKinds(parsing: values[0])
            default: break
            }
        }
    }

    /// Names a configuration file may not use, and why: it cannot make listdiff write
    /// anywhere but where the command line says, nor run a program.
    package static let refused: [String: String] = {
        var refused: [String: String] = [:]
        let output = "a configuration file cannot say where listdiff writes; give it on the command line"
        for name in ["output", "o", "record", "conflicts"] { refused[name] = output }
        let program = "listdiff runs no program, and a configuration file cannot make it run one"
        for name in ["command", "exec", "pager", "program", "driver", "shell", "hook", "textconv", "external-diff"] {
            refused[name] = program
        }
        for name in ["config", "no-config"] {
            refused[name] = "a configuration file cannot name another; give --config on the command line"
        }
        return refused
    }()

    /// Where a setting's value came from.
    package enum Origin: Sendable, Hashable, CustomStringConvertible {
        case byDefault
        case commandLine
        /// A configuration file, at the value's line and column.
        case file(String, ListDiffError.Location?)

        package var description: String {
            switch self {
            case .byDefault: return "default"
            case .commandLine: return "command line"
            case .file(let path, let location?): return "\(path):\(location.line)"
            case .file(let path, nil): return path
            }
        }
    }

    /// A setting's value (a flag is `true` or `false`, a list one value or more) and its origin.
    package struct Entry: Sendable, Hashable {
        package var values: [String]
        package var origin: Origin

        package init(_ values: [String], _ origin: Origin) {
            self.values = values
            self.origin = origin
        }
    }

    /// One configuration file, parsed and checked.
    package struct File: Sendable {
        /// The path as shown in messages and in `listdiff config`.
        package var path: String
        /// The folder its globs are relative to, absolute.
        package var folder: String
        /// Whether the search stops here (`root: true`).
        package var isRoot: Bool
        package var profiles: [Profile]
    }

    /// The settings a file gives to the paths its globs match.
    package struct Profile: Sendable {
        package var globs: [Glob]
        package var settings: Settings
    }

    /// The settings for the file at `path`: the files' profiles that match it, in order, each
    /// setting from the last that sets it. Nothing of the command line or the defaults.
    package func settings(for path: String) -> Settings {
        var settings = Settings()
        let absolute = Self.absolute(path)
        for file in files {
            let relative = Self.relative(absolute, to: file.folder)
            for profile in file.profiles
            where profile.globs.contains(where: { $0.matches(relative ?? absolute, underFolder: relative != nil) }) {
                settings = settings.overridden(by: profile.settings)
            }
        }
        return settings
    }
}

extension Configuration {
    /// The settings in force: each with its value and origin.
    package struct Settings: Sendable, Hashable {
        package private(set) var entries: [Name: Entry] = [:]

        package init() {}

        package var isEmpty: Bool { entries.isEmpty }

        package subscript(name: Name) -> Entry? {
            get { entries[name] }
            set { entries[name] = newValue }
        }

        /// Sets `name` to `value` from the command line, when there is a value.
        package mutating func set(_ name: Name, _ value: String?) {
            if let value { entries[name] = Entry([value], .commandLine) }
        }

        /// Sets a list, or a flag on (`["true"]`), from the command line, when it has values.
        package mutating func set(_ name: Name, values: [String]) {
            if !values.isEmpty { entries[name] = Entry(values, .commandLine) }
        }

        /// These settings, with each that `other` sets taken from it.
        package func overridden(by other: Settings) -> Settings {
            var merged = self
            for (name, entry) in other.entries { merged.entries[name] = entry }
            return merged
        }

        /// Every setting: the ones set, and the defaults of the rest.
        package var withDefaults: Settings {
            var all = self
            for name in Name.allCases where all.entries[name] == nil {
                if let value = name.defaultValue { all.entries[name] = Entry(value, .byDefault) }
            }
            return all
        }

        /// The configuration files the settings come from, in the order first named.
        package var files: [String] {
            var seen: [String] = []
            for name in Name.allCases {
                if case .file(let path, _)? = entries[name]?.origin, !seen.contains(path) { seen.append(path) }
            }
            return seen
        }

        /// Checks every value, as the command line's options are checked.
        package func check() throws(ListDiffError) {
            for name in Name.allCases { if let entry = entries[name] { try name.check(entry.values, as: "--" + name.rawValue) } }
        }

        /// A setting's one value, or its default.
        package func value(_ name: Name) -> String? { (entries[name]?.values ?? name.defaultValue)?.first }

        /// A list setting's values (none when unset).
        package func list(_ name: Name) -> [String] { entries[name]?.values ?? [] }

        /// A flag: on when set true (`ignore-case` and `ignore-whitespace` are on everywhere
        /// with `/`).
        package func flag(_ name: Name) -> Bool { value(name) == "true" }

        /// The value of a setting whose values are a fixed set, as its type.
        package func choice<T: RawRepresentable>(_ name: Name, as: T.Type) -> T where T.RawValue == String {
            T(rawValue: value(name) ?? "") ?? T(rawValue: name.defaultValue![0])!
        }
    }
}

// MARK: What the settings build

extension Configuration.Settings {
    /// The key's spellings; `["auto"]` when the key is to be found.
    package var keySpellings: [String] { entries[.key]?.values ?? [] }

    /// The preset, when one is set.
    package var preset: Preset? { value(.preset).flatMap(Preset.init(rawValue:)) }

    /// The comparison rules the settings give, the preset's array keys first (a key set for
    /// the same lists comes later and wins).
    package func comparison() throws(ListDiffError) -> Comparison {
        func patterns(_ spellings: [String]) throws(ListDiffError) -> [Comparison.Pattern] {
            var out: [Comparison.Pattern] = []
            for spelling in spellings { out.append(try Comparison.Pattern(spelling)) }
            return out
        }
        var rules = Comparison()
        rules.ignore = try patterns(list(.ignore))
        rules.only = try patterns(list(.only))
        rules.unorderedRecords = flag(.unordered)
        rules.unorderedArrays = try patterns(list(.unorderedArrays))
        for spec in list(.tolerance) { rules.tolerances.append(try Comparison.Tolerance(parsing: spec, relative: false)) }
        for spec in list(.relativeTolerance) { rules.tolerances.append(try Comparison.Tolerance(parsing: spec, relative: true)) }
        rules.ignoreCase = try patterns(list(.ignoreCase))
        rules.ignoreWhitespace = try patterns(list(.ignoreWhitespace))
        rules.arrayKeys = (preset?.arrayKeys ?? []) + (try Comparison.ArrayKey.parsing(list(.arrayKey)))
        rules.automaticArrayKeys = list(.arrayKey).contains("auto")
        return rules
    }

    /// The differ: algorithm, member order, comparison rules, and renames when asked for:
    /// by `renames: true`, or by a `rename-threshold` that the command line gives or that
    /// comes where `renames` is not set (`renames: false` in a file keeps them off there).
    package func differ() throws(ListDiffError) -> Differ {
        let algorithm = choice(.algorithm, as: AlgorithmChoice.self)
        var differ = Differ(
            algorithm: algorithm.algorithm(costLimit: Int(value(.costLimit) ?? "") ?? DiffCost.defaultLimit),
            memberOrder: choice(.memberOrder, as: Differ.MemberOrder.self), comparison: try comparison())
        let threshold = entries[.renameThreshold]
        if flag(.renames) || threshold?.origin == .commandLine || (threshold != nil && entries[.renames] == nil) {
            differ.renames = try RenameRule(parsing: value(.renameThreshold) ?? String(RenameRule.defaultThreshold))
        }
        return differ
    }

    /// How the inputs are read: the format, CSV types, YAML version (the preset's, unless one
    /// is set), duplicates and layout, keyed by the key set (the preset's, else `id`). With
    /// `--key auto` the key is the whole record, for the caller to replace with the one found.
    package func reader() throws(ListDiffError) -> DocumentReader {
        let layout = LayoutOptions(
            path: try value(.path).map { p throws(ListDiffError) in try FieldPath(p) },
            sectionKey: value(.sectionKey), items: value(.items))
        let key: IdentityKey
        if keySpellings == ["auto"] {
            key = .wholeRecord
        } else if keySpellings.isEmpty, let preset {
            key = preset.key
        } else {
            key = try IdentityKey(parsing: keySpellings)
        }
        var reader = DocumentReader(format: InputFormat(rawValue: value(.inputFormat) ?? ""), key: key)
        reader.csvInfersTypes = choice(.csvTypes, as: CSVTypes.self) == .infer
        reader.yaml.version = entries[.yamlVersion] == nil ? (preset?.yamlVersion ?? .v1_2) : choice(.yamlVersion, as: YAMLVersion.self)
        reader.duplicates = choice(.duplicates, as: DuplicatePolicy.self)
        reader.layout = layout
        return reader
    }

    /// How `apply` is asked to read OLD: the reading settings given (not the defaults), which
    /// the changeset's record of how OLD was read must not contradict.
    package var readingRequest: ReadingRequest {
        ReadingRequest(
            format: entries[.inputFormat].flatMap { InputFormat(rawValue: $0.values[0]) },
            csvInfersTypes: entries[.csvTypes].map { $0.values == [CSVTypes.infer.rawValue] },
            yamlVersion: entries[.yamlVersion].flatMap { YAMLVersion(rawValue: $0.values[0]) })
    }

    /// The settings as `listdiff config` prints them: one line a setting, `name: value
    /// (origin)`, every setting named, `(unset)` for one that nothing sets.
    package var report: [String] {
        let all = withDefaults
        return Configuration.Name.allCases.map { name in
            guard let entry = all.entries[name] else { return "\(name.rawValue): (unset)" }
            let value = entry.values.isEmpty ? "(none)" : entry.values.joined(separator: ", ")
            return "\(name.rawValue): \(value) (\(entry.origin))"
        }
    }
}

// MARK: The choices the command offers

/// The diff's output formats (`--format`).
package enum OutputFormat: String, CaseIterable, Sendable {
    case patch, side, json, jsonpatch, mergepatch, markdown, html, github, replay

    /// Whether the output is made from OLD whole, not from the changeset alone: a replay
    /// shows OLD's records, a merge patch rewrites OLD's lists.
    package var needsOldWhole: Bool { self == .replay || self == .mergepatch }
}

/// When the patch is coloured (`--color`).
package enum ColorMode: String, CaseIterable, Sendable {
    case auto, always, never
}

/// How CSV and TSV cells are read (`--csv-types`).
package enum CSVTypes: String, CaseIterable, Sendable {
    case string, infer
}

/// The diff algorithms, by name (`--algorithm`).
package enum AlgorithmChoice: String, CaseIterable, Sendable {
    case heckel, myers, lcs

    package func algorithm(costLimit: Int) -> any DiffAlgorithm {
        switch self {
        case .heckel: return HeckelDiff()
        case .myers: return MyersDiff(costLimit: costLimit)
        case .lcs: return LCSDiff(costLimit: costLimit)
        }
    }
}
