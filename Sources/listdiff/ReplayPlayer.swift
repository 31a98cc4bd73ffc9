import ListDiffKit

/// Plays a `Replay` on the terminal (alternate screen, hidden cursor, both restored however
/// the run ends), or records it as an asciicast v2 file.
enum ReplayPlayer {
    static let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"
    static let leave = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    /// The sizes a screen may have: a terminal's beyond them is cut to them.
    static let widths = 10...1000, heights = 3...1000

    /// Terminal size from the kernel, or `COLUMNS`/`LINES`, or 80×24.
    static func size(of fd: Int32) -> (width: Int, height: Int) {
        let size = SystemCalls.terminalSize(fd)
        // As other tools do, a COLUMNS or LINES that is no whole number is ignored, and a
        // size beyond the sizes a screen may have is cut to them.
        let width = size?.columns ?? SystemCalls.environment("COLUMNS").flatMap { Int($0) } ?? 80
        let height = size?.rows ?? SystemCalls.environment("LINES").flatMap { Int($0) } ?? 24
        return (min(max(width, widths.lowerBound), widths.upperBound), min(max(height, heights.lowerBound), heights.upperBound))
    }

    /// What one frame writes: from the top left, each line cleared to its end, the rest cleared.
    static func screen(_ frame: Replay.Frame) -> String {
        "\u{1B}[H" + frame.lines.joined(separator: "\u{1B}[K\r\n") + "\u{1B}[K\u{1B}[J"
    }

    static func play(_ replay: Replay, limit: Int, scale: Double, style: TextStyle, status: ExitStatus) {
        installHandlers(status: status)
        write(enter)
        var options = Replay.Options(limit: limit)
        (options.width, options.height) = size(of: SystemCalls.standardOutput)
        for index in 0..<replay.frameCount {
            var frame = replay.frame(index, options: options, style: style)
            write(screen(frame))
            SystemCalls.sleep(seconds: frame.seconds * scale) {
                guard windowChanged != 0 else { return }
                windowChanged = 0
                (options.width, options.height) = size(of: SystemCalls.standardOutput)
                frame = replay.frame(index, options: options, style: style)
                write(screen(frame))
            }
        }
        write(leave)
        ignoreSignals()
        // The new list stays on the main screen.
        write(replay.finalLines(options: options, style: style).joined(separator: "\n") + "\n")
    }

    /// An asciicast v2 file: a header line, then `[time, "o", data]` events.
    static func record(
        _ replay: Replay, limit: Int, scale: Double, width: Int, height: Int, style: TextStyle,
        title: String, to out: inout FileStream
    ) {
        var header =
            "{\"version\": 2, \"width\": \(width), \"height\": \(height), \"timestamp\": \(SystemCalls.secondsSinceEpoch()), \"title\": "
        JSONWriter.writeString(title, to: &header)
        out.write(header + ", \"env\": {\"TERM\": \"xterm-256color\"}}\n")
        let options = Replay.Options(width: width, height: height, limit: limit)
        var clock = 0.0
        for index in 0..<replay.frameCount {
            let frame = replay.frame(index, options: options, style: style)
            var line = "[" + seconds(clock) + ", \"o\", "
            JSONWriter.writeString((index == 0 ? "\u{1B}[2J" : "") + screen(frame), to: &line)
            out.write(line + "]\n")
            clock += frame.seconds * scale
        }
    }

    static func seconds(_ t: Double) -> String {
        let millis = Int((t * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    static func write(_ text: String) { FileStream.write(text, to: SystemCalls.standardOutput) }

    static func installHandlers(status: ExitStatus) {
        // Everything the handlers touch is ready before they can run.
        interruptStatus = status.rawValue
        let bytes = Array(leave.utf8)
        restoreBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        restoreBytes!.initialize(from: bytes, count: bytes.count)
        restoreCount = bytes.count
        let restoreAndExit: @convention(c) (Int32) -> Void = { _ in
            if let bytes = restoreBytes { _ = SystemCalls.writeBytes(SystemCalls.standardOutput, from: bytes, count: restoreCount) }
            SystemCalls.exitNow(interruptStatus)
        }
        // Each is unblocked too: a blocked Ctrl-C would leave the terminal unrestored.
        for signal in [SystemCalls.Signal.interrupt, .terminate, .hangUp] { SystemCalls.handle(signal, with: restoreAndExit) }
        SystemCalls.handle(.windowChange) { _ in windowChanged = 1 }
    }

    static func ignoreSignals() {
        for signal in SystemCalls.Signal.allCases { SystemCalls.restoreDefault(signal) }
    }
}

// Read by signal handlers: set before the handlers are installed, or a flag they set.
nonisolated(unsafe) var interruptStatus: Int32 = 1
nonisolated(unsafe) var restoreBytes: UnsafeMutablePointer<UInt8>?
nonisolated(unsafe) var restoreCount = 0
nonisolated(unsafe) var windowChanged: Int32 = 0
