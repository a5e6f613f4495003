import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The metrics listener of an entry point (`serve`, the gate, the launcher): `GET /metrics` in Prometheus
/// text, on an address of its own (``MetricsListener``, loopback unless told otherwise) and
/// never on the public listener, so the counts of launches and rejections are for operators
/// only. One builder for every entry point that has one: the same route, security headers,
/// content type and idle timeout.
public enum MetricsEndpoint {
    /// The router: `GET /metrics` and nothing else, with the security headers.
    /// - Parameter metrics: What a scrape formats (it never asks a store anything).
    /// - Returns: The router.
    public static func makeRouter(_ metrics: ServerMetrics) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: SecurityHeadersMiddleware())
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.exposition()))
            )
        }
        return router
    }

    /// The listener, as a service to run beside the entry point's own application.
    /// - Parameters:
    ///   - listener: Where it binds.
    ///   - metrics: What it serves.
    ///   - idleTimeout: How long a scraper's connection may stay silent (the entry point's own).
    ///   - onServerRunning: Called with the bound channel (its port when 0 was asked for).
    ///   - logger: Where it logs.
    /// - Returns: The application, a `Service`.
    public static func application(
        listener: MetricsListener,
        metrics: ServerMetrics,
        idleTimeout: Duration,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void,
        logger: Logger
    ) -> any Service {
        Application(
            router: makeRouter(metrics),
            server: .webAppLaunchHTTP1(idleTimeout: idleTimeout),
            configuration: .init(address: .hostname(listener.host, port: listener.port), serverName: nil),
            onServerRunning: onServerRunning,
            logger: logger
        )
    }
}
