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
    /// while other values still hold the buffer).
    func discard() {
        Self.unmap(base, mappedBytes, capacity)
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
