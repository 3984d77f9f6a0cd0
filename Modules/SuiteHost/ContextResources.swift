import Logging

/// The engines and stores a ``SuiteContext`` opened: each opened once, on first use, and closed at shutdown in the
/// reverse order of opening.
package actor ContextResources {
    private var opened: [String: any Sendable] = [:]
    private var opening: [String: Task<any Sendable, any Error>] = [:]
    private var closers: [(name: String, close: @Sendable () async throws -> Void)] = []
    private var isClosed = false
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// The resource named `name`, opened by `open` the first time (which returns it and how to close it).
    /// Concurrent callers share one opening; a failed opening is retried by the next caller.
    package func open<T: Sendable>(
        _ name: String, _ open: @escaping @Sendable () async throws -> (T, @Sendable () async throws -> Void)
    ) async throws -> T {
        if let value = opened[name] {
            guard let value = value as? T else { throw ResourceTypeMismatch(name: name) }
            return value
        }
        if let task = opening[name] {
            guard let value = try await task.value as? T else { throw ResourceTypeMismatch(name: name) }
            return value
        }
        let task = Task<any Sendable, any Error> { [weak self] in
            let (value, close) = try await open()
            await self?.register(name, value, close)
            return value
        }
        opening[name] = task
        defer { opening[name] = nil }
        guard let value = try await task.value as? T else { throw ResourceTypeMismatch(name: name) }
        return value
    }

    private func register(_ name: String, _ value: any Sendable, _ close: @escaping @Sendable () async throws -> Void) {
        opened[name] = value
        closers.append((name, close))
    }

    /// The names of the resources open now, in opening order.
    package var openNames: [String] { closers.map(\.name) }

    /// Closes every resource, newest first; all are closed even when one fails, then the first failure is thrown.
    package func closeAll() async throws {
        let toClose = closers.reversed()
        closers.removeAll()
        opened.removeAll()
        var firstError: (any Error)?
        for (name, close) in toClose {
            do {
                try await close()
            } catch {
                logger.error("closing failed", metadata: ["resource": "\(name)", "error": "\(error)"])
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }
}

struct ResourceTypeMismatch: Error, CustomStringConvertible {
    let name: String
    var description: String { "resource '\(name)' was opened with another type" }
}
