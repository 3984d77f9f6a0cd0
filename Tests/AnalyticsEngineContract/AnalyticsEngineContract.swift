@_spi(Engine) public import Analytics
public import Foundation
public import Testing

/// The behaviour every ``AnalyticsEngine`` must show, built in or from a plugin: a test target lists its engines as
/// ``AnalyticsEngineFactory`` values and runs every check on each, one test case per check and engine:
///
/// ```swift
/// @Test(arguments: AnalyticsEngineContract.cases([.myEngine]))
/// func contract(_ check: AnalyticsEngineContract.Case) async throws { try await check.run() }
/// ```
///
/// Each check makes a fresh engine, delivers through the protocol only, and records failures with `#expect`. Where
/// the factory can read back what reached the engine's destination (a file, a table, a receiver), the checks compare
/// it with what was delivered; a destination that keeps each record once (by id) is checked for that too.
public enum AnalyticsEngineContract {
    /// One check of the contract, by name.
    public struct Check: Sendable {
        /// The check's name, e.g. `aBatchArrivesWhole`.
        public let name: String
        let run: @Sendable (AnalyticsEngineFactory) async throws -> Void
    }

    /// A check on one engine: a test case.
    public struct Case: Sendable, CustomTestStringConvertible {
        /// The check.
        public let check: Check
        /// The engine's factory.
        public let factory: AnalyticsEngineFactory

        /// Runs the check on a fresh engine from the factory.
        public func run() async throws { try await check.run(factory) }

        public var testDescription: String { "\(factory.name): \(check.name)" }
    }

    /// Every check, each run on every factory.
    public static func cases(_ factories: [AnalyticsEngineFactory]) -> [Case] {
        factories.flatMap { factory in checks.map { Case(check: $0, factory: factory) } }
    }

    /// Every check of the contract.
    public static let checks: [Check] = [
        Check(name: "anEmptyBatchIsDelivered", run: anEmptyBatchIsDelivered),
        Check(name: "aBatchArrivesWhole", run: aBatchArrivesWhole),
        Check(name: "aRedeliveredBatchIsHarmless", run: aRedeliveredBatchIsHarmless),
        Check(name: "concurrentBatchesAllArrive", run: concurrentBatchesAllArrive),
        Check(name: "aLargeBatchArrivesWhole", run: aLargeBatchArrivesWhole),
    ]

    /// `count` valid records named `prefix_<i>`, one second apart, with the shapes an app logs: parameters or none,
    /// a user or none, traits, a sample rate below 1, non-ASCII values.
    public static func records(_ count: Int, prefix: String = "contract_event") -> [AnalyticsRecord] {
        let session = UUID()
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        return (0..<count).map { i in
            var parameters: [String: String] = [:]
            if i % 3 != 0 { parameters = ["index": "\(i)", "label": i % 2 == 0 ? "café ☕" : "plain"] }
            let user: String? = i % 2 == 0 ? "user-\(i)" : nil
            let traits: [String: String] = i % 4 == 0 ? ["plan": "pro"] : [:]
            let sampleRate: Double = i % 5 == 4 ? 0.5 : 1
            return AnalyticsRecord(
                id: UUID(), name: "\(prefix)_\(i % 7)", parameters: parameters,
                timestamp: start.addingTimeInterval(Double(i)), sessionID: session, context: ["app_version": "1.0"],
                sampleRate: sampleRate, userID: user, traits: traits)
        }
    }

