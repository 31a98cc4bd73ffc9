import SwiftCSV

/// SwiftCSV: every row as an array of strings (its parse keeps them all).
func swiftCSVRows(_ text: String) throws -> Int {
    let csv = try EnumeratedCSV(string: text, delimiter: .comma, loadColumns: false)
    return csv.rows.count
}
