// swift-tools-version:6.0
import PackageDescription

/// Settings every target of ours shares: strict concurrency comes with Swift 6 mode;
/// these add the stricter import and existential rules that keep module boundaries honest.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "WebAppLaunch",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "WebAppRegistry", targets: ["WebAppRegistry"]),
        .library(name: "WebAppLaunch", targets: ["WebAppLaunch"]),
        .library(name: "WebAppLaunchNative", targets: ["WebAppLaunchNative"]),
        .library(name: "WebAppLaunchServer", targets: ["WebAppLaunchServer"]),
        .executable(name: "webapp-launch", targets: ["webapp-launch"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "WebAppRegistry",
            swiftSettings: strictSettings
        ),
        .target(
            name: "WebAppLaunch",
            dependencies: ["COpenSSL", "WebAppRegistry"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WebAppLaunchNative",
            dependencies: ["WebAppRegistry"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WebAppLaunchServer",
            dependencies: [
                "WebAppLaunch",
                "WebAppLaunchNative",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "webapp-launch",
            dependencies: [
                "WebAppLaunchServer",
                "WebAppLaunchNative",
                "WebAppLaunch",
                "WebAppRegistry",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchTests",
            dependencies: ["WebAppLaunch"],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchNativeTests",
            dependencies: ["WebAppLaunchNative", "WebAppRegistry"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchServerTests",
            dependencies: [
                "WebAppLaunchServer",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchPostgresTests",
            dependencies: [
                "WebAppLaunchServer",
                "WebAppLaunch",
                "WebAppRegistry",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchCLITests",
            dependencies: ["webapp-launch", "WebAppLaunch", "WebAppRegistry"],
            swiftSettings: strictSettings
        ),
    ]
)
