import Dispatch

/// The one place that runs two jobs at once: each job on a core of its own, and both
/// results given back, errors included, so that the caller reports them in its own order.
package enum Concurrently {
    /// Runs `first` and `second` at once and gives both outcomes.
    package static func both<A, B, E: Error>(
        _ first: @Sendable () throws(E) -> A, _ second: @Sendable () throws(E) -> B
    ) -> (Result<A, E>, Result<B, E>) {
        // Each job writes its own slot, and the slots are read only after both jobs end.
        let a = UnsafeMutablePointer<Result<A, E>>.allocate(capacity: 1)
        let b = UnsafeMutablePointer<Result<B, E>>.allocate(capacity: 1)
        defer {
            a.deinitialize(count: 1).deallocate()
            b.deinitialize(count: 1).deallocate()
        }
        nonisolated(unsafe) let slots = (a, b)
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            if k == 0 {
                slots.0.initialize(to: Result { () throws(E) -> A in try first() })
            } else {
                slots.1.initialize(to: Result { () throws(E) -> B in try second() })
            }
        }
        return (a.pointee, b.pointee)
    }

    /// Runs `first` and `second` at once, neither of which throws.
    package static func both<A, B>(_ first: @Sendable () -> A, _ second: @Sendable () -> B) -> (A, B) {
        let (a, b): (Result<A, Never>, Result<B, Never>) = both(
            { () throws(Never) -> A in first() }, { () throws(Never) -> B in second() })
        return (a.get(), b.get())
    }
}

/// The machine the engine runs on.
enum Machine {
    /// The cores this process may run on (its CPU affinity), at least 1.
    static let cores = SystemCalls.processorCount()

    /// Runs `body` over `count` items in up to `parts` ranges at once.
    static func parallel(parts: Int, count: Int, _ body: @Sendable (Range<Int>) -> Void) {
        let n = max(1, min(parts, count / 4096 + 1))
        DispatchQueue.concurrentPerform(iterations: n) { k in body(count * k / n..<count * (k + 1) / n) }
    }

    /// Writes `count` items in blocks of 2048, a block on each core at once, wave after wave:
    /// `fill` writes a block's items into a slot, on the block's core; then `drain` takes
    /// the wave's slots in the order of their blocks, on the caller's thread. There is one
    /// slot per core, made by `slot`, and each wave uses them again.
    static func inWaves<Slot: Sendable, E: Error>(
        count: Int, slot: () -> Slot, _ fill: @Sendable (Slot, Range<Int>) -> Void, drain: (Slot) throws(E) -> Void
    ) throws(E) {
        let blockSize = 2048
        let slots = (0..<cores).map { _ in slot() }
        var start = 0
        while start < count {
            let wave = min(cores, (count - start + blockSize - 1) / blockSize)
            let first = start
            DispatchQueue.concurrentPerform(iterations: wave) { b in
                fill(slots[b], first + b * blockSize..<min(count, first + (b + 1) * blockSize))
            }
            for slot in slots[..<wave] { try drain(slot) }
            start += wave * blockSize
        }
    }
}
