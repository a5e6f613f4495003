/// What one ``ReloadableConfiguration/reload()`` did.
public enum ReloadOutcome: Sendable, Equatable {
    /// The new configuration was read, validated and swapped in; its generation.
    case reloaded(generation: UInt64)
    /// The new configuration was refused; the old one stays. The reason is one line without
    /// secrets (a path, a key id, an error code).
    case kept(reason: String)
    /// A reload was already running; one more will run after it and read the files again.
    case coalesced

    /// Whether the configuration in use changed.
    public var isReloaded: Bool {
        if case .reloaded = self { return true }
        return false
    }
}
