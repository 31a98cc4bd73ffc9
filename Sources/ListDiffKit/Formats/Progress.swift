import Dispatch
import Synchronization

/// How far a long diff has gone, for a progress display: the fast reader counts the input
/// bytes it has scanned and compared. Safe to read from another thread while the diff runs.
package final class Progress: Sendable {
    package enum Stage: Int, Sendable {
        case reading, comparing, writing
    }

    private let totalCount = Atomic<Int>(0)
    private let doneCount = Atomic<Int>(0)
    private let stageValue = Atomic<Int>(Stage.reading.rawValue)

    package init() {}

    /// Units of work in all (`advance` counts toward it); 0 until known.
    package var total: Int { totalCount.load(ordering: .relaxed) }
    package func begin(total: Int) {
        totalCount.store(max(total, 1), ordering: .relaxed)
    }

    package var done: Int { min(doneCount.load(ordering: .relaxed), total) }
    package var fraction: Double { total == 0 ? 0 : Double(done) / Double(total) }
    package var stage: Stage { Stage(rawValue: stageValue.load(ordering: .relaxed)) ?? .reading }

    package func advance(by n: Int) {
        doneCount.add(n, ordering: .relaxed)
    }

    package func enter(_ stage: Stage) {
        stageValue.store(stage.rawValue, ordering: .relaxed)
    }

    private let marks = Mutex<[(String, UInt64, Int, Int)]>([("start", DispatchTime.now().uptimeNanoseconds, 0, 0)])

    /// Notes that a phase ended now, for `phases`.
    package func lap(_ phase: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        let resident = SystemCalls.resident()
        marks.withLock { $0.append((phase, now, resident.total, resident.file)) }
    }

    /// Each phase noted by `lap`, with its seconds, the resident memory at its end, and
    /// the part of that memory that is file pages (the mapped inputs, mostly).
    package var phases: [(name: String, seconds: Double, residentBytes: Int, fileBytes: Int)] {
        marks.withLock { marks in
            zip(marks, marks.dropFirst()).map { ($1.0, Double($1.1 - $0.1) / 1e9, $1.2, $1.3) }
        }
    }
}
