public import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `analytics-receiver` tool (Tools/AnalyticsReceiver) running as a process of its own on a free loopback port:
/// the collector the analytics tests upload to, which can be told to fail. Stop it with ``stop()``.
///
/// ```swift
/// let receiver = try await AnalyticsReceiverProcess.start()
/// defer { receiver.stop() }
/// try await receiver.control(mode: "500")
/// ```
public final class AnalyticsReceiverProcess: Sendable {
    /// What the receiver has counted.
    public struct Stats: Decodable, Sendable {
        /// Requests to the batch endpoint, answered or not.
        public var requests: Int
        /// Records accepted, duplicates included.
        public var received: Int
        /// Distinct record ids accepted.
        public var unique: Int
        /// Records accepted again under an id already seen.
        public var duplicates: Int
        /// Requests whose body was gzip'd.
        public var gzipped: Int
        /// The current mode.
        public var mode: String
    }

    /// Why the receiver could not be started or asked.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let process: TestProcess
    /// Its loopback port.
    public let port: Int
    /// Its scratch directory (the port and pid files).
    public let directory: URL

    /// The batch endpoint's URL, `http://127.0.0.1:<port>/v1/batch`.
    public var batchURL: String { "http://127.0.0.1:\(port)/v1/batch" }

    private init(process: TestProcess, port: Int, directory: URL) {
        self.process = process
        self.port = port
        self.directory = directory
    }

    /// Starts the receiver and returns once it listens. Fails (never skips) when the tool was not built.
    public static func start() async throws -> AnalyticsReceiverProcess {
        let executable = TestSupport.binDirectory.appendingPathComponent("analytics-receiver")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw Failure(description: "\(executable.path) is missing: run `swift build` first")
        }
        let directory = try TestSupport.makeTemporaryDirectory("analytics-receiver")
        let portFile = directory.appendingPathComponent("port")
        let process = TestProcess()
        process.executableURL = executable
        process.arguments = ["--port-file", portFile.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // TestSupport.temporaryRoot kills it if this test process dies before stop().
        try "\(process.processIdentifier)\n".write(
            to: directory.appendingPathComponent("receiver.pid"), atomically: true, encoding: .utf8)
        for _ in 0..<1_000 {
            if let text = try? String(contentsOf: portFile, encoding: .utf8),
                let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return AnalyticsReceiverProcess(process: process, port: port, directory: directory)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        process.signal(SIGKILL)
        throw Failure(description: "analytics-receiver did not start listening within 10 s")
    }

    /// Kills the receiver (SIGKILL: children of the test runner ignore SIGTERM).
    public func stop() {
        process.signal(SIGKILL)
        process.waitUntilExit()
    }

    /// Sets how the next batches are answered: `ok`, a status code (`500`, `429`, `401`, …) or `hang`; with
    /// `reject`, a batch holding an event of that name is answered 400.
    public func control(mode: String, reject: String? = nil) async throws {
        var query = "mode=\(mode)"
        if let reject { query += "&reject=\(reject)" }
        _ = try await call("POST", "/control?\(query)")
    }

    /// The receiver's counts.
    public func stats() async throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: try await call("GET", "/stats"))
    }

    /// The unique records received, in arrival order, as JSON objects.
    public func events() async throws -> [[String: Any]] {
        let text = String(decoding: try await call("GET", "/events"), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    private func call(_ method: String, _ path: String) async throws -> Data {
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else {
            throw Failure(description: "bad path \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw Failure(description: "\(method) \(path) answered \(response)")
        }
        return data
    }
}
