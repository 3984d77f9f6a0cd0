import Foundation
import Logging
import SuiteCore
import SuiteHost
import SuitePluginKit
import SuiteTestSupport
import Synchronization
import Testing

/// An in-process observer recording every batch it receives.
final class RecordingObserver: ObserverEngine {
    let batches = Mutex<[[ObservedEvent]]>([])
    let flushes = Atomic<Int>(0)
    func receive(_ events: [ObservedEvent]) async throws { batches.withLock { $0.append(events) } }
    func flush() async throws { flushes.add(1, ordering: .relaxed) }
}

@Suite("Observers on the bus")
struct ObserverHubTests {
    @Test("an attached observer receives every event in publish order, then is flushed once at shutdown")
    func deliversInOrder() async throws {
        let bus = EventBus()
        let observer = RecordingObserver()
        let hub = ObserverHub(
            bus: bus, engines: [("recording", observer)], logger: Logger(label: "test"))
        for i in 0..<500 { bus.publish(GenericEvent(name: "e.\(i)")) }
        try await hub.shutdown()
        let names = observer.batches.withLock { $0.flatMap { $0.map(\.name) } }
        #expect(names == (0..<500).map { "e.\($0)" })
        #expect(observer.flushes.load(ordering: .relaxed) == 1)
        #expect(bus.subscriberCount == 0)
    }

    @Test("a full observer queue drops and reports the loss at shutdown instead of hiding it")
    func reportsDrops() async throws {
        let bus = EventBus()
        let observer = RecordingObserver()
        let hub = ObserverHub(
            bus: bus, engines: [("recording", observer)], capacity: 1,
            logger: Logger(label: "test"))
        for i in 0..<1000 { bus.publish(GenericEvent(name: "e.\(i)")) }
        let delivered = { observer.batches.withLock { $0.reduce(0) { $0 + $1.count } } }
        await #expect(throws: SuiteError.self) { try await hub.shutdown() }
        #expect(hub.droppedCount > 0)
        #expect(delivered() + hub.droppedCount == 1000)
    }

    @Test("the context attaches plugin observers named in the configuration and refuses unknown engines")
    func contextAttachesPlugins() async throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        var configuration = SuiteConfiguration(dataDirectory: directory.path)
        configuration.plugins = ["CTally"]
        let selections = [EngineSelection(engine: "ctally", options: ["path": .string(directory.path + "/n.txt")])]
        let context = SuiteContext(
            configuration: configuration, modules: [], logger: Logger(label: "test"),
            executableDirectory: TestSupport.binDirectory.path)
        let hub = try context.attachObservers(selections)
        context.bus.publish(GenericEvent(name: "demo.one"))
        context.bus.publish(GenericEvent(name: "demo.two"))
        try await hub.shutdown()
        #expect(try String(contentsOfFile: directory.path + "/n.txt", encoding: .utf8) == "demo.one\ndemo.two\n")

        let other = SuiteContext(
            configuration: configuration, modules: [], logger: Logger(label: "test"),
            executableDirectory: TestSupport.binDirectory.path)
        #expect(throws: PluginError.self) { try other.attachObservers([EngineSelection(engine: "nosuch")]) }
    }

    @Test("a text table aligns columns")
    func table() {
        var table = TextTable(["A", "NUMBER"], alignments: [.left, .right])
        table.append(["long name", "1"])
        table.append(["x", "1234"])
        #expect(table.render() == "A          NUMBER\nlong name       1\nx            1234")
    }
}
