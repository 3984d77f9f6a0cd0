import Foundation
import Logging
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Testing

/// The SuitePluginKit README's host example, compiled and run (with the test's directories), so it cannot drift.
@Test("the SuitePluginKit README's host example runs as written")
func pluginKitReadmeExample() async throws {
    let file = try TestSupport.makeTemporaryDirectory().appendingPathComponent("events.jsonl")
    let bus = EventBus()
    let logger = Logger(label: "readme", factory: { _ in SwiftLogNoOpLogHandler() })

    let plugin = try PluginLoader(searchDirectories: [TestSupport.binDirectory.path]).load("EventLog")
    let observer = PluginObserverEngine(
        handle: try plugin.makeEngine(
            kind: "observer", name: "eventlog", options: ["path": .string(file.path)],
            services: .logging(
                to: logger, publish: { name, payload in bus.publish(GenericEvent(name: name, payload: payload)) }),
            callTimeout: .seconds(30), logger: logger))
    try await observer.receive([ObservedEvent(name: "demo.hello", payloadJSON: "{}", time: Date())])
    try await observer.flush()

    let line = try JSONValue(parsing: try String(contentsOf: file, encoding: .utf8))
    #expect(line["name"] == "demo.hello")
}
