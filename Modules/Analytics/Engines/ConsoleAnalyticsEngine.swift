import Dispatch
import Foundation
import SuiteCore

/// Prints each record as one readable line, for development:
/// `2024-05-01T10:00:00.123Z message_deleted index=3 read=true`.
public struct ConsoleAnalyticsEngine: AnalyticsEngine {
    private let write: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "suite.analytics.console")

    /// Creates an engine writing to standard output.
    public init() {
        self.init { line in FileHandle.standardOutput.write(Data(line.utf8)) }
    }

    /// Creates an engine handing each line (ending in a newline) to `write`, which may block: it runs off the
    /// cooperative pool.
    public init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// The line printed for `record` (without the newline).
    package static func line(for record: AnalyticsRecord) -> String {
        let micros = Int64((record.timestamp.timeIntervalSince1970 * 1_000_000).rounded())
        var line = RFC3339Bridge.format(micros) + " " + record.name
        for key in record.parameters.keys.sorted() { line += " \(key)=\(record.parameters[key] ?? "")" }
        if record.sampleRate < 1 { line += " (sampled at \(record.sampleRate))" }
        return line
    }

    /// Prints the batch.
    public func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport {
        let text = batch.map { Self.line(for: $0) + "\n" }.joined()
        let write = self.write
        try await runBlocking(on: queue) { write(text) }
        return .delivered
    }
}
