/// What a keyring key may be used for. Rotation moves a key from `active` to `verifyOnly`
/// (launches already in flight still verify) and finally to `revoked`.
public enum KeyStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Signs new launches and verifies them.
    case active
    /// Verifies launches only: the grace period after rotation.
    case verifyOnly = "verify-only"
    /// Neither signs nor verifies; a token with this kid is rejected as `revoked_key`.
    case revoked

    /// Whether a token with this key may be accepted.
    public var canVerify: Bool { self != .revoked }
}
