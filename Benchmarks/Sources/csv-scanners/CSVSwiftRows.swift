import CSV

/// CSV.swift: rows as arrays of strings, read one at a time from the text.
func csvSwiftRows(_ text: String) throws -> Int {
    let reader = try CSVReader(string: text, hasHeaderRow: true)
    var rows = 0
    while reader.next() != nil { rows += 1 }
    return rows
}
