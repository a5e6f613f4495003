import AsyncHTTPClient
import Foundation
import NIOHTTP1
import NIOCore

/// The HTTP exchanges with the identity provider: one deadline per request, a bounded
/// response body, JSON objects only, and every failure mapped to "unavailable" unless the
/// caller decides otherwise from the status.
struct ProviderHTTP: Sendable {
    /// The client; it must not follow redirects (see ``IdentityProviderHTTPClient``).
    let client: HTTPClient
    /// The longest a single request may take, connection included.
    let timeout: Duration
    /// The largest response body read; a larger one is an unusable answer.
    static let maximumResponseBytes = 64 * 1024

    /// A response: its status and, when the body was a JSON object, the object.
    struct Answer {
        let status: Int
        let object: [String: Any]?
    }

    /// Sends a request and reads a bounded JSON answer.
    /// - Throws: ``IdentityProviderError/unavailable(reason:)`` when no complete answer came.
    func send(_ request: HTTPClientRequest) async throws(IdentityProviderError) -> Answer {
        do {
            let response = try await client.execute(request, timeout: TimeAmount.nanoseconds(Self.nanoseconds(timeout)))
            let body = try await response.body.collect(upTo: Self.maximumResponseBytes)
            let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
            return Answer(status: Int(response.status.code), object: object)
        } catch {
            throw .unavailable(reason: "no answer from the identity provider (\(Self.kind(of: error)))")
        }
    }

    /// A short, secret-free name for a transport error.
    private static func kind(of error: any Error) -> String {
        if let clientError = error as? HTTPClientError {
            if clientError == .deadlineExceeded || clientError == .readTimeout || clientError == .connectTimeout { return "timeout" }
            if clientError == .cancelled { return "cancelled" }
        }
        if error is NIOTooManyBytesError { return "answer too large" }
        return "connection failed"
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return Int64.max }
        return product + attoseconds / 1_000_000_000
    }
}
