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
        .library(name: "WebAppLaunchLauncherClient", targets: ["WebAppLaunchLauncherClient"]),
        .library(name: "WebAppLaunchReload", targets: ["WebAppLaunchReload"]),
        .library(name: "WebAppLaunchMiddleware", targets: ["WebAppLaunchMiddleware"]),
        .library(name: "WebAppLaunchSQLite", targets: ["WebAppLaunchSQLite"]),
        .library(name: "WebAppLaunchPostgres", targets: ["WebAppLaunchPostgres"]),
        .library(name: "WebAppLaunchServer", targets: ["WebAppLaunchServer"]),
        .library(name: "WebAppLaunchGate", targets: ["WebAppLaunchGate"]),
        .library(name: "WebAppLaunchLauncher", targets: ["WebAppLaunchLauncher"]),
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
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        // The launcher's contract (openapi.yaml): server and client generated from it at build time.
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // The base64url vector kernels (AVX2, and AVX-512 VBMI for decoding), chosen at run time: Swift
        // cannot select vector instructions per function.
        .target(name: "CWebAppLaunchSIMD"),
        // The commit `scripts/release` builds from, handed over as a C definition (the one
        // build-time value SwiftPM can pass to code).
        .target(name: "CWebAppLaunchBuildInfo"),
        // The concurrency runtime's global-enqueue hook, reached by the linker: SwiftNIO's
        // `dlsym` lookup of it fails in the statically linked release (`EventLoopExecutor`).
        .target(name: "CWebAppLaunchExecutorHook"),
        .target(
            name: "WebAppRegistry",
            swiftSettings: strictSettings
        ),
        .target(
            name: "WebAppLaunch",
            dependencies: ["COpenSSL", "CWebAppLaunchSIMD", "WebAppRegistry"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WebAppLaunchNative",
            dependencies: ["WebAppRegistry"],
            swiftSettings: strictSettings
        ),
        // The native app's client of the launcher API, over URLSession (FoundationNetworking):
        // its own target, so the CLI and the services (which never call the launcher) do not
        // link FoundationNetworking and libcurl. Its transport is generated from openapi.yaml.
        .target(
            name: "WebAppLaunchLauncherClient",
            dependencies: [
                "WebAppRegistry",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            swiftSettings: strictSettings,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // Live reload of keyrings and registries (SIGHUP, interval, API) and readiness on
        // shutdown, shared by every entry point: no HTTP server, no crypto.
        .target(
            name: "WebAppLaunchReload",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // The verifier as Hummingbird middleware, for any Hummingbird app: no database driver,
        // no template engine, no metrics backend.
        .target(
            name: "WebAppLaunchMiddleware",
            dependencies: [
                "WebAppLaunchReload",
                "WebAppLaunch",
                "WebAppRegistry",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // Replay store drivers, one target each, so an app links only the driver it uses.
        .target(
            name: "WebAppLaunchSQLite",
            dependencies: [
                "WebAppLaunchMiddleware",
                "WebAppLaunch",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WebAppLaunchPostgres",
            dependencies: [
                "WebAppLaunchMiddleware",
                "WebAppLaunch",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // The sample web app: the page, the development console, Prometheus metrics, and the
        // embedded development defaults behind `webapp-launch serve`.
        .target(
            name: "WebAppLaunchServer",
            dependencies: [
                "WebAppLaunchReload",
                "WebAppLaunchLauncher",
                "WebAppLaunch",
                "WebAppLaunchNative",
                "WebAppRegistry",
                "WebAppLaunchMiddleware",
                "WebAppLaunchSQLite",
                "WebAppLaunchPostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // The gate: launch verification in front of a web app written in any language, as a
        // reverse proxy or as nginx's auth_request endpoint.
        .target(
            name: "WebAppLaunchGate",
            dependencies: [
                "WebAppLaunchReload",
                "WebAppLaunchMiddleware",
                "WebAppLaunch",
                "WebAppRegistry",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // The launcher service: the app's backend confirms that an access token is the native
        // app's (RFC 7662 introspection, RFC 9068 JWT access tokens with jwt-kit, or OpenID
        // Connect userinfo in development), exchanges it for the partner's (RFC 8693) and
        // mints launches.
        .target(
            name: "WebAppLaunchLauncher",
            dependencies: [
                "WebAppLaunchReload",
                "WebAppLaunch",
                "WebAppLaunchMiddleware",
                "WebAppRegistry",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings,
            // The server side of openapi.yaml (types and routes), generated at build time.
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(
            name: "webapp-launch",
            dependencies: [
                "WebAppLaunchReload",
                "CWebAppLaunchBuildInfo",
                "CWebAppLaunchExecutorHook",
                "WebAppLaunchLauncher",
                "WebAppLaunchServer",
                "WebAppLaunchGate",
                "WebAppLaunchMiddleware",
                "WebAppLaunchSQLite",
                "WebAppLaunchPostgres",
                "WebAppLaunchNative",
                "WebAppLaunch",
                "WebAppRegistry",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchTests",
            dependencies: ["WebAppLaunch", "WebAppRegistry", "WebAppLaunchNative", "WebAppLaunchTestSupport"],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchReloadTests",
            dependencies: [
                "WebAppLaunchReload",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchNativeTests",
            dependencies: ["WebAppLaunchNative", "WebAppRegistry", "WebAppLaunchTestSupport"],
            swiftSettings: strictSettings
        ),
        // What the test targets share, defined once: the domain fixtures (keys, apps, users,
        // the fixed instant, the manual clock, the checkout's files) and the subprocess,
        // temporary-directory and loopback helpers.
        .target(
            name: "WebAppLaunchTestSupport",
            dependencies: [
                "WebAppLaunch",
                "WebAppRegistry",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/WebAppLaunchTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchServerTests",
            dependencies: [
                "WebAppLaunchReload",
                "WebAppLaunchServer",
                "WebAppLaunchMiddleware",
                "WebAppLaunchSQLite",
                "WebAppLaunchTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchPostgresTests",
            dependencies: [
                "WebAppLaunchServer",
                "WebAppLaunchMiddleware",
                "WebAppLaunchPostgres",
                "WebAppLaunchTestSupport",
                "WebAppLaunch",
                "WebAppRegistry",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchGateTests",
            dependencies: [
                "WebAppLaunchReload",
                "WebAppLaunchGate",
                "WebAppLaunchMiddleware",
                "WebAppLaunch",
                "WebAppRegistry",
                "WebAppLaunchTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchLauncherTests",
            dependencies: [
                "WebAppLaunchReload",
                "WebAppLaunchLauncher",
                "WebAppLaunch",
                "WebAppLaunchNative",
                "WebAppLaunchLauncherClient",
                "WebAppRegistry",
                "WebAppLaunchTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The Authlib test provider, run by the tests as a subprocess.
            exclude: ["Support/authlib_provider.py"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WebAppLaunchCLITests",
            dependencies: ["webapp-launch", "WebAppLaunch", "WebAppRegistry", "WebAppLaunchTestSupport"],
            swiftSettings: strictSettings
        ),
        // The benchmark harness's own rules (scripts/load/loadtool.py): what it may call met.
        .testTarget(
            name: "BenchmarkReportTests",
            dependencies: ["WebAppLaunchTestSupport"],
            swiftSettings: strictSettings
        ),
    ]
)
