import CTestSpawn
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process for tests and benchmarks, with the part of Foundation's `Process` interface they use — started
/// through `posix_spawn` (``suite_test_spawn``) instead of `Process.run()`.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3.1) copies 256 bytes of each `/proc/self/fd` entry's name, which
/// can read past glibc's directory buffer and kill the whole test process with a segmentation fault
/// (swift-corelibs-foundation pull request 5472; one of the fresh-clone CI runs of session 13 crashed there).
///
/// Like `Process`: the child gets every descriptor but 0, 1 and 2 closed and a process group of its own; the pipe ends
/// given to it are closed here once it started; `FileHandle.nullDevice` is `/dev/null`; an unset stream is inherited.
public final class TestProcess: @unchecked Sendable {
    // @unchecked: the settings are written before `run()` only; the outcome is guarded by `condition`.
    public var executableURL: URL?
    public var arguments: [String]?
    /// The child's environment; `nil`: this process's.
    public var environment: [String: String]?
    public var currentDirectoryURL: URL?
    /// A `Pipe`, a `FileHandle`, or `nil` (inherited).
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?
    /// Called on a thread of its own once the child ended.
    public var terminationHandler: (@Sendable (TestProcess) -> Void)?

    private let condition = NSCondition()
    private var started = false
    private var status: Int32?
    public private(set) var processIdentifier: Int32 = 0

    /// Why a child could not be started.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init() {}

    /// Starts the child; returns at once.
    public func run() throws {
        guard let path = executableURL?.path else { throw Failure(description: "no executableURL to run") }
        let argv = [path] + (arguments ?? [])
        let environment = environment.map { $0.map { "\($0.key)=\($0.value)" } }
        var nullDevice: Int32 = -1
        defer { if nullDevice >= 0 { close(nullDevice) } }
        func descriptor(_ stream: Any?, reading: Bool) -> Int32 {
            switch stream {
            case let pipe as Pipe:
                return reading ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
            case let handle as FileHandle where handle.fileDescriptor >= 0:
                return handle.fileDescriptor
            case is FileHandle:
                if nullDevice < 0 { nullDevice = open("/dev/null", O_RDWR | O_CLOEXEC) }
                return nullDevice
            default:
                return -1
            }
        }
        let input = descriptor(standardInput, reading: true)
        let output = descriptor(standardOutput, reading: false)
        let error = descriptor(standardError, reading: false)
        var pid: pid_t = 0
        let result = Self.withCStrings(argv) { argv in
            Self.withOptionalCStrings(environment) { envp in
                if let directory = currentDirectoryURL?.path {
                    return directory.withCString {
                        suite_test_spawn(path, argv, envp, $0, input, output, error, &pid)
                    }
                }
                return suite_test_spawn(path, argv, envp, nil, input, output, error, &pid)
            }
        }
        guard result == 0 else {
            throw Failure(description: "cannot start \(path): \(String(cString: strerror(result)))")
        }
        // The child has its copies: the ends it was given are closed here, so a reader sees the end of its output.
        (standardInput as? Pipe).map { try? $0.fileHandleForReading.close() }
        (standardOutput as? Pipe).map { try? $0.fileHandleForWriting.close() }
        (standardError as? Pipe).map { try? $0.fileHandleForWriting.close() }
        condition.withLock {
            processIdentifier = pid
            started = true
        }
        let reaper = Thread { [self, pid] in
            // Wait for the end without reaping (the pid stays the child's, a zombie), then reap under the lock: a
            // signal sent through `signal(_:)` can never reach another process that got the pid after the child.
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            condition.withLock {
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
                status = raw
                condition.broadcast()
            }
            terminationHandler?(self)
        }
        reaper.start()
    }

    /// Whether the child started and has not ended (been reaped) yet.
    public var isRunning: Bool { condition.withLock { started && status == nil } }

    /// Blocks until the child ended.
    public func waitUntilExit() {
        condition.withLock {
            while started && status == nil { condition.wait() }
        }
    }

    /// The exit status, or the signal that ended the child.
    public var terminationStatus: Int32 {
        guard let status = condition.withLock({ status }) else { return 0 }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Whether the child exited or was killed by a signal.
    public var terminationReason: Process.TerminationReason {
        guard let status = condition.withLock({ status }) else { return .exit }
        return status & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    /// Sends SIGTERM.
    public func terminate() {
        signal(SIGTERM)
    }

    /// Sends `signal` to the child if it has not been reaped yet; returns whether it was sent. Never reaches another
    /// process: the pid is the child's until it is reaped, and reaping waits for this lock.
    @discardableResult
    public func signal(_ signal: Int32) -> Bool {
        condition.withLock {
            guard started, status == nil, processIdentifier > 0 else { return false }
            return kill(processIdentifier, signal) == 0
        }
    }

    private static func withCStrings<T>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> T
    ) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    private static func withOptionalCStrings<T>(
        _ strings: [String]?, _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> T
    ) -> T {
        guard let strings else { return body(nil) }
        return withCStrings(strings, body)
    }
}
