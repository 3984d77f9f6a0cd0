import Documents
import Foundation
import SuiteCore
import SuiteHost
import SuiteTestSupport
import Testing

/// The `documents` section's `query-coalescing` and `query-rate` keys.
@Suite("Documents query coalescing and rate configuration")
struct DocumentsQueryThrottlingConfigurationTests {
    func settings(_ yaml: String) throws -> DocumentsModule.Settings {
        let directory = try TestSupport.makeTemporaryDirectory()
        let file = directory.appendingPathComponent("suite.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        let loader = ConfigurationLoader(
            modules: [DocumentsModule()],
            environment: ["HOME": directory.path, "XDG_CONFIG_HOME": directory.appendingPathComponent("xdg").path],
            currentDirectory: directory.path)
        let configuration = try loader.load()
        return try DocumentsModule().settings(configuration.section("documents"), in: configuration)
    }

    @Test func theKeysSetTheStoreOptions() throws {
        let full = try settings(
            """
            documents:
              query-coalescing: {window-ms: 50}
              query-rate: {per-second: 20, burst: 40, when-limited: fail, max-wait-ms: 2000}
            """)
        #expect(full.queryCoalescing == QueryCoalescing(isEnabled: true, reuseWindow: .milliseconds(50)))
        #expect(
            full.queryRateLimit
                == QueryRateLimit(perSecond: 20, burst: 40, whenLimited: .fail, maximumWait: .seconds(2)))
        let short = try settings("documents: {query-coalescing: true, query-rate: {per-second: 2.5}}\n")
        #expect(short.queryCoalescing == .enabled)
        #expect(short.queryRateLimit == QueryRateLimit(perSecond: 2.5, burst: 3))
        let off = try settings("documents: {query-coalescing: {enabled: false, window-ms: 10}}\n")
        #expect(!off.queryCoalescing.isEnabled)
        let none = try settings("documents: {engine: memory}\n")
        #expect(none.queryCoalescing == .disabled && none.queryRateLimit == nil)
    }

    @Test(
        "bad values are errors naming the key, with a hint",
        arguments: [
            ("documents: {query-coalesing: true}\n", "unknown key 'documents.query-coalesing'", "query-coalescing"),
            ("documents: {query-coalescing: {window: 5}}\n", "documents.query-coalescing.window", "window-ms"),
            ("documents: {query-coalescing: 5}\n", "documents.query-coalescing", "window-ms"),
            ("documents: {query-coalescing: {window-ms: -1}}\n", "documents.query-coalescing.window-ms", "e.g."),
            ("documents: {query-coalescing: {enabled: maybe}}\n", "documents.query-coalescing.enabled", nil),
            ("documents: {query-rate: {burst: 4}}\n", "needs 'per-second'", "per-second"),
            ("documents: {query-rate: {per-second: 0}}\n", "documents.query-rate.per-second", "e.g."),
            ("documents: {query-rate: {per-second: fast}}\n", "documents.query-rate.per-second", "e.g."),
            ("documents: {query-rate: {per-second: 5, burst: 0}}\n", "documents.query-rate.burst", "e.g."),
            ("documents: {query-rate: {per-second: 5, bursts: 9}}\n", "documents.query-rate.bursts", "burst"),
            ("documents: {query-rate: {per-second: 5, when-limited: wiat}}\n", "when-limited", "did you mean 'wait'"),
            ("documents: {query-rate: {per-second: 5, max-wait-ms: soon}}\n", "documents.query-rate.max-wait-ms", nil),
            ("documents: {query-rate: 20}\n", "documents.query-rate", "per-second"),
        ] as [(String, String, String?)])
    func invalid(_ yaml: String, _ expected: String, _ hint: String?) throws {
        #expect {
            _ = try settings(yaml)
        } throws: { error in
            guard let error = error as? SuiteError, error.code == .invalidConfiguration else { return false }
            return error.message.contains(expected) && (hint.map { error.hint?.contains($0) == true } ?? true)
        }
    }
}
