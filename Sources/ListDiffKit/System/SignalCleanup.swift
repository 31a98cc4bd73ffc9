/// Files and folders removed when SIGINT, SIGTERM or SIGHUP ends the run, which then exits
/// with 128 + the signal's number, as a shell reports it: the output's temporary file, and
/// a spill's folder with its files.
///
/// The signal handler may not allocate or lock, so the paths wait in a fixed table of C
/// strings, made before they are added. Files are removed before folders, so that a folder
/// is empty when its turn comes.
package enum SignalCleanup {
    /// How many paths may wait at once.
    static let capacity = 8192

    /// A path added, to remove from the table once the run has removed it itself.
    package struct Entry: Sendable {
        fileprivate let slot: Int
    }

    /// Adds `path` (a file, or a folder when `folder`); nil when the table is full, and then
    /// the path is left behind by a signal.
    @discardableResult
    package static func add(_ path: String, folder: Bool = false) -> Entry? {
        // (Both tables are made before the handler is installed: it must not make them.)
        _ = (cleanupFiles, cleanupFolders)
        installOnce
        let bytes = Array(path.utf8CString)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        copy.initialize(from: bytes, count: bytes.count)
        let table = folder ? cleanupFolders : cleanupFiles
        guard let slot = (0..<capacity).first(where: { table[$0] == nil }) else {
            copy.deallocate()
            return nil
        }
        table[slot] = copy
        return Entry(slot: folder ? capacity + slot : slot)
    }

    /// Makes a temporary file (or a folder, its owner's only) named `prefix` and six random
    /// letters and digits. Its path is added before it exists, so that a signal at any time
    /// after removes it. Its descriptor (-1 for a folder), path and entry; nil on failure,
    /// with the error number set.
    package static func makeTemporary(_ prefix: String, folder: Bool = false) -> (fd: Int32, path: String, entry: Entry?)? {
        let characters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let path = prefix + String(decoding: (0..<6).map { _ in characters.randomElement(using: &random)! }, as: UTF8.self)
            let entry = add(path, folder: folder)
            if folder {
                if SystemCalls.makeFolder(path, mode: 0o700) { return (-1, path, entry) }
            } else {
                let fd = SystemCalls.createForWriting(path)
                if fd >= 0 { return (fd, path, entry) }
            }
            let exists = SystemCalls.alreadyExists
            // (free, in forget, keeps the error number.)
            forget(entry)
            guard exists else { return nil }
        }
        return nil
    }

    /// Takes `entry` out of the table: its path is gone, or kept on purpose.
    package static func forget(_ entry: Entry?) {
        guard let entry else { return }
        let table = entry.slot >= capacity ? cleanupFolders : cleanupFiles
        let slot = entry.slot % capacity
        let path = table[slot]
        table[slot] = nil
        path?.deallocate()
    }

    private static let installOnce: Void = {
        let handler: @convention(c) (Int32) -> Void = { signal in
            for k in 0..<SignalCleanup.capacity { if let path = cleanupFiles[k] { SystemCalls.remove(path) } }
            for k in 0..<SignalCleanup.capacity { if let path = cleanupFolders[k] { SystemCalls.removeFolder(path) } }
            SystemCalls.exitNow(128 + signal)
        }
        for signal in [SystemCalls.Signal.interrupt, .terminate, .hangUp] { SystemCalls.handle(signal, with: handler) }
    }()
}

// Read by the signal handler: the paths to remove, nil where a slot is free.
nonisolated(unsafe) private let cleanupFiles: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
    let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: SignalCleanup.capacity)
    table.initialize(repeating: nil, count: SignalCleanup.capacity)
    return table
}()
nonisolated(unsafe) private let cleanupFolders: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
    let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: SignalCleanup.capacity)
    table.initialize(repeating: nil, count: SignalCleanup.capacity)
    return table
}()
