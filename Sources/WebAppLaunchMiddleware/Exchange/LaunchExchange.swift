import Foundation
import HTTPTypes
import Logging
import NIOCore
import WebAppLaunch
import WebAppRegistry

/// The launch exchange of one app, as synchronous decisions: verify a launch, claim its
/// nonce, answer with a session or a rejection.
///
/// Only the replay claim can wait (on SQLite or PostgreSQL), so the exchange is split around
/// it: ``begin(query:form:headers:logger:)`` verifies and applies the login-CSRF rule,
/// the runner claims, and ``finish(_:claimed:logger:)`` (or
/// ``storeFailed(_:error:logger:)``) answers. Both runners call these, so they cannot
/// drift: ``LaunchVerificationMiddleware`` awaits any store's claim on Hummingbird's
/// request path, and ``LaunchFastPath`` answers a launch on the connection's event loop when
/// the store can claim at once (``SynchronousReplayStore``,
/// ``exchange(query:headers:store:logger:)``) or answer its claim through a callback
/// (``CallbackReplayStore``, ``exchange(query:headers:store:on:logger:)``). Logging and
/// metrics happen here too, once per answer, whichever runner asked.
public struct LaunchExchange: Sendable {
    let verifier: LaunchVerifier
    let cookies: SessionCookieCodec
    let sessionLifetime: UInt64
    let clock: @Sendable () -> Date
    let metrics: LaunchMetrics?

    /// A verified launch that may be accepted once its nonce is claimed.
    public struct PendingClaim: Sendable {
        /// The verified launch: claim ``VerifiedLaunch/replayID`` until ``VerifiedLaunch/replayDeadline``.
        public let launch: VerifiedLaunch
        /// The request's `Accept` value, for the form of a rejection.
        let accept: String?
        /// When verification began, for the latency metric.
        let started: ContinuousClock.Instant
    }

    /// What ``begin(query:form:headers:logger:)`` decided.
    public enum Step: Sendable {
        /// Refused before any claim: answer this.
        case answered(LaunchAnswer)
        /// Verified: claim the nonce, then call ``finish(_:claimed:logger:)``.
        case claim(PendingClaim)
    }

    /// The current time in Unix seconds, from the exchange's clock.
    var nowSeconds: UInt64 { UnixSeconds.of(clock()) }

    /// Verifies a launch and applies the login-CSRF rule (``SessionConflict``): nothing is
    /// claimed yet.
    /// - Parameters:
    ///   - query: The raw query, or `nil`.
    ///   - form: A form body read for its `launch` field, or `nil`.
    ///   - headers: The request's fields (cookies, Fetch Metadata, `Origin`, `Accept`).
    ///   - logger: Where a rejection is logged.
    /// - Returns: The rejection to answer, or the launch to claim.
    public func begin(query: Substring?, form: Substring?, headers: HTTPFields, logger: Logger) -> Step {
        let started = ContinuousClock.now
        let accept = headers[.accept]
        let launch: VerifiedLaunch
        do {
            launch = try verifier.verify(query: query, form: form, now: clock())
        } catch {
            return .answered(reject(error, accept: accept, launch: nil, logger: logger))
        }
        if let existing = cookies.session(in: headers, now: nowSeconds), existing.kvnumber != launch.claims.kvnr.value,
            RequestSite.of(headers, expectedOrigin: launch.audience.origin) != .own
        {
            // Login CSRF: another site must not swap the user's live session for someone else's.
            return .answered(reject(code: SessionConflict.code, reason: .invalid, accept: accept, launch: launch, logger: logger))
        }
        return .claim(PendingClaim(launch: launch, accept: accept, started: started))
    }

    /// Answers a launch once its store has answered the claim.
    /// - Parameters:
    ///   - pending: What ``begin(query:form:headers:logger:)`` returned.
    ///   - claimed: Whether the store granted the claim.
    ///   - logger: Where the outcome is logged.
    /// - Returns: 303 to the clean URL with the session cookie, or the rejection.
    /// - Throws: When the session cannot be sealed (the runner's error handling answers 500).
    public func finish(_ pending: PendingClaim, claimed: Bool, logger: Logger) throws -> LaunchAnswer {
        let launch = pending.launch
        guard claimed else {
            return reject(LaunchError(.alreadyUsed, "the launch was used before"), accept: pending.accept, launch: launch, logger: logger)
        }
        // A claim can wait on its store; the launch must still be valid when it is granted.
        let now = nowSeconds
        guard launch.isAccepted(at: now) else {
            return reject(LaunchError(.expired, "the token expired while its claim waited"), accept: pending.accept, launch: launch, logger: logger)
        }
        let (expiresAt, expiryOverflow) = now.addingReportingOverflow(sessionLifetime)
        let setCookie = try cookies.setCookieValue(for: launch, expiresAt: expiryOverflow ? .max : expiresAt, maxAge: sessionLifetime)
        logger.info("launch.accepted", metadata: [
            "app": "\(verifier.appID)", "kid": "\(launch.header.kid)", "launch": "\(launch.replayID.hex)",
            "mode": "\(launch.header.mode)",
        ])
        metrics?.accepted(app: verifier.appID, duration: ContinuousClock.now - pending.started)
        let audience = launch.audience
        var fields = HTTPFields()
        fields[.location] = audience.path + (audience.query.map { "?" + $0 } ?? "")
        return LaunchAnswer(status: .seeOther, headerFields: fields, sessionCookie: setCookie)
    }

