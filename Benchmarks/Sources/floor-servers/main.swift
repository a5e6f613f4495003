// The HTTP stacks' own cost, for scripts/bench-floor: two servers that answer `GET /healthz`
// with `ok\n` and nothing else, as `webapp-launch serve` answers its /healthz, so that one run
// can set what a request costs through each layer beside what ours costs.
//
//   floor-servers nio PORT          SwiftNIO's HTTP/1 pipeline and one ChannelHandler that answers
//                                   on the event loop: no task, no async sequence, no router (so
//                                   it answers every path alike).
//   floor-servers hummingbird PORT  A bare Hummingbird 2 application with one route, on NIO's
//                                   event loops as Swift Concurrency's executor, as ours runs.
//   floor-servers nio-proxy PORT UPSTREAM_PORT
//                                   SwiftNIO's reverse proxy with nothing of its own, to an
//                                   upstream on 127.0.0.1 (NIOProxy.swift): scripts/bench-gate's
//                                   reverse-proxy floor.
//
// All listen on 127.0.0.1 only and run until they are killed.

import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers every request with 200 and `ok\n` on the event loop, keeping the connection alive
/// unless the client asked to close it.
final class OKHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var keepAlive = true
    private static let body = ByteBuffer(string: "ok\n")

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
        case .body:
            break
        case .end:
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: "3")
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(Self.body))), promise: nil)
            if keepAlive {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            }
        }
    }
}

func runNIO(port: Int) async throws {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                try channel.pipeline.syncOperations.addHandler(OKHandler())
            }
        }
        .bind(host: "127.0.0.1", port: port).get()
    try await channel.closeFuture.get()
}

func runHummingbird(port: Int) async throws {
    let router = Router()
    router.get("/healthz") { _, _ in "ok\n" }
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil))
    try await app.runService()
}

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: floor-servers nio|hummingbird PORT | nio-proxy PORT UPSTREAM_PORT\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, let port = Int(arguments[1]), (1...65535).contains(port) else { usage() }
if arguments.first == "nio-proxy" {
    guard arguments.count == 3, let upstreamPort = Int(arguments[2]), (1...65535).contains(upstreamPort) else { usage() }
    try await runNIOProxy(port: port, upstreamPort: upstreamPort)
    exit(0)
}
guard arguments.count == 2 else { usage() }
switch arguments.first! {
case "nio":
    try await runNIO(port: port)
case "hummingbird":
    // As `webapp-launch` does, first thing: NIO's event loops run Swift Concurrency's jobs.
    NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    try await runHummingbird(port: port)
default:
    usage()
}
