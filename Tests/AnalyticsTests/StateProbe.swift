import Foundation
import SuiteTestSupport

/// Runs the real `AnalyticsStateProbe` (Tools/AnalyticsStateProbe), an app's other launch, on the queue file `queue`
/// with `commands`; returns what it printed, by key (`consent`, `collecting`, `anonymous`, `user`, `session`,
/// `persisted`). Throws with its output when it exits non-zero.
func runStateProbe(_ queue: String, _ commands: String...) async throws -> [String: String] {
    let process = TestProcess()
    process.executableURL = TestSupport.binDirectory.appendingPathComponent("AnalyticsStateProbe")
    process.arguments = [queue] + commands
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    let (status, text) = try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<(Int32, String), any Error>) in
        process.terminationHandler = { process in
            let data = output.fileHandleForReading.readDataToEndOfFile()
            continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
        }
        do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    guard status == 0 else { throw StateProbeFailure(status: status, output: text) }
    var values: [String: String] = [:]
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 2 { values[parts[0]] = parts[1] }
    }
    return values
}

struct StateProbeFailure: Error, CustomStringConvertible {
    var status: Int32
    var output: String
    var description: String { "AnalyticsStateProbe exited \(status): \(output)" }
}
