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
