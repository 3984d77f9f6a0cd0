// swift-format-ignore-file
// The root README's Swift snippets, verbatim (the formatter would rewrap them), compiled so they cannot drift.
// `readmeSnippetsAreCompiled` (ReadmeSnippetCheck.swift) checks that every README block appears here, line by line.
import Documents
import DocumentsPluginSupport
import Logging  // for the log levels of the host services
import SuiteCore
public import SuitePluginKit
import Synchronization
import Testing

// MARK: - Writing a plugin

let plugin = PluginExport(name: "MyPlugin", version: "1.0.0", engines: [
    .observer("myobserver") { options in try MyObserver(options: options) },
    // The two-argument form also gets the host's services: log and publish events on the bus.
    .documents("mydocuments") { options, host in
        host.log(.info, "opening \(options)")
        return try MyDocumentEngine(options: options)
    },
])

@_cdecl("suite_plugin_v1")
public func suitePluginV1() -> UnsafeRawPointer { plugin.descriptor }

// MARK: - A kind without an engine protocol

// The kind: a name, and one Codable type per operation (JSON on the wire, nothing else to write).
public enum CounterKind: PluginEngineKind {
    public static let name = "counter"

    public struct Add: PluginOperation, Codable, Hashable {
        public typealias Kind = CounterKind
        public typealias Response = Total.Response
        public static let operationName = "add"
        public var amount: Int
    }
    // Total, Echo: the same shape.
}

// The plugin: one handler per operation. A thrown PluginFailure reaches the host with its code, message and hint.
let counterPlugin = PluginExport(name: "CounterPlugin", version: "1.0.0", engines: [
    .engine(CounterKind.self, "counter") { options, host in
        let total = Mutex(0)
        return PluginRequestHandler<CounterKind>()
            .on(CounterKind.Add.self) { add in
                guard add.amount >= 0 else {
                    throw PluginFailure(code: "negativeAmount", "cannot add \(add.amount)", hint: "add a positive amount")
                }
                let now = total.withLock { $0 += add.amount; return $0 }
                host.publish("counter.changed", ["total": .int(Int64(now))])
                return .init(total: now)
            }
            .on(CounterKind.Total.self) { _ in .init(total: total.withLock { $0 }) }
    }
])

/// The README's host calls, compiled, not run (they need a loaded plugin).
func counterHost(loaded: LoadedPlugin) async throws -> Int {
    // The host: typed calls, each with a deadline.
    let counter = try PluginEngine<CounterKind>(plugin: loaded, name: "counter", callTimeout: .seconds(5))
    let total = try await counter.send(CounterKind.Add(amount: 2)).total
    return total
}

// MARK: - What the snippets leave out

/// The README's observer engine: any `ObserverEngine` made from options.
struct MyObserver: ObserverEngine {
    init(options: JSONValue) throws {}
    func receive(_ events: [ObservedEvent]) async throws {}
    func flush() async throws {}
}

/// The README's documents engine: any `DocumentEngine` made from options.
typealias MyDocumentEngine = InMemoryDocumentEngine

extension InMemoryDocumentEngine {
    convenience init(options: JSONValue) throws { self.init() }
}

extension CounterKind {
    /// The README's "Total: the same shape".
    public struct Total: PluginOperation, Codable, Hashable {
        public typealias Kind = CounterKind
        public static let operationName = "total"

        public struct Response: Codable, Sendable, Hashable {
            public var total: Int
        }
    }
}

@Test("the root README's plugin export describes its engines")
func rootReadmePluginExport() {
    #expect(plugin.descriptor == suitePluginV1())
    _ = counterPlugin
}
