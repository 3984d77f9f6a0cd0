import Foundation
import SuiteTestSupport

/// `suite-bench startup`: quick `suite` commands as whole processes beside the floor, a Swift hello world that imports
/// Foundation, compiled in the same run by the same toolchain with `swiftc -O` and linked as `suite` is (the standard
/// library static or shared, read from `suite`'s own dynamic section).
///
/// Each command and the floor run alternately, so both see the same machine; each figure is the median of the runs
/// after a few warm-ups.
enum StartupBenchmarks {
    static func run(scale: Double) async throws -> [BenchResult] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bench-startup-\(getpid())")
        AnalyticsBenchmarks.removeDirectory(directory.path)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { AnalyticsBenchmarks.removeDirectory(directory.path) }
        let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        let suite = binDirectory.appendingPathComponent("suite").path
        let staticStdlib = try !linksSharedStandardLibrary(suite)
        let hello = try buildHelloWorld(in: directory, staticStdlib: staticStdlib)
        let environment = [
            "HOME": directory.path, "TZ": "UTC", "PATH": "/usr/bin:/bin",
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
            "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
        ]
        let runs = max(11, Int(41 * scale))
        // A document to read, and a day with work in it.
        _ = try WholeProcess.seconds(suite, ["docs", "set", "users/ana", #"{"name":"Ana","points":12}"#], environment)
        _ = try WholeProcess.seconds(suite, ["work", "start", "--user", "ana"], environment)
        let how = staticStdlib ? "swiftc -O -static-stdlib, as suite is linked" : "swiftc -O, as suite is linked"
        var results: [BenchResult] = []
        for (name, arguments) in [
            ("suite --version", ["--version"]),
            ("suite docs get users/ana", ["docs", "get", "users/ana"]),
            ("suite work today", ["work", "today", "--user", "ana"]),
        ] {
            var ours: [Double] = []
            var floor: [Double] = []
            for run in 0..<(runs + 3) {
                let command = try WholeProcess.seconds(suite, arguments, environment)
                let base = try WholeProcess.seconds(hello, [], environment)
                if run >= 3 {
                    ours.append(command)
                    floor.append(base)
                }
            }
            let oursMedian = median(ours)
            let floorMedian = median(floor)
            results.append(
                BenchResult(
                    name: "\(name), whole process (\(String(format: "%.1f", oursMedian * 1000)) ms, median of \(runs))",
                    ours: 1 / oursMedian, peer: 1 / floorMedian,
                    peerName:
                        "the floor: a Foundation hello world, \(how) (\(String(format: "%.1f", floorMedian * 1000)) ms)",
                    unit: "op/s", target: "≥ 0.5"))
        }
        return results
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// Whether `binary` loads the Swift standard library as a shared library (`ldd` lists libswiftCore.so).
    static func linksSharedStandardLibrary(_ binary: String) throws -> Bool {
        try SyncBenchmarks.output("/usr/bin/ldd", [binary]).contains("libswiftCore.so")
    }

    /// A hello world importing Foundation, compiled by the `swiftc` on PATH (the toolchain `make bench` builds with).
    static func buildHelloWorld(in directory: URL, staticStdlib: Bool) throws -> String {
        let source = directory.appendingPathComponent("hello.swift")
        try "import Foundation\nprint(\"hello, \\(ProcessInfo.processInfo.arguments.count) argument(s)\")\n"
            .write(to: source, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent("hello").path
        guard let swiftc = executableOnPath("swiftc") else {
            throw AnalyticsBenchmarks.BenchFailure("swiftc is not on PATH; the floor cannot be built")
        }
        _ = try SyncBenchmarks.output(
            swiftc, ["-O"] + (staticStdlib ? ["-static-stdlib"] : []) + [source.path, "-o", output])
        return output
    }

    static func executableOnPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// One run of a process as a user runs it, timed from spawn to exit.
enum WholeProcess {
    /// Seconds one run of `executable` takes, its output discarded; a failed run is an error. `environment` nil keeps
    /// this process's.
    static func seconds(
        _ executable: String, _ arguments: [String], _ environment: [String: String]? = nil
    ) throws -> Double {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = AnalyticsBenchmarks.seconds(ContinuousClock.now - start)
        guard process.terminationStatus == 0 else {
            throw AnalyticsBenchmarks.BenchFailure("\(executable) \(arguments.joined(separator: " ")) failed")
        }
        return elapsed
    }
}
