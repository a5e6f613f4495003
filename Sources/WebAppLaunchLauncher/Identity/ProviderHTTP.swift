import AsyncHTTPClient
import Foundation
import NIOHTTP1
import NIOCore

/// The HTTP exchanges with the identity provider: one deadline for the whole exchange (the
/// connection, the head and every byte of the body), a bounded response body, JSON objects
/// only, and every failure mapped to "unavailable" unless the caller decides otherwise from
/// the status (see ``ProviderAnswerMeaning``).
struct ProviderHTTP: Sendable {
    /// The client; it must not follow redirects (see ``IdentityProviderHTTPClient``).
    let client: HTTPClient
    /// The longest a single exchange may take, from connecting to the last byte of the body.
    let timeout: Duration
    /// The largest response body read; a larger one is an unusable answer.
    static let maximumResponseBytes = 64 * 1024

    /// A response: its status, its headers and, when the body was a JSON object, the object.
    struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let object: [String: Any]?
    }

    /// Sends a request and reads a bounded JSON answer, all within ``timeout``.
    ///
    /// The client's own deadline covers the request until the response head; a provider that
    /// then sends its body a byte at a time would keep the launcher waiting as long as each
    /// byte comes within the read timeout. So the whole exchange runs in a task that is
    /// cancelled at the deadline, whichever part it is in.
    /// - Throws: ``IdentityProviderError/unavailable(reason:)`` when no complete answer came in time.
    func send(_ request: HTTPClientRequest) async throws(IdentityProviderError) -> Answer {
        let client = self.client
        let timeout = self.timeout
        let outcome: Result<RawAnswer, any Error> = await withTaskGroup(of: Result<RawAnswer, any Error>?.self) { group in
            group.addTask {
                do {
                    let response = try await client.execute(request, timeout: TimeAmount(timeout))
                    let body = try await response.body.collect(upTo: Self.maximumResponseBytes)
                    return .success(RawAnswer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView)))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                // The deadline; `nil` when cancelled because the exchange ended first.
                do { try await Task.sleep(for: timeout) } catch { return nil }
                return .failure(HTTPClientError.deadlineExceeded)
            }
            var first: Result<RawAnswer, any Error> = .failure(HTTPClientError.cancelled)
            while let next = await group.next() {
                guard let next else { continue }
                first = next
                break
            }
            group.cancelAll()
            return first
        }
        switch outcome {
        case .success(let raw):
            let object = (try? JSONSerialization.jsonObject(with: raw.body)) as? [String: Any]
            return Answer(status: raw.status, headers: raw.headers, object: object)
        case .failure(let error):
            throw .unavailable(reason: "no answer from the identity provider (\(Self.kind(of: error)))")
        }
    }

    /// What the exchange task hands back: plain, sendable bytes (JSON is parsed afterwards).
    private struct RawAnswer: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: Data
    }

    /// A short, secret-free name for a transport error.
    private static func kind(of error: any Error) -> String {
        if let clientError = error as? HTTPClientError {
            if clientError == .deadlineExceeded || clientError == .readTimeout || clientError == .connectTimeout { return "timeout" }
            if clientError == .cancelled { return "cancelled" }
        }
        if error is NIOTooManyBytesError { return "answer too large" }
        if error is CancellationError { return "timeout" }
        return "connection failed"
    }
}
