import AnalyticsPluginSupport
import AnalyticsTestSupport
import Foundation
import GRDB
import SuiteCore
import SuiteTestSupport
import Testing

@_spi(Engine) @testable import Analytics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct BusRecorderTests {
    @Test func documentCostsAndCacheEventsBecomeAnalyticsEventsAndOthersDoNot() async throws {
        let harness = try Harness()
        let bus = EventBus()
        let recorder = AnalyticsBusRecorder(bus: bus, manager: harness.manager)
        let documents = bus.publisher(source: "documents")
        documents.publish(
            GenericEvent(
                name: "documents.cost",
                payload: ["kind": "get", "collection": "users", "reads": 1, "writes": 0, "deletes": 0]))
        documents.publish(GenericEvent(name: "documents.changed", payload: ["paths": ["users/u1"], "kind": "set"]))
        bus.publisher(source: "cache").publish(
            GenericEvent(
                name: "cache.hit",
                payload: ["key": "GET https://api.example.com/users/42?token=s3cret", "bytes": 120, "tier": "memory"]))
        bus.publisher(source: "work").publish(
            GenericEvent(name: "work.status-changed", payload: ["from": "working", "to": "break", "tags": ["a", "b"]]))
        try await harness.manager.flush()
        let records = harness.engine.records
        #expect(records.map(\.name) == ["documents_cost", "cache_hit", "work_status_changed"])
        #expect(
            records[0].parameters == [
                "source": "documents", "kind": "get", "collection": "users", "reads": "1", "writes": "0",
                "deletes": "0",
            ])
        #expect(records[1].parameters == ["source": "cache", "bytes": "120", "tier": "memory"])  // no key: a URL
        #expect(records[2].parameters["tags_count"] == "2" && records[2].parameters["to"] == "break")
        recorder.cancel()
        documents.publish(GenericEvent(name: "documents.cost", payload: ["collection": "users", "reads": 1]))
        try await harness.manager.flush()
        #expect(harness.engine.records.count == 3)
    }

    @Test func aBufferingRecorderKeepsEventsUntilDrainedAndCountsOverflow() {
        let bus = EventBus()
        let recorder = AnalyticsBusRecorder(bus: bus, prefixes: ["cache."], capacity: 2)
        for _ in 0..<3 { bus.publish(GenericEvent(name: "cache.miss", payload: ["bytes": 0])) }
        bus.publish(GenericEvent(name: "sync.pushed", payload: [:]))
        #expect(recorder.drain().map(\.name) == ["cache_miss", "cache_miss"])
        #expect(recorder.dropped == 1)
        #expect(recorder.drain().isEmpty)
    }

    @Test func longValuesAndManyFieldsAreCutToTheLimits() {
        let limits = AnalyticsLimits()
        var payload: [String: JSONValue] = ["text": .string(String(repeating: "x", count: 500))]
        for index in 0..<40 { payload["field\(index)"] = .int(Int64(index)) }
        let event = AnalyticsBusRecorder.event(
            name: "custom.very-long-event-name-that-goes-on-and-on-and-on", source: "app", payload: .object(payload),
            excluding: [], limits: limits)
        #expect(event.name.count <= limits.maximumNameLength && !event.name.contains("-"))
        #expect(event.parameters.count <= limits.maximumParameterCount)
        #expect(event.parameters.values.allSatisfy { $0.count <= limits.maximumValueLength })
        #expect(limits.rejection(name: event.name, parameters: event.parameters) == nil)
    }
}

@Suite struct LeaseTests {
    @Test func aLeaseHeldByADeadProcessIsReleasedAtOnceButALiveOneIsNot() async throws {
        let path = TestSupport.temporaryFile("queue.sqlite")
        let queue = try AnalyticsQueue(path: path)
        let records = (0..<4).map {
            AnalyticsRecord(
                id: UUID(), name: "tick", parameters: ["i": "\($0)"], timestamp: Date(timeIntervalSince1970: 0),
                sessionID: UUID())
        }
        try await queue.append(records)
        // A process that has exited: its pid is free (until reused).
        let child = TestProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let dead = Int64(child.processIdentifier)
        let alive = Int64(getppid())
        let pool = try DatabasePool(path: path)
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE queue SET lease_until = 1e12, lease_owner = ? WHERE seq <= 2", arguments: [dead])
            try db.execute(
                sql: "UPDATE queue SET lease_until = 1e12, lease_owner = ? WHERE seq > 2", arguments: [alive])
        }
        let leased = try await queue.lease(limit: 10, after: 0, now: Date())
        #expect(leased.map { $0.record.parameters["i"] } == ["0", "1"])  // the live process keeps 2 and 3
        let status = try await queue.status()
        #expect(status.inFlight == 4 && status.pending == 0)
    }
}

@Suite struct AnalyticsWireTests {
    @Test func aRecordCrossesThePluginBoundaryIntact() throws {
        let record = AnalyticsRecord(
            id: UUID(), name: "login_failed", parameters: ["reason": "wrong_password"],
            timestamp: Date(timeIntervalSince1970: 1_790_000_000.123456), sessionID: UUID(),
            context: ["app_version": "2.4.1"], sampleRate: 0.5)
        let request = AnalyticsEngineKind.Deliver([record])
        let decoded = try JSONDecoder().decode(
            AnalyticsEngineKind.Deliver.self, from: try JSONEncoder().encode(request))
        let back = try #require(decoded.batch.first?.record)
        #expect(back.id == record.id && back.name == record.name && back.parameters == record.parameters)
        #expect(abs(back.timestamp.timeIntervalSince1970 - record.timestamp.timeIntervalSince1970) < 1e-6)
        #expect(back.sampleRate == 0.5 && back.context == record.context && back.sessionID == record.sessionID)
        #expect(decoded.batch.first?.timestamp.hasSuffix("Z") == true)

        var malformed = request.batch[0]
        malformed.timestamp = "yesterday"
        #expect(malformed.record == nil)

        let report = DeliveryReport(rejected: [record.id: "schema"], retry: [UUID(): "busy"])
        let response = try JSONDecoder().decode(
            AnalyticsEngineKind.Deliver.Response.self,
            from: try JSONEncoder().encode(AnalyticsEngineKind.Deliver.Response(report)))
        #expect(response.report == report)
    }
}
