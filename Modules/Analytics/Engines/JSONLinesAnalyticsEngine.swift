import Dispatch
import Foundation
import SuiteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Appends each record as one line of JSON (sorted keys, the time in RFC 3339 with microseconds) to a file, synced
/// before the batch counts as delivered. The file is created if needed; lines are only ever appended.
public struct JSONLinesAnalyticsEngine: AnalyticsEngine {
    /// The file the records are appended to.
    public let path: String
    private let queue: DispatchQueue

    /// Creates an engine appending to `path` (opened per batch, so the file can be rotated between batches).
    public init(path: String) {
        self.path = path
        queue = DispatchQueue(label: "suite.analytics.jsonl")
    }

    /// Appends the batch and syncs the file.
    ///
    /// - Throws: ``AnalyticsError`` `.storage` when the file cannot be opened or written; the batch is retried.
    public func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport {
        var text = ""
        var report = DeliveryReport()
        for record in batch {
            do { text += try record.jsonLine() + "\n" } catch {
                report.rejected[record.id] = "cannot encode as JSON: \(error)"
            }
        }
        let path = self.path
        let bytes = Array(text.utf8)
        try await runBlocking(on: queue) { try Self.append(bytes, to: path) }
        return report
    }

    private static func append(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw AnalyticsError(
                .storage, "cannot open \(path) for appending: \(String(cString: strerror(errno)))",
                hint: "check that the folder exists and is writable")
        }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw AnalyticsError(.storage, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        if fsync(descriptor) != 0 {
            throw AnalyticsError(.storage, "cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }
}
