#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CSupport

/// Every call listdiff makes to the operating system, in one file, under names of its own
/// (in the manner of apple/swift-system). The rest of the code imports neither `Glibc` nor
/// `Darwin`: a port to another system changes this file and `CSupport` only.
///
/// Calls that fail return -1, nil or false, and leave the reason in `errorNumber`, as the
/// C calls do; `describe(_:)` turns it into words for a message.
package enum SystemCalls {
    // MARK: Descriptors

    package static let standardInput: Int32 = 0
    package static let standardOutput: Int32 = 1
    package static let standardError: Int32 = 2

    /// The reason the last failed call gave (`errno`).
    package static var errorNumber: Int32 { errno }

    /// Whether a failed call was interrupted by a signal, and should be made again.
    package static var wasInterrupted: Bool { errno == EINTR }

    /// Whether the last call failed because its path exists.
    package static var alreadyExists: Bool { errno == EEXIST }

    /// The system's words for an error number (`strerror`).
    package static func describe(_ number: Int32) -> String {
        String(cString: strerror(number))
    }

    /// Opens `path` for reading (closed on exec); -1 on failure.
    package static func openForReading(_ path: String) -> Int32 {
        open(path, O_RDONLY | O_CLOEXEC)
    }

    /// Opens an existing `path` for writing in place, without truncating it; -1 on failure.
    package static func openForWriting(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CLOEXEC)
    }

    /// Closes a descriptor; false on failure (a write that the system had delayed failed).
    @discardableResult
    package static func close(_ fd: Int32) -> Bool {
        closeDescriptor(fd) == 0
    }

    /// Reads up to `count` bytes into `buffer`; the count read, 0 at the end, -1 on failure.
    package static func readBytes(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        read(fd, buffer, count)
    }

    /// Reads up to `count` bytes from `offset` of a file, without moving its position.
    package static func readBytes(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Int {
        pread(fd, buffer, count, off_t(offset))
    }

    /// Writes up to `count` bytes from `buffer`; the count written, -1 on failure.
    package static func writeBytes(_ fd: Int32, from buffer: UnsafeRawPointer, count: Int) -> Int {
        write(fd, buffer, count)
    }

    // MARK: Files

    /// What `stat` tells of a file.
    package struct FileStatus {
        package enum Kind { case regular, directory, symbolicLink, fifo, socket, device, other }
        package var kind: Kind
        /// The device and inode that name the file on this machine.
        package var device: UInt64
        package var inode: UInt64
        /// The size in bytes of a regular file.
        package var size: Int
        /// The permission bits.
        package var permissions: UInt32
        package var owner: UInt32
        package var group: UInt32

        init(_ info: stat) {
            switch info.st_mode & S_IFMT {
            case S_IFREG: kind = .regular
            case S_IFDIR: kind = .directory
            case S_IFLNK: kind = .symbolicLink
            case S_IFIFO: kind = .fifo
            case S_IFSOCK: kind = .socket
            case S_IFCHR, S_IFBLK: kind = .device
            default: kind = .other
            }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int(info.st_size)
            permissions = UInt32(info.st_mode & 0o7777)
            owner = UInt32(info.st_uid)
            group = UInt32(info.st_gid)
        }
    }

    /// The status of an open file; nil on failure.
    package static func status(of fd: Int32) -> FileStatus? {
        var info = stat()
        return fstat(fd, &info) == 0 ? FileStatus(info) : nil
    }

    /// The status of the file at `path` (following links); nil on failure.
    package static func status(ofPath path: String) -> FileStatus? {
        var info = stat()
        return stat(path, &info) == 0 ? FileStatus(info) : nil
    }

    /// The status of the file at `path` itself: a symbolic link is not followed (`lstat`).
    package static func linkStatus(ofPath path: String) -> FileStatus? {
        var info = stat()
        return lstat(path, &info) == 0 ? FileStatus(info) : nil
    }

    /// The names in the folder at `path`, without `.` and `..`, in no set order; nil on
    /// failure.
    package static func folderEntries(_ path: String) -> [String]? {
        guard let folder = opendir(path) else { return nil }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The text of the symbolic link at `path` (where it points, not followed); nil on failure.
    package static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = readlink(path, &buffer, 4096)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Makes a symbolic link at `path` that points at `target`; false on failure.
    package static func makeLink(_ path: String, to target: String) -> Bool {
        symlink(target, path) == 0
    }

    /// Makes the folder at `path` (`mode`, 0777 unless given, less the umask); false on
    /// failure, and when it exists.
    package static func makeFolder(_ path: String, mode: UInt32 = 0o777) -> Bool {
        mkdir(path, mode_t(mode)) == 0
    }

    /// The current working directory, as an absolute path; nil on failure.
    package static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        return buffer.withUnsafeMutableBufferPointer { getcwd($0.baseAddress, $0.count) != nil ? String(cString: $0.baseAddress!) : nil }
    }

    /// Creates the file at `path` for writing, failing when it exists; -1 on failure.
    package static func createForWriting(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    }

    /// Opens an existing `path` for writing at its end; -1 on failure.
    package static func openForAppending(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    }

    /// Removes the empty folder at `path`. Safe in a signal handler.
    package static func removeFolder(_ path: UnsafePointer<CChar>) {
        _ = rmdir(path)
    }

    /// Whether the last failed call failed for want of room on the disk (or over quota).
    package static var diskWasFull: Bool { errno == ENOSPC || errno == EDQUOT }

    /// The bytes of memory the machine has; nil where it cannot be told.
    package static func physicalMemory() -> Int? {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        return pages > 0 ? pages * pageSize : nil
    }

    /// Sets an open file's permission bits.
    package static func setPermissions(_ fd: Int32, _ permissions: UInt32) {
        _ = fchmod(fd, mode_t(permissions))
    }

    /// Gives an open file to an owner and group; false where the process may not.
    @discardableResult
    package static func setOwner(_ fd: Int32, owner: UInt32, group: UInt32) -> Bool {
        fchown(fd, uid_t(owner), gid_t(group)) == 0
    }

    /// The process's file creation mask (read without changing it).
    package static func creationMask() -> UInt32 {
        let mask = umask(0)
        umask(mask)
        return UInt32(mask)
    }

    /// Writes an open file's data to its disk. A file that cannot be synced (a pipe, some
    /// file systems) counts as synced.
    package static func sync(_ fd: Int32) -> Bool {
        fsync(fd) == 0 || errno == EINVAL
    }

    /// Starts writing `count` bytes of an open file from `offset` to its disk, without
    /// waiting (Linux; nothing elsewhere): `sync` then has less left to wait for.
    package static func startWriteback(_ fd: Int32, offset: Int, count: Int) {
        listdiff_start_writeback(fd, Int64(offset), Int64(count))
    }

    /// Renames `source` to `target`, replacing it; false on failure.
    package static func rename(_ source: String, to target: String) -> Bool {
        renameFile(source, target) == 0
    }

    /// Removes the file at `path`. Safe in a signal handler.
    package static func remove(_ path: UnsafePointer<CChar>) {
        _ = unlink(path)
    }

    /// Removes the file at `path`.
    package static func remove(_ path: String) {
        _ = unlink(path)
    }

    // MARK: Memory

    /// The size of a memory page.
    package static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Maps `count` bytes of an open file for reading; nil on failure.
    package static func mapForReading(_ fd: Int32, count: Int) -> UnsafeRawPointer? {
        guard let base = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else { return nil }
        return UnsafeRawPointer(base)
    }

    /// Maps `count` bytes of zeroed memory for reading and writing; nil on failure.
    package static func mapZeroed(count: Int) -> UnsafeMutableRawPointer? {
        guard let base = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), base != MAP_FAILED else {
            return nil
        }
        return base
    }

    /// Moves the pages of `count` bytes at `from` (page-aligned, made by `mapZeroed`) to `to`
    /// (page-aligned, inside another such mapping), without copying them: what was at `to`
    /// is replaced, and `from` is left unmapped. False when the system cannot (then nothing
    /// moved).
    package static func movePages(_ from: UnsafeMutableRawPointer, count: Int, to: UnsafeMutableRawPointer) -> Bool {
        listdiff_move_pages(from, count, to) == 0
    }

    /// Ends a mapping made by `mapForReading` or `mapZeroed`.
    package static func unmap(_ base: UnsafeRawPointer, count: Int) {
        _ = munmap(UnsafeMutableRawPointer(mutating: base), count)
    }

    /// How a mapping will be read, for the kernel's read-ahead and page handling.
    package enum Advice {
        /// Read in order: read ahead eagerly, drop pages behind.
        case sequential
        /// Read ahead now, in the background.
        case willNeed
        /// Read here and there: no read-ahead on a fault.
        case random
        /// Hand the pages back; touching them again reads the file (or gives zeros).
        case dontNeed
        /// Back the mapping with huge pages where the system has them (Linux only).
        case hugePages
    }

    /// Tells the kernel how a mapped range will be used. Advice is a hint: it may be ignored.
    package static func advise(_ base: UnsafeRawPointer, count: Int, _ advice: Advice) {
        let raw = UnsafeMutableRawPointer(mutating: base)
        switch advice {
        case .sequential: _ = madvise(raw, count, MADV_SEQUENTIAL)
        case .willNeed: _ = madvise(raw, count, MADV_WILLNEED)
        case .random: _ = madvise(raw, count, MADV_RANDOM)
        case .dontNeed: _ = madvise(raw, count, MADV_DONTNEED)
        case .hugePages:
            #if os(Linux)
            _ = madvise(raw, count, MADV_HUGEPAGE)
            #endif
        }
    }

    /// Lets a read of a mapped file past its end (the file shrank while it was read) give
    /// zeros instead of killing the process with SIGBUS. The faults are noted.
    package static func guardMappedReads() { listdiff_guard_mapped_reads() }

    /// The address of the last read that `guardMappedReads` caught, or nil when none was.
    /// How many reads of mapped files have faulted so far in this process.
    package static func mappedFaultCount() -> Int { Int(listdiff_mapped_faults()) }

    package static func lastMappedFault() -> UInt? {
        listdiff_mapped_faults() > 0 ? UInt(listdiff_last_mapped_fault()) : nil
    }

    /// Sets the size above which the allocator maps a block on its own (and hands it back
    /// when freed). Only glibc's allocator has one; elsewhere this does nothing.
    package static func fixMappingThreshold(_ bytes: Int) { listdiff_fix_mmap_threshold(Int32(bytes)) }

    /// The number of processors this process may run on, at least 1.
    package static func processorCount() -> Int { max(1, Int(listdiff_cpu_count())) }

    // MARK: Bytes

    /// The first `byte` in the `count` bytes from `base`, or nil (`memchr`).
    @inline(__always)
    package static func find(_ byte: UInt8, in base: UnsafeRawPointer, count: Int) -> UnsafeRawPointer? {
        UnsafeRawPointer(memchr(base, Int32(byte), count))
    }

    /// Compares `count` bytes: less than, equal to or greater than zero as `a` sorts
    /// before, with or after `b` (`memcmp`).
    @inline(__always)
    package static func compare(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Int32 {
        memcmp(a, b, count)
    }

    /// Asks for the cache line at `address` to be fetched, without waiting for it: a read
    /// of it soon after then waits for less.
    @inline(__always)
    package static func prefetch(_ address: UnsafeRawPointer) {
        listdiff_prefetch(address)
    }

    // MARK: Process and terminal

    /// The value of an environment variable.
    package static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Whether `fd` is a terminal.
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// The size of the terminal on `fd`, or nil when it is not one (or reports no size).
    package static func terminalSize(_ fd: Int32) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// The seconds since 1970 (the Unix epoch).
    package static func secondsSinceEpoch() -> Int { Int(time(nil)) }

    /// Sleeps for `seconds`. A signal that interrupts the sleep runs `interrupted`, and the
    /// sleep then goes on for the time left.
    package static func sleep(seconds: Double, interrupted: () -> Void = {}) {
        let s = max(0, seconds)
        var request = timespec(tv_sec: Int(s), tv_nsec: Int((s - s.rounded(.down)) * 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR {
            interrupted()
            request = remaining
        }
    }

    /// Ends the process with `status`, flushing the C library's buffers.
    package static func exit(_ status: Int32) -> Never { exitProcess(status) }

    /// Ends the process at once (no buffers flushed). Safe in a signal handler.
    package static func exitNow(_ status: Int32) -> Never { _exit(status) }

    /// Runs `body` on a new, detached thread; false when none could be started.
    package static func detachThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let started = pthread_create(
            &thread, nil,
            { raw in
                #if canImport(Glibc)
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                #else
                let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
                #endif
                box.body()
                return nil
            }, box)
        guard started == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return false
        }
        #if canImport(Glibc)
        pthread_detach(thread)
        #else
        if let thread { pthread_detach(thread) }
        #endif
        return true
    }

    // MARK: Signals

    /// The signals listdiff handles.
    package enum Signal: CaseIterable {
        case interrupt, terminate, hangUp, windowChange

        var number: Int32 {
            switch self {
            case .interrupt: SIGINT
            case .terminate: SIGTERM
            case .hangUp: SIGHUP
            case .windowChange: SIGWINCH
            }
        }
    }

    /// Runs `handler` (given the signal's number) when `signal` arrives, and unblocks it: a
    /// parent may have left it blocked, and a blocked signal would never reach the handler.
    package static func handle(_ signal: Signal, with handler: @convention(c) (Int32) -> Void) {
        _ = setHandler(signal.number, handler)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal.number)
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Gives `signal` back its default action.
    package static func restoreDefault(_ signal: Signal) {
        _ = setHandler(signal.number, SIG_DFL)
    }

    // MARK: Memory use

    /// The process's resident memory in bytes, and the part of it that is file pages
    /// (mapped inputs and the program itself); (0, 0) where it cannot be read (Linux reads
    /// it from /proc/self/statm).
    static func resident() -> (total: Int, file: Int) {
        #if os(Linux)
        let fd = openForReading("/proc/self/statm")
        guard fd >= 0 else { return (0, 0) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { readBytes(fd, into: $0.baseAddress!, count: $0.count) }
        guard n > 0 else { return (0, 0) }
        // statm: size, resident, shared (file pages), ... in pages.
        let fields = buffer[..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > 2, let pages = Int(String(decoding: fields[1], as: UTF8.self)),
            let shared = Int(String(decoding: fields[2], as: UTF8.self))
        else { return (0, 0) }
        return (pages * pageSize, shared * pageSize)
        #else
        return (0, 0)
        #endif
    }
}

// The C calls whose names the wrappers above take for themselves.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
private func renameFile(_ source: String, _ target: String) -> Int32 { rename(source, target) }
private func exitProcess(_ status: Int32) -> Never { exit(status) }
private func setHandler(_ number: Int32, _ handler: (@convention(c) (Int32) -> Void)?) -> (@convention(c) (Int32) -> Void)? {
    signal(number, handler)
}
