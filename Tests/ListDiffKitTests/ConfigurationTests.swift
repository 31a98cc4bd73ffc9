import Foundation
import Testing
@testable import ListDiffKit

/// `.listdiff.yaml`: globs, discovery, precedence and the refusals, on the library.
@Suite struct ConfigurationTests {
    /// A folder tree of files (path: text) in a new temporary folder.
    static func tree(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("listdiff-config-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func globsMatchAsDocumented() throws {
        let cases: [(glob: String, path: String, matches: Bool)] = [
            ("*.users.json", "staff.users.json", true),
            ("*.users.json", "data/deep/staff.users.json", true),  // no '/': the name, anywhere
            ("*.users.json", "staff.users.yaml", false),
            ("*.json", ".hidden.json", true),
            ("data/**/*.csv", "data/a.csv", true),  // **/ matches no folder
            ("data/**/*.csv", "data/x/y/a.csv", true),
            ("data/**/*.csv", "other/data/a.csv", false),  // with '/': from the config's folder
            ("data/**/*.csv", "data/a.tsv", false),
            ("/data/*.csv", "data/a.csv", true),
            ("data/*.csv", "data/x/a.csv", false),  // * stops at '/'
            ("data/**", "data/x/a.csv", true),
            ("**.json", "a/b/c.json", true),
            ("?.json", "a.json", true),
            ("?.json", "ab.json", false),
            ("[abc].json", "b.json", true),
            ("[!abc].json", "b.json", false),
            ("[a-c]x.json", "cx.json", true),
            ("*.{json,yaml}", "a.yaml", true),
            ("*.{json,yaml}", "a.csv", false),
            ("{a,b/{c,d}}/*.json", "b/d/x.json", true),
            ("\\*.json", "*.json", true),
            ("\\*.json", "a.json", false),
            ("ünï*.json", "ünïcode.json", true),
        ]
        for c in cases {
            #expect(try Glob(c.glob).matches(c.path) == c.matches, "\(c.glob) against \(c.path)")
        }
        // Outside the configuration's folder only a glob without '/' matches, by name.
        #expect(try Glob("*.json").matches("/elsewhere/a.json", underFolder: false))
        #expect(try !Glob("data/*.json").matches("/elsewhere/data/a.json", underFolder: false))
        for bad in ["", "[ab", "{a,b", "a\\", "[z-a]"] {
            #expect(throws: ListDiffError.self, "\(bad)") { try Glob(bad) }
        }
    }

    /// A long path against a glob of many stars takes one pass per (token, character), not
    /// a search that doubles with each star.
    @Test func globMatchingIsNotExponential() throws {
        let glob = try Glob(String(repeating: "*a", count: 40) + "b")
        let path = String(repeating: "a", count: 4000)
        #expect(!glob.matches(path))
    }

    /// From a nested folder: every file up to the repository's root, nearer files winning
    /// setting by setting, a later profile of one file over an earlier one.
    @Test func discoveryFromANestedFolder() throws {
        let root = try Self.tree([
            "outside/.listdiff.yaml": "profiles:\n  - files: \"*\"\n    algorithm: lcs\n",
            "outside/repo/.git/HEAD": "ref: refs/heads/main\n",
            "outside/repo/.listdiff.yaml": """
            profiles:
              - files: "*.json"
                key: id
                ignore: /updated_at
              - files: "data/**/*.users.json"
                key: [org, uid]
                member-order: significant

            """,
            "outside/repo/data/team/.listdiff.yaml": """
            # nearer: wins for what it sets
            profiles:
              - files: "*.users.json"
                ignore: [/seen, /updated_at]

            """,
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("outside/repo/data/team/staff.users.json").path
        let configuration = try Configuration.discover(for: file)
        // The search stopped at the folder holding .git: `outside` was not read.
        #expect(configuration.files.count == 2)
        let settings = configuration.settings(for: file)
        #expect(settings[.key]?.values == ["org", "uid"])
        #expect(settings[.ignore]?.values == ["/seen", "/updated_at"])
        #expect(settings[.memberOrder]?.values == ["significant"])
        #expect(settings[.algorithm] == nil)
        guard case .file(let path, let location?)? = settings[.key]?.origin else {
            Issue.record("the key's origin: \(String(describing: settings[.key]?.origin))")
            return
        }
        #expect(path.hasSuffix("outside/repo/.listdiff.yaml") && location.line == 6)
        guard case .file(let nearer, _)? = settings[.ignore]?.origin else { return }
        #expect(nearer.hasSuffix("data/team/.listdiff.yaml"))
        // A file elsewhere in the repository gets the top file's first profile only.
        let other = configuration.settings(for: root.appendingPathComponent("outside/repo/data/team/x.json").path)
        #expect(other[.key]?.values == ["id"] && other[.ignore]?.values == ["/updated_at"])

        // root: true stops the search too.
        try "root: true\n".write(
            to: root.appendingPathComponent("outside/repo/data/.listdiff.yaml"), atomically: true, encoding: .utf8)
        let stopped = try Configuration.discover(for: file)
        #expect(stopped.files.count == 2 && stopped.files[0].isRoot)
        #expect(stopped.settings(for: file)[.key] == nil)
    }

    /// The command line over the file over the defaults, each with its origin.
    @Test func precedence() throws {
        let file = try Configuration.parse(
            Array("profiles:\n  - files: \"*.json\"\n    key: sku\n    algorithm: myers\n".utf8), name: "c.yaml", folder: "/r")
        let fromFile = Configuration(files: [file]).settings(for: "/r/a.json")
        var given = Configuration.Settings()
        given.set(.key, values: ["id"])
        let settings = fromFile.overridden(by: given).withDefaults
        #expect(settings[.key] == .init(["id"], .commandLine))
        #expect(settings[.algorithm] == .init(["myers"], .file("c.yaml", .init(line: 4, column: 16))))
        #expect(settings[.duplicates] == .init(["error"], .byDefault))
        #expect(settings.files == ["c.yaml"])
        #expect(try settings.differ().algorithm.name == "myers")
        #expect(try settings.reader().key == IdentityKey(parsing: ["id"]))
    }

    /// Every way a file can be wrong is an error at its line and column.
    @Test func errorsHaveTheirPlace() throws {
        let cases: [(text: String, place: String, message: String)] = [
            ("profiles: [\n", "2:1", "did not find expected node content"),
            ("profiles:\n  - files: '*'\n    kee: id\n", "3:10", "unknown setting 'kee'"),
            (
                "profiles:\n  - files: '*'\n    output: out.json\n", "3:13",
                "'output' is refused: a configuration file cannot say where listdiff writes"
            ),
            ("profiles:\n  - files: '*'\n    record: x.cast\n", "3:13", "'record' is refused"),
            ("profiles:\n  - files: '*'\n    command: rm -rf /\n", "3:14", "'command' is refused: listdiff runs no program"),
            ("profiles:\n  - files: '*'\n    pager: less\n", "3:12", "'pager' is refused"),
            ("profiles:\n  - files: '*'\n    algorithm: fast\n", "3:16", "algorithm takes one of heckel, myers, lcs, not 'fast'"),
            ("profiles:\n  - files: '*'\n    unordered: yes\n", "3:16", "unordered must be true or false"),
            ("profiles:\n  - files: '*'\n    path: [/a, /b]\n", "3:11", "path takes one value, not a list"),
            ("profiles:\n  - files: '*'\n    ignore: nope\n", "3:13", "JSON Pointer"),
            ("profiles:\n  - key: id\n", "2:5", "a profile names the files it is for with files:"),
            ("profiles:\n  - files: '[a'\n", "2:12", "the glob '[a' has a '[' without its ']'"),
            ("root: maybe\n", "1:7", "root must be true or false"),
            ("settings: {}\n", "1:11", "unknown member 'settings'"),
            ("- a\n- b\n", "1:1", "a configuration file is a mapping"),
        ]
        for c in cases {
            do {
                _ = try Configuration.parse(Array(c.text.utf8), name: "c.yaml", folder: "/")
                Issue.record("accepted: \(c.text)")
            } catch {
                #expect(error.file == "c.yaml")
                #expect(error.location?.description == c.place, "\(c.text): \(error)")
                #expect(error.message.contains(c.message), "\(c.text): \(error)")
            }
        }
        // Comments alone, or nothing: a configuration that sets nothing.
        #expect(try Configuration.parse(Array("# nothing yet\n".utf8), name: "c.yaml", folder: "/").profiles.isEmpty)
        #expect(try Configuration.parse([], name: "c.yaml", folder: "/").profiles.isEmpty)
    }
}
