import Cache
import Foundation
import Logging
import SuiteCore
import SuiteHost
import SuitePluginKit
import SuiteTestSupport
import Synchronization
import Testing

/// What the `tally` engine saw: how often its options were decoded, how often it was made and closed.
final class TallyLedger: Sendable {
    let decoded = Atomic(0)
    let made = Atomic(0)
    let closed = Atomic(0)
}

/// A cache store registered by this test module, outside SuiteHost: an in-memory store of `capacity` bytes that
/// counts what the host does with it.
struct TallyCacheStoreDescription: EngineDescription {
    let ledger: TallyLedger

    var name: String { "tally" }
    var optionKeys: [String] { ["capacity"] }

    func options(_ options: EngineOptions) throws -> Int {
        ledger.decoded.add(1, ordering: .relaxed)
        return try options.integer("capacity", in: 1...1 << 30, hint: "a number of bytes") ?? 1 << 20
    }

    func make(_ capacity: Int, in context: SuiteContext) async throws -> any CacheStore {
        ledger.made.add(1, ordering: .relaxed)
        return try InMemoryCacheStore(byteLimit: capacity)
    }

    func status(_ capacity: Int, in context: SuiteContext) async -> ModuleStatus {
        ModuleStatus(engine: name, location: "tally of \(capacity) bytes")
    }

    func close(_ engine: any CacheStore) async throws {
        ledger.closed.add(1, ordering: .relaxed)
    }
}

/// A module, an engine and the context, registered from outside SuiteHost: the one path every built-in engine and
/// module takes.
@Suite("Registering engines and modules")
struct EngineRegistrationTests {
    /// Every module `suite` registers, with the tally store added to the Cache module, and the Greeting module.
    static func modules(_ ledger: TallyLedger) -> [any SuiteModule] {
        SuiteModules.all.map { module in
            guard module is CacheModule else { return module }
            return CacheModule(engines: CacheModule().engines.adding(TallyCacheStoreDescription(ledger: ledger)))
        } + [GreetingModule()]
    }

