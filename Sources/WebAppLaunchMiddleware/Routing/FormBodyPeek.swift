import Hummingbird

/// Reads the start of a request body to see whether it is small enough to be a launch form,
/// without refusing (413) a larger one: an app's own large form POST to its launch path must
/// reach the app intact.
enum FormBodyPeek {
    /// Reads up to `limit` bytes.
    /// - Parameters:
    ///   - request: The request; its body is replaced by one that yields the same bytes again.
    ///   - limit: The largest body returned whole.
    /// - Returns: The whole body when it has at most `limit` bytes, else `nil` (the body then
    ///   yields what was read followed by the rest, unread).
    static func body(of request: inout Request, upTo limit: Int) async throws -> ByteBuffer? {
        var iterator = request.body.makeAsyncIterator()
        var collected = ByteBuffer()
        var chunks: [ByteBuffer] = []
        while let chunk = try await iterator.next() {
            chunks.append(chunk)
            guard collected.readableBytes + chunk.readableBytes <= limit else {
                request.body = RequestBody(asyncSequence: PrefixedBody(prefix: chunks, rest: IteratorBox(iterator)))
                return nil
            }
            var chunk = chunk
            collected.writeBuffer(&chunk)
        }
        request.body = RequestBody(buffer: collected)
        return collected
    }
}

/// The rest of a body whose start was read: consumed by one task, once.
final class IteratorBox: @unchecked Sendable {
    // Invariant: `iterator` is used only by the single consumer of the PrefixedBody that owns
    // this box (a request body is iterated once, by one task); never concurrently.
    var iterator: RequestBody.AsyncIterator

    init(_ iterator: RequestBody.AsyncIterator) { self.iterator = iterator }
}

/// Chunks already read, then the rest of the body.
struct PrefixedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let prefix: [ByteBuffer]
    let rest: IteratorBox

    struct AsyncIterator: AsyncIteratorProtocol {
        var prefix: [ByteBuffer]
        let rest: IteratorBox
        var index = 0

        mutating func next() async throws -> ByteBuffer? {
            if index < prefix.count {
                index += 1
                return prefix[index - 1]
            }
            return try await rest.iterator.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(prefix: prefix, rest: rest) }
}