    /// Answers a launch whose store could not answer the claim: 503, nothing accepted.
    /// - Parameters:
    ///   - pending: What ``begin(query:form:headers:logger:)`` returned.
    ///   - error: What the store threw.
    ///   - logger: Where the failure is logged (its code, never the store's message).
    /// - Returns: The 503 rejection.
    public func storeFailed(_ pending: PendingClaim, error: any Error, logger: Logger) -> LaunchAnswer {
        logger.error("launch.replay_store_unavailable", metadata: [
            "app": "\(verifier.appID)", "code": "\(LaunchError.Code.replayStoreUnavailable)",
            "kid": "\(pending.launch.header.kid)", "launch": "\(pending.launch.replayID.hex)",
            "store_error": "\((error as? ReplayStoreError)?.code.rawValue ?? String(describing: type(of: error)))",
        ])
        metrics?.rejected(app: verifier.appID, code: LaunchError.Code.replayStoreUnavailable.rawValue)
        return RejectionResponse(.invalid, status: .serviceUnavailable).answer(accepting: pending.accept)
    }

    /// The whole exchange with a store that claims at once: what ``LaunchFastPath`` runs on
    /// the event loop.
    /// - Parameters:
    ///   - query: The raw query.
    ///   - headers: The request's fields.
    ///   - store: The store, claimed without waiting.
    ///   - logger: Where the outcome is logged.
    /// - Returns: The answer.
    /// - Throws: When the session cannot be sealed.
    public func exchange(query: Substring, headers: HTTPFields, store: some SynchronousReplayStore, logger: Logger) throws -> LaunchAnswer {
        switch begin(query: query, form: nil, headers: headers, logger: logger) {
        case .answered(let answer):
            return answer
        case .claim(let pending):
            let claimed: Bool
            do {
                claimed = try store.claimSynchronously(pending.launch.replayID, until: pending.launch.replayDeadline, now: nowSeconds)
            } catch {
                return storeFailed(pending, error: error, logger: logger)
            }
            return try finish(pending, claimed: claimed, logger: logger)
        }
    }

    /// The whole exchange with a store that answers its claim through a callback: what
    /// ``LaunchFastPath`` runs on the event loop when the store waits on I/O. A launch
    /// refused before its claim is answered at once; a claimed one when its store answers.
    /// - Parameters:
    ///   - query: The raw query.
    ///   - headers: The request's fields.
    ///   - store: The store, whose claim answers through a callback.
    ///   - loop: The event loop of the request's connection, where the answer completes.
    ///   - logger: Where the outcome is logged.
    /// - Returns: The answer now, or relayed when the claim is answered (failed only when
    ///   the session cannot be sealed: the runner answers 500).
    public func exchange(query: Substring, headers: HTTPFields, store: some CallbackReplayStore, on loop: any EventLoop, logger: Logger) -> FastPathAnswer {
        switch begin(query: query, form: nil, headers: headers, logger: logger) {
        case .answered(let answer):
            return .now(answer)
        case .claim(let pending):
            let answer = loop.makePromise(of: RelayedAnswer.self)
            store.claim(pending.launch.replayID, until: pending.launch.replayDeadline, now: nowSeconds) { claimed in
                switch claimed {
                case .success(let claimed):
                    answer.completeWith(Result { .own(try self.finish(pending, claimed: claimed, logger: logger)) })
                case .failure(let error):
                    answer.succeed(.own(self.storeFailed(pending, error: error, logger: logger)))
                }
            }
            return .relayed(answer.futureResult)
        }
    }

    private func reject(_ error: LaunchError, accept: String?, launch: VerifiedLaunch?, logger: Logger) -> LaunchAnswer {
        // A misconfigured audience is the most common setup error: its reason names the
        // expected and the presented registered URL (public, never personal data).
        let detail = error.code == .wrongAudience ? error.reason : nil
        return reject(code: error.code.rawValue, reason: error.publicReason, accept: accept, launch: launch, detail: detail, logger: logger)
    }

    /// Logs, counts and renders a rejection.
    /// - Parameters:
    ///   - code: The precise code, for the log and metrics only.
    ///   - reason: The generic reason the client sees.
    ///   - status: 401 unless given.
    ///   - accept: The request's `Accept` value.
    ///   - launch: The verified launch, when verification got that far (its key id and
    ///     replay id are logged; never the token).
    ///   - detail: A public detail for the log.
    ///   - logger: Where it is logged.
    /// - Returns: The rejection.
    func reject(
        code: String,
        reason: LaunchError.PublicReason,
        status: HTTPResponse.Status = .unauthorized,
        accept: String?,
        launch: VerifiedLaunch?,
        detail: String? = nil,
        logger: Logger
    ) -> LaunchAnswer {
        var metadata: Logger.Metadata = ["app": "\(verifier.appID)", "code": "\(code)"]
        if let detail { metadata["detail"] = "\(detail)" }
        if let launch {
            metadata["kid"] = "\(launch.header.kid)"
            metadata["launch"] = "\(launch.replayID.hex)"
        }
        logger.notice("launch.rejected", metadata: metadata)
        metrics?.rejected(app: verifier.appID, code: code)
        return RejectionResponse(reason, status: status).answer(accepting: accept)
    }
}
