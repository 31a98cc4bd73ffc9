/// The files under a folder, found without following a symbolic link.
///
/// A walk lists every entry below its root by its path relative to the root (`a/b.json`),
/// in the order of `FolderWalk.precedes`: by component, each compared byte by byte, so that
/// the order never depends on the locale or on the file system.
///
/// - A symbolic link is an entry of its own, with the text it points at. It is never
///   followed, so a walk never leaves its root and a link to a folder above cannot loop.
/// - A FIFO, a socket or a device is an entry of its own, never opened: reading one could
///   block for ever, or never end.
/// - A folder met again below itself (a bind mount of its own parent) is a loop: it is
///   noted as a problem, not walked again.
/// - A folder that cannot be listed is noted as a problem; the walk goes on.
package struct FolderWalk {
    /// What an entry is.
    package enum Entry: Equatable, Sendable {
        /// A regular file, of this many bytes.
        case file(size: Int)
        /// A symbolic link, and the text it points at.
        case link(target: String)
        /// A FIFO, socket or device, named in words ("a FIFO").
        case special(String)
    }

    /// The entries by path relative to the root, in walk order.
    package var entries: [(path: String, entry: Entry)] = []
    /// Paths (relative to the root, "" the root itself) that could not be walked, and why.
    package var problems: [(path: String, reason: String)] = []

    /// Walks the folder at `root`.
    package init(root: String) {
        let base = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
        // Each pending folder with the device and inode of every folder above it and itself.
        var pending: [(relative: String, ancestors: [FileIdentity])] = []
        if let status = SystemCalls.status(ofPath: base) {
            pending.append(("", [FileIdentity(status)]))
        } else {
            problems.append(("", SystemCalls.describe(SystemCalls.errorNumber)))
            return
        }
        var found: [(path: String, entry: Entry)] = []
        while let (relative, ancestors) = pending.popLast() {
            let folder = relative.isEmpty ? base : base + "/" + relative
            guard let names = SystemCalls.folderEntries(folder) else {
                problems.append((relative, SystemCalls.describe(SystemCalls.errorNumber)))
                continue
            }
            for name in names {
                let path = relative.isEmpty ? name : relative + "/" + name
                let full = base + "/" + path
                guard let status = SystemCalls.linkStatus(ofPath: full) else {
                    problems.append((path, SystemCalls.describe(SystemCalls.errorNumber)))
                    continue
                }
                switch status.kind {
                case .regular: found.append((path, .file(size: status.size)))
                case .directory:
                    let identity = FileIdentity(status)
                    if ancestors.contains(identity) {
                        problems.append((path, "a loop: this folder is also one of the folders that hold it"))
                    } else {
                        pending.append((path, ancestors + [identity]))
                    }
                case .symbolicLink:
                    if let target = SystemCalls.linkTarget(full) {
                        found.append((path, .link(target: target)))
                    } else {
                        problems.append((path, SystemCalls.describe(SystemCalls.errorNumber)))
                    }
                case .fifo: found.append((path, .special("a FIFO")))
                case .socket: found.append((path, .special("a socket")))
                case .device: found.append((path, .special("a device")))
                case .other: found.append((path, .special("not a regular file")))
                }
            }
        }
        entries = found.sorted { Self.precedes($0.path, $1.path) }
        problems.sort { Self.precedes($0.path, $1.path) }
    }

    /// `root/path`, without a doubled slash; the root itself for an empty path.
    package static func join(_ root: String, _ path: String) -> String {
        if path.isEmpty { return root }
        return root.hasSuffix("/") ? root + path : root + "/" + path
    }

    /// The walk order: component by component, each compared byte by byte (`a/b` before
    /// `a-b`, as `diff -r` visits them).
    package static func precedes(_ a: String, _ b: String) -> Bool {
        var x = a.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).makeIterator()
        var y = b.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).makeIterator()
        while true {
            switch (x.next(), y.next()) {
            case (nil, nil): return false
            case (nil, _): return true
            case (_, nil): return false
            case let (p?, q?):
                if p.elementsEqual(q) { continue }
                return p.lexicographicallyPrecedes(q)
            }
        }
    }

    /// A folder's identity on this machine.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64

        init(_ status: SystemCalls.FileStatus) {
            device = status.device
            inode = status.inode
        }
    }
}
