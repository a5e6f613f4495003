import Foundation

/// The checkout's root directory, for tests that read its files (`keys/`, `SPEC.*`) or run
/// its scripts (`scripts/pg-cluster`, `scripts/load/loadtool.py`). Found from this file's
/// own path, `Tests/WebAppLaunchTestSupport/RepositoryRoot.swift`, three levels down.
public let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url
}()
