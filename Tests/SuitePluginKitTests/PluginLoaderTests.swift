import Foundation
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Testing

@Suite("Plugin loading")
struct PluginLoaderTests {
    @Test("the Swift plugin EventLog loads and describes its observer engine")
    func loadsEventLog() throws {
        let plugin = try PluginLoader.load(path: TestSupport.plugin("EventLog"))
        #expect(plugin.name == "EventLog")
        #expect(plugin.abiVersion == LoadedPlugin.supportedABIVersion)
        #expect(plugin.engines == [PluginEngineInfo(kind: "observer", name: "eventlog")])
    }

    @Test("the C plugin CTally loads and describes its observer engine")
    func loadsCTally() throws {
        let plugin = try PluginLoader.load(path: TestSupport.plugin("CTally"))
        #expect(plugin.name == "CTally")
        #expect(plugin.engines == [PluginEngineInfo(kind: "observer", name: "ctally")])
    }

    @Test("a name resolves to libNAME.so in the first search directory holding it")
    func resolvesNames() throws {
        let empty = try TestSupport.makeTemporaryDirectory()
        let loader = PluginLoader(searchDirectories: [empty.path, TestSupport.binDirectory.path])
        #expect(try loader.resolve("CTally") == TestSupport.binDirectory.appendingPathComponent("libCTally.so").path)
        #expect(throws: PluginError.self) { try PluginLoader(searchDirectories: [empty.path]).resolve("CTally") }
    }

    @Test("a plugin reporting ABI version 999 is refused, naming the file and both versions")
    func refusesOtherABI() {
        let path = TestSupport.plugin("BadABI")
        #expect {
            try PluginLoader.load(path: path)
        } throws: { error in
            guard let error = error as? PluginError else { return false }
            return error.code == .abiMismatch && error.message.contains(path) && error.message.contains("999")
        }
    }

    @Test("a missing file, a text file and a library without the entry symbol are each refused with their reason")
    func refusesNonPlugins() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        let text = directory.appendingPathComponent("libText.so")
        try "not a library".write(to: text, atomically: true, encoding: .utf8)
        let cases: [(String, PluginError.Code)] = [
            (directory.appendingPathComponent("libMissing.so").path, .notFound),
            (text.path, .loadFailed),
            ("/usr/lib/x86_64-linux-gnu/libsqlite3.so.0", .missingEntrySymbol),
        ]
        for (path, code) in cases {
            #expect {
                try PluginLoader(searchDirectories: []).load(path)
            } throws: { error in
                guard let error = error as? PluginError else { return false }
                return error.code == code && error.message.contains(path)
            }
        }
    }

    @Test("engine creation failing carries the plugin's own message")
    func creationFailureMessage() throws {
        let plugin = try PluginLoader.load(path: TestSupport.plugin("CTally"))
        #expect {
            try plugin.makeEngine(kind: "observer", name: "ctally", options: [:])
        } throws: { error in
            guard let error = error as? PluginError else { return false }
            return error.code == .engineCreationFailed && error.message.contains("needs a 'path' option")
        }
        #expect(throws: PluginError.self) { try plugin.makeEngine(kind: "observer", name: "nope", options: [:]) }
    }
}

@Suite("Observer engines through the C ABI")
struct PluginObserverTests {
    func events(_ names: [String]) -> [ObservedEvent] {
        names.enumerated().map { i, name in
            ObservedEvent(name: name, payloadJSON: #"{"i":\#(i)}"#, time: Date(timeIntervalSince1970: 1_700_000_000))
        }
    }

    @Test("EventLog appends one JSON line per event, single and batched, in order")
    func eventLogThroughABI() async throws {
        let file = try TestSupport.makeTemporaryDirectory().appendingPathComponent("events.jsonl")
        let plugin = try PluginLoader.load(path: TestSupport.plugin("EventLog"))
        let engine = PluginObserverEngine(
            handle: try plugin.makeEngine(kind: "observer", name: "eventlog", options: ["path": .string(file.path)]))
        try await engine.receive(events(["a.one"]))
        try await engine.receive(events(["b.two", "c.three", "d.four"]))
        try await engine.flush()
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        let parsed = try lines.map { try JSONValue(parsing: $0) }
        #expect(parsed.map { $0["name"]?.stringValue } == ["a.one", "b.two", "c.three", "d.four"])
        #expect(parsed[2]["payload"] == ["i": 1])
        #expect(parsed[0]["time"] == "2023-11-14T22:13:20.000Z")
    }

    @Test("CTally (plain C) appends each event name, single and batched")
    func ctallyThroughABI() async throws {
        let file = try TestSupport.makeTemporaryDirectory().appendingPathComponent("names.txt")
        let plugin = try PluginLoader.load(path: TestSupport.plugin("CTally"))
        let engine = PluginObserverEngine(
            handle: try plugin.makeEngine(kind: "observer", name: "ctally", options: ["path": .string(file.path)]))
        try await engine.receive(events(["x.one"]))
        try await engine.receive(events(["y.two", "z.three"]))
        try await engine.flush()
        #expect(try String(contentsOf: file, encoding: .utf8) == "x.one\ny.two\nz.three\n")
    }

    @Test("an unknown operation reports the plugin's status and message")
    func unsupportedOperation() async throws {
        let file = try TestSupport.makeTemporaryDirectory().appendingPathComponent("names.txt")
        let plugin = try PluginLoader.load(path: TestSupport.plugin("CTally"))
        let handle = try plugin.makeEngine(kind: "observer", name: "ctally", options: ["path": .string(file.path)])
        await #expect {
            try await handle.call("explode")
        } throws: { error in
            (error as? PluginError)?.message.contains("unsupported operation") == true
        }
    }
}
