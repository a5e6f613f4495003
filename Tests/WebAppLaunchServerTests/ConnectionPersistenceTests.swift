import Testing
@testable import WebAppLaunchMiddleware

/// The connection's persistence as a value: which answer is the last, for pipelined requests.
@Suite("HTTP/1 listener: the answer to the first request that ends its connection is the last")
struct ConnectionPersistenceTests {
    /// Reads requests that keep the connection open or not, in order, then writes `answers`
    /// answers (head, then end); returns, for each answer, whether its head and its end were
    /// the connection's last.
    static func lastAnswers(requests: [Bool], answers: Int) -> [[Bool]] {
        var persistence = ConnectionPersistence()
        for keepsAlive in requests { persistence.requestHead(keepsAlive: keepsAlive) }
        return (0..<answers).map { _ in
            let head = persistence.answerHead()
            let end = persistence.answerEnd()
            return [head, end]
        }
    }

    @Test("kept-alive requests never end the connection")
    func keptAlive() {
        #expect(Self.lastAnswers(requests: [true, true, true], answers: 3) == [[false, false], [false, false], [false, false]])
    }

    @Test("pipelined: kept, ending, kept; the second answer is the last (its head says close, its end closes)")
    func pipelined() {
        #expect(Self.lastAnswers(requests: [true, false, true], answers: 3) == [[false, false], [true, true], [false, false]])
    }

    @Test("a later request that ends the connection does not move the last answer")
    func firstEndingRequestCounts() {
        #expect(Self.lastAnswers(requests: [false, false], answers: 2) == [[true, true], [false, false]])
    }

    @Test("an answer written before a later request is read is counted in its own place")
    func answerBeforeLaterRequest() {
        var persistence = ConnectionPersistence()
        persistence.requestHead(keepsAlive: true)
        let firstHead = persistence.answerHead()
        let firstEnd = persistence.answerEnd()
        persistence.requestHead(keepsAlive: false)
        let secondHead = persistence.answerHead()
        let secondEnd = persistence.answerEnd()
        #expect([firstHead, firstEnd, secondHead, secondEnd] == [false, false, true, true])
    }
}
