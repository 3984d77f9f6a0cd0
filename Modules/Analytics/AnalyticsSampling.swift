/// Which share of events to keep: a rate per event name, else a global rate. A kept record carries its rate
/// (``AnalyticsRecord/sampleRate``) so a count can be scaled back by `1 / rate`.
///
/// ```swift
/// let sampling = AnalyticsSampling(rate: 1, rates: ["scroll": 0.1])  // keep 1 scroll in 10, everything else
/// ```
public struct AnalyticsSampling: Sendable, Hashable {
    /// The rate in `(0, 1]` for events ``rates`` does not name.
    public var rate: Double
    /// The rate per event name.
    public var rates: [String: Double]

    /// Creates a sampling; the default keeps every event.
    public init(rate: Double = 1, rates: [String: Double] = [:]) {
        self.rate = rate
        self.rates = rates
    }

    /// The rate for events named `name`.
    package func rate(for name: String) -> Double { rates[name] ?? rate }

    /// Checks every rate is in `(0, 1]`.
    ///
    /// - Throws: ``AnalyticsError`` `.invalidConfiguration` naming the rate.
    package func validate() throws(AnalyticsError) {
        for (name, value) in [("rate", rate)] + rates.sorted(by: { $0.key < $1.key }).map({ ("rates[\($0)]", $1) })
        where !(value > 0 && value <= 1) {
            throw AnalyticsError(
                .invalidConfiguration, "analytics sampling \(name) is \(value); it must be in (0, 1]",
                hint: "use 1 to keep every event, 0.1 to keep one in ten")
        }
    }
}
