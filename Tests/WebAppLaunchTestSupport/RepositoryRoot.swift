import Foundation

/// The checkout's root directory, for tests that read its files (`keys/`, `SPEC.*`) or run
/// its scripts (`scripts/pg-cluster`, `scripts/load/loadtool.py`). Found from this file's
/// own path, `Tests/WebAppLaunchTestSupport/RepositoryRoot.swift`, three levels down: the
/// one place a test finds the checkout, so moving a file never breaks a path walk.
public let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url
}()

/// Files of the checkout the suites read, by their path from ``repositoryRoot``.
public enum RepositoryFile {
    /// The absolute path of `relative` in the checkout.
    public static func path(_ relative: String) -> String {
        repositoryRoot.appendingPathComponent(relative).path
    }

    /// `keys/dev.keyring.json`: the published development keyring.
    public static let developmentKeyring = path("keys/dev.keyring.json")
    /// `keys/registry.sample.json`: the sample registry (both demo apps on loopback).
    public static let sampleRegistry = path("keys/registry.sample.json")
    /// The conformance vectors every implementation checks itself against.
    public static let vectors = path("Tests/WebAppLaunchTests/Vectors/vectors.json")
    /// `.build/oidc-venv`: where `scripts/test` installs the Python test providers.
    public static let testVirtualEnvironment = path(".build/oidc-venv")
}
