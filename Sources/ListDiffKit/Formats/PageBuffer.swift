import Synchronization

/// A growable array of plain values in a memory mapping of its own, for the fast path's
/// tables of one entry per record (millions of them).
///
/// Compared with `Array`: its pages come zeroed from the system, so a table of zeros costs
/// no fill pass; an append is a store, with no uniqueness check; and a table read at random
/// (`huge`) asks, on Linux, for transparent huge pages: faulted in 2 MiB at a time, with
/// fewer TLB misses. Tables filled in order keep small pages: a huge page must be found
/// and cleared whole, which costs more when memory has just been churned by another
/// process.
/// It is a class, shared and not copied on write: one thread fills it, then any number
/// read it (or write disjoint entries).
final class PageBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    // One thread fills a buffer: its fields skip the runtime's exclusivity checks.
    @exclusivity(unchecked) private(set) var base: UnsafeMutablePointer<Element>
    @exclusivity(unchecked) private(set) var count: Int
    @exclusivity(unchecked) private(set) var capacity: Int
    /// The mapping's length in bytes (0: allocated on the heap, being small or the mapping
    /// having failed).
    private var mappedBytes: Int
    private let huge: Bool

    /// An empty buffer with room for `capacity` elements.
    convenience init(capacity: Int) {
        self.init(zeroed: 0, capacity: capacity)
    }

    /// A buffer of `count` all-zero elements (for integer, boolean and tuple elements, zeros).
    /// `huge`: in transparent huge pages (for a table read at random).
    init(zeroed count: Int, capacity: Int? = nil, huge: Bool = false) {
        let room = max(capacity ?? count, count, 1)
        (base, mappedBytes) = Self.map(room, huge: huge)
        self.count = count
        self.capacity = room
        self.huge = huge
    }

    deinit { Self.unmap(base, mappedBytes, capacity) }

    /// Buffers smaller than this many bytes are allocated on the heap.
    private static var smallBytes: Int { 1 << 16 }

    private static func map(_ capacity: Int, huge: Bool) -> (UnsafeMutablePointer<Element>, Int) {
        let (product, overflow) = capacity.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        let bytes = overflow ? Int.max : product
        if !overflow, bytes >= SpareMappings.smallest, let spare = SpareMappings.take(bytes) {
            // Its pages are in memory already; they are zeroed here, as a fresh mapping's are.
            spare.address.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            return (spare.address.bindMemory(to: Element.self, capacity: capacity), spare.bytes)
        }
        // A small buffer comes from the heap: a mapping of its own costs a system call to
        // make and one to undo, and the undoing stops every core to flush its address cache.
        if !overflow, bytes >= smallBytes, let raw = SystemCalls.mapZeroed(count: bytes) {
            if huge, bytes >= 1 << 21 { SystemCalls.advise(raw, count: bytes, .hugePages) }
            return (raw.bindMemory(to: Element.self, capacity: capacity), bytes)
        }
        // Small, or no mapping to be had: the heap, zeroed by hand (and trapping, as `Array`
        // does, when there is no memory at all).
        let pointer = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        UnsafeMutableRawPointer(pointer).initializeMemory(as: UInt8.self, repeating: 0, count: capacity * MemoryLayout<Element>.stride)
        return (pointer, 0)
    }

    private static func unmap(_ base: UnsafeMutablePointer<Element>, _ mappedBytes: Int, _ capacity: Int) {
        if mappedBytes > 0 {
            SystemCalls.unmap(base, count: mappedBytes)
        } else {
            base.deallocate()
        }
    }

    /// Lets the memory go now, leaving the buffer empty (for a large table no longer read,
    /// while other values still hold the buffer). `keeping`: a large mapping is kept for the
    /// next large buffers made, until `SpareMappings.handBack()`.
    func discard(keeping: Bool = false) {
        if keeping, mappedBytes >= SpareMappings.smallest {
            SpareMappings.keep(UnsafeMutableRawPointer(base), bytes: mappedBytes)
        } else {
            Self.unmap(base, mappedBytes, capacity)
        }
        (base, mappedBytes) = Self.map(1, huge: false)
        capacity = 1
        count = 0
    }

    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { grow() }
        base[count] = element
        count &+= 1
    }

    /// Appends all of `other`'s elements.
    func append(contentsOf other: PageBuffer<Element>) {
        while count + other.count > capacity { grow() }
        (base + count).update(from: other.base, count: other.count)
        count += other.count
    }

    /// Appends all of `other`'s elements, leaving `other` empty: a large one's pages are
    /// moved rather than copied (`take`).
    func append(moving other: PageBuffer<Element>) {
        if take(other) { return }
        append(contentsOf: other)
        other.discard()
    }

    /// From this many bytes on, `append(moving:)` moves pages rather than copy them.
    private static var movedBytes: Int { 1 << 20 }

    /// Appends all of `other`'s elements by moving its pages to the end of this buffer's,
    /// where both are mappings and this one has room: a copy would write every byte again
    /// into fresh pages, each one a fault. `other` is left empty. False when it cannot be
    /// done (nothing changed then).
    ///
    /// The pages move whole, so `other`'s elements are first shifted within its own pages
    /// to where they fall in a page of this buffer, and the elements of this buffer's last,
    /// partial page copied in front of them; that page is then replaced with `other`'s
    /// first.
    private func take(_ other: PageBuffer<Element>) -> Bool {
        let stride = MemoryLayout<Element>.stride, page = SystemCalls.pageSize
        let bytes = other.count * stride
        guard mappedBytes > 0, other.mappedBytes > 0, bytes >= Self.movedBytes else { return false }
        let end = count * stride
        let partial = end % page
        // Whole pages, from this buffer's last partial page on: all inside its mapping.
        let moved = (partial + bytes + page - 1) / page * page
        guard partial + bytes <= other.mappedBytes, end - partial + moved <= mappedBytes else { return false }
        let source = UnsafeMutableRawPointer(other.base), target = UnsafeMutableRawPointer(base) + (end - partial)
        if partial > 0 {
            source.advanced(by: partial).copyMemory(from: source, byteCount: bytes)
            source.copyMemory(from: target, byteCount: partial)
        }
        guard SystemCalls.movePages(source, count: moved, to: target) else {
            // (Nothing moved: the elements are copied from where they now are.)
            target.advanced(by: partial).copyMemory(from: source.advanced(by: partial), byteCount: bytes)
            count += other.count
            other.discard()
            return true
        }
        count += other.count
        other.lose(movedBytes: moved)
        return true
    }

    /// Lets go of the mapping but its first `movedBytes`, which `take` moved away, leaving
    /// the buffer empty.
    private func lose(movedBytes: Int) {
        let rest = (mappedBytes + SystemCalls.pageSize - 1) / SystemCalls.pageSize * SystemCalls.pageSize - movedBytes
        if rest > 0 { SystemCalls.unmap(UnsafeRawPointer(base) + movedBytes, count: rest) }
        (base, mappedBytes) = Self.map(1, huge: false)
        capacity = 1
        count = 0
    }

    /// Room for `room` elements in all, in one step (for a buffer whose size is known late).
    func reserve(_ room: Int) {
        guard room > capacity else { return }
        let (bigger, bytes) = Self.map(room, huge: huge)
        bigger.update(from: base, count: count)
        Self.unmap(base, mappedBytes, capacity)
        (base, mappedBytes, capacity) = (bigger, bytes, room)
    }

    private func grow() { reserve(capacity * 2) }

    @inline(__always)
    subscript(i: Int) -> Element {
        get {
            assert(i >= 0 && i < count)
            return base[i]
        }
        set {
            assert(i >= 0 && i < count)
            base[i] = newValue
        }
    }

    /// The elements, for reading (or for writing disjoint entries from several threads).
    var buffer: UnsafeMutableBufferPointer<Element> { UnsafeMutableBufferPointer(start: base, count: count) }
}

