/// The login-CSRF rule: a launch from another site may not replace a live session of a
/// different user.
///
/// Any site can post a launch of the attacker's own account to a victim's browser; accepted,
/// it would silently swap the victim's session for the attacker's, and what the victim then
/// enters lands in the attacker's account. So when a request carries a live session of this
/// app for one KVNR and a launch for another, the launch is accepted only from a navigation
/// the browser marks as the app's own (`Sec-Fetch-Site: none` or `same-origin`, and no
/// foreign `Origin`). `same-site` counts as foreign: a sibling subdomain may belong to
/// another party. The native app's web view starts navigations itself (`none`), so the real
/// flow is unaffected; a refused launch is not claimed and the live session stays. Every
/// entry point that exchanges launches (`serve`, the middleware in any app, both shapes of
/// the gate) runs this one rule, in ``LaunchVerificationMiddleware``.
enum SessionConflict {
    /// The precise code logged and counted for such a refusal (clients see `invalid`).
    static let code = "session_conflict"
}
