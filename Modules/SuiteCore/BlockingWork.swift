package import Dispatch

/// Runs blocking work (file I/O, a `readdir` walk, an `fsync`) on `queue` and awaits it, so no thread of Swift's
/// cooperative pool waits on the disk. Pass a serial queue when the calls must stay in order.
package func runBlocking<T: Sendable>(
    on queue: DispatchQueue = .global(qos: .utility), _ body: @escaping @Sendable () throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        queue.async { continuation.resume(with: Result { try body() }) }
    }
}
