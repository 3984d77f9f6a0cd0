import Dispatch

/// Runs blocking file I/O on a dispatch queue and awaits it, so no thread of Swift's cooperative pool waits on disk.
enum BlockingIO {
    static func run<T: Sendable>(
        on queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
