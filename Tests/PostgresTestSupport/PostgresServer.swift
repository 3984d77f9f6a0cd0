public import Foundation
import SuiteTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A throwaway PostgreSQL cluster: `initdb` in a temporary directory, then `postgres` on a free loopback port, run as
/// an unprivileged user (the `postgres` account Debian's package creates, else `nobody`, when the tests run as root;
/// the current user otherwise), with a password login (`scram-sha-256`). For the PostgresDocuments tests and benchmark.
/// It fails — never skips — when PostgreSQL is not installed.
///
/// ```swift
/// let server = try PostgresServer.shared()      // one per test process, stopped when it exits
/// let options: JSONValue = ["url": .string(server.url), "schema": "t_1"]
/// ```
public final class PostgresServer: @unchecked Sendable {
    // @unchecked: `process` is only read and replaced under `lock`.
    private let lock = NSLock()
    private var process: TestProcess?
    private let settings: [String]
    private let binDirectory: String
    /// The account the cluster runs as when the tests run as root.
    private let account: (uid: uid_t, gid: gid_t)?

    /// The loopback port it listens on (kept across ``restart()``).
    public let port: Int
    /// The cluster's directory (removed by ``stop()``).
    public let directory: URL
    /// The login: user `suite` with this password, database `postgres`.
    public static let user = "suite"
    public static let password = "suite-test-secret"

    /// `postgres://suite:…@127.0.0.1:<port>/postgres`.
    public var url: String { "postgres://\(Self.user):\(Self.password)@127.0.0.1:\(port)/postgres" }

