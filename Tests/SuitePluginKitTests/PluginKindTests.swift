import CounterKind
import Foundation
import Logging
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Testing

/// An operation of the counter kind that CounterPlugin does not serve.
struct Reset: PluginOperation, Codable {
    typealias Kind = CounterKind
    typealias Response = CounterKind.Total.Response
    static let operationName = "reset"
}

@Suite("A new engine kind (the test-only counter kind) through the real loader")
struct PluginKindTests {
    func counter(
        _ options: JSONValue = [:], services: PluginHostServices = .discarding
    ) throws -> PluginEngine<CounterKind> {
        let plugin = try PluginLoader.load(path: TestSupport.plugin("CounterPlugin"))
        return try PluginEngine<CounterKind>(plugin: plugin, name: "counter", options: options, services: services)
    }

    @Test("typed requests get typed responses: add, total and echo")
    func typedCalls() async throws {
        let engine = try counter(["start": 10])
        #expect(try await engine.send(CounterKind.Add(amount: 5)).total == 15)
        #expect(try await engine.send(CounterKind.Add(amount: 0)).total == 15)
        #expect(try await engine.send(CounterKind.Total()).total == 15)
        let text = "ü \"quoted\" \\ 🎉"
        #expect(try await engine.send(CounterKind.Echo(text: text)) == CounterKind.Echo(text: text))
    }

    @Test("the plugin lists its engine under the new kind's name")
    func describesKind() throws {
        let plugin = try PluginLoader.load(path: TestSupport.plugin("CounterPlugin"))
        #expect(plugin.engines == [PluginEngineInfo(kind: "counter", name: "counter")])
        #expect(plugin.descriptorSize == LoadedPlugin.descriptorSizeV1_1)
        #expect(plugin.acceptsHostServices)
    }

    @Test("an error thrown in the plugin crosses as its failure envelope: code, message and hint")
    func failureEnvelope() async throws {
        let engine = try counter()
        await #expect(throws: PluginFailure(code: "negativeAmount", "cannot add -3", hint: "add a positive amount")) {
            _ = try await engine.send(CounterKind.Add(amount: -3))
        }
        #expect(try await engine.send(CounterKind.Total()).total == 0)
    }

    @Test("an operation the plugin does not serve fails the call with status UNSUPPORTED")
    func unservedOperation() async throws {
        let engine = try counter()
        await #expect {
            _ = try await engine.send(Reset())
        } throws: { error in
            guard let error = error as? PluginError else { return false }
            return error.code == .callFailed && error.message.contains("status 2") && error.message.contains("reset")
        }
    }

    @Test("a request that does not decode is refused with status INVALID")
    func malformedRequest() async throws {
        let engine = try counter()
        await #expect {
            _ = try await engine.handle.call("add", request: Array(#"{"amount":"many"}"#.utf8))
        } throws: { error in
            guard let error = error as? PluginError else { return false }
            return error.message.contains("status 3") && error.message.contains("malformed counter 'add' request")
        }
    }

    @Test("an unknown option is refused at creation with the plugin's message")
    func strictOptions() throws {
        #expect {
            _ = try counter(["stat": 1])
        } throws: { error in
            guard let error = error as? PluginError else { return false }
            return error.code == .engineCreationFailed && error.message.contains("unknown counter option 'stat'")
        }
    }

    @Test("a Swift plugin's factory gets the host services: add logs and publishes through them")
    func swiftHostServices() async throws {
        let recorder = Recorder()
        let engine = try counter(services: recorder.services(logLevel: .info))
        _ = try await engine.send(CounterKind.Add(amount: 2))
        _ = try await engine.send(CounterKind.Add(amount: 3))
        #expect(recorder.logs.map(\.1) == ["counter is at 2", "counter is at 5"])
        #expect(recorder.logs.allSatisfy { $0.0 == .info })
        #expect(recorder.events.map(\.0) == ["counter.changed", "counter.changed"])
        #expect(recorder.events.map(\.1) == [["total": 2], ["total": 5]])
    }

    @Test("a plugin's swift-log Logger on the host's handler follows the host's level and carries its metadata")
    func pluginLoggerFollowsTheHostsLevel() async throws {
        let quiet = Recorder()
        let atInfo = try counter(services: quiet.services(logLevel: .info))
        _ = try await atInfo.send(CounterKind.Add(amount: 2))
        #expect(quiet.logs.map(\.1) == ["counter is at 2"])

        let verbose = Recorder()
        let atDebug = try counter(services: verbose.services(logLevel: .debug))
        _ = try await atDebug.send(CounterKind.Add(amount: 2))
        #expect(verbose.logs.map(\.1) == ["adding 2 engine=counter", "counter is at 2"])
        #expect(verbose.logs.map(\.0) == [.debug, .info])
    }

    @Test("the JSON on the wire is the Codable encoding of the request and the response")
    func jsonOnTheWire() async throws {
        #expect(String(decoding: try CounterKind.Add(amount: 7).encodePayload(), as: UTF8.self) == #"{"amount":7}"#)
        let engine = try counter(["start": 1])
        let bytes = try await engine.handle.call("add", request: Array(#"{"amount":2}"#.utf8))
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"total":3}"#)
    }
}
