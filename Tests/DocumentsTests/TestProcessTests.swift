import Foundation
import SuiteTestSupport
import Testing

/// `TestProcess`, which the tests and benchmarks start their child processes with instead of Foundation's `Process`.
@Suite("TestProcess (posix_spawn for the tests' children)")
struct TestProcessTests {
    static func shell(_ script: String) -> TestProcess {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        return process
    }

    @Test func outputErrorAndExitStatusComeBack() throws {
        let process = Self.shell("read line; echo \"out $line\"; echo err >&2; exit 3")
        let (input, output, error) = (Pipe(), Pipe(), Pipe())
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, error)
        try process.run()
        input.fileHandleForWriting.write(Data("hello\n".utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text == "out hello\n")
        #expect(errors == "err\n")
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 3 && process.terminationReason == .exit)
    }

    @Test func theDirectoryAndEnvironmentAreTheChildsAndNoOtherDescriptorIsInherited() throws {
        let directory = try TestSupport.makeTemporaryDirectory("test-process")
        let held = Pipe()  // open here, without close-on-exec: the child must not get it
        defer { try? held.fileHandleForWriting.close() }
        let process = Self.shell("pwd; echo \"$GREETING\"; ls /proc/self/fd")
        process.currentDirectoryURL = directory
        process.environment = ["GREETING": "hi", "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        process.waitUntilExit()
        #expect(lines.first == directory.resolvingSymlinksInPath().path)
        #expect(lines.dropFirst().first == "hi")
        // `ls` lists 0, 1 and 2 and its own directory handle (3): nothing of this process's came along.
        #expect(Array(lines.dropFirst(2)) == ["0", "1", "2", "3"])
    }

    @Test func terminateEndsTheChildBySignalAndTheHandlerRuns() async throws {
        let process = Self.shell("exec sleep 30")
        let (ended, signal) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { signal.yield($0.terminationStatus) }
        try process.run()
        #expect(process.isRunning && process.processIdentifier > 0)
        process.terminate()
        var statuses = ended.makeAsyncIterator()
        #expect(await statuses.next() == SIGTERM)
        #expect(process.terminationReason == .uncaughtSignal)
    }

    @Test func aMissingExecutableIsAnErrorNamingIt() {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/nonexistent/tool")
        #expect(throws: TestProcess.Failure.self) { try process.run() }
        #expect(!process.isRunning)
    }
}
