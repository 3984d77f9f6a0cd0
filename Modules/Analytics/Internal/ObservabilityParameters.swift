/// Builds the parameters of a `metric`, `trace` or `http_request` event so that they always pass the manager's
/// ``AnalyticsLimits``: names are sanitised (not rejected), values truncated, and parameters past the limit dropped
/// in the order they were added (fixed fields first, then dimensions or attributes).
struct ObservabilityParameters {
    let limits: AnalyticsLimits
    private(set) var parameters: [String: String] = [:]

    init(limits: AnalyticsLimits) {
        self.limits = limits
    }

    /// Adds `value` under the sanitised `name`; ignored once the parameter limit is reached or when a parameter with
    /// the same sanitised name is already set (the first one wins).
    mutating func add(_ name: String, _ value: String) {
        guard parameters.count < limits.maximumParameterCount else { return }
        let key = Self.sanitizedName(name, limits: limits)
        guard parameters[key] == nil else { return }
        parameters[key] = Self.truncated(value, limits: limits)
    }

    /// Adds a number, written without a fraction when it is whole and with at most three decimals otherwise.
    mutating func add(_ name: String, _ value: Double) {
        add(name, Self.format(value))
    }

    /// Adds each pair as `prefix` + name, sorted by name so which ones survive the parameter limit is deterministic.
    mutating func add(prefix: String, _ pairs: [(String, String)]) {
        for (name, value) in pairs.sorted(by: { $0.0 < $1.0 }) {
            add(prefix + name, value)
        }
    }

    /// `name` with every character other than an ASCII letter, digit or `_` replaced by `_`, an `x` in front when it
    /// does not start with a letter, an `x_` in front when it starts with a reserved prefix, and cut to the limit.
    static func sanitizedName(_ name: String, limits: AnalyticsLimits) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            scalars.append(isASCIILetter(scalar) || ("0"..."9").contains(scalar) || scalar == "_" ? scalar : "_")
        }
        var result = String(scalars)
        if result.unicodeScalars.first.map(isASCIILetter) != true {
            result = "x" + result
        }
        let lowercased = result.lowercased()
        if limits.reservedPrefixes.contains(where: { !$0.isEmpty && lowercased.hasPrefix($0.lowercased()) }) {
            result = "x_" + result
        }
        return String(result.prefix(max(limits.maximumParameterNameLength, 1)))
    }

    /// `value` cut to the longest value the limits allow.
    static func truncated(_ value: String, limits: AnalyticsLimits) -> String {
        value.count > limits.maximumValueLength ? String(value.prefix(max(limits.maximumValueLength, 0))) : value
    }

    /// `value` as a parameter: `1000` for a whole number, `12.346` (three decimals at most) otherwise.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return "\((value * 1000).rounded() / 1000)"
    }

    /// Milliseconds in `nanoseconds`, for `duration_ms`.
    static func milliseconds(nanoseconds: Int64) -> Double {
        Double(nanoseconds) / 1_000_000
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}
