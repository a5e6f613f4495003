import AsyncHTTPClient
import NIOCore

/// The HTTP client the launcher uses to reach the identity provider.
///
/// It never follows redirects: a redirect would carry the user's bearer token to wherever the
/// `Location` points, so a 3xx is treated as the provider being unavailable (fail closed).
public enum IdentityProviderHTTPClient {
    /// Makes a client with redirects disabled, a connect timeout and a read timeout (a
    /// provider that stops sending mid-answer is cut off too). The caller owns it and must
    /// `shutdown()` it when the launcher stops.
    /// - Parameters:
    ///   - connectTimeout: How long to wait for a connection.
    ///   - readTimeout: How long to wait for the next bytes of an answer.
    /// - Returns: A new client on the shared event loop group.
    public static func make(connectTimeout: Duration = .seconds(3), readTimeout: Duration = .seconds(5)) -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(
            connect: TimeAmount(connectTimeout),
            read: TimeAmount(readTimeout)
        )
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}
