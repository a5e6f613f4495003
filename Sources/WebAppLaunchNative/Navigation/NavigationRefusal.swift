import WebAppRegistry

/// Why a navigation was cancelled: the reason carried by ``NavigationDecision/cancel(_:)``.
///
/// Cancelling is the policy's answer for everything it does not positively recognise, so the
/// code tells a log or a test which rule fired. The reason is a fixed sentence that never
/// repeats the URL, which the page controls.
public struct NavigationRefusal: CodedError {
    /// A stable, machine-readable code. New codes may be added; switch with a default.
    public struct Code: ErrorCode {
        /// The code's stable text.
        public let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }

        /// The URL is missing, too long, not printable ASCII, has no valid scheme, or is an
        /// `http(s)` URL with userinfo, a backslash, a bad host or a bad port.
        public static let malformedURL = Code(rawValue: "malformed_url")
        /// The scheme is neither `https`, `http` nor the deep-link scheme: `javascript:`,
        /// `data:`, `file:`, `blob:`, `about:` and every other one.
        public static let forbiddenScheme = Code(rawValue: "forbidden_scheme")
        /// Plain `http` other than the app's own loopback origin with development allowed.
        public static let insecureHTTP = Code(rawValue: "insecure_http")
        /// A deep link the app's allowlist refuses; ``NavigationRefusal/deepLinkError`` says why.
        public static let deepLinkRefused = Code(rawValue: "deep_link_refused")
        /// A subframe or redirect would have left the web view (deep link or other site);
        /// only a main-frame navigation that is not a redirect may do that.
        public static let indirectNavigation = Code(rawValue: "indirect_navigation")
    }

    /// Which rule cancelled the navigation.
    public let code: Code
    /// A human-readable explanation that never contains the URL.
    public let reason: String
    /// For ``Code/deepLinkRefused``, the allowlist's verdict; otherwise `nil`.
    public let deepLinkError: DeepLinkError?

    /// Creates a refusal.
    /// - Parameters:
    ///   - code: The stable code.
    ///   - reason: A fixed sentence; do not put the URL in it.
    ///   - deepLinkError: The deep-link verdict, for ``Code/deepLinkRefused``.
    public init(_ code: Code, _ reason: String, deepLinkError: DeepLinkError? = nil) {
        self.code = code
        self.reason = reason
        self.deepLinkError = deepLinkError
    }

    /// `code: reason`, safe to log.
}
