public import CoreMetrics
import Synchronization

/// A swift-metrics backend that records counters, meters, gauges, histograms and timers as analytics events, so a
/// library already emitting metrics (Hummingbird, AsyncHTTPClient, …) is recorded with no change.
///
/// Updating an instrument only touches an in-memory aggregate under a lock; no event is logged per increment. Every
/// ``AnalyticsMetricsOptions/flushInterval`` (and on ``flush()``) each series that changed becomes one `metric` event:
///
/// | parameter | value |
/// |---|---|
/// | `metric` | the label, cut to the value limit |
/// | `kind` | `counter`, `floating_counter`, `meter`, `gauge`, `histogram` or `timer` |
/// | `count` | updates in the window |
/// | `sum`, `total` | counters: the window's increments, and the total since the counter was made or reset |
/// | `value`, `min`, `max` | gauges and meters: the last value, and the window's extremes |
/// | `sum`, `min`, `max`, `avg` | histograms and timers (timers in milliseconds, with `unit` = `ms`) |
/// | `dim_<name>` | each dimension, the name sanitised to the parameter name rules |
///
/// The factory never bootstraps anything; the app does, usually through a multiplex so existing exporters keep
/// working:
///
/// ```swift
/// let metrics = try AnalyticsMetricsFactory(manager: analytics)
/// MetricsSystem.bootstrap(MultiplexMetricsHandler(factories: [metrics, prometheus]))
/// ```
///
/// Instruments with the same kind, label and dimensions share one series. Destroying an instrument emits what its
/// series recorded since the last flush and forgets the series.
public final class AnalyticsMetricsFactory: MetricsFactory, Sendable {
    private struct Registry {
        var series: [AnalyticsMetricHandler.Key: AnalyticsMetricHandler] = [:]
        var refused = 0
    }

    /// The manager the `metric` events are logged to.
    public let manager: AnalyticsManager
    /// The options the factory was created with.
    public let options: AnalyticsMetricsOptions
    private let registry = Mutex(Registry())
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// Creates a factory logging to `manager`; with a ``AnalyticsMetricsOptions/flushInterval`` it starts a task
    /// that flushes on that interval until the factory is released.
    ///
    /// - Throws: ``AnalyticsError`` `.invalidConfiguration` for out-of-range options.
    public init(manager: AnalyticsManager, options: AnalyticsMetricsOptions = AnalyticsMetricsOptions())
        throws(AnalyticsError)
    {
        try options.validate()
        self.manager = manager
        self.options = options
        guard let interval = options.flushInterval else { return }
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                self?.flush()
            }
        }
        ticker.withLock { $0 = task }
    }

    deinit {
        ticker.withLock { $0?.cancel() }
        flush()
    }

    /// Logs one `metric` event per series that recorded something since the previous flush (every series with
    /// ``AnalyticsMetricsOptions/emitsIdleSeries``) and starts a new window. Returns at once, like
    /// ``AnalyticsManager/log(_:)``; `try await manager.flush()` afterwards persists and delivers the events.
    public func flush() {
        let series = registry.withLock { Array($0.series.values) }
        for handler in series.sorted(by: Self.inLabelOrder) {
            emit(handler, includeIdle: options.emitsIdleSeries)
        }
    }

    /// How many instruments were not recorded because ``AnalyticsMetricsOptions/maximumSeries`` was reached.
    public var refusedSeriesCount: Int { registry.withLock { $0.refused } }

    // MARK: MetricsFactory

    /// A counter handler for `label` and `dimensions` (the series' handler when one exists).
    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        series(.counter, label: label, dimensions: dimensions) ?? NOOPMetricsHandler.instance
    }

    /// A floating-point counter handler for `label` and `dimensions`.
    public func makeFloatingPointCounter(
        label: String, dimensions: [(String, String)]
    ) -> any FloatingPointCounterHandler {
        series(.floatingPointCounter, label: label, dimensions: dimensions) ?? NOOPMetricsHandler.instance
    }

    /// A meter handler for `label` and `dimensions`.
    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        series(.meter, label: label, dimensions: dimensions) ?? NOOPMetricsHandler.instance
    }

    /// A recorder handler: a histogram when `aggregate` is true, a gauge (last value wins) otherwise.
    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        series(aggregate ? .histogram : .gauge, label: label, dimensions: dimensions) ?? NOOPMetricsHandler.instance
    }

    /// A timer handler for `label` and `dimensions`; durations are reported in milliseconds.
    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        series(.timer, label: label, dimensions: dimensions) ?? NOOPMetricsHandler.instance
    }

    /// Emits what the counter recorded since the last flush and forgets its series.
    public func destroyCounter(_ handler: any CounterHandler) {
        destroy(handler)
    }

    /// Emits what the floating-point counter recorded since the last flush and forgets its series.
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        destroy(handler)
    }

    /// Emits what the meter recorded since the last flush and forgets its series.
    public func destroyMeter(_ handler: any MeterHandler) {
        destroy(handler)
    }

    /// Emits what the recorder recorded since the last flush and forgets its series.
    public func destroyRecorder(_ handler: any RecorderHandler) {
        destroy(handler)
    }

    /// Emits what the timer recorded since the last flush and forgets its series.
    public func destroyTimer(_ handler: any TimerHandler) {
        destroy(handler)
    }

    // MARK: Series

    /// The handler of the series, made on first use; nil when the label is not recorded or the series limit is
    /// reached.
    private func series(
        _ kind: MetricAggregate.Kind, label: String, dimensions: [(String, String)]
    ) -> AnalyticsMetricHandler? {
        guard options.recordsLabel(label) else { return nil }
        let key = AnalyticsMetricHandler.Key(kind: kind, label: label, dimensions: dimensions)
        return registry.withLock { registry in
            if let existing = registry.series[key] { return existing }
            guard registry.series.count < options.maximumSeries else {
                registry.refused += 1
                return nil
            }
            let handler = AnalyticsMetricHandler(key: key)
            registry.series[key] = handler
            return handler
        }
    }

    private func destroy(_ handler: AnyObject) {
        guard let handler = handler as? AnalyticsMetricHandler else { return }
        let removed = registry.withLock { registry -> Bool in
            guard registry.series[handler.key] === handler else { return false }
            registry.series[handler.key] = nil
            return true
        }
        if removed {
            emit(handler, includeIdle: false)
        }
    }

    private func emit(_ handler: AnalyticsMetricHandler, includeIdle: Bool) {
        guard let window = handler.takeWindow(includeIdle: includeIdle) else { return }
        var parameters = ObservabilityParameters(limits: manager.configuration.limits)
        parameters.add("metric", handler.key.label)
        window.add(to: &parameters)
        parameters.add(prefix: "dim_", handler.key.dimensions.map { ($0.name, $0.value) })
        manager.log(NamedAnalyticsEvent("metric", parameters: parameters.parameters))
    }

    private static func inLabelOrder(_ first: AnalyticsMetricHandler, _ second: AnalyticsMetricHandler) -> Bool {
        let lhs = first.key
        let rhs = second.key
        if lhs.label != rhs.label { return lhs.label < rhs.label }
        if lhs.kind != rhs.kind { return lhs.kind.rawValue < rhs.kind.rawValue }
        return lhs.dimensions.lexicographicallyPrecedes(rhs.dimensions) { ($0.name, $0.value) < ($1.name, $1.value) }
    }
}