    /// Why a server could not be started.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private init(port: Int, directory: URL, settings: [String], binDirectory: String, account: (uid_t, gid_t)?) {
        self.port = port
        self.directory = directory
        self.settings = settings
        self.binDirectory = binDirectory
        self.account = account
    }

    // MARK: One per process

    nonisolated(unsafe) private static var sharedServer: PostgresServer?
    private static let sharedLock = NSLock()

    /// The process's cluster, started on first use with settings for fast tests (`fsync=off`), stopped at exit.
    ///
    /// Like every call here that waits for a process, it waits on a thread of its own (``TestSupport/offThePool(_:)``):
    /// tests that wait for `initdb` on the cooperative pool's two threads starved every other test of this process
    /// (plugin calls passed their deadlines).
    public static func shared() async throws -> PostgresServer {
        try await TestSupport.offThePool { try sharedBlocking() }
    }

    private static func sharedBlocking() throws -> PostgresServer {
        try sharedLock.withLock {
            if let server = sharedServer { return server }
            let server = try startBlocking(settings: ["fsync=off", "synchronous_commit=off", "full_page_writes=off"])
            sharedServer = server
            atexit { PostgresServer.sharedServer?.stop() }
            return server
        }
    }

    // MARK: Starting and stopping

    /// Where PostgreSQL's programs are: the newest `/usr/lib/postgresql/*/bin` (Debian), else the `PATH`.
    public static func binDirectory() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap { Int($0) }.sorted(by: >)
        for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init)
        where FileManager.default.isExecutableFile(atPath: "\(directory)/pg_ctl")
            && FileManager.default.isExecutableFile(atPath: "\(directory)/initdb")
        {
            return directory
        }
        throw Failure(
            description: "PostgreSQL is not installed: run Tools/install-deps.sh (apt-get install postgresql)")
    }

    /// Starts a new cluster; `settings` are `name=value` server settings (e.g. `fsync=off`). Returns once it accepts
    /// logins.
    public static func start(settings: [String] = []) async throws -> PostgresServer {
        try await TestSupport.offThePool { try startBlocking(settings: settings) }
    }

    private static func startBlocking(settings: [String]) throws -> PostgresServer {
        let bin = try binDirectory()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "suite-postgres-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var account: (uid_t, gid_t)?
        if geteuid() == 0 {
            guard let entry = getpwnam("postgres") ?? getpwnam("nobody") else {
                throw Failure(description: "running as root, and there is no 'postgres' or 'nobody' account to run as")
            }
            account = (entry.pointee.pw_uid, entry.pointee.pw_gid)
            guard chown(directory.path, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
                throw Failure(description: "cannot hand \(directory.path) to the postgres account: errno \(errno)")
            }
        }
        let server = PostgresServer(
            port: try freePort(), directory: directory, settings: settings, binDirectory: bin, account: account)
        try server.initialise()
        try server.launch()
        return server
    }

    private var dataDirectory: String { directory.appendingPathComponent("data").path }

    /// The command line that runs `arguments` as the cluster's account.
    private func command(_ arguments: [String]) -> (String, [String]) {
        guard let account else { return (arguments[0], Array(arguments.dropFirst())) }
        return (
            "/usr/bin/setpriv",
            ["--reuid=\(account.uid)", "--regid=\(account.gid)", "--clear-groups", "--"] + arguments
        )
    }

    private func initialise() throws {
        let passwordFile = directory.appendingPathComponent("password").path
        try Self.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        if let account { _ = chown(passwordFile, account.uid, account.gid) }
        let output = try runTool(
            "\(binDirectory)/initdb",
            [
                "-D", dataDirectory, "-U", Self.user, "--pwfile=\(passwordFile)", "--auth=scram-sha-256",
                "-E", "UTF8", "--no-locale", "--no-sync",
            ])
        guard output.status == 0 else { throw Failure(description: "initdb failed: \(output.text.suffix(800))") }
    }

    private func runTool(_ tool: String, _ arguments: [String]) throws -> (status: Int32, text: String) {
        let process = TestProcess()
        let (executable, rest) = command([tool] + arguments)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = rest
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = Self.password
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func launch() throws {
        let process = TestProcess()
        let settingArguments =
            (["listen_addresses=127.0.0.1", "max_connections=400", "unix_socket_directories="]
            + settings).flatMap { ["-c", $0] }
        let (executable, rest) = command(
            ["\(binDirectory)/postgres", "-D", dataDirectory, "-p", "\(port)"] + settingArguments)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = rest
        let log = directory.appendingPathComponent("postgres.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        if let account { _ = chown(log.path, account.uid, account.gid) }
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        lock.withLock { self.process = process }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let ready = try runTool("\(binDirectory)/pg_isready", ["-h", "127.0.0.1", "-p", "\(port)", "-q"])
            if ready.status == 0 { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        stopProcess(signal: SIGKILL)
        throw Failure(description: "postgres did not start on 127.0.0.1:\(port): \(text.suffix(800))")
    }

    /// Runs SQL with `psql` as the test user; returns its output (unaligned, tuples only).
    public func psql(_ sql: String) async throws -> String {
        try await TestSupport.offThePool { try self.psqlBlocking(sql) }
    }

    /// ``psql(_:)`` on the calling thread, for a thread of the test's own (never from async code).
    public func psqlBlocking(_ sql: String) throws -> String {
        let output = try runTool(
            "\(binDirectory)/psql",
            [
                "-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", "postgres", "-At", "-v", "ON_ERROR_STOP=1",
                "-c", sql,
            ])
        guard output.status == 0 else { throw Failure(description: "psql failed: \(output.text)") }
        return output.text
    }

    /// A port nobody listens on right now (the kernel's choice for a socket bound to port 0).
    public static func freePort() throws -> Int {
        do { return try LoopbackPort.free() } catch { throw Failure(description: "\(error)") }
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

    /// Kills the server at once (SIGKILL to the postmaster; its backends exit when they notice), as a crash would.
    public func kill() {
        stopProcess(signal: SIGKILL)
    }

    /// Starts the server again on the same port, on the same data (crash recovery after ``kill()``).
    public func restart() async throws {
        try await TestSupport.offThePool {
            self.stopProcess(signal: SIGKILL)
            try self.launch()
        }
    }

    /// Stops the server (fast shutdown: SIGINT) and removes its directory.
    public func stop() {
        stopProcess(signal: SIGINT)
        try? FileManager.default.removeItem(at: directory)
    }
}
