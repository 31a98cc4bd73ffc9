import ListDiffKit

/// A buffered `TextOutputStream` over a file descriptor.
struct FileStream: TextOutputStream {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var failed: Int32? = nil
    /// Whether the bytes written are handed to the disk as they come, every 8 MiB, so that
    /// the sync at the end waits for little (for a file that is synced).
    var writesBack = false
    /// The bytes written so far, and how many of them were handed to the disk.
    private var written = 0, handedBack = 0

    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    mutating func write(_ string: String) {
        var s = string
        s.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Bytes as they are (a block of UTF-8 text), without going through a `String`.
    mutating func write(bytes: UnsafeRawBufferPointer) {
        if buffer.count + bytes.count > 1 << 16 { flush() }
        if bytes.count >= 1 << 16 {
            writeNow(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    /// Writes `text` at once, unbuffered; the error number when that failed.
    @discardableResult
    static func write(_ text: String, to fd: Int32) -> Int32? {
        var text = text
        return text.withUTF8 { write(UnsafeRawBufferPointer($0), to: fd) }
    }

    /// Writes all of `bytes` at once, then hands what was written since the last time to
    /// the disk when it is 8 MiB or more and `writesBack` is set.
    private mutating func writeNow(_ bytes: UnsafeRawBufferPointer) {
        guard failed == nil else { return }
        failed = Self.write(bytes, to: fd)
        written += bytes.count
        if writesBack, written - handedBack >= 1 << 23 {
            SystemCalls.startWriteback(fd, offset: handedBack, count: written - handedBack)
            handedBack = written
        }
    }

    /// Writes all of `bytes`; the error number when that failed.
    private static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = SystemCalls.writeBytes(fd, from: bytes.baseAddress! + offset, count: bytes.count - offset)
            if n < 0 {
                if SystemCalls.wasInterrupted { continue }
                return SystemCalls.errorNumber
            }
            offset += n
        }
        return nil
    }

    mutating func flush() {
        // (The buffer is taken out while it is written, and put back empty with its capacity.)
        var pending: [UInt8] = []
        swap(&pending, &buffer)
        pending.withUnsafeBytes { writeNow($0) }
        pending.removeAll(keepingCapacity: true)
        swap(&pending, &buffer)
    }
}

/// Writes the output file next to its target and renames it into place, so that a
/// failed run never leaves a partial file, and a symbolic link at the target is replaced, not
/// followed. A new file gets the mode the umask allows; a file replaced keeps its mode and,
/// where allowed, its owner. A target that is not a regular file (a device such as
/// /dev/null, a FIFO) is written in place, never replaced.
struct AtomicFile {
    let path: String
    /// The temporary file, or nil when writing in place.
    let temporary: String?
    let fd: Int32

    init(path: String) throws(ListDiffError) {
        self.path = path
        let existing = SystemCalls.status(ofPath: path)
        if let existing, existing.kind != .regular {
            if existing.kind == .directory { throw ListDiffError(.io, file: path, "cannot write: it is a directory") }
            let fd = SystemCalls.openForWriting(path)
            guard fd >= 0 else { throw ListDiffError(.io, file: path, "cannot write: \(Self.reason())") }
            self.fd = fd
            temporary = nil
            return
        }
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        // (Its path is added for removal on a signal before the file exists.)
        guard let (fd, temporary, entry) = SignalCleanup.makeTemporary((directory.isEmpty ? "" : directory) + "/.listdiff-") else {
            throw ListDiffError(
                .io, file: path, "cannot create a temporary file in \(directory.isEmpty ? "/" : directory): \(Self.reason())")
        }
        self.fd = fd
        self.temporary = temporary
        Cleanup.track(entry)
        if let existing {
            SystemCalls.setPermissions(fd, existing.permissions)
            SystemCalls.setOwner(fd, owner: existing.owner, group: existing.group)
        } else {
            SystemCalls.setPermissions(fd, 0o666 & ~SystemCalls.creationMask())
        }
    }

    /// The reason the last call failed, in words.
    private static func reason(_ number: Int32 = SystemCalls.errorNumber) -> String {
        SystemCalls.describe(number)
    }

    func commit(_ stream: FileStream) throws(ListDiffError) {
        if let failed = stream.failed {
            discard()
            throw ListDiffError(.io, file: path, "cannot write: \(Self.reason(failed))")
        }
        guard let temporary else {
            guard SystemCalls.close(fd) else { throw ListDiffError(.io, file: path, "cannot write: \(Self.reason())") }
            return
        }
        guard SystemCalls.sync(fd), SystemCalls.close(fd), SystemCalls.rename(temporary, to: path) else {
            let reason = Self.reason()
            SystemCalls.remove(temporary)
            Cleanup.track(nil)
            throw ListDiffError(.io, file: path, "cannot write: \(reason)")
        }
        Cleanup.track(nil)
    }

    func discard() {
        SystemCalls.close(fd)
        if let temporary {
            SystemCalls.remove(temporary)
            Cleanup.track(nil)
        }
    }
}

/// Removes the output's temporary file when SIGINT, SIGTERM or SIGHUP ends the run
/// (`SignalCleanup`).
enum Cleanup {
    nonisolated(unsafe) private static var entry: SignalCleanup.Entry?

    /// Tracks `new` (the output's temporary file, added already) in place of the last.
    static func track(_ new: SignalCleanup.Entry?) {
        SignalCleanup.forget(entry)
        entry = new
    }
}

enum Output {
    /// Writes to `path` atomically, or to standard output when there is no path. A failed
    /// write is an error (a closed pipe ends the run quietly, by SIGPIPE, before that).
    static func write(to path: String?, _ body: (inout FileStream) throws(ListDiffError) -> Void) throws(ListDiffError) {
        if let path {
            let file = try AtomicFile(path: path)
            var stream = FileStream(fd: file.fd)
            // (A temporary file is synced before it is renamed into place.)
            stream.writesBack = file.temporary != nil
            do {
                try body(&stream)
            } catch {
                file.discard()
                throw error
            }
            stream.flush()
            try file.commit(stream)
        } else {
            var stream = FileStream(fd: SystemCalls.standardOutput)
            try body(&stream)
            stream.flush()
            if let failed = stream.failed {
                throw ListDiffError(.io, "cannot write to standard output: \(SystemCalls.describe(failed))")
            }
        }
    }
}

/// LISTDIFF_TIMINGS=1: the time of each phase and the memory at its end, on standard
/// error (for Benchmarks/).
enum Timings {
    static let enabled = SystemCalls.environment("LISTDIFF_TIMINGS").map { !$0.isEmpty } ?? false

    /// A progress to note phases in, when timings are asked for.
    static var progress: Progress? { enabled ? Progress() : nil }

    static func report(_ progress: Progress?) {
        guard enabled, let phases = progress?.phases else { return }
        let text = phases.map {
            "\($0.name) \(Int(($0.seconds * 1000).rounded())) ms (\($0.residentBytes >> 20) MiB, files \($0.fileBytes >> 20))"
        }
        .joined(separator: ", ")
        FileStream.write("listdiff: timings: " + text + "\n", to: SystemCalls.standardError)
    }
}
