import Foundation
public import SuiteCore
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The `eventlog` observer: appends every event as one JSON line `{"name":…,"payload":…,"time":…}` to a file.
///
/// Options: `path` (required), the file to append to; it is created if missing. Each batch is written with one
/// `write(2)` on a file opened with `O_APPEND`, so concurrent writers never interleave lines; `flush` calls `fsync`.
/// Both run on the observer's own serial queue: the calling task suspends, no cooperative thread waits for the disk.
public final class EventLogObserver: ObserverEngine {
    private let descriptor: Mutex<Int32>
    private let queue = DispatchQueue(label: "suite.eventlog")
    /// The file events are appended to.
    public let path: String

    /// Opens (creating if needed) the file named by the `path` option.
    public init(options: JSONValue) throws {
        guard let path = options["path"]?.stringValue, !path.isEmpty else {
            throw SuiteError(
                .invalidConfiguration, "eventlog needs a 'path' option naming the file to append to",
                hint: "observers: [{engine: eventlog, options: {path: events.jsonl}}]")
        }
        let expanded = (path as NSString).expandingTildeInPath
        let fd = open(expanded, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SuiteError(.io, "eventlog cannot open \(expanded): \(String(cString: strerror(errno)))")
        }
        self.path = expanded
        self.descriptor = Mutex(fd)
    }

    deinit {
        descriptor.withLock { _ = close($0) }
    }

    public func receive(_ events: [ObservedEvent]) async throws {
        guard !events.isEmpty else { return }
        try await onQueue { try self.append(events) }
    }

    public func flush() async throws {
        try await onQueue { try self.sync() }
    }

    /// Runs `work` on the observer's queue and resumes with its outcome.
    private func onQueue(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                do {
                    try work()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private func append(_ events: [ObservedEvent]) throws {
        var text = ""
        for event in events {
            text += event.jsonLine
            text += "\n"
        }
        let bytes = Array(text.utf8)
        try descriptor.withLock { fd in
            try bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    let written = write(fd, base + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw SuiteError(.io, "eventlog cannot write to \(path): \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
        }
    }

    private func sync() throws {
        try descriptor.withLock { fd in
            if fsync(fd) != 0 {
                throw SuiteError(.io, "eventlog cannot sync \(path): \(String(cString: strerror(errno)))")
            }
        }
    }
}
