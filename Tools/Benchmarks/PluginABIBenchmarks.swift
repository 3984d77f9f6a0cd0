import CounterKind
import Foundation
import SuiteCore
import SuitePluginABI
import SuitePluginKit

/// The cost of one call through the C ABI with the deadline machinery (an id into the table of pending calls, one
/// watchdog) beside today's mechanism without a deadline (a retained box as the completion context), on operations
/// that do nothing: the C Misbehaving plugin's `noop` and the Swift CounterPlugin's `echo`.
enum PluginABIBenchmarks {
    static func run(scale: Double) async throws -> [BenchResult] {
        let calls = max(1000, Int(200_000 * scale))
        let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().path
        let loader = PluginLoader(searchDirectories: [binDirectory])
        let needed = ["Misbehaving", "CounterPlugin"]
        let missing = needed.filter { (try? loader.resolve($0)) == nil }
        guard missing.isEmpty else {
            // `make bench` builds only EventLog in release; say what to build rather than fail every other group.
            let commands = missing.map { "swift build -c release --product \($0)" }.joined(separator: " && ")
            FileHandle.standardError.write(
                Data("plugin-abi: no rows, \(missing.joined(separator: ", ")) not built in release: \(commands)\n".utf8)
            )
            return []
        }
        let misbehaving = try loader.load("Misbehaving").makeEngine(kind: "probe", name: "misbehaving", options: [:])
        let counter = try PluginEngine<CounterKind>(plugin: try loader.load("CounterPlugin"), name: "counter")
        let echo = Array(#"{"text":"x"}"#.utf8)

        var results: [BenchResult] = []
        for (name, handle, operation, request) in [
            ("C plugin, no-op", misbehaving, "noop", [UInt8]()),
            ("Swift plugin, echo (bytes)", counter.handle, "echo", echo),
        ] {
            // Alternate ours and the peer round by round so both see the same machine load; keep each one's best.
            var ours = 0.0
            var peer = 0.0
            for _ in 0..<5 {
                ours = max(
                    ours,
                    try await bestRate(operations: calls, repeats: 1) {
                        for _ in 0..<calls { _ = try await handle.call(operation, request: request) }
                    })
                peer = max(
                    peer,
                    await bestRate(operations: calls, repeats: 1) {
                        for _ in 0..<calls { _ = await rawCall(handle, operation, request) }
                    })
            }
            results.append(
                BenchResult(
                    name: "call with deadline, \(name)", ours: ours, peer: peer,
                    peerName: "raw call, retained-box completion, no deadline", unit: "calls/s"))
        }
        var typed = 0.0
        var bytes = 0.0
        for _ in 0..<5 {
            typed = max(
                typed,
                try await bestRate(operations: calls, repeats: 1) {
                    for _ in 0..<calls { _ = try await counter.send(CounterKind.Echo(text: "x")) }
                })
            bytes = max(
                bytes,
                try await bestRate(operations: calls, repeats: 1) {
                    for _ in 0..<calls { _ = try await counter.handle.call("echo", request: echo) }
                })
        }
        results.append(
            BenchResult(
                name: "typed send (Codable JSON), Swift plugin, echo", ours: typed, peer: bytes,
                peerName: "the same call with ready-made bytes", unit: "calls/s"))
        return results
    }

    /// Today's mechanism, kept here as the baseline: the completion context is a retained box holding the
    /// continuation; no deadline, no table.
    static func rawCall(_ handle: PluginEngineHandle, _ operation: String, _ request: [UInt8]) async -> (
        Int32, [UInt8]
    ) {
        let (engine, call) = handle.rawEngine
        return await withCheckedContinuation { continuation in
            let box = Unmanaged.passRetained(RawCallBox(continuation)).toOpaque()
            request.withUnsafeBufferPointer { buffer in
                call(engine, operation, buffer.baseAddress, buffer.count, box, rawCompletion)
            }
        }
    }
}

private final class RawCallBox {
    let continuation: CheckedContinuation<(Int32, [UInt8]), Never>
    init(_ continuation: CheckedContinuation<(Int32, [UInt8]), Never>) { self.continuation = continuation }
}

private let rawCompletion: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<UInt8>?, Int) -> Void = {
    context, status, response, length in
    guard let context else { return }
    let box = Unmanaged<RawCallBox>.fromOpaque(context).takeRetainedValue()
    let bytes = response.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
    box.continuation.resume(returning: (status, bytes))
}
