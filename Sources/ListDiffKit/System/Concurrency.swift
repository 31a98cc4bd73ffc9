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

    /// Writes `count` items in blocks of 2048 on every core at once, wave after wave: `fill`
    /// writes a block's items into a slot, on any core; `drain` takes each wave's slots in the
    /// order of their blocks, on one core while the next wave is filled on the others (the
    /// core that drains then fills too). Two sets of slots, made by `slot`, take turns: one
    /// filled while the other is drained. The first error `drain` throws stops the writing;
    /// nothing after it is drained.
    static func inWaves<Slot: Sendable, E: Error>(
        count: Int, slot: () -> Slot, _ fill: @Sendable (Slot, Range<Int>) -> Void, drain: (Slot) throws(E) -> Void
    ) throws(E) {
        let blockSize = 2048
        // More blocks than cores, so that the core that drains fills fewer (and few, since
        // each set of slots holds a wave's bytes).
        let perWave = 2 * cores
        let sets = (0..<2).map { _ in (0..<perWave).map { _ in slot() } }
        var failure: E? = nil
        // The wave filled last, not drained yet.
        var filled: ArraySlice<Slot> = []
        func drainFilled() {
            for slot in filled where failure == nil {
                do throws(E) { try drain(slot) } catch { failure = error }
            }
            filled = []
        }
        var start = 0, turn = 0
        while start < count, failure == nil {
            let blocks = min(perWave, (count - start + blockSize - 1) / blockSize)
            let first = start, slots = sets[turn]
            withoutActuallyEscaping(drainFilled) { drainFilled in
                // (The caller's thread waits here, so its state is drained from one core at a time.)
                nonisolated(unsafe) let drainFilled = drainFilled
                DispatchQueue.concurrentPerform(iterations: blocks + 1) { k in
                    if k == 0 {
                        drainFilled()
                    } else {
                        let b = k - 1
                        fill(slots[b], first + b * blockSize..<min(count, first + (b + 1) * blockSize))
                    }
                }
            }
            filled = slots[..<blocks]
            turn ^= 1
            start += blocks * blockSize
        }
        drainFilled()
        if let failure { throw failure }
    }
}
