@_spi(Benchmarks) import ListDiffKit

/// listdiff's scanner: the JSON text of every record, as the engine reads a CSV.
func listdiffLength(_ bytes: [UInt8]) throws -> Int {
    try bytes.withUnsafeBufferPointer { try CSVReader().transcodedLength($0) }
}
