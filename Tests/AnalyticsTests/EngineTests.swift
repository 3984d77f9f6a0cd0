@_spi(Engine) import Analytics
import AnalyticsTestSupport
import Foundation
import SuiteTestSupport
import Testing

@Suite struct EngineTests {
    static func record(_ name: String, at seconds: Double = 1_700_000_000, rate: Double = 1) -> AnalyticsRecord {
        var generator = SystemRandomNumberGenerator()
        let date = Date(timeIntervalSince1970: seconds)
        return AnalyticsRecord(
            id: UUIDv7.make(at: date, using: &generator), name: name, parameters: ["k": "v"], timestamp: date,
            sessionID: UUID(), context: ["app_version": "1.0"], sampleRate: rate)
    }

    @Test func jsonLinesAppendsOneObjectPerLine() async throws {
        let path = TestSupport.temporaryFile("events.jsonl")
        let engine = JSONLinesAnalyticsEngine(path: path)
        let batch = [Self.record("a"), Self.record("b")]
        #expect(try await engine.deliver(batch).isComplete)
        #expect(try await engine.deliver([Self.record("c")]).isComplete)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(first?["name"] as? String == "a")
        #expect(first?["id"] as? String == batch[0].id.uuidString)
        #expect(first?["timestamp"] as? String == "2023-11-14T22:13:20Z")
    }

    @Test func jsonLinesFailsWithATypedErrorOnABadPath() async {
        let engine = JSONLinesAnalyticsEngine(path: "/nonexistent-dir/events.jsonl")
        await #expect(throws: AnalyticsError.self) { try await engine.deliver([Self.record("a")]) }
    }

    @Test func sqliteStoresDedupesAndReports() async throws {
        let engine = try SQLiteAnalyticsEngine(path: TestSupport.temporaryFile("events.sqlite"))
        let day1 = 1_700_000_000.0  // 2023-11-14
        let batch = [
            Self.record("open", at: day1), Self.record("open", at: day1 + 86_400),
            Self.record("scroll", at: day1, rate: 0.5),
        ]
        _ = try await engine.deliver(batch)
        _ = try await engine.deliver(batch)  // a redelivery: same ids
        let byEvent = try await engine.countsByEvent()
        #expect(
            byEvent == [
                AnalyticsCount(key: "open", count: 2, estimated: 2),
                AnalyticsCount(key: "scroll", count: 1, estimated: 2),
            ])
        let byDay = try await engine.countsByDay()
        #expect(byDay.map(\.key) == ["2023-11-14", "2023-11-15"])
        #expect(byDay.map(\.count) == [2, 1])
        let since = try await engine.countsByDay(since: Date(timeIntervalSince1970: day1 + 3_600))
        #expect(since.map(\.key) == ["2023-11-15"])
        let stored = try await engine.records(named: "scroll")
        #expect(stored == [batch[2]])
    }

    @Test func multiplexMergesReportsAndPropagatesFailures() async throws {
        let first = InMemoryAnalyticsEngine()
        let second = InMemoryAnalyticsEngine(rejecting: { $0.name == "bad" ? "no" : nil })
        let multiplex = MultiplexAnalyticsEngine([first, second, NoOpAnalyticsEngine()])
        let batch = [Self.record("good"), Self.record("bad")]
        let report = try await multiplex.deliver(batch)
        #expect(report.rejected == [batch[1].id: "no"])
        #expect(first.records.count == 2)
        #expect(second.records.map(\.name) == ["good"])
        first.failNextDeliveries(1)
        await #expect(throws: AnalyticsError.self) { try await multiplex.deliver(batch) }
    }

    @Test func consolePrintsOneLinePerRecord() async throws {
        let lines = Collected<String>()
        let engine = ConsoleAnalyticsEngine { lines.append($0) }
        _ = try await engine.deliver([Self.record("open"), Self.record("scroll", rate: 0.5)])
        #expect(
            lines.values == [
                "2023-11-14T22:13:20Z open k=v\n2023-11-14T22:13:20Z scroll k=v (sampled at 0.5)\n"
            ])
    }
}