    func load(_ yaml: String, environment: [String: String] = [:], ledger: TallyLedger) throws -> (
        SuiteConfiguration, ModuleSettings
    ) {
        let directory = try TestSupport.makeTemporaryDirectory()
        try yaml.write(to: directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
        var env = ["HOME": directory.path, "XDG_CONFIG_HOME": directory.appendingPathComponent("xdg").path]
        env.merge(environment) { _, new in new }
        let loader = ConfigurationLoader(
            modules: Self.modules(ledger), environment: env, currentDirectory: directory.path)
        return try loader.loadSettings(.init(dataDirectory: directory.appendingPathComponent("data").path))
    }

    @Test("an engine added from outside SuiteHost is decoded once, made, listed in the status and closed")
    func anAddedEngineTakesTheHostsPath() async throws {
        let ledger = TallyLedger()
        let (configuration, settings) = try load(
            """
            cache:
              engine: tally
              options: {capacity: 4096}
            greeting: {text: hi}
            """, ledger: ledger)
        #expect(ledger.decoded.load(ordering: .relaxed) == 1)
        let context = SuiteContext(
            configuration: configuration, modules: Self.modules(ledger), settings: settings,
            logger: Logger(label: "test"))
        let cache = try await context.dataCache()
        try await cache.set("value", forKey: "k")
        #expect(await cache.value(String.self, forKey: "k") == "value")
        #expect(try await cache.store.statistics().engine == "memory")
        #expect(ledger.made.load(ordering: .relaxed) == 1)

        let report = await StatusReport(context: context)
        let lines = Dictionary(uniqueKeysWithValues: report.modules.map { ($0.name, $0.status) })
        #expect(lines["Cache"]?.engine == "tally")
        #expect(lines["Cache"]?.location == "tally of 4096 bytes")
        #expect(lines["Greeting"]?.location == "hi")
        #expect(report.modules.map(\.name).first == "Documents")

        try await context.resources.closeAll()
        #expect(ledger.closed.load(ordering: .relaxed) == 1)
        #expect(ledger.made.load(ordering: .relaxed) == 1)
        // Settings came from the loader: nothing decoded the section again.
        #expect(ledger.decoded.load(ordering: .relaxed) == 1)
    }

    @Test("a context built without the loader's settings decodes each section once, on first use")
    func aContextDecodesOnFirstUseOnce() throws {
        let ledger = TallyLedger()
        var configuration = SuiteConfiguration(dataDirectory: try TestSupport.makeTemporaryDirectory().path)
        configuration.sections["cache"] = ConfigurationSection(
            key: "cache", value: ["engine": "tally", "options": ["capacity": 64]], source: .defaultValue)
        let context = SuiteContext(
            configuration: configuration, modules: Self.modules(ledger), logger: Logger(label: "test"))
        #expect(ledger.decoded.load(ordering: .relaxed) == 0)
        #expect(try context.settings(of: CacheModule.self).engine.name == "tally")
        #expect(try context.settings(of: CacheModule.self).engine.options["capacity"] == 64)
        #expect(ledger.decoded.load(ordering: .relaxed) == 1)
    }

    @Test("a misspelled option of an added engine names the key, the file, the line and the closest key")
    func misspelledOptionOfAnAddedEngine() throws {
        let ledger = TallyLedger()
        let error = try #require(
            throws: SuiteError.self,
            performing: {
                try load(
                    """
                    cache:
                      engine: tally
                      options: {capasity: 4096}
                    """, ledger: ledger)
            })
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("'cache.options.capasity'"), "\(error.message)")
        #expect(error.message.contains("suite.yaml (line 3)"), "\(error.message)")
        #expect(error.hint?.contains("did you mean 'capacity'?") == true, "\(String(describing: error.hint))")
    }

    @Test("a bad value of an added engine's option is an error at that key, with the engine's hint")
    func badValueOfAnAddedEngine() throws {
        let ledger = TallyLedger()
        let error = try #require(
            throws: SuiteError.self,
            performing: {
                try load("cache: {engine: tally, options: {capacity: -1}}", ledger: ledger)
            })
        #expect(error.message.contains("'cache.options.capacity'"), "\(error.message)")
        #expect(error.message.contains("must be a whole number from 1"), "\(error.message)")
        #expect(error.hint == "a number of bytes")
    }

    @Test("SUITE_CACHE_ENGINE picks an added engine, and an unknown one is named with the engines there are")
    func environmentPicksAnAddedEngine() async throws {
        let ledger = TallyLedger()
        let (configuration, settings) = try load("", environment: ["SUITE_CACHE_ENGINE": "tally"], ledger: ledger)
        let context = SuiteContext(
            configuration: configuration, modules: Self.modules(ledger), settings: settings,
            logger: Logger(label: "test"))
        #expect(try context.settings(of: CacheModule.self).engine.name == "tally")

        let (unknownConfiguration, unknownSettings) = try load(
            "", environment: ["SUITE_CACHE_ENGINE": "taly"], ledger: ledger)
        let unknown = SuiteContext(
            configuration: unknownConfiguration, modules: Self.modules(ledger), settings: unknownSettings,
            logger: Logger(label: "test"))
        let error = await #expect(throws: PluginError.self) { try await unknown.dataCache() }
        #expect(error?.message.contains("sqlite, memory, tally") == true, "\(String(describing: error?.message))")
        #expect(error?.hint == "did you mean 'tally'?")
    }

    @Test("a module registered with no command of its own is checked at load and shown in the status")
    func aModuleWithoutCommands() async throws {
        let ledger = TallyLedger()
        let error = try #require(
            throws: SuiteError.self, performing: { try load("greeting: {text: 3}", ledger: ledger) })
        #expect(error.message.contains("'greeting.text'"), "\(error.message)")
        let misspelled = try #require(
            throws: SuiteError.self, performing: { try load("greting: {text: hi}", ledger: ledger) })
        #expect(misspelled.hint?.contains("'greeting'") == true, "\(String(describing: misspelled.hint))")
    }
}
