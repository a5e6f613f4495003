// swift-tools-version:6.0
import PackageDescription

// Fuzz targets for WebAppLaunch (issue 8). A separate package on purpose: a fuzz target has no
// `main` of its own (libFuzzer supplies it), so it only links with `--sanitize=fuzzer` and
// must never be part of the main package's build. Build one target with:
//
//   swift build --scratch-path ../.build-fuzz --product FuzzVerifier --sanitize=fuzzer --sanitize=address
//
// or just run ../scripts/fuzz. No unsafeFlags: the sanitizers come from the command line.
//
// `MakeCorpus` is an ordinary executable (built without sanitizers into ../.build-fuzz-tools)
// used by scripts/fuzz. Load and fault tests mint with `webapp-launch mint --count`.

let main: PackageDescription.Target.Dependency = .product(name: "WebAppLaunch", package: "main")
let registry: PackageDescription.Target.Dependency = .product(name: "WebAppRegistry", package: "main")
let native: PackageDescription.Target.Dependency = .product(name: "WebAppLaunchNative", package: "main")

let package = Package(
    name: "WebAppLaunchFuzz",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "FuzzVerifier", targets: ["FuzzVerifier"]),
        .executable(name: "FuzzParameters", targets: ["FuzzParameters"]),
        .executable(name: "FuzzLoaders", targets: ["FuzzLoaders"]),
        .executable(name: "FuzzNative", targets: ["FuzzNative"]),
        .executable(name: "MakeCorpus", targets: ["MakeCorpus"]),
    ],
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [main, registry, native]),
        .executableTarget(name: "FuzzVerifier", dependencies: ["FuzzSupport", main, registry]),
        .executableTarget(name: "FuzzParameters", dependencies: ["FuzzSupport", main, registry]),
        .executableTarget(name: "FuzzLoaders", dependencies: ["FuzzSupport", main, registry]),
        .executableTarget(name: "FuzzNative", dependencies: ["FuzzSupport", registry, native]),
        .executableTarget(name: "MakeCorpus", dependencies: ["FuzzSupport", main, registry]),
    ]
)
