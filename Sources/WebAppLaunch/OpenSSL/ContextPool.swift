import Synchronization

/// A small bounded pool of keyed OpenSSL contexts (`EVP_MAC_CTX*`, `EVP_CIPHER_CTX*`).
///
/// Keying a context (HMAC's pad blocks, AES's key schedule and GCM's hash table) costs more
/// than using it on a launch token, and a context is not thread-safe. So each computation
/// borrows a keyed context, uses it alone, and gives it back; a context that failed is freed
/// instead of returned, so a pooled context is always in a known state.
final class ContextPool: Sendable {
    // Invariant: a context in `parked` is referenced only by that array; between `take` and
    // `give` it is referenced only by the borrowing caller.
    private let parked = Mutex<[PooledContext]>([])
    // Invariant: `ready` holds one more parked context's address, or 0. A context moves in
    // and out of it by one atomic exchange, so the common case (one context in use at a
    // time per key) takes no lock; only a second concurrent borrower reaches `parked`.
    private let ready = Atomic<UInt>(0)
    private let capacity: Int
    private let free: @Sendable (OpaquePointer) -> Void

    /// Creates an empty pool.
    /// - Parameters:
    ///   - capacity: The most contexts kept parked besides the one ready context; more are
    ///     freed when given back.
    ///   - free: Frees a context (and cleanses the key material in it).
    init(capacity: Int = 16, free: @escaping @Sendable (OpaquePointer) -> Void) {
        self.capacity = capacity
        self.free = free
    }

    deinit {
        if let context = OpaquePointer(bitPattern: ready.exchange(0, ordering: .acquiring)) { free(context) }
        for context in parked.withLock({ $0 }) { free(context.pointer) }
    }

    /// Borrows a parked context, or makes a new keyed one when none is parked.
    /// - Parameter make: Creates and keys a context.
    /// - Returns: A context owned by the caller until ``give(_:)`` or ``discard(_:)``.
    func take(orMake make: () throws(CryptoFailure) -> OpaquePointer) throws(CryptoFailure) -> OpaquePointer {
        if let context = OpaquePointer(bitPattern: ready.exchange(0, ordering: .acquiring)) { return context }
        if let context = parked.withLock({ $0.popLast() }) { return context.pointer }
        return try make()
    }

    /// Returns a context that completed its operation.
    /// - Parameter pointer: A context from ``take(orMake:)``.
    func give(_ pointer: OpaquePointer) {
        if ready.compareExchange(expected: 0, desired: UInt(bitPattern: Int(bitPattern: pointer)), ordering: .releasing).exchanged { return }
        let context = PooledContext(pointer: pointer)
        let kept = parked.withLock { parked in
            guard parked.count < capacity else { return false }
            parked.append(context)
            return true
        }
        if !kept { free(pointer) }
    }

    /// Frees a context whose operation failed, rather than parking it in an unknown state.
    /// - Parameter pointer: A context from ``take(orMake:)``.
    func discard(_ pointer: OpaquePointer) {
        free(pointer)
    }
}

/// An OpenSSL context parked in a ``ContextPool``.
private struct PooledContext: @unchecked Sendable {
    // Invariant: a parked context is referenced only by the pool's array, so moving it
    // between threads through the mutex is safe.
    let pointer: OpaquePointer
}
