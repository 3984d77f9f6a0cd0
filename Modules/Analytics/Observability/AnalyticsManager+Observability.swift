import Tracing

extension AnalyticsManager {
    /// Runs `body` in a span named `name` and logs it as a `trace` event when it returns or throws: `duration_ms`,
    /// `outcome` (`ok`, or `error` with the error's type in `error`), the span ids and `attributes` as
    /// `attr_<name>` parameters (see ``AnalyticsSpan``). Returns what `body` returns and rethrows what it throws.
    ///
    /// ```swift
    /// let profile = try await analytics.trace("fetch_user_profile", attributes: ["source": "cache"]) {
    ///     try await fetchProfile()
    /// }
    /// ```
    ///
    /// Nested calls (and spans of an ``AnalyticsTracer`` around them) share the trace id and carry the outer span's id
    /// as `parent_id`. The span goes to this manager only; for spans that should also reach the tracer the app
    /// bootstrapped, use `InstrumentationSystem.tracer.withSpan`.
    public func trace<T>(
        _ name: String, attributes: [String: String] = [:], isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        try await AnalyticsTracer(manager: self).withSpan(name, isolation: isolation) { span in
            if !attributes.isEmpty {
                span.updateAttributes { spanAttributes in
                    for (key, value) in attributes { spanAttributes[key] = value }
                }
            }
            return try await body()
        }
    }

    /// Logs an `http_request` event for one HTTP exchange: `method` (uppercased), `url` without user, password,
    /// fragment or query values, `status` (absent when no response arrived), `outcome` (`ok` for a status below 400,
    /// `error` otherwise or without a response), `duration_ms` and `bytes` when given.
    ///
    /// ```swift
    /// analytics.recordHTTP(
    ///     method: "GET", url: "https://api.example.com/search?q=shoes&token=abc", status: 200,
    ///     duration: .milliseconds(84), bytes: 5_120, keepingQueryValuesOf: ["q"])
    /// // url: https://api.example.com/search?q=shoes&token
    /// ```
    ///
    /// Query keys are kept and their values dropped, unless the key is in `keepingQueryValuesOf`: a query value is
    /// where tokens and emails end up. Secrets in the path are the caller's to remove. The URL is cut to the value
    /// limit.
    public func recordHTTP(
        method: String, url: String, status: Int?, duration: Duration, bytes: Int? = nil,
        keepingQueryValuesOf allowedQueryKeys: Set<String> = []
    ) {
        var parameters = ObservabilityParameters(limits: configuration.limits)
        parameters.add("method", method.uppercased())
        parameters.add("url", RedactedURL.string(url, keepingValuesOf: allowedQueryKeys))
        if let status {
            parameters.add("status", String(status))
        }
        parameters.add("outcome", status.map { $0 < 400 } == true ? "ok" : "error")
        let (seconds, attoseconds) = duration.components
        parameters.add("duration_ms", Double(seconds) * 1_000 + Double(attoseconds) / 1e15)
        if let bytes {
            parameters.add("bytes", String(bytes))
        }
        log(NamedAnalyticsEvent("http_request", parameters: parameters.parameters))
    }

    /// Logs one `metric` event counting `amount` under `name`: `kind` `counter`, `count` 1, `sum` `amount` and each
    /// dimension as `dim_<name>` — the shape of an ``AnalyticsMetricsFactory`` counter window, so both add up in the
    /// same query.
    ///
    /// ```swift
    /// analytics.count("export_started", dimensions: ["format": "pdf"])
    /// ```
    ///
    /// It is one event per call, for occasional counts. A counter updated often (per request, per row) belongs in a
    /// swift-metrics `Counter` recorded by an ``AnalyticsMetricsFactory``, which aggregates in memory.
    public func count(_ name: String, by amount: Int = 1, dimensions: [String: String] = [:]) {
        var parameters = ObservabilityParameters(limits: configuration.limits)
        parameters.add("metric", name)
        parameters.add("kind", MetricAggregate.Kind.counter.rawValue)
        parameters.add("count", "1")
        parameters.add("sum", String(amount))
        parameters.add(prefix: "dim_", dimensions.map { ($0.key, $0.value) })
        log(NamedAnalyticsEvent("metric", parameters: parameters.parameters))
    }
}
