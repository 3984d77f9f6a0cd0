@_spi(Engine) import Analytics
import AnalyticsEngineContract
import AnalyticsPluginSupport
import AnalyticsTestSupport
import Foundation
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Synchronization
import Testing

/// The analytics engine contract (Tests/AnalyticsEngineContract) on the seven engines of the Analytics module and its
/// test support, the http engine against the real analytics-receiver, and the AnalyticsPrometheus plugin's
/// `prometheus` engine through the C ABI: one test case per check and engine.
@Suite("AnalyticsEngine contract")
struct AnalyticsEngineContractTests {
    @Test(arguments: AnalyticsEngineContract.cases(AnalyticsEngineFactory.all))
    func contract(_ check: AnalyticsEngineContract.Case) async throws { try await check.run() }
}

extension AnalyticsEngineFactory {
    static let all: [AnalyticsEngineFactory] = [
        .sqlite, .jsonLines, .console, .noOp, .inMemory, .multiplex, .http, .prometheus,
    ]

    /// ``SQLiteAnalyticsEngine`` on a new file: read back from its table; a record already stored is skipped.
    static let sqlite = AnalyticsEngineFactory(name: "sqlite") {
        let engine = try SQLiteAnalyticsEngine(path: TestSupport.temporaryFile("contract-events.sqlite"))
        return AnalyticsEngineUnderTest(
            engine: engine,
            delivered: { try await engine.records().map { DeliveredRecord(id: $0.id, name: $0.name) } },
            keepsEachRecordOnce: true)
    }

    /// ``JSONLinesAnalyticsEngine`` appending to a new file: read back line by line.
    static let jsonLines = AnalyticsEngineFactory(name: "jsonl") {
        let path = TestSupport.temporaryFile("contract-events.jsonl")
        return AnalyticsEngineUnderTest(
            engine: JSONLinesAnalyticsEngine(path: path),
            delivered: {
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
                return try text.split(separator: "\n").map { try DeliveredRecord(jsonLine: String($0)) }
            },
            keepsEachRecordOnce: false)
    }

    /// ``ConsoleAnalyticsEngine`` writing into memory: each line names its event (no id).
    static let console = AnalyticsEngineFactory(name: "console") {
        let lines = Lines()
        return AnalyticsEngineUnderTest(
            engine: ConsoleAnalyticsEngine { text in lines.append(text) },
            delivered: {
                lines.all.map { line in
                    DeliveredRecord(id: nil, name: String(line.split(separator: " ").dropFirst().first ?? ""))
                }
            },
            keepsEachRecordOnce: false)
    }

    /// ``NoOpAnalyticsEngine``: nothing to read back, every batch delivered.
    static let noOp = AnalyticsEngineFactory(name: "noop") {
        AnalyticsEngineUnderTest(engine: NoOpAnalyticsEngine(), delivered: nil, keepsEachRecordOnce: false)
    }

    /// ``InMemoryAnalyticsEngine`` (AnalyticsTestSupport), which keeps duplicates so tests can count them.
    static let inMemory = AnalyticsEngineFactory(name: "memory") {
        let engine = InMemoryAnalyticsEngine()
        return AnalyticsEngineUnderTest(
            engine: engine, delivered: { engine.records.map { DeliveredRecord(id: $0.id, name: $0.name) } },
            keepsEachRecordOnce: false)
    }

    /// ``MultiplexAnalyticsEngine`` over a SQLite and an in-memory engine: both must hold what was delivered; read
    /// back from the in-memory one after checking the SQLite one agrees.
    static let multiplex = AnalyticsEngineFactory(name: "multiplex") {
        let sqlite = try SQLiteAnalyticsEngine(path: TestSupport.temporaryFile("contract-multiplex.sqlite"))
        let memory = InMemoryAnalyticsEngine()
        return AnalyticsEngineUnderTest(
            engine: MultiplexAnalyticsEngine([sqlite, memory]),
            delivered: {
                let fromMemory = memory.records.map { DeliveredRecord(id: $0.id, name: $0.name) }
                let fromSQLite = try await sqlite.records().map { DeliveredRecord(id: $0.id, name: $0.name) }
                #expect(Set(fromSQLite) == Set(fromMemory), "both engines hold what was delivered")
                return fromMemory
            },
            keepsEachRecordOnce: false)
    }

    /// ``HTTPAnalyticsEngine`` posting to a new analytics-receiver process, which keeps each record once by id.
    static let http = AnalyticsEngineFactory(name: "http") {
        let receiver = try await AnalyticsReceiverProcess.start()
        Receivers.shared.keep(receiver)
        return AnalyticsEngineUnderTest(
            engine: try HTTPAnalyticsEngine(options: .init(url: receiver.batchURL, batchSize: 100)),
            delivered: {
                try await receiver.events().map { event in
                    DeliveredRecord(
                        id: (event["id"] as? String).flatMap(UUID.init(uuidString:)),
                        name: event["name"] as? String ?? "")
                }
            },
            keepsEachRecordOnce: true)
    }

    /// The AnalyticsPrometheus plugin's `prometheus` engine over the C ABI, counting per event name in a new
    /// textfile; a record already counted (by id) is not counted again, a sampled one counts as its estimate.
    static let prometheus = AnalyticsEngineFactory(name: "prometheus plugin") {
        let path = TestSupport.temporaryFile("contract.prom")
        let plugin = try PluginLoader.load(path: TestSupport.plugin("AnalyticsPrometheus"))
        let handle = try plugin.makeEngine(kind: "analytics", name: "prometheus", options: ["path": .string(path)])
        return AnalyticsEngineUnderTest(
            engine: PluginAnalyticsEngine(handle: handle),
            delivered: {
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
                return text.split(separator: "\n").compactMap(DeliveredRecord.init(prometheusLine:))
            },
            keepsEachRecordOnce: true, countsScaleBySampling: true)
    }
}

extension DeliveredRecord {
    /// A line of the JSON Lines engine: `{"id": "…", "name": "…", …}`.
    init(jsonLine: String) throws {
        let object = try JSONValue(parsing: jsonLine)
        self.init(
            id: object["id"]?.stringValue.flatMap(UUID.init(uuidString:)), name: object["name"]?.stringValue ?? "")
    }

    /// A sample of the textfile: `suite_analytics_events_total{event="name"} 3`; comments are not samples.
    init?(prometheusLine line: Substring) {
        guard line.hasPrefix("suite_analytics_events_total{event=\""),
            let nameEnd = line.firstIndex(of: "}"), let space = line.lastIndex(of: " "),
            let count = Double(line[line.index(after: space)...])
        else { return nil }
        let start = line.index(line.startIndex, offsetBy: "suite_analytics_events_total{event=\"".count)
        self.init(id: nil, name: String(line[start..<line.index(before: nameEnd)]), count: count)
    }
}

/// The console engine's lines, kept in memory.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ text: String) { lines.withLock { $0 += text.split(separator: "\n").map(String.init) } }
    var all: [String] { lines.withLock { $0 } }
}

/// The receivers the http factory started, stopped when the test process ends (each case's receiver is its own).
final class Receivers: Sendable {
    static let shared = Receivers()
    private let receivers = Mutex<[AnalyticsReceiverProcess]>([])
    func keep(_ receiver: AnalyticsReceiverProcess) { receivers.withLock { $0.append(receiver) } }
}
