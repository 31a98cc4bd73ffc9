import Dispatch

/// The one place that runs two jobs at once: each job on a core of its own, and both
/// results given back, errors included, so that the caller reports them in its own order.
package enum Concurrently {
    /// Runs `first` and `second` at once and gives both outcomes.
    package static func both<A, B, E: Error>(
        _ first: @Sendable () throws(E) -> A, _ second: @Sendable () throws(E) -> B
    ) -> (Result<A, E>, Result<B, E>) {
        // Each job writes its own slot, and the slots are read only after both jobs end.
        let slots = UnsafeMutableBufferPointer<Any?>.allocate(capacity: 2)
        slots.initialize(repeating: nil)
        defer { slots.deinitialize().deallocate() }
        nonisolated(unsafe) let out = slots
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            if k == 0 {
                out[0] = Result<A, E> { () throws(E) -> A in try first() }
            } else {
                out[1] = Result<B, E> { () throws(E) -> B in try second() }
            }
        }
        return (slots[0] as! Result<A, E>, slots[1] as! Result<B, E>)
    }

    /// Runs `first` and `second` at once, neither of which throws.
    package static func both<A, B>(_ first: @Sendable () -> A, _ second: @Sendable () -> B) -> (A, B) {
        let (a, b): (Result<A, Never>, Result<B, Never>) = both(
            { () throws(Never) -> A in first() }, { () throws(Never) -> B in second() })
        return (a.get(), b.get())
    }
}
