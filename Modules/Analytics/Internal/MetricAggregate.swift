/// What a metric handler accumulated since the last flush: the per-window statistics plus the running value a
/// counter or meter carries across windows.
struct MetricAggregate: Sendable {
    /// The swift-metrics instrument behind a series; its raw value is the event's `kind` parameter.
    enum Kind: String, Sendable {
        case counter
        case floatingPointCounter = "floating_counter"
        case meter
        case gauge
        case histogram
        case timer
    }

    let kind: Kind
    /// Updates in this window.
    private(set) var count = 0
    /// The sum of this window's increments (counters) or recorded values (gauge, histogram, timer, meter).
    private(set) var sum = 0.0
    private(set) var minimum = Double.infinity
    private(set) var maximum = -Double.infinity
    /// The last recorded or set value (gauge, meter, histogram, timer).
    private(set) var last: Double?
    /// A counter's total since it was made or reset; a meter's current value.
    private(set) var running = 0.0

    init(kind: Kind) {
        self.kind = kind
    }

    /// A counter's increment, or a meter's change.
    mutating func increment(by amount: Double) {
        switch kind {
        case .meter:
            set(running + amount)
        default:
            running += amount
            count += 1
            sum += amount
        }
    }

    /// A meter's new value.
    mutating func set(_ value: Double) {
        running = value
        record(value)
    }

    /// A counter's reset: the running total starts over; the window keeps what it counted.
    mutating func reset() {
        running = 0
    }

    /// One observation of a gauge, histogram, timer (in milliseconds) or meter.
    mutating func record(_ value: Double) {
        count += 1
        sum += value
        minimum = min(minimum, value)
        maximum = max(maximum, value)
        last = value
    }

    /// Whether anything was recorded since the window started.
    var isIdle: Bool { count == 0 }

    /// Starts a new window, keeping the running value (and a meter's or gauge's last value).
    mutating func startWindow() {
        count = 0
        sum = 0
        minimum = .infinity
        maximum = -.infinity
    }

    /// The event parameters for this window, fixed fields first: `kind`, `count`, then per kind `sum`/`total` for
    /// counters, `value` (last) with `min`/`max` for a gauge or meter, `sum`/`min`/`max`/`avg` for a histogram or a
    /// timer (timers in milliseconds, with `unit` `ms`).
    func add(to parameters: inout ObservabilityParameters) {
        parameters.add("kind", kind.rawValue)
        parameters.add("count", Double(count))
        switch kind {
        case .counter, .floatingPointCounter:
            parameters.add("sum", sum)
            parameters.add("total", running)
        case .meter, .gauge:
            let value: Double? = kind == .meter ? running : last
            if let value {
                parameters.add("value", value)
            }
            addExtremes(to: &parameters)
        case .histogram, .timer:
            if kind == .timer {
                parameters.add("unit", "ms")
            }
            parameters.add("sum", sum)
            addExtremes(to: &parameters)
            if count > 0 {
                parameters.add("avg", sum / Double(count))
            }
        }
    }

    private func addExtremes(to parameters: inout ObservabilityParameters) {
        guard count > 0 else { return }
        parameters.add("min", minimum)
        parameters.add("max", maximum)
    }
}
