import Foundation
import Testing

/// `listdiff git install` in a real repository: it writes the drivers, changes nothing
/// already there without saying so, and git then diffs and merges through them.
@Suite struct GitInstallCommandTests {
    /// The drivers name the binary that wrote them: its path, or `listdiff` when PATH finds it.
    static var program: String {
        let me = Binary.url.resolvingSymlinksInPath().path
        let onPath = Programs.find("listdiff").map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
        return onPath == me ? "listdiff" : me
    }

    @Test func installsTheDriversAndGitUsesThem() throws {
        _ = try Programs.require("git", package: "git")
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let repo = home.appendingPathComponent("repo"), outside = home.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: repo, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        func bash(_ script: String, in dir: URL? = nil) throws -> Run { try GitShell.run(script, in: dir ?? repo, home: home) }
        func config(_ name: String) throws -> String { try bash("git config --local --get \(name) || true").stdout }

        // Outside a repository: refused, unless --global.
        let nowhere = try bash("\"$LISTDIFF\" git install || echo \"status $?\"", in: outside)
        #expect(nowhere.stdout == "status 2\n")
        #expect(
            nowhere.stderr
                == "listdiff: error: not inside a git repository: run 'listdiff git install' in one, or use --global for your user configuration\n"
        )

        #expect(try bash("git init -q -b main .").status == 0)
        let fresh = try bash("\"$LISTDIFF\" git install -- --key id")
        #expect(fresh.status == 0, "\(fresh.stderr)")
        let command = "\(Self.program) --key id", driver = "\(Self.program) merge --key id %O %A %B %L %P"
        #expect(try config("diff.listdiff.command") == command + "\n")
        #expect(try config("merge.listdiff.driver") == driver + "\n")
        #expect(try !config("merge.listdiff.name").isEmpty)
        #expect(fresh.stdout.hasPrefix("set: diff.listdiff.command = \(command)\n"), "\(fresh.stdout)")
        #expect(fresh.stdout.contains("set: merge.listdiff.driver = \(driver)\n"))
        #expect(fresh.stdout.contains("\n*.json diff=listdiff merge=listdiff\n"))

        // Again: already set, and the configuration is as it was, byte for byte.
        let before = try Data(contentsOf: repo.appendingPathComponent(".git/config"))
        let again = try bash("\"$LISTDIFF\" git install -- --key id")
        #expect(again.status == 0)
        #expect(again.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("already set: ") }.count == 3, "\(again.stdout)")
        #expect(!again.stdout.contains("\nset: "))
        #expect(try Data(contentsOf: repo.appendingPathComponent(".git/config")) == before)

        // A value of one's own is kept and reported; --force replaces it, and says so.
        #expect(try bash("git config merge.listdiff.driver 'mine %O %A %B'").status == 0)
        let kept = try bash("\"$LISTDIFF\" git install -- --key id || echo \"status $?\"")
        #expect(kept.stdout.contains("kept: merge.listdiff.driver = mine %O %A %B (listdiff would set \(driver); --force replaces it)\n"))
        #expect(kept.stdout.hasSuffix("status 1\n"), "\(kept.stdout)")
        #expect(try config("merge.listdiff.driver") == "mine %O %A %B\n")
        let forced = try bash("\"$LISTDIFF\" git install --force --attributes '*.json' -- --key id")
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("replaced: merge.listdiff.driver = \(driver) (was mine %O %A %B)\n"))
        #expect(try config("merge.listdiff.driver") == driver + "\n")

        // --attributes adds its line once.
        let twice = try bash("\"$LISTDIFF\" git install --attributes '*.json' -- --key id")
        #expect(twice.stdout.contains("already in .gitattributes: *.json diff=listdiff merge=listdiff\n"))
        #expect(
            try String(contentsOf: repo.appendingPathComponent(".gitattributes"), encoding: .utf8)
                == "*.json diff=listdiff merge=listdiff\n")

        // git diff goes through the diff driver: a keyed patch.
        let diffed = try bash(
            """
            git config user.email test@example.com; git config user.name test
            printf '[\\n  {"id": 1, "v": 0},\\n  {"id": 2, "v": 0},\\n  {"id": 3, "v": 0}\\n]\\n' > data.json
            git add .gitattributes data.json && git commit -q -m base
            sed -i 's/"id": 2, "v": 0/"id": 2, "v": 5/' data.json
            git diff
            git checkout -q data.json
            """)
        #expect(diffed.status == 0, "\(diffed.stderr)")
        #expect(diffed.stdout.contains("~ id=2 /v: 0 → 5\n"), "\(diffed.stdout)")

        // git merge of two branches that change neighbouring records (a conflict by lines):
        // merged by the driver, each record on its line as the branches write it.
        let merged = try bash(
            """
            git checkout -q -b left
            sed -i 's/"id": 1, "v": 0/"id": 1, "v": 1/' data.json && git commit -q -am left
            git checkout -q main
            sed -i 's/"id": 2, "v": 0/"id": 2, "v": 2/' data.json && git commit -q -am right
            git merge -q -m merged left
            cat data.json
            """)
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        #expect(merged.stdout.hasSuffix("\n" + GitShell.merged), "\(merged.stdout)")
    }

    /// --global writes the user's configuration, anywhere; it refuses --attributes, and the
    /// drivers' options are checked before anything is written.
    @Test func globalAndRefusals() throws {
        _ = try Programs.require("git", package: "git")
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let global = try GitShell.run("\"$LISTDIFF\" git install --global", in: home, home: home)
        #expect(global.status == 0, "\(global.stderr)")
        let written = try String(contentsOf: home.appendingPathComponent(".gitconfig"), encoding: .utf8)
        #expect(written.contains("driver = \(Self.program) merge %O %A %B %L %P"), "\(written)")
        for (arguments, message) in [
            ("--global --attributes '*.json'", "--attributes writes the repository's .gitattributes; it does not go with --global"),
            ("--global -- --no-such-option", "the drivers' options: Unknown option '--no-such-option'"),
        ] {
            let refused = try GitShell.run("\"$LISTDIFF\" git install \(arguments) || echo \"status $?\"", in: home, home: home)
            #expect(refused.stdout == "status 2\n")
            #expect(refused.stderr.hasPrefix("listdiff: error: \(message)"), "\(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
        #expect(try String(contentsOf: home.appendingPathComponent(".gitconfig"), encoding: .utf8) == written)
    }
}
