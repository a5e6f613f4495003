import Hummingbird
import NIOCore

/// An HTML document as a response: `text/html; charset=utf-8` with a status.
///
/// One place builds every HTML response of this package, so the content type and encoding
/// cannot drift between the page, the console and rejection pages.
public struct HTMLResponse: ResponseGenerator, Sendable {
    /// The status to answer with.
    public var status: HTTPResponse.Status
    /// The document, already escaped where it carries untrusted text.
    public var html: String

    /// Creates the response.
    /// - Parameters:
    ///   - html: The document.
    ///   - status: The status; 200 by default.
    public init(_ html: String, status: HTTPResponse.Status = .ok) {
        self.html = html
        self.status = status
    }

    /// The content type of every HTML response of this package.
    public static let contentType = "text/html; charset=utf-8"

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: status,
            headers: [.contentType: Self.contentType],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }
}
