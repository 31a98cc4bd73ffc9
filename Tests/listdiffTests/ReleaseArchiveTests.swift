import Foundation
import Testing

/// The release archive (Scripts/release.sh): built, unpacked into an empty folder, run with
/// nothing in its environment, its manual rendered, its links checked, and installed.
///
/// Slow: it makes a release build. It runs when LISTDIFF_RELEASE_TEST=1 or CI=true is set,
/// and is skipped, with the reason printed, otherwise.
@Suite struct ReleaseArchiveTests {
    /// What `ldd` may name: glibc's parts, the loader, and the C++ and GCC runtimes.
    static let systemLibraries = [
        "linux-vdso", "libc", "libm", "libstdc++", "libgcc_s", "libpthread", "libdl", "librt", "libutil", "ld-linux",
    ]

    /// The files the archive holds, under its folder, and where `install` puts them.
    static let files = [
        "bin/listdiff", "share/man/man1/listdiff.1", "share/bash-completion/completions/listdiff",
        "share/zsh/site-functions/_listdiff", "share/fish/vendor_completions.d/listdiff.fish",
        "share/doc/listdiff/README.md", "share/doc/listdiff/CHANGELOG.md", "share/doc/listdiff/LICENSE",
    ]

    static func shell(_ script: String, in dir: URL, environment: [String: String] = [:]) throws -> Run {
        try Binary.run(["-c", "set -e\n" + script], environment: environment, in: dir, executable: "/bin/bash")
    }

    /// Stops the test unless it is asked for, saying why.
    static func requireAsked() throws {
        let environment = ProcessInfo.processInfo.environment
        guard environment["LISTDIFF_RELEASE_TEST"] != "1", environment["CI"] != "true" else { return }
        let reason = "skipped: the release archive's test makes a release build; LISTDIFF_RELEASE_TEST=1 (or CI=true) runs it"
        FileHandle.standardError.write(Data((reason + "\n").utf8))
        try Test.cancel(Comment(rawValue: reason))
    }

    @Test(.timeLimit(.minutes(60))) func slowReleaseArchiveRunsAnywhereAndInstalls() throws {
        try Self.requireAsked()
        let man = try Programs.require("man", package: "man-db")
        _ = try Programs.require("make", package: "make")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }

        let build = try Self.shell("'\(Binary.repository.path)/Scripts/release.sh' --output-dir dist", in: dir)
        #expect(build.status == 0, "\(build.stderr)")
        let version = try Binary.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let arch = try Self.shell("uname -m", in: dir).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let name = "listdiff-\(version)-linux-\(arch)"
        let archive = dir.appendingPathComponent("dist/\(name).tar.gz")
        #expect(build.stdout == archive.path + "\n")

        // Unpacked into an empty folder: the files, and nothing else.
        let unpacked = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
        let list = try Self.shell("tar -xzf '\(archive.path)' && find . -type f | sort", in: unpacked)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout == Self.files.sorted().map { "./\(name)/\($0)\n" }.joined())
        let root = unpacked.appendingPathComponent(name)
        let binary = root.appendingPathComponent("bin/listdiff").path

        // Run with an empty environment (no Swift on PATH, no library path), beside the
        // examples only: the same output as the debug build, JSON and YAML alike.
        let examples = Binary.repository.appendingPathComponent("Examples")
        for arguments in [["people-old.json", "people-new.json"], ["--preset", "kubernetes", "manifests-old.yaml", "manifests-new.yaml"]] {
            for file in arguments.suffix(2) {
                try FileManager.default.copyItem(at: examples.appendingPathComponent(file), to: unpacked.appendingPathComponent(file))
            }
            let run = try Binary.run(["-i", binary] + arguments, in: unpacked, executable: "/usr/bin/env")
            let expected = try Binary.run(arguments, in: unpacked)
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stdout == expected.stdout && run.stderr == "")
        }
        let versionRun = try Binary.run(["-i", binary, "--version"], in: unpacked, executable: "/usr/bin/env")
        #expect(versionRun.stdout == version + "\n")

        // The libraries it loads are the C library's own.
        let ldd = try Self.shell("ldd '\(binary)'", in: dir)
        #expect(ldd.status == 0, "\(ldd.stderr)")
        for line in ldd.stdout.split(separator: "\n") {
            let library =
                line.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map { $0.split(separator: "/").last ?? $0 } ?? ""
            #expect(Self.systemLibraries.contains { library.hasPrefix($0 + ".so") || library.hasPrefix($0 + "-") }, "links \(line)")
        }
        #expect(!ldd.stdout.contains("swift") && !ldd.stdout.contains("yaml"))

        // The manual renders without a warning; the completions are the binary's own.
        let page = try Binary.run(["--warnings", "-l", root.appendingPathComponent("share/man/man1/listdiff.1").path], executable: man)
        #expect(page.status == 0)
        #expect(page.stderr == "", "\(page.stderr)")
        #expect(page.stdout.contains("EXIT STATUS"))
        for (shell, file) in [
            ("bash", "share/bash-completion/completions/listdiff"), ("zsh", "share/zsh/site-functions/_listdiff"),
            ("fish", "share/fish/vendor_completions.d/listdiff.fish"),
        ] {
            let shipped = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            #expect(shipped == (try Binary.run(["--generate-completion-script", shell]).stdout), "\(file)")
        }

        // Installed with PREFIX (the script's step, and make's), each file where its
        // convention says, the binary executable and the rest not.
        let prefix = dir.appendingPathComponent("prefix")
        let install = try Self.shell("'\(Binary.repository.path)/Scripts/release.sh' install '\(prefix.path)' '\(archive.path)'", in: dir)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stdout == Self.files.sorted().map { "\(prefix.path)/\($0)\n" }.joined())
        for file in Self.files {
            let path = prefix.appendingPathComponent(file).path
            #expect(FileManager.default.fileExists(atPath: path), "\(file)")
            #expect(FileManager.default.isExecutableFile(atPath: path) == (file == "bin/listdiff"), "\(file)")
        }
        let installed = try Binary.run(["-i", prefix.appendingPathComponent("bin/listdiff").path, "--version"], executable: "/usr/bin/env")
        #expect(installed.stdout == version + "\n")
        // make install builds (the build is there: quick) and installs under DESTDIR too.
        let staged = dir.appendingPathComponent("staged")
        let make = try Self.shell(
            "make -s -C '\(Binary.repository.path)' install PREFIX=/usr/local DESTDIR='\(staged.path)'", in: dir)
        #expect(make.status == 0, "\(make.stderr)")
        for file in Self.files {
            #expect(FileManager.default.fileExists(atPath: staged.appendingPathComponent("usr/local/" + file).path), "\(file)")
        }
    }

    /// The Homebrew formula builds the tag of the version the binary reports.
    @Test func homebrewFormulaNamesTheCurrentVersion() throws {
        let formula = try String(contentsOf: Binary.repository.appendingPathComponent("Packaging/listdiff.rb"), encoding: .utf8)
        let version = try Binary.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(formula.contains("tag: \"v\(version)\""))
        #expect(formula.contains("man1.install \"man/listdiff.1\""))
    }
}