/// Mappings of tables let go (`PageBuffer.discard(keeping:)`), kept for the next large
/// buffers: their pages are in memory, where a fresh mapping's pages each cost a fault when
/// first written. The diff keeps OLD's hashes and index once NEW is matched, for the
/// matching's tables, and hands back what is left when the compare begins.
enum SpareMappings {
    struct Spare: Sendable {
        /// Where the mapping starts (as an address, to be held behind the lock).
        var start: UInt
        var bytes: Int

        var address: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: start)! }
    }

    /// Mappings smaller than this are let go at once.
    static var smallest: Int { 1 << 20 }

    private static let spares = Mutex<[Spare]>([])

    static func keep(_ address: UnsafeMutableRawPointer, bytes: Int) {
        let spare = Spare(start: UInt(bitPattern: address), bytes: bytes)
        spares.withLock { $0.append(spare) }
    }

    /// The smallest spare mapping of at least `bytes`, taken; nil when there is none.
    static func take(_ bytes: Int) -> Spare? {
        spares.withLock { list in
            var best = -1
            for k in list.indices where list[k].bytes >= bytes && (best < 0 || list[k].bytes < list[best].bytes) { best = k }
            return best < 0 ? nil : list.remove(at: best)
        }
    }

    /// Lets go of every spare mapping.
    static func handBack() {
        let all = spares.withLock { list in
            let taken = list
            list.removeAll()
            return taken
        }
        for spare in all { SystemCalls.unmap(spare.address, count: spare.bytes) }
    }
}
