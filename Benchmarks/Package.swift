// swift-tools-version: 6.1
import PackageDescription

// The benchmarks of WebAppLaunch, kept out of the main package's build.
// Run everything with `scripts/bench` from the repository root (see BENCHMARKS.md).
let package = Package(
    name: "WebAppLaunchBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WebAppLaunch", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // OpenSSL directly, for the raw keyed-HMAC floor (our own module name, so it never
        // clashes with the main package's COpenSSL).
        .systemLibrary(name: "CBenchCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // What every benchmark and tool shares: keys, registry, the typical user, tokens.
        .target(
            name: "LaunchFixtures",
            dependencies: [
                "CBenchCrypto",
                .product(name: "WebAppLaunch", package: "WebAppLaunch"),
                .product(name: "WebAppRegistry", package: "WebAppLaunch"),
            ]
        ),
        // Helpers for scripts/bench: pre-minting launches for wrk, replay-store memory.
        .executableTarget(
            name: "launch-bench-tools",
            dependencies: [
                "LaunchFixtures",
                .product(name: "WebAppLaunch", package: "WebAppLaunch"),
                .product(name: "WebAppRegistry", package: "WebAppLaunch"),
                .product(name: "WebAppLaunchServer", package: "WebAppLaunch"),
                .product(name: "WebAppLaunchMiddleware", package: "WebAppLaunch"),
            ]
        ),
        // scripts/bench-floor's servers: raw SwiftNIO and bare Hummingbird answering /healthz.
        .executableTarget(
            name: "floor-servers",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The micro-benchmarks: every measurement in one process and one run.
        .executableTarget(
            name: "LaunchBenchmarks",
            dependencies: [
                "LaunchFixtures",
                "CBenchCrypto",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "WebAppLaunch", package: "WebAppLaunch"),
                .product(name: "WebAppRegistry", package: "WebAppLaunch"),
            ],
            path: "Benchmarks/LaunchBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
