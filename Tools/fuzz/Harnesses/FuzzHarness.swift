import Foundation

/// One fuzz target: a name for the command line and a function taking arbitrary bytes. A harness never traps on bad
/// input; anything the code under test does wrong (a trap, a sanitizer report, a hang) is the finding.
struct FuzzHarness: Sendable {
    /// The name `make fuzz` and the corpus folder use (`Tools/fuzz/corpus/<name>`).
    let name: String
    /// Runs one input.
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
}

/// Every harness, in the order `make fuzz` runs them.
enum FuzzHarnesses {
    static let all: [FuzzHarness] = [
        FuzzHarness(name: "json", run: JSONHarness.run),
        FuzzHarness(name: "paths", run: PathsHarness.run),
        FuzzHarness(name: "query-expressions", run: QueryExpressionHarness.run),
        FuzzHarness(name: "configuration", run: ConfigurationHarness.run),
        FuzzHarness(name: "server-bodies", run: ServerBodiesHarness.run),
        FuzzHarness(name: "sync-wire", run: SyncWireHarness.run),
        FuzzHarness(name: "plugin-wire", run: PluginWireHarness.run),
        FuzzHarness(name: "cache-http", run: CacheHTTPHarness.run),
        FuzzHarness(name: "storage-layout", run: StorageLayoutHarness.run),
        FuzzHarness(name: "firestore", run: FirestoreHarness.run),
        FuzzHarness(name: "rules", run: RulesHarness.run),
    ]
}

/// Helpers the harnesses share.
enum FuzzInput {
    /// The bytes as a string (invalid UTF-8 repaired, as a server reading a body would).
    static func text(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Lines of the input (at most `count`, the last one holding the rest).
    static func lines(_ bytes: UnsafeRawBufferPointer, _ count: Int) -> [String] {
        text(bytes).split(separator: "\n", maxSplits: count - 1, omittingEmptySubsequences: false).map(String.init)
    }

    /// A finding the harness itself detects (an invariant broken without a trap): reported as a crash.
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("fuzz invariant broken: \(message)\n".utf8))
        abort()
    }
}

/// Runs async work to completion from the fuzzer's synchronous callback.
final class Blocking<Value: Sendable>: @unchecked Sendable {
    private var value: Value?
    private let done = DispatchSemaphore(value: 0)

    static func run(_ body: @escaping @Sendable () async -> Value) -> Value {
        let box = Blocking<Value>()
        Task {
            box.value = await body()
            box.done.signal()
        }
        box.done.wait()
        guard let value = box.value else { FuzzInput.fail("async body finished without a value") }
        return value
    }
}
