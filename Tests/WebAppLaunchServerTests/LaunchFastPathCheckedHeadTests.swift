import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import NIOCore
import NIOHTTPTypes
import Synchronization
import Testing
import WebAppLaunchMiddleware
@testable import WebAppLaunchServer
import WebAppLaunchTestSupport

/// With a channel handler of the application's own between the codec and the event loop's
/// launch path, nothing is handed past it unchecked (`UncheckedHeadValues` is not used): the
/// handler sees every request's path and every field of a launch's answer, `Set-Cookie`
/// included, and the answer is the same as without it.
@Suite("Launches answered on the event loop beside an additional channel handler")
struct LaunchFastPathCheckedHeadTests {
    /// What the additional handler saw pass: each request head's path, and for each
    /// response head whether it carried a `Set-Cookie` right after its `Location`.
    final class Seen: Sendable {
        let paths = Mutex<[String?]>([])
        let cookieAfterLocation = Mutex<[Bool]>([])
    }

    /// Passes everything on, noting the heads.
    final class WatchingHandler: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        let seen: Seen
        init(_ seen: Seen) { self.seen = seen }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head(let request) = unwrapInboundIn(data) { seen.paths.withLock { $0.append(request.path) } }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .head(let response) = unwrapOutboundIn(data) {
                let names: [HTTPField.Name] = response.headerFields.map { $0.name }
                var placed = false
                if let location = names.firstIndex(of: .location), location + 1 < names.count {
                    placed = names[location + 1] == .setCookie
                }
                seen.cookieAfterLocation.withLock { $0.append(placed) }
            }
            context.write(data, promise: promise)
        }
    }

    @Test("the handler sees each path and the launch's Set-Cookie as a field, right after Location, and the launches are answered on the event loop in order")
    func checkedBesideAdditionalHandler() async throws {
        let logs = LogCapture()
        var configuration = Fixtures.configuration()
        configuration.answersLaunchesOnEventLoop = true
        let server = try TestServer(configuration: configuration, logs: logs)
        let fastPath = try #require(server.server.makeLaunchFastPath())
        let seen = Seen()
        let channel = HTTP1Channel.Configuration(additionalChannelHandlers: [WatchingHandler(seen)], idleTimeout: .seconds(5))
        let application = Application(
            router: server.server.makeRouter(),
            server: HTTPServerBuilder { responder in LaunchHTTP1Channel(responder: responder, configuration: channel, launchFastPath: fastPath) },
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            logger: logs.makeLogger()
        )
        let first = Fixtures.launchTarget(for: Fixtures.magazin)
        let second = Fixtures.launchTarget(for: Fixtures.bonus)
        let raw = try await application.test(.live) { client in
            try await rawPipelinedGets([first, "/healthz", second], port: try #require(client.port))
        }
        let statuses = raw.matches(of: /HTTP\/1\.1 (\d{3})/).map { String($0.output.1) }
        #expect(statuses == ["303", "200", "303"], "\(statuses)")
        let answers = raw.components(separatedBy: "HTTP/1.1 ").dropFirst()
        #expect(answers.map { $0.contains(#/\r\nLocation: [^\r]*\r\nSet-Cookie: webapp_launch_session/#) } == [true, false, true])
        #expect(seen.paths.withLock { $0 } == [first, "/healthz", second], "every path reached the handler, checked")
        #expect(seen.cookieAfterLocation.withLock { $0 } == [true, false, true], "each launch's cookie passed the handler as a field")
        let accepted = logs.all.filter { $0.message == "launch.accepted" }
        #expect(accepted.count == 2)
        #expect(accepted.first.map { $0.metadata["hb.request.id"] == nil } == true, "the first launch was answered on the event loop")
    }
}
