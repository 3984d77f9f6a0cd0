import CoreMetrics
import Synchronization

/// The handler behind every swift-metrics instrument made by an ``AnalyticsMetricsFactory``: it only updates an
/// in-memory aggregate under a lock; the factory turns the aggregate into one event per flush.
///
/// One class serves every handler protocol (as swift-metrics' `NOOPMetricsHandler` does); ``kind`` says which
/// instrument it backs, and the factory only hands it out as that one.
final class AnalyticsMetricHandler: CounterHandler, FloatingPointCounterHandler, MeterHandler, RecorderHandler,
    TimerHandler
{
    /// Identifies a series: the instrument kind, the label and the dimensions sorted by name.
    struct Key: Hashable, Sendable {
        let kind: MetricAggregate.Kind
        let label: String
        let dimensions: [Dimension]

        init(kind: MetricAggregate.Kind, label: String, dimensions: [(String, String)]) {
            self.kind = kind
            self.label = label
            self.dimensions = dimensions.map { Dimension(name: $0.0, value: $0.1) }.sorted {
                ($0.name, $0.value) < ($1.name, $1.value)
            }
        }
    }

    /// One dimension of a series.
    struct Dimension: Hashable, Sendable {
        let name: String
        let value: String
    }

    let key: Key
    private let aggregate: Mutex<MetricAggregate>

    init(key: Key) {
        self.key = key
        aggregate = Mutex(MetricAggregate(kind: key.kind))
    }

    var kind: MetricAggregate.Kind { key.kind }

    /// The window so far, and a new window started; nil when nothing was recorded and `includeIdle` is false.
    func takeWindow(includeIdle: Bool) -> MetricAggregate? {
        aggregate.withLock { aggregate in
            guard includeIdle || !aggregate.isIdle else { return nil }
            defer { aggregate.startWindow() }
            return aggregate
        }
    }

    // MARK: CounterHandler, FloatingPointCounterHandler

    func increment(by amount: Int64) {
        aggregate.withLock { $0.increment(by: Double(amount)) }
    }

    func increment(by amount: Double) {
        aggregate.withLock { $0.increment(by: amount) }
    }

    func reset() {
        aggregate.withLock { $0.reset() }
    }

    // MARK: MeterHandler

    func set(_ value: Int64) {
        aggregate.withLock { $0.set(Double(value)) }
    }

    func set(_ value: Double) {
        aggregate.withLock { $0.set(value) }
    }

    func decrement(by amount: Double) {
        aggregate.withLock { $0.increment(by: -amount) }
    }

    // MARK: RecorderHandler

    func record(_ value: Int64) {
        aggregate.withLock { $0.record(Double(value)) }
    }

    func record(_ value: Double) {
        aggregate.withLock { $0.record(value) }
    }

    // MARK: TimerHandler

    func recordNanoseconds(_ duration: Int64) {
        aggregate.withLock { $0.record(ObservabilityParameters.milliseconds(nanoseconds: duration)) }
    }
}
