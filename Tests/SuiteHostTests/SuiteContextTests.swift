import Foundation
import Logging
import SuiteCore
import SuiteHost
import SuiteTestSupport
import Synchronization
import Testing

/// The context every command runs in, tested directly rather than through the binary: its resources (opened once,
/// closed newest first), its status of every registered module, its files and its module lookup.
@Suite("The context")
struct SuiteContextTests {
    static func context(_ sections: [String: JSONValue] = [:]) throws -> SuiteContext {
        var configuration = SuiteConfiguration(dataDirectory: try TestSupport.makeTemporaryDirectory().path)
        for (key, value) in sections {
            configuration.sections[key] = ConfigurationSection(key: key, value: value, source: .defaultValue)
        }
        return SuiteContext(configuration: configuration, modules: SuiteModules.all, logger: Logger(label: "test"))
    }

    struct Failure: Error, Equatable { let name: String }

    /// A counter the opening closures share.
    final class Counter: Sendable {
        private let value = Atomic(0)
        func next() -> Int { value.add(1, ordering: .relaxed).newValue }
        var count: Int { value.load(ordering: .relaxed) }
    }

    @Test("concurrent users of a resource share one opening, and a failed opening is tried again by the next user")
    func resourcesOpenOnce() async throws {
        let resources = try Self.context().resources
        let openings = Counter()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await resources.open("store") {
                        (openings.next(), {})
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(openings.count == 1)
        #expect(Set(values) == [1])

        let attempts = Counter()
        await #expect(throws: Failure(name: "first")) {
            let _: Int = try await resources.open("flaky") {
                _ = attempts.next()
                throw Failure(name: "first")
            }
        }
        let second: Int = try await resources.open("flaky") { (attempts.next(), {}) }
        #expect(second == 2)
        #expect(await resources.openNames == ["store", "flaky"])
    }

    @Test("a resource asked for with another type than it was opened with is an error, not a crash")
    func resourceTypeMismatch() async throws {
        let resources = try Self.context().resources
        let _: Int = try await resources.open("n") { (1, {}) }
        await #expect(throws: (any Error).self) {
            let _: String = try await resources.open("n") { ("one", {}) }
        }
    }

    @Test("closing closes every resource newest first, goes on past a failure, then throws the first failure")
    func closeAllInReverse() async throws {
        let resources = try Self.context().resources
        let closed = Mutex<[String]>([])
        for name in ["a", "b", "c", "d"] {
            let _: String = try await resources.open(name) {
                (
                    name,
                    {
                        closed.withLock { $0.append(name) }
                        if name == "c" || name == "b" { throw Failure(name: name) }
                    }
                )
            }
        }
        await #expect(throws: Failure(name: "c")) { try await resources.closeAll() }
        #expect(closed.withLock { $0 } == ["d", "c", "b", "a"])
        #expect(await resources.openNames.isEmpty)
        try await resources.closeAll()  // twice is harmless
    }

    @Test("the status lists every registered module, healthy on the embedded defaults, in text and in JSON")
    func statusOfEveryModule() async throws {
        let context = try Self.context()
        let report = await StatusReport(context: context)
        #expect(report.modules.map(\.name) == SuiteModules.all.map(\.name))
        for module in report.modules {
            #expect(module.status.isHealthy, "\(module.name): \(module.status.health)")
            #expect(!module.status.engine.isEmpty, "\(module.name)")
        }
        #expect(report.isHealthy)
        #expect(report.dataDirectory == context.configuration.dataDirectory)
        let json = report.json
        #expect(json["modules"]?.arrayValue?.count == SuiteModules.all.count)
        #expect(json["healthy"] == true)
        let text = report.render()
        for module in SuiteModules.all { #expect(text.contains(module.name), "\(module.name)") }
    }

    @Test("an unknown engine makes its module's status unhealthy with a did-you-mean; the other modules stay healthy")
    func aBadSectionIsShownNotThrown() async throws {
        let context = try Self.context(["cache": ["engine": "sqlit"]])
        let report = await StatusReport(context: context)
        let cache = try #require(report.modules.first { $0.name == CacheModule().name })
        #expect(!cache.status.isHealthy)
        #expect(cache.status.health.contains("did you mean 'sqlite'?"), "\(cache.status.health)")
        let others = report.modules.filter { $0.name != cache.name }
        #expect(others.count == SuiteModules.all.count - 1 && others.allSatisfy(\.status.isHealthy))
        #expect(!report.isHealthy)
        // An engine name no built-in has may come from a plugin: the settings take it, making it fails with a hint.
        let engine = try context.settings(of: CacheModule.self).engine
        let error = await #expect(throws: PluginError.self) { _ = try await engine.make(in: context) }
        #expect(
            error?.code == .engineNotFound && error?.hint == "did you mean 'sqlite'?", "\(String(describing: error))")
    }

    @Test("file options: an absolute path is kept, a relative one and the default live in the data directory")
    func dataFiles() throws {
        let context = try Self.context()
        let data = context.configuration.dataDirectory
        #expect(context.dataFile("/var/x.sqlite", default: "d.sqlite") == "/var/x.sqlite")
        #expect(context.dataFile("sub/x.sqlite", default: "d.sqlite") == data + "/sub/x.sqlite")
        #expect(context.dataFile(nil, default: "d.sqlite") == data + "/d.sqlite")
        try context.ensureDataDirectory()
        #expect(FileManager.default.fileExists(atPath: data))
    }

    @Test("a data directory that cannot be made is a typed error with a hint")
    func dataDirectoryThatCannotBeMade() throws {
        let file = TestSupport.temporaryFile("not-a-directory")
        try Data().write(to: URL(fileURLWithPath: file))
        let context = SuiteContext(
            configuration: SuiteConfiguration(dataDirectory: file + "/data"), modules: SuiteModules.all,
            logger: Logger(label: "test"))
        let error = try #require(throws: SuiteError.self) { try context.ensureDataDirectory() }
        #expect(error.code == .io && error.hint?.contains("--data-dir") == true)
    }

    @Test("the module lookup finds the registered instance, and a default one for a module not registered")
    func moduleLookup() throws {
        let context = SuiteContext(
            configuration: SuiteConfiguration(dataDirectory: try TestSupport.makeTemporaryDirectory().path),
            modules: [WorkModule()], logger: Logger(label: "test"))
        #expect(context.modules.count == 1)
        #expect(context.module(WorkModule.self).name == WorkModule().name)
        // Not registered: every default, so a command can still read its (default) settings.
        #expect(try context.settings(of: CacheModule.self).engine.name == "sqlite")
    }
}
