// swift-format-ignore-file
// Modules/SuitePluginKit/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line).
// Compiled, not called: it loads a plugin from /opt/suite/plugins (SuitePluginKitTests run the same calls).
import Foundation
import Logging
import SuiteCore
import SuitePluginKit

func suitePluginKitReadme() async throws {
    let logger = Logger(label: "host")
    let bus = EventBus()
    let plugin = try PluginLoader(searchDirectories: ["/opt/suite/plugins"]).load("EventLog")
    let observer = PluginObserverEngine(
        handle: try plugin.makeEngine(
            kind: "observer", name: "eventlog", options: ["path": "events.jsonl"],
            services: .logging(
                to: logger, publish: { name, payload in bus.publish(GenericEvent(name: name, payload: payload)) }),
            callTimeout: .seconds(30), logger: logger))
    try await observer.receive([ObservedEvent(name: "demo.hello", payloadJSON: "{}", time: Date())])
    try await observer.flush()
}
