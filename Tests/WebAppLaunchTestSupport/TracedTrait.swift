import Testing

/// Notes in ``TestTrace`` when each test of a suite starts and when its body has returned, so
/// a stalled run tells a body that never returned from a finished one the runner never reported.
public struct TracedTrait: SuiteTrait, TestTrait, TestScoping {
    /// Applies to every test of the suite it is attached to.
    public var isRecursive: Bool { true }

    /// Runs a test case between two trace notes (a suite's scope runs untraced).
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        TestTrace.note("scope: body starts")
        do {
            try await function()
        } catch {
            TestTrace.note("scope: body threw")
            throw error
        }
        TestTrace.note("scope: body returned")
    }
}

extension Trait where Self == TracedTrait {
    /// Traces each test's start and end (see ``TracedTrait``).
    public static var traced: Self { Self() }
}
