import Documents
import SuiteCore

/// The `documents` section's client-side query controls: coalescing and the query-rate limit.
///
/// ```yaml
/// documents:
///   query-coalescing: {window-ms: 50}          # or `true`; `{enabled: false}` turns it off
///   query-rate: {per-second: 20, burst: 40, when-limited: wait, max-wait-ms: 2000}
/// ```
///
/// `query-coalescing`: `true`, `false`, or a map of `enabled` (default `true` when the map is given) and `window-ms`
/// (how long a finished result is reused when no write happened since, default 0: running executions only).
/// `query-rate`: `per-second` (required, a positive number), `burst` (default: `per-second` rounded up, at least 1),
/// `when-limited` (`wait`, the default, or `fail`) and `max-wait-ms` (no bound by default).
extension DocumentsModule {
    /// The section keys this file reads.
    static let queryThrottlingKeys = ["query-coalescing", "query-rate"]

    /// Decodes `query-coalescing`.
    func queryCoalescing(_ value: JSONValue?, section: ConfigurationSection) throws -> QueryCoalescing {
        let key = "documents.query-coalescing"
        let hint = "e.g. query-coalescing: {window-ms: 50}, or query-coalescing: true"
        guard let value, value != JSONValue.null else { return .disabled }
        if let enabled = value.boolValue { return enabled ? .enabled : .disabled }
        guard let object = value.objectValue else {
            throw section.error(key, "must be true, false or a map, not \(value.typeDescription)", hint: hint)
        }
        try section.checkKeys(object, at: key, known: ["enabled", "window-ms"])
        var coalescing = QueryCoalescing.enabled
        if let enabled = object["enabled"] {
            guard let flag = enabled.boolValue else { throw section.error("\(key).enabled", "must be true or false") }
            coalescing.isEnabled = flag
        }
        if let window = object["window-ms"] {
            coalescing.reuseWindow = try milliseconds(window, key: "\(key).window-ms", section: section, hint: hint)
        }
        return coalescing
    }

    /// Decodes `query-rate`.
    func queryRateLimit(_ value: JSONValue?, section: ConfigurationSection) throws -> QueryRateLimit? {
        let key = "documents.query-rate"
        let hint = "e.g. query-rate: {per-second: 20, burst: 40}"
        guard let value, value != JSONValue.null else { return nil }
        guard let object = value.objectValue else {
            throw section.error(key, "must be a map, not \(value.typeDescription)", hint: hint)
        }
        try section.checkKeys(object, at: key, known: ["per-second", "burst", "when-limited", "max-wait-ms"])
        guard let rateValue = object["per-second"] else {
            throw section.error(key, "needs 'per-second', the queries allowed per second", hint: hint)
        }
        guard let rate = rateValue.numberValue, rate.isFinite, rate > 0, rate <= 1_000_000 else {
            throw section.error(
                "\(key).per-second", "must be a positive number up to 1000000, not \(rateValue.jsonString)",
                hint: hint)
        }
        var limit = QueryRateLimit(perSecond: rate, burst: max(1, Int(rate.rounded(.up))))
        if let burst = object["burst"] {
            guard let count = burst.intValue, count >= 1, count <= 1_000_000 else {
                throw section.error(
                    "\(key).burst", "must be a whole number from 1 to 1000000, not \(burst.jsonString)", hint: hint)
            }
            limit.burst = Int(count)
        }
        if let behavior = object["when-limited"] {
            let names = QueryRateLimit.Behavior.allCases.map(\.rawValue)
            guard let name = behavior.stringValue, let parsed = QueryRateLimit.Behavior(rawValue: name) else {
                throw section.error(
                    "\(key).when-limited", "must be 'wait' or 'fail', not \(behavior.jsonString)",
                    hint: Suggestion.didYouMean(behavior.stringValue ?? "", among: names))
            }
            limit.whenLimited = parsed
        }
        if let wait = object["max-wait-ms"] {
            limit.maximumWait = try milliseconds(wait, key: "\(key).max-wait-ms", section: section, hint: hint)
        }
        return limit
    }

    /// A number of milliseconds from 0 to one day.
    private func milliseconds(_ value: JSONValue, key: String, section: ConfigurationSection, hint: String) throws
        -> Duration
    {
        guard let number = value.numberValue, number.isFinite, number >= 0, number <= 86_400_000 else {
            throw section.error(
                key, "must be a number of milliseconds from 0 to 86400000, not \(value.jsonString)", hint: hint)
        }
        return .microseconds(Int64((number * 1000).rounded()))
    }
}
