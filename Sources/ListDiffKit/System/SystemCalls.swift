#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The operating system's calls that listdiff makes under a name of its own, in one place:
/// the names of the C library (`read`, `write`, `open`, `signal`) are also the names of
/// methods in listdiff's types, where a call would otherwise need the C module's name
/// (`Glibc` on Linux, `Darwin` on macOS).
package enum SystemCalls {
    /// Opens `path` for reading (closed on exec); -1 with `errno` set on failure.
    package static func openForReading(_ path: String) -> Int32 {
        open(path, O_RDONLY | O_CLOEXEC)
    }

    /// Reads up to `count` bytes into `buffer`; the count read, 0 at the end, -1 on failure.
    package static func readBytes(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        read(fd, buffer, count)
    }

    /// Writes up to `count` bytes from `buffer`; the count written, -1 on failure.
    package static func writeBytes(_ fd: Int32, from buffer: UnsafeRawPointer, count: Int) -> Int {
        write(fd, buffer, count)
    }

    /// Runs `handler` when `number` arrives.
    package static func handle(signal number: Int32, with handler: @convention(c) (Int32) -> Void) {
        _ = signal(number, handler)
    }

    /// The process's resident memory in bytes (Linux: from /proc/self/statm; 0 elsewhere).
    static func residentBytes() -> Int { resident().total }

    /// The process's resident memory in bytes, and the part of it that is file pages
    /// (mapped inputs and the program itself); (0, 0) where it cannot be read.
    static func resident() -> (total: Int, file: Int) {
        #if os(Linux)
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return (0, 0) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return (0, 0) }
        // statm: size, resident, shared (file pages), ... in pages.
        let fields = buffer[..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > 2, let pages = Int(String(decoding: fields[1], as: UTF8.self)),
            let shared = Int(String(decoding: fields[2], as: UTF8.self))
        else { return (0, 0) }
        let size = Int(sysconf(Int32(_SC_PAGESIZE)))
        return (pages * size, shared * size)
        #else
        return (0, 0)
        #endif
    }
}
