import Hummingbird
import NIOCore

/// A write deadline toward clients: a chunk of a streamed upstream response the client has not
/// taken within the deadline ends the response (and with it the upstream connection and the
/// session's slot), so a client that stops reading cannot hold an upstream connection.
enum ClientWriteDeadline {
    /// Writes `chunk`, or throws ``ClientWriteTimedOut`` when the client has not taken it in time.
    /// - Parameters:
    ///   - chunk: The bytes.
    ///   - writer: The response's body writer.
    ///   - timeout: The deadline for this chunk.
    static func write(_ chunk: ByteBuffer, to writer: inout any ResponseBodyWriter, within timeout: Duration) async throws {
        let box = WriterBox(writer)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await box.write(chunk) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw ClientWriteTimedOut()
            }
            // The first to finish decides; the other is cancelled (a suspended write of the
            // channel's writer ends on cancellation).
            try await group.next()
            group.cancelAll()
        }
        writer = box.writer
    }
}

/// Thrown when a client did not take a chunk within the write deadline.
struct ClientWriteTimedOut: Error {}

/// The body writer handed to the child task that performs one write.
final class WriterBox: @unchecked Sendable {
    // Invariant: used by one task at a time: the child task writes while the parent waits for
    // the group, and the parent reads `writer` back only after the group has ended.
    var writer: any ResponseBodyWriter

    init(_ writer: any ResponseBodyWriter) { self.writer = writer }

    func write(_ chunk: ByteBuffer) async throws { try await writer.write(chunk) }
}
