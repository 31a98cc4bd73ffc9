// swift-tools-version:6.0
// The benchmark's own package, so that building listdiff does not build it:
//     cd Benchmarks && swift run -c release listdiff-kernels
import PackageDescription

let package = Package(
    name: "listdiff-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "listdiff", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "listdiff-kernels",
            dependencies: [.product(name: "ListDiffKit", package: "listdiff")]
        )
    ]
)
