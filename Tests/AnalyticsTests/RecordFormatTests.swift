import AnalyticsPluginSupport
import AnalyticsTestSupport
import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

@_spi(Engine) @testable import Analytics

/// The identity fields cross every form a record takes: the queue's JSON, a JSON line, the SQLite engine, the plugin
/// wire form; and records queued before they existed still read.
@Suite struct RecordFormatTests {
    let record = AnalyticsRecord(
        id: UUIDv7.make(), name: "opened", parameters: ["screen": "inbox"],
        timestamp: Date(timeIntervalSince1970: 1_700_000_000.5), sessionID: UUID(),
        context: ["app_version": "3.1", "os_name": "iOS"], sampleRate: 1, userID: "u \"1\"", anonymousID: UUID(),
        traits: ["plan": "pro", "email_hash": "ab12"])

    @Test func theQueueEncodingKeepsTheIdentity() throws {
        #expect(try JSONDecoder().decode(AnalyticsRecord.self, from: record.queueJSON()) == record)
        var anonymousOnly = record
        anonymousOnly.userID = nil
        anonymousOnly.traits = [:]
        let json = try anonymousOnly.queueJSON()
        #expect(String(decoding: json, as: UTF8.self).contains("userID") == false)
        #expect(try JSONDecoder().decode(AnalyticsRecord.self, from: json) == anonymousOnly)
    }

    @Test func aRecordQueuedBeforeIdentitiesStillReads() throws {
        let old = #"""
            {"id":"0190F2A4-0000-7000-8000-000000000001","name":"tick","parameters":{},"timestamp":1,\#
            "sessionID":"0190F2A4-0000-7000-8000-000000000002","context":{},"sampleRate":1}
            """#
        let decoded = try JSONDecoder().decode(AnalyticsRecord.self, from: Data(old.utf8))
        #expect(decoded.userID == nil && decoded.anonymousID == nil && decoded.traits.isEmpty)
    }

    @Test func aJSONLineCarriesTheIdentity() throws {
        let line = try record.jsonLine()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["userID"] as? String == "u \"1\"")
        #expect(object["anonymousID"] as? String == record.anonymousID?.uuidString)
        #expect(object["traits"] as? [String: String] == record.traits)
        #expect(object["context"] as? [String: String] == record.context)
    }

    @Test func theSQLiteEngineStoresAndReadsTheIdentity() async throws {
        let engine = try SQLiteAnalyticsEngine(path: TestSupport.temporaryFile("events.sqlite"))
        var anonymousOnly = record
        anonymousOnly.id = UUIDv7.make()
        anonymousOnly.userID = nil
        anonymousOnly.traits = [:]
        _ = try await engine.deliver([record, anonymousOnly])
        let stored = try await engine.latestRecords(limit: 10)
        #expect(Set(stored) == [record, anonymousOnly])
    }

    @Test func thePluginWireFormCarriesTheIdentity() throws {
        let request = AnalyticsEngineKind.Deliver([record])
        let decoded = try JSONDecoder().decode(
            AnalyticsEngineKind.Deliver.self, from: try JSONEncoder().encode(request))
        let back = try #require(decoded.batch.first?.record)
        #expect(back.userID == record.userID && back.anonymousID == record.anonymousID && back.traits == record.traits)
    }

    @Test func aRecordGoesThroughTheQueueToAJSONLinesFileWhole() async throws {
        let path = TestSupport.temporaryFile("events.jsonl")
        let queue = try AnalyticsQueue(path: TestSupport.temporaryFile("queue.sqlite"))
        var configuration = AnalyticsConfiguration(automaticContext: AnalyticsAutomaticContext(osName: "iOS"))
        configuration.sessions.recordsEvents = false
        let manager = try AnalyticsManager(
            engine: JSONLinesAnalyticsEngine(path: path), queue: queue, configuration: configuration,
            clock: ManualWallClock())
        try manager.identify(userID: "u1", traits: ["plan": "pro"])
        manager.log(NamedAnalyticsEvent("opened"))
        try await manager.shutdown()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(object["name"] as? String == "opened" && object["userID"] as? String == "u1")
        #expect(object["traits"] as? [String: String] == ["plan": "pro"])
        #expect((object["context"] as? [String: String])?["os_name"] == "iOS")
        #expect(object["anonymousID"] as? String == manager.identity.anonymousID.uuidString)
    }
}
