import Dispatch
import ListDiffKit
import Synchronization

/// A progress bar on standard error, for diffs that take more than about a second, and only
/// when standard error is a terminal. It is drawn from a background thread every 100 ms
/// and erased (the line cleared) before any output or error is written.
///
/// `LISTDIFF_PROGRESS_DELAY` (seconds, default 1) changes when it first shows.
final class ProgressBar: Sendable {
    let progress = Progress()
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let delay: Double

    private init(delay: Double) {
        self.delay = delay
    }

    /// A running bar, or nil when standard error is not a terminal (or TERM is dumb).
    static func start() -> ProgressBar? {
        guard SystemCalls.isTerminal(SystemCalls.standardError), SystemCalls.environment("TERM") != "dumb" else { return nil }
        let delay = SystemCalls.environment("LISTDIFF_PROGRESS_DELAY").flatMap(Double.init) ?? 1
        let bar = ProgressBar(delay: max(0, delay))
        return SystemCalls.detachThread { bar.run() } ? bar : nil
    }

    private func run() {
        var waited = 0.0
        while waited < delay {
            if stopped.load(ordering: .acquiring) { finished.signal(); return }
            SystemCalls.sleep(seconds: 0.02)
            waited += 0.02
        }
        var drawn = false
        while !stopped.load(ordering: .acquiring) {
            draw()
            drawn = true
            SystemCalls.sleep(seconds: 0.1)
        }
        if drawn { FileStream.write("\r\u{1B}[2K", to: SystemCalls.standardError) }
        finished.signal()
    }

    /// Stops the bar and erases it; idempotent.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
    }

    private func draw() {
        let width = min(Self.columns(), 100)
        let label: String
        switch progress.stage {
        case .reading: label = "reading  "
        case .comparing: label = "comparing"
        case .writing: label = "writing  "
        }
        let fraction = progress.fraction
        let number = "\(Int(fraction * 100))%"
        let percent = String(repeating: " ", count: max(0, 4 - number.count)) + number
        let barWidth = max(10, width - 24)
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        FileStream.write("\r\u{1B}[2Klistdiff \(label) \(bar) \(percent)", to: SystemCalls.standardError)
    }

    static func columns() -> Int {
        SystemCalls.terminalSize(SystemCalls.standardError)?.columns ?? 80
    }
}
