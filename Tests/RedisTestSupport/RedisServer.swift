public import Foundation
import SuiteTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A throwaway `redis-server` on a free loopback port, in its own temporary directory, with persistence off
/// (`--save '' --appendonly no`): for the RedisCache plugin's tests and benchmark. It fails (never skips) when
/// `redis-server` is not installed.
///
/// ```swift
/// let server = try RedisServer.start()
/// defer { server.stop() }
/// let options: JSONValue = ["url": .string(server.url), "prefix": "test:"]
/// ```
public final class RedisServer: @unchecked Sendable {
    // @unchecked: `process` is only read and replaced under `lock`.
    private let lock = NSLock()
    private var process: TestProcess?
    private let extraArguments: [String]

    /// The loopback port it listens on (kept across ``restart()``).
    public let port: Int
    /// Its working directory (removed by ``stop()``).
    public let directory: URL

    /// `redis://127.0.0.1:<port>/0`.
    public var url: String { "redis://127.0.0.1:\(port)/0" }

    /// Why a server could not be started.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private init(port: Int, directory: URL, extraArguments: [String]) {
        self.port = port
        self.directory = directory
        self.extraArguments = extraArguments
    }

    /// The path of a Redis tool (`redis-server`, `redis-cli`, `redis-benchmark`): /usr/bin, else the `PATH`.
    public static func tool(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in ["/usr/bin"] + path.split(separator: ":").map(String.init) {
            let candidate = (directory as NSString).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Failure(
            description: "\(name) is not installed: run Tools/install-deps.sh (apt-get install redis-server)")
    }

    /// Starts a server on a free loopback port; `arguments` are added to its command line (e.g.
    /// `["--maxmemory", "64mb"]`). Returns once it accepts connections.
    public static func start(arguments: [String] = []) throws -> RedisServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "suite-redis-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = RedisServer(port: try freePort(), directory: directory, extraArguments: arguments)
        try server.launch()
        return server
    }

    /// A port nobody listens on right now (the kernel's choice for a socket bound to port 0).
    public static func freePort() throws -> Int {
        do { return try LoopbackPort.free() } catch { throw Failure(description: "\(error)") }
    }

    private func launch() throws {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: try Self.tool("redis-server"))
        process.arguments =
            [
                "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
                directory.path, "--daemonize", "no", "--logfile", directory.appendingPathComponent("redis.log").path,
            ] + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        lock.withLock { self.process = process }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if LoopbackPort.accepts(port) { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
        stopProcess(signal: SIGKILL)
        throw Failure(description: "redis-server did not start on 127.0.0.1:\(port): \(log.suffix(500))")
    }

    private func stopProcess(signal: Int32) {
        guard
            let process = lock.withLock({ () -> TestProcess? in
                defer { self.process = nil }
                return self.process
            })
        else { return }
        process.signal(signal)
        process.waitUntilExit()
    }

    /// Kills the server at once (SIGKILL), as a crash would; ``restart()`` brings it back on the same port.
    public func kill() {
        stopProcess(signal: SIGKILL)
    }

    /// Starts the server again on the same port (empty: nothing was persisted).
    public func restart() throws {
        stopProcess(signal: SIGKILL)
        try launch()
    }

    /// Stops the server and removes its directory. SIGKILL: there is nothing to persist, and a child of a Swift
    /// process inherits its blocked signal mask, where SIGTERM may be blocked.
    public func stop() {
        stopProcess(signal: SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `redis-cli` against the server and returns its output, trimmed (to look at what the plugin stored).
    public func cli(_ arguments: [String]) throws -> String {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: try Self.tool("redis-cli"))
        process.arguments = ["-h", "127.0.0.1", "-p", "\(port)"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        process?.signal(SIGKILL)
    }
}
