// swift-tools-version:6.0
// The benchmark's own package, so that building listdiff does not build it:
//     cd Benchmarks && swift run -c release listdiff-kernels
//     cd Benchmarks && swift run -c release csv-scanners data/old-1000000.csv
import PackageDescription

let package = Package(
    name: "listdiff-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "listdiff", path: ".."),
        // Measured against listdiff's own CSV scanner (`csv-scanners`); listdiff itself does not use them.
        .package(url: "https://github.com/swiftcsv/SwiftCSV", exact: "0.10.0"),
        .package(url: "https://github.com/yaslab/CSV.swift", exact: "2.5.2"),
    ],
    targets: [
        .executableTarget(
            name: "listdiff-kernels",
            dependencies: [.product(name: "ListDiffKit", package: "listdiff")]
        ),
        .executableTarget(
            name: "csv-scanners",
            dependencies: [
                .product(name: "ListDiffKit", package: "listdiff"),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
                .product(name: "CSV", package: "CSV.swift"),
            ]
        ),
    ]
)
