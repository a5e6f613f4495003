internal import CWebAppLaunchBuildInfo

/// What this binary is: the package version and the commit it was built from.
///
/// `webapp-launch --version` prints ``line``, and `serve`, `gate` and `launcher` log it first,
/// so an operator can tell from a log which build answered. The commit comes from
/// `scripts/release`; a plain `swift build` says `unknown`.
enum BuildInfo {
    /// The package version, as the release archive names it.
    static let packageVersion = "0.9.0"

    /// The commit (`git rev-parse --short=12`, `+dirty` when the tree had changes), or `unknown`.
    static let commit = String(cString: webapp_launch_build_commit())

    /// `webapp-launch 0.9.0 (commit 1a2b3c4d5e6f)`.
    static var line: String { "webapp-launch \(packageVersion) (commit \(commit))" }
}
