public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Locations of build products and scratch directories for tests that use the real binary and plugins.
public enum TestSupport {
    /// The directory holding the built `suite` executable and plugin `.so` files: `SUITE_BIN_DIR` (set by
    /// `make test`), else `.build/debug` of this checkout.
    public static var binDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["SUITE_BIN_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        return repositoryRoot.appendingPathComponent(".build/debug")
    }

    /// The checkout's root directory.
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The path of built plugin `name` (`libname.so`). Tests fail, not skip, when it is missing: run `swift build`.
    public static func plugin(_ name: String) -> String {
        binDirectory.appendingPathComponent("lib\(name).so").path
    }

    /// Runs `body`, which blocks (waits for a process, a lock, a file), on a thread of its own and returns its result:
    /// async tests call blocking helpers through this so that none holds one of the cooperative pool's threads (two
    /// on a two-core machine) while it waits.
    public static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// A new empty directory inside this test process's own temporary directory (see ``temporaryRoot``).
    public static func makeTemporaryDirectory(_ label: String = "suite-test") throws -> URL {
        let url = temporaryRoot.appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A new file path inside this test process's own temporary directory.
    public static func temporaryFile(_ name: String) -> String {
        temporaryRoot.appendingPathComponent("\(UUID().uuidString.prefix(8))-\(name)").path
    }

    /// `suite-tests-<pid>` under the system's temporary directory: everything a test run writes goes there. A test
    /// process cannot clean up after its last test, so the first use sweeps away the directories of test processes
    /// that have ended.
    public static let temporaryRoot: URL = {
        let base = FileManager.default.temporaryDirectory
        let fileManager = FileManager.default
        for name in (try? fileManager.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix("suite-tests-")
        {
            if let pid = Int32(name.dropFirst("suite-tests-".count)), pid != getpid(), kill(pid, 0) != 0 {
                let directory = base.appendingPathComponent(name)
                // Servers a killed test run left behind (nginx, redis-server) name their pid in `*.pid` files.
                for case let file as String in fileManager.enumerator(atPath: directory.path) ?? .init()
                where file.hasSuffix(".pid") {
                    let text =
                        (try? String(contentsOfFile: directory.appendingPathComponent(file).path, encoding: .utf8))
                        ?? ""
                    if let server = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), server > 1,
                        isLeftoverServer(server)
                    {
                        kill(server, SIGKILL)
                    }
                }
                try? fileManager.removeItem(at: directory)
            }
        }
        // Only a process that is still one of the servers tests start: the pid in an old file may belong to anyone now.
        func isLeftoverServer(_ pid: Int32) -> Bool {
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                let first = data.split(separator: 0).first
            else { return false }
            let name = String(decoding: first, as: UTF8.self)
            let tool = name.split(separator: "/").last.map(String.init) ?? name
            return name.hasPrefix("nginx:") || ["nginx", "redis-server", "analytics-receiver"].contains(tool)
        }
        let root = base.appendingPathComponent("suite-tests-\(getpid())")
        try? fileManager.createDirectory(at: root, withIntermediateDirectories: true)
        return root
    }()
}

/// The outcome of running a command.
public struct CommandResult: Sendable {
    public var status: Int32
    /// Whether the process exited normally (not killed by a signal such as SIGSEGV or SIGTRAP).
    public var exitedNormally: Bool
    public var stdout: String
    public var stderr: String
}

/// Runs the real `suite` binary.
public struct SuiteRunner: Sendable {
    /// The working directory.
    public var directory: URL
    /// Extra environment; HOME and XDG directories point into `directory` so no user configuration leaks in.
    public var environment: [String: String]

    /// A runner working in `directory`.
    public init(directory: URL, environment: [String: String] = [:]) {
        self.directory = directory
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        base["HOME"] = directory.path
        base["XDG_DATA_HOME"] = directory.appendingPathComponent("xdg-data").path
        base["XDG_CONFIG_HOME"] = directory.appendingPathComponent("xdg-config").path
        self.environment = base.merging(environment) { _, new in new }
    }

    /// Runs `suite` with `arguments`, optionally feeding `input` on standard input.
    public func run(_ arguments: [String], input: String? = nil) throws -> CommandResult {
        let process = TestProcess()
        process.executableURL = TestSupport.binDirectory.appendingPathComponent("suite")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        let inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inPipe.fileHandleForWriting.close()
        // Read both pipes concurrently so a large output cannot block the child.
        let errData = Mutexed(Data())
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData.set(err.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return CommandResult(
            status: process.terminationStatus,
            exitedNormally: process.terminationReason == .exit,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.get(), as: UTF8.self))
    }
}

/// A `suite` process running in the background whose standard output is read line by line.
public final class RunningSuite: @unchecked Sendable {
    // @unchecked: the process and the buffer are only touched under `lock` or by their own threads.
    private let process: TestProcess
    private let output: FileHandle
    private var buffer: [UInt8] = []
    private let lock = NSLock()

    init(process: TestProcess, output: FileHandle) {
        self.process = process
        self.output = output
    }

    /// The next line of standard output, or `nil` at end of output or after `timeout` seconds (the process is then
    /// terminated, so a test never hangs).
    public func readLine(timeout: TimeInterval = 20) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let newline = lock.withLock({ buffer.firstIndex(of: 0x0A) }) {
                return lock.withLock {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    return line
                }
            }
            let chunk = output.availableData
            if chunk.isEmpty {
                if !process.isRunning { return nil }
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            lock.withLock { buffer.append(contentsOf: chunk) }
        }
        process.terminate()
        return nil
    }

    /// Sends `signal` (e.g. `SIGINT`) to the process.
    public func send(_ signal: Int32) {
        process.signal(signal)
    }

    /// Whether the process ended by exiting (rather than being killed by a signal); valid after ``wait(timeout:)``.
    public var exitedNormally: Bool { process.terminationReason == .exit }

    /// Waits for the process to exit (terminating it after `timeout` seconds) and returns its status.
    @discardableResult
    public func wait(timeout: TimeInterval = 20) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension SuiteRunner {
    /// Starts `suite` with `arguments` in the background.
    public func start(_ arguments: [String]) throws -> RunningSuite {
        let process = TestProcess()
        process.executableURL = TestSupport.binDirectory.appendingPathComponent("suite")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return RunningSuite(process: process, output: out.fileHandleForReading)
    }
}

/// A value guarded by a lock (test support only).
final class Mutexed<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ value: T) { self.value = value }
    func set(_ new: T) { lock.withLock { value = new } }
    func get() -> T { lock.withLock { value } }
}