    static func anEmptyBatchIsDelivered(_ factory: AnalyticsEngineFactory) async throws {
        let subject = try await factory.make()
        let report = try await subject.engine.deliver([])
        #expect(report.isComplete)
        if let delivered = subject.delivered { #expect(try await delivered().isEmpty) }
    }

    static func aBatchArrivesWhole(_ factory: AnalyticsEngineFactory) async throws {
        let subject = try await factory.make()
        let batch = records(12)
        let report = try await subject.engine.deliver(batch)
        #expect(report.isComplete, "valid records are neither rejected nor retried: \(report)")
        try await expectArrived(batch, at: subject)
    }

    static func aRedeliveredBatchIsHarmless(_ factory: AnalyticsEngineFactory) async throws {
        // The queue delivers at least once: a batch whose acknowledgement was lost comes again.
        let subject = try await factory.make()
        let batch = records(6)
        #expect(try await subject.engine.deliver(batch).isComplete)
        #expect(try await subject.engine.deliver(batch).isComplete)
        guard let delivered = subject.delivered else { return }
        let arrived = try await delivered()
        let expected = subject.keepsEachRecordOnce ? batch : batch + batch
        if arrived.allSatisfy({ $0.id != nil }) {
            #expect(arrived.count == expected.count, subject.keepsEachRecordOnce ? "each record once, by id" : "")
        } else {
            #expect(totals(arrived) == expectedTotals(expected, subject), "each record counted once, by id")
        }
    }

    static func concurrentBatchesAllArrive(_ factory: AnalyticsEngineFactory) async throws {
        let subject = try await factory.make()
        let batches = (0..<4).map { records(10, prefix: "batch\($0)") }
        let engine = subject.engine
        let complete = try await withThrowingTaskGroup(of: Bool.self) { group in
            for batch in batches { group.addTask { try await engine.deliver(batch).isComplete } }
            return try await group.reduce(true) { $0 && $1 }
        }
        #expect(complete)
        try await expectArrived(batches.flatMap { $0 }, at: subject, inOrder: false)
    }

    static func aLargeBatchArrivesWhole(_ factory: AnalyticsEngineFactory) async throws {
        let subject = try await factory.make()
        let batch = records(1_000)
        #expect(try await subject.engine.deliver(batch).isComplete)
        try await expectArrived(batch, at: subject)
    }

    /// What reached the destination is `batch`: the same records (by id where the destination keeps ids, by name
    /// otherwise), in the batch's order when `inOrder` and the destination keeps an order.
    static func expectArrived(
        _ batch: [AnalyticsRecord], at subject: AnalyticsEngineUnderTest, inOrder: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        guard let delivered = subject.delivered else { return }
        let arrived = try await delivered()
        if arrived.allSatisfy({ $0.id != nil }) {
            let ids = arrived.compactMap(\.id)
            if inOrder && subject.keepsOrder {
                #expect(ids == batch.map(\.id), sourceLocation: sourceLocation)
            } else {
                #expect(Set(ids) == Set(batch.map(\.id)) && ids.count == batch.count, sourceLocation: sourceLocation)
            }
        } else {
            #expect(totals(arrived) == expectedTotals(batch, subject), sourceLocation: sourceLocation)
        }
    }

    /// Per event name, the count a destination without ids shows.
    static func totals(_ arrived: [DeliveredRecord]) -> [String: Double] {
        arrived.reduce(into: [:]) { $0[$1.name, default: 0] += $1.count }
    }

    /// Per event name, the count `batch` should show: one per record, or its estimate `1 / sampleRate` where the
    /// destination scales counts back by sampling.
    static func expectedTotals(_ batch: [AnalyticsRecord], _ subject: AnalyticsEngineUnderTest) -> [String: Double] {
        batch.reduce(into: [:]) { totals, record in
            totals[record.name, default: 0] += subject.countsScaleBySampling ? 1 / record.sampleRate : 1
        }
    }
}

/// A record as its destination shows it: its id when the destination keeps ids, and its name; or, where the
/// destination keeps a counter per event name, the name and its count.
public struct DeliveredRecord: Sendable, Hashable {
    /// The record's id, or `nil` where the destination keeps none.
    public var id: UUID?
    /// The event's name.
    public var name: String
    /// How many records this stands for (1 for a record; a counter's value).
    public var count: Double

    /// Creates one.
    public init(id: UUID?, name: String, count: Double = 1) {
        self.id = id
        self.name = name
        self.count = count
    }
}

/// An engine made for one check, with a way to read back what reached its destination.
public struct AnalyticsEngineUnderTest: Sendable {
    /// The fresh engine, its destination empty.
    public var engine: any AnalyticsEngine
    /// Reads what reached the destination, or `nil` for an engine whose destination cannot be read (no-op, a
    /// terminal).
    public var delivered: (@Sendable () async throws -> [DeliveredRecord])?
    /// Whether the destination keeps each record once, by id, when a batch is delivered again.
    public var keepsEachRecordOnce: Bool
    /// Whether the destination keeps the records in delivery order.
    public var keepsOrder: Bool
    /// Whether the destination counts a sampled record as `1 / sampleRate` (a counter's estimate).
    public var countsScaleBySampling: Bool

    /// Creates a handle.
    public init(
        engine: any AnalyticsEngine, delivered: (@Sendable () async throws -> [DeliveredRecord])?,
        keepsEachRecordOnce: Bool, keepsOrder: Bool = true, countsScaleBySampling: Bool = false
    ) {
        self.engine = engine
        self.delivered = delivered
        self.keepsEachRecordOnce = keepsEachRecordOnce
        self.keepsOrder = keepsOrder
        self.countsScaleBySampling = countsScaleBySampling
    }
}

/// A named way to make a fresh engine; the contract runs every check once per factory.
public struct AnalyticsEngineFactory: Sendable, CustomTestStringConvertible {
    /// Shown in test names, e.g. `sqlite`.
    public var name: String
    /// Makes a fresh engine with an empty destination.
    public var make: @Sendable () async throws -> AnalyticsEngineUnderTest

    /// Creates a factory.
    public init(name: String, make: @escaping @Sendable () async throws -> AnalyticsEngineUnderTest) {
        self.name = name
        self.make = make
    }

    public var testDescription: String { name }
}
