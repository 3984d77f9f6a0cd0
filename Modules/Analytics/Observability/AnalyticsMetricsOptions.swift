/// Which swift-metrics instruments an ``AnalyticsMetricsFactory`` records, and how it aggregates them.
///
/// ```swift
/// let options = AnalyticsMetricsOptions(
///     flushInterval: .seconds(30), recordsLabel: { $0.hasPrefix("http_") || $0.hasPrefix("db_") })
/// ```
public struct AnalyticsMetricsOptions: Sendable {
    /// How often the factory emits one summary event per series that changed; nil emits only on
    /// ``AnalyticsMetricsFactory/flush()``. Sixty seconds by default.
    public var flushInterval: Duration?
    /// Decides per metric label whether it is recorded; a label it refuses gets swift-metrics' no-op handler.
    /// Every label by default.
    public var recordsLabel: @Sendable (String) -> Bool
    /// Whether a flush also emits series that recorded nothing since the previous flush (a counter's unchanged
    /// `total`, a gauge's last `value`). False by default, so an idle app logs nothing.
    public var emitsIdleSeries: Bool
    /// The most distinct series (kind, label, dimensions) kept in memory; an instrument made past it is not recorded
    /// and counted in ``AnalyticsMetricsFactory/refusedSeriesCount``. Guards against a dimension with unbounded
    /// values, such as a user id. 1,000 by default.
    public var maximumSeries: Int

    /// Creates options; every default is described on its property.
    public init(
        flushInterval: Duration? = .seconds(60), recordsLabel: @escaping @Sendable (String) -> Bool = { _ in true },
        emitsIdleSeries: Bool = false, maximumSeries: Int = 1_000
    ) {
        self.flushInterval = flushInterval
        self.recordsLabel = recordsLabel
        self.emitsIdleSeries = emitsIdleSeries
        self.maximumSeries = maximumSeries
    }

    /// Checks that the interval is positive and at least one series is allowed.
    ///
    /// - Throws: ``AnalyticsError`` `.invalidConfiguration` naming the value.
    package func validate() throws(AnalyticsError) {
        if let flushInterval, flushInterval <= .zero {
            throw AnalyticsError(
                .invalidConfiguration, "metrics flushInterval is \(flushInterval); it must be positive",
                hint: "pass a positive interval, e.g. AnalyticsMetricsOptions(flushInterval: .seconds(60)), or nil")
        }
        if maximumSeries < 1 {
            throw AnalyticsError(
                .invalidConfiguration, "metrics maximumSeries is \(maximumSeries); it must be at least 1",
                hint: "pass a positive value, e.g. AnalyticsMetricsOptions(maximumSeries: 1_000)")
        }
    }
}
