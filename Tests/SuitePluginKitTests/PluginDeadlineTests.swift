import Foundation
import Logging
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Testing

/// The Misbehaving C plugin's engine, created with a short deadline.
func misbehaving(
    timeout: Duration = .seconds(10), tag: String = UUID().uuidString, recorder: Recorder = Recorder()
) throws -> PluginEngineHandle {
    let plugin = try PluginLoader.load(path: TestSupport.plugin("Misbehaving"))
    return try plugin.makeEngine(
        kind: "probe", name: "misbehaving", options: ["tag": .string(tag)], services: recorder.services,
        callTimeout: timeout, logger: recorder.logger)
}

/// Waits (without blocking a thread) until `condition` holds or `limit` passes; returns whether it held.
func eventually(within limit: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

@Suite("Deadlines and stray completions, with a misbehaving C plugin")
struct PluginDeadlineTests {
    @Test("a call that never completes fails with timedOut after the timeout, naming file, engine, operation, timeout")
    func hangTimesOut() async throws {
        let handle = try misbehaving(timeout: .milliseconds(200))
        let start = ContinuousClock.now
        await #expect {
            _ = try await handle.call("hang")
        } throws: { error in
            guard let error = error as? PluginError else { return false }
            return error.code == .timedOut && error.message.contains(TestSupport.plugin("Misbehaving"))
                && error.message.contains("engine 'misbehaving'") && error.message.contains("'hang'")
                && error.message.contains("200 ms") && error.hint?.contains("plugin-timeout") == true
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(200))
        // A sanity bound only: under a full parallel test run, resuming this task may wait for a busy pool.
        #expect(elapsed < .seconds(180))
        #expect(handle.isAbandoned)
        // The engine still answers calls that do complete.
        #expect(try await handle.call("echo", request: [1, 2]) == [1, 2])
    }

    @Test("hung calls wait without holding threads: with more hangs pending than cores, a normal call still answers")
    func hangsDoNotBlockThreads() async throws {
        let handle = try misbehaving()
        let other = try misbehaving()
        let hangs = ProcessInfo.processInfo.activeProcessorCount * 4
        let finished = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Calls the plugin keeps until it is told to answer them: hung calls, until `release` below.
            for _ in 0..<hangs {
                group.addTask {
                    let answer = try await handle.call("park")
                    #expect(answer == Array("released".utf8))
                    finished.add()
                }
            }
            // Every call gets inside the plugin. Had each held a thread of the pool, not all could have got there,
            // nor could this task or the calls below run, before the first ones timed out (at 10 s).
            var parked = 0
            let deadline = ContinuousClock.now + .seconds(60)
            while parked < hangs, !handle.isAbandoned, ContinuousClock.now < deadline {
                parked = Int(String(decoding: try await handle.call("parked"), as: UTF8.self)) ?? -1
                if parked < hangs { try await Task.sleep(for: .milliseconds(1)) }
            }
            #expect(parked == hangs)
            #expect(try await other.call("echo", request: [7]) == [7])
            #expect(finished.value == 0)
            _ = try await handle.call("release")
            try await group.waitForAll()
        }
        #expect(finished.value == hangs)
        #expect(!handle.isAbandoned, "a parked call timed out instead of being released")
    }

    @Test("an engine with a timed-out call is never destroyed; an engine without one is")
    func abandonedEngineIsNotDestroyed() async throws {
        let hungTag = "hung-\(UUID().uuidString)"
        let fineTag = "fine-\(UUID().uuidString)"
        do {
            let hung = try misbehaving(timeout: .milliseconds(100), tag: hungTag)
            await #expect(throws: PluginError.self) { _ = try await hung.call("hang") }
            let fine = try misbehaving(tag: fineTag)
            _ = try await fine.call("noop")
        }
        let probe = try misbehaving()
        func destroyed(_ tag: String) async throws -> String {
            let options = JSONValue.object(["tag": .string(tag)]).jsonString
            return String(decoding: try await probe.call("destroyed", request: Array(options.utf8)), as: UTF8.self)
        }
        #expect(try await destroyed(fineTag) == "yes")
        #expect(try await destroyed(hungTag) == "no")
    }

    @Test("a completion called twice: the first answers, the second is ignored and logged, the engine goes on")
    func completedTwice() async throws {
        let recorder = Recorder()
        let handle = try misbehaving(recorder: recorder)
        #expect(try await handle.call("twice") == Array("first".utf8))
        #expect(await eventually { recorder.hostWarnings.contains { $0.contains("again") } })
        let warning = recorder.hostWarnings.first { $0.contains("again") } ?? ""
        #expect(warning.contains("engine 'misbehaving'") && warning.contains("ignored"))
        #expect(try await handle.call("echo", request: [9]) == [9])
        #expect(!handle.isAbandoned)
    }

    @Test("a completion after the timeout, from another thread, is ignored and logged naming the operation")
    func lateCompletion() async throws {
        let recorder = Recorder()
        let handle = try misbehaving(timeout: .milliseconds(100), recorder: recorder)
        await #expect {
            _ = try await handle.call("late", request: Array("400".utf8))
        } throws: { error in
            (error as? PluginError)?.code == .timedOut
        }
        #expect(await eventually { recorder.hostWarnings.contains { $0.contains("after it timed out") } })
        #expect(recorder.hostWarnings.contains { $0.contains("'late'") })
    }

    @Test("a C plugin logs and publishes through the host services")
    func cHostServices() async throws {
        let recorder = Recorder()
        let handle = try misbehaving(recorder: recorder)
        _ = try await handle.call("log", request: Array("disk almost full".utf8))
        _ = try await handle.call("publish", request: Array(#"{"level":3,"ok":true}"#.utf8))
        _ = try await handle.call("publish", request: [])
        #expect(recorder.logs.count == 1)
        #expect(recorder.logs.first?.0 == .warning)
        #expect(recorder.logs.first?.1 == "disk almost full")
        #expect(recorder.events.map(\.0) == ["misbehaving.published", "misbehaving.published"])
        #expect(recorder.events.map(\.1) == [["level": 3, "ok": true], [:]])
    }

    @Test("a payload that is not JSON is not published; the host logs why")
    func invalidPublishedPayload() async throws {
        let recorder = Recorder()
        let handle = try misbehaving(recorder: recorder)
        _ = try await handle.call("publish", request: Array("{not json".utf8))
        #expect(recorder.events.isEmpty)
        #expect(recorder.logs.count == 1)
        #expect(recorder.logs.first?.1.contains("not JSON") == true)
    }

    @Test("many concurrent calls each get their own answer")
    func concurrentCalls() async throws {
        let handle = try misbehaving()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<2_000 {
                group.addTask {
                    let request = Array("call \(i)".utf8)
                    let response = try await handle.call("echo", request: request)
                    #expect(response == request)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("a timeout that is not positive is refused")
    func nonPositiveTimeout() throws {
        for timeout in [Duration.zero, .milliseconds(-5)] {
            #expect {
                _ = try misbehaving(timeout: timeout)
            } throws: { error in
                (error as? PluginError)?.code == .invalidArgument
            }
        }
    }
}

@Suite("ABI 1.1 grows 1.0 compatibly")
struct PluginABICompatibilityTests {
    @Test("a descriptor with the 1.0 struct_size (CTally) loads, works, and is given no host services")
    func oldDescriptorSize() async throws {
        let plugin = try PluginLoader.load(path: TestSupport.plugin("CTally"))
        #expect(plugin.descriptorSize == LoadedPlugin.descriptorSizeV1_0)
        #expect(LoadedPlugin.descriptorSizeV1_0 < LoadedPlugin.descriptorSizeV1_1)
        #expect(!plugin.acceptsHostServices)
        let file = try TestSupport.makeTemporaryDirectory().appendingPathComponent("names.txt")
        let recorder = Recorder()
        let engine = PluginObserverEngine(
            handle: try plugin.makeEngine(
                kind: "observer", name: "ctally", options: ["path": .string(file.path)], services: recorder.services,
                callTimeout: .seconds(5)))
        try await engine.receive([ObservedEvent(name: "old.size", payloadJSON: "{}", time: Date())])
        try await engine.flush()
        #expect(try String(contentsOf: file, encoding: .utf8) == "old.size\n")
    }

    @Test("a 1.1 plugin created through a host that passes no services gets a table that drops everything")
    func newDescriptorSize() async throws {
        let plugin = try PluginLoader.load(path: TestSupport.plugin("Misbehaving"))
        #expect(plugin.descriptorSize == LoadedPlugin.descriptorSizeV1_1)
        #expect(plugin.acceptsHostServices)
        let handle = try plugin.makeEngine(kind: "probe", name: "misbehaving", options: [:])
        #expect(try await handle.call("log", request: Array("dropped".utf8)) == [])
    }
}
