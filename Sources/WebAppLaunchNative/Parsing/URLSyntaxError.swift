/// Why an `http`/`https` URL failed the strict syntax check; callers turn it into their own
/// public error code and keep the sentence as the reason.
struct URLSyntaxError: Error, Sendable {
    /// A fixed sentence that never contains the input.
    let reason: String

    init(_ reason: String) { self.reason = reason }
}
