/// Why the launcher client got no catalogue or launch: one case per thing the app does
/// differently.
public enum LauncherClientError: Error, Sendable, Hashable {
    /// The access token was refused (401): refresh it or log the user in again.
    case invalidToken
    /// The token lacks a scope or the provider lacks a claim (403, with the launcher's code):
    /// the user cannot open web apps; show why, do not retry.
    case forbidden(code: String)
    /// The app is not registered (404): reload the catalogue.
    case unknownApp
    /// The launcher refused the request itself (413, 415, 422): a bug in the app.
    case invalidRequest(code: String)
    /// Too many launches (429): wait this many seconds, if the launcher said.
    case rateLimited(retryAfterSeconds: Int?)
    /// The identity provider, the token exchange for the web app, or the launcher cannot
    /// answer now (503, 5xx): try again later.
    case unavailable(status: Int)
    /// The launcher could not be reached (no network, timeout, TLS).
    case transport(description: String)
    /// The answer was not what the API documents.
    case invalidResponse
    /// The launcher's base URL is not https (http only on loopback).
    case insecureBaseURL
}
