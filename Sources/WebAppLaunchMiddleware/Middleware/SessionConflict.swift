/// The login-CSRF rule: a launch from another site may not replace a live session of a
/// different user.
///
/// Any site can post a launch of the attacker's own account to a victim's browser; accepted,
/// it would silently swap the victim's session for the attacker's, and what the victim then
/// enters lands in the attacker's account. So when a request carries a live session of this
/// app for one KVNR and a launch for another, the launch is accepted only from a navigation
/// the browser marks as not cross-site (`Sec-Fetch-Site: none` or `same-origin`/`same-site`,
/// or, without Fetch Metadata, no foreign `Origin`). The native app's web view starts
/// navigations itself (`none`), so the real flow is unaffected; a refused launch is not
/// claimed and the live session stays.
enum SessionConflict {
    /// The precise code logged and counted for such a refusal (clients see `invalid`).
    static let code = "session_conflict"
}
