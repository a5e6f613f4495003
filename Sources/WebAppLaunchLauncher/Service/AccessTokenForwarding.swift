/// Whose access token a launch carries.
public enum AccessTokenForwarding: Sendable, Hashable {
    /// As each app's registry entry says (``WebAppRegistry/PartnerAccessToken``): none, or a
    /// token exchanged for that app. Never the native app's own token. The production setting.
    case asRegistered
    /// The app's own token, unchanged, in every launch: today's development console, whose
    /// demo tokens mean nothing outside it. Refused (no launch minted) unless the launcher
    /// keyring is a development keyring, which every entry point refuses off loopback.
    case developmentPassThrough
}
