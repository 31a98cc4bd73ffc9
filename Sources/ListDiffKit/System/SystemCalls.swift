#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The operating system's services that listdiff uses beyond plain file reads, in one place.
enum SystemCalls {
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
