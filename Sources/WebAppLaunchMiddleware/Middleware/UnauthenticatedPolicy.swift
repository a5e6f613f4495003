import HTTPTypes
import Hummingbird
import WebAppRegistry

/// What a request without a session gets, decided once where ``LaunchVerificationMiddleware``
/// finds no session: the 401 rejection page, or a 303 to a sign-in or start page (as
/// oauth2-proxy redirects to its sign-in).
///
/// Only GET and HEAD requests are redirected, and never on an exempt path (the gate's
/// `auth_request` endpoint, whose 401 nginx must see): a POST is never turned into a GET
/// elsewhere. A request carrying a launch never gets here: it is exchanged or refused
/// with its own reason (`expired`, `already_used`).
public struct UnauthenticatedPolicy: Sendable {
    /// Where the redirect goes; `nil` for the rejection page.
    let location: RedirectTarget?
    /// Paths that keep the 401.
    let exemptPaths: [String]

    /// The 401 rejection page for every request without a session.
    public static var rejectionPage: Self { Self(location: nil, exemptPaths: []) }

    /// A 303 to `location` for GET and HEAD requests without a session.
    /// - Parameters:
    ///   - location: A same-site path (``RedirectTarget``), never another host.
    ///   - exemptPaths: Paths whose requests keep the 401.
    /// - Returns: The policy.
    public static func redirect(to location: RedirectTarget, except exemptPaths: [String] = []) -> Self {
        Self(location: location, exemptPaths: exemptPaths)
    }

    /// The redirect for a request without a session, or `nil` when it gets the rejection page.
    /// - Parameter request: The request (its method and path).
    /// - Returns: The 303, or `nil`.
    func redirect(for request: Request) -> Response? {
        guard let location,
              request.method == .get || request.method == .head,
              !exemptPaths.contains(request.uri.path)
        else { return nil }
        return Response(status: .seeOther, headers: [.location: location.path])
    }
}
