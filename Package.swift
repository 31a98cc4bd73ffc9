// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "listdiff",
    // Synchronization (Atomic, Mutex) needs macOS 15; on Linux any Swift 6 toolchain serves.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "listdiff", targets: ["listdiff"]),
        .library(name: "ListDiffKit", targets: ["ListDiffKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation` builds the DocC catalog; a plugin, so that
        // it adds nothing to the product's build.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .target(name: "CSupport"),
        .target(
            name: "ListDiffKit",
            dependencies: ["CYAML", "CSupport"]
        ),
        .executableTarget(
            name: "listdiff",
            dependencies: [
                "ListDiffKit",
                "CSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // An example of embedding the library, built and run by the tests.
        .executableTarget(
            name: "listdiff-embedding-example",
            dependencies: ["ListDiffKit"],
            path: "Examples/Embedding"
        ),
        // What the tests share: generators, and the naive reference the engine is tested
        // against. Not part of the product.
        .target(
            name: "ListDiffKitTestSupport",
            dependencies: ["ListDiffKit"],
            path: "Tests/ListDiffKitTestSupport"
        ),
        .testTarget(
            name: "ListDiffKitTests",
            dependencies: ["ListDiffKit", "ListDiffKitTestSupport"],
            exclude: ["Golden", "yaml-deviations.tsv"]
        ),
        // The library as an embedding program sees it: no @testable import.
        .testTarget(
            name: "PublicAPITests",
            dependencies: ["ListDiffKit", "ListDiffKitTestSupport"],
            exclude: ["public-api.txt"]
        ),
        .testTarget(
            name: "listdiffTests",
            dependencies: ["listdiff", "listdiff-embedding-example"]
        ),
    ]
)

// The fuzz targets (Fuzz/run builds them with -sanitize=fuzzer, which supplies main): not
// part of the ordinary build.
if Context.environment["LISTDIFF_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(name: "listdiff-fuzz", dependencies: ["ListDiffKit", "ListDiffKitTestSupport"], path: "Fuzz/Targets"))
}
