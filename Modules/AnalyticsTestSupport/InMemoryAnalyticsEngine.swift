public import Analytics
import Foundation
import Synchronization

/// An engine keeping what it receives in memory, for tests: assert on ``records``, make deliveries fail with
/// ``failNextDeliveries(_:)`` or refuse chosen records with ``rejecting``.
public final class InMemoryAnalyticsEngine: AnalyticsEngine {
    private struct State {
        var records: [AnalyticsRecord] = []
        var batches: [[AnalyticsRecord]] = []
        var failuresLeft = 0
    }

    private let state = Mutex(State())
    /// Decides per record whether to reject it for good (a reason) or accept it (nil).
    public let rejecting: @Sendable (AnalyticsRecord) -> String?

    /// Creates an engine that accepts every record unless `rejecting` returns a reason for it.
    public init(rejecting: @escaping @Sendable (AnalyticsRecord) -> String? = { _ in nil }) {
        self.rejecting = rejecting
    }

    /// Every accepted record, in delivery order (duplicates included, so a test can assert there are none).
    public var records: [AnalyticsRecord] { state.withLock { $0.records } }
    /// Every batch received, including failed and rejected ones.
    public var batches: [[AnalyticsRecord]] { state.withLock { $0.batches } }

    /// Makes the next `count` deliveries throw.
    public func failNextDeliveries(_ count: Int) {
        state.withLock { $0.failuresLeft = count }
    }

    /// Accepts the batch, except records ``rejecting`` refuses; throws while failures are pending.
    public func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport {
        try state.withLock { state in
            state.batches.append(batch)
            if state.failuresLeft > 0 {
                state.failuresLeft -= 1
                throw AnalyticsError(.delivery, "in-memory engine told to fail")
            }
            var report = DeliveryReport()
            for record in batch {
                if let reason = rejecting(record) {
                    report.rejected[record.id] = reason
                } else {
                    state.records.append(record)
                }
            }
            return report
        }
    }
}
