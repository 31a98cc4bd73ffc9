// Reads one CSV file with listdiff's own scanner and with two CSV packages, in one run,
// and prints each one's time and its ratio to listdiff's. listdiff's scanner does more
// than the packages here: it writes the JSON text of every record, where they only
// split the rows into strings.
//
//     swift run -c release csv-scanners data/old-1000000.csv [runs]
import Dispatch
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: csv-scanners FILE.csv [runs]")
    exit(2)
}
let path = arguments[1]
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
guard let data = FileManager.default.contents(atPath: path) else {
    print("csv-scanners: cannot read \(path) (make it with: python3 Benchmarks/generate.py)")
    exit(2)
}
let text = String(decoding: data, as: UTF8.self)
let bytes = [UInt8](data)

/// The fastest of `runs` runs of `body`, in seconds, and what its last run returned.
func measure(_ body: () throws -> Int) rethrows -> (seconds: Double, result: Int) {
    var best = Double.infinity
    var result = 0
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        result = try body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return (best, result)
}

// (Each scanner is called from a file of its own: two of the modules name a type CSVReader.)
let ours = try measure { try listdiffLength(bytes) }
let swiftCSV = try measure { try swiftCSVRows(text) }
let csvSwift = try measure { try csvSwiftRows(text) }

print("file: \(path), \(bytes.count) bytes, best of \(runs) runs, release build")
print("scanner                      seconds   / listdiff   result")
for (name, m) in [("listdiff (rows to JSON text)", ours), ("SwiftCSV 0.10.0 (rows)", swiftCSV), ("CSV.swift 2.5.2 (rows)", csvSwift)] {
    let line = name.padding(toLength: 28, withPad: " ", startingAt: 0)
    print("\(line) \(String(format: "%7.3f", m.seconds))   \(String(format: "%7.2f", m.seconds / ours.seconds))x    \(m.result)")
}
