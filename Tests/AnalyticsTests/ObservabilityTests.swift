import Analytics
import AnalyticsTestSupport
import CoreMetrics
import Foundation
import Logging
import MetricsTestKit
import Synchronization
import Testing
import Tracing

@Suite struct ObservabilityTests {
    /// A harness and a factory that flushes only when told, so each test decides when events are emitted.
    static func metrics(
        _ options: AnalyticsMetricsOptions = AnalyticsMetricsOptions(flushInterval: nil)
    ) throws -> (Harness, AnalyticsMetricsFactory) {
        let harness = try Harness()
        return (harness, try AnalyticsMetricsFactory(manager: harness.manager, options: options))
    }

    /// The parameters of every delivered event named `name`, in order.
    static func delivered(_ name: String, _ harness: Harness) async throws -> [[String: String]] {
        try await harness.manager.flush()
        return harness.engine.records.filter { $0.name == name }.map(\.parameters)
    }

    // MARK: Metrics

    @Test func aThousandIncrementsAreOneAggregatedEvent() async throws {
        let (harness, factory) = try Self.metrics()
        let counter = CoreMetrics.Counter(
            label: "http_requests", dimensions: [("route", "/users"), ("method", "GET")], factory: factory)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<10 {
                group.addTask { for _ in 0..<100 { counter.increment() } }
            }
        }
        #expect(harness.manager.statistics.logged == 0)  // nothing per increment
        factory.flush()
        let first = try await Self.delivered("metric", harness)
        #expect(
            first == [
                [
                    "metric": "http_requests", "kind": "counter", "count": "1000", "sum": "1000", "total": "1000",
                    "dim_route": "/users", "dim_method": "GET",
                ]
            ])

        counter.increment(by: 5)
        factory.flush()
        factory.flush()  // an idle window emits nothing
        let events = try await Self.delivered("metric", harness)
        #expect(events.count == 2)
        #expect(events.last?["sum"] == "5")
        #expect(events.last?["total"] == "1005")
    }

    @Test func instrumentsWithTheSameLabelAndDimensionsShareASeries() async throws {
        let (harness, factory) = try Self.metrics()
        CoreMetrics.Counter(label: "jobs", dimensions: [("a", "1"), ("b", "2")], factory: factory).increment(by: 2)
        CoreMetrics.Counter(label: "jobs", dimensions: [("b", "2"), ("a", "1")], factory: factory).increment(by: 3)
        CoreMetrics.Counter(label: "jobs", dimensions: [("a", "other")], factory: factory).increment(by: 1)
        factory.flush()
        let events = try await Self.delivered("metric", harness)
        #expect(events.map { $0["dim_a"] } == ["1", "other"])  // one event per series, in dimension order
        #expect(events.map { $0["sum"] } == ["5", "1"])
    }

    @Test func timerReportsCountMinMaxAndSumInMilliseconds() async throws {
        let (harness, factory) = try Self.metrics()
        let timer = CoreMetrics.Timer(label: "db_query", dimensions: [("table", "users")], factory: factory)
        timer.recordMilliseconds(5)
        timer.recordMilliseconds(20)
        timer.recordNanoseconds(12_000_000)
        factory.flush()
        let events = try await Self.delivered("metric", harness)
        #expect(
            events == [
                [
                    "metric": "db_query", "kind": "timer", "unit": "ms", "count": "3", "sum": "37", "min": "5",
                    "max": "20", "avg": "12.333", "dim_table": "users",
                ]
            ])
    }

    @Test func gaugeMeterAndHistogramReportTheirValues() async throws {
        let (harness, factory) = try Self.metrics()
        let gauge = Gauge(label: "queue_depth", factory: factory)
        for value in [3, 9, 4] { gauge.record(value) }
        let meter = Meter(label: "connections", factory: factory)
        meter.set(10)
        meter.increment(by: 5)
        meter.decrement(by: 3)
        let histogram = Recorder(label: "payload_bytes", factory: factory)
        for value in [100, 300] { histogram.record(value) }
        factory.flush()
        let events = Dictionary(
            try await Self.delivered("metric", harness).map { ($0["metric"] ?? "", $0) }, uniquingKeysWith: { $1 })
        #expect(
            events["queue_depth"] == [
                "metric": "queue_depth", "kind": "gauge", "count": "3", "value": "4", "min": "3", "max": "9",
            ])
        #expect(events["connections"]?["kind"] == "meter")
        #expect(events["connections"]?["value"] == "12")
        #expect(events["connections"]?["max"] == "15")
        #expect(
            events["payload_bytes"] == [
                "metric": "payload_bytes", "kind": "histogram", "count": "2", "sum": "400", "min": "100", "max": "300",
                "avg": "200",
            ])
    }

    @Test func idleSeriesAreEmittedOnlyWhenAskedFor() async throws {
        let (harness, factory) = try Self.metrics(AnalyticsMetricsOptions(flushInterval: nil, emitsIdleSeries: true))
        let gauge = Gauge(label: "temperature", factory: factory)
        gauge.record(21.5)
        factory.flush()
        factory.flush()
        let events = try await Self.delivered("metric", harness)
        #expect(events.map { $0["value"] } == ["21.5", "21.5"])
        #expect(events.map { $0["count"] } == ["1", "0"])
    }

    @Test func destroyingAnInstrumentEmitsItsWindowAndForgetsIt() async throws {
        let (harness, factory) = try Self.metrics()
        let counter = CoreMetrics.Counter(label: "uploads", factory: factory)
        counter.increment(by: 4)
        counter.destroy()
        #expect(try await Self.delivered("metric", harness).map { $0["sum"] } == ["4"])
        counter.increment()  // a destroyed series is never emitted again
        factory.flush()
        #expect(try await Self.delivered("metric", harness).count == 1)
    }

    @Test func labelFilterAndSeriesLimit() async throws {
        let options = AnalyticsMetricsOptions(
            flushInterval: nil, recordsLabel: { $0.hasPrefix("app_") }, maximumSeries: 1)
        let (harness, factory) = try Self.metrics(options)
        CoreMetrics.Counter(label: "nio_reads", factory: factory).increment()
        CoreMetrics.Counter(label: "app_opens", factory: factory).increment()
        CoreMetrics.Counter(label: "app_closes", factory: factory).increment()
        factory.flush()
        #expect(try await Self.delivered("metric", harness).map { $0["metric"] } == ["app_opens"])
        #expect(factory.refusedSeriesCount == 1)
    }

    @Test func aFlushIntervalEmitsWithoutAnExplicitFlush() async throws {
        let (harness, factory) = try Self.metrics(AnalyticsMetricsOptions(flushInterval: .milliseconds(20)))
        CoreMetrics.Counter(label: "ticks", factory: factory).increment(by: 3)
        let deadline = ContinuousClock.now + .seconds(90)
        while harness.manager.statistics.logged == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await Self.delivered("metric", harness).map { $0["sum"] } == ["3"])
    }

    @Test func outOfRangeOptionsAreTypedErrors() throws {
        let harness = try Harness()
        #expect(throws: AnalyticsError.self) {
            _ = try AnalyticsMetricsFactory(manager: harness.manager, options: .init(flushInterval: .zero))
        }
        #expect(throws: AnalyticsError.self) {
            _ = try AnalyticsMetricsFactory(manager: harness.manager, options: .init(maximumSeries: 0))
        }
    }

    @Test func aMultiplexDeliversToAnalyticsAndToTestMetrics() async throws {
        let (harness, factory) = try Self.metrics()
        let testMetrics = TestMetrics()
        let multiplex = MultiplexMetricsHandler(factories: [factory, testMetrics])
        let counter = CoreMetrics.Counter(label: "jobs_done", dimensions: [("queue", "mail")], factory: multiplex)
        counter.increment(by: 7)
        counter.increment(by: 2)
        CoreMetrics.Timer(label: "job_duration", factory: multiplex).recordMilliseconds(40)

        #expect(try testMetrics.expectCounter("jobs_done", [("queue", "mail")]).totalValue == 9)
        #expect(try testMetrics.expectTimer("job_duration").values == [40_000_000])
        factory.flush()
        let events = try await Self.delivered("metric", harness)
        #expect(events.first { $0["metric"] == "jobs_done" }?["sum"] == "9")
        #expect(events.first { $0["metric"] == "job_duration" }?["max"] == "40")
    }

    // MARK: Sanitising

    @Test func namesThatWouldFailValidationAreSanitisedNotRejected() async throws {
        let (harness, factory) = try Self.metrics()
        let longLabel = String(repeating: "l", count: 150)
        var dimensions = [("http.method", "GET"), ("9lives", "x"), ("v", String(repeating: "v", count: 300))]
        dimensions += (0..<30).map { ("z\($0)", "\($0)") }  // past the limit, dropped in name order
        CoreMetrics.Counter(label: longLabel, dimensions: dimensions, factory: factory).increment()
        factory.flush()
        let tracer = AnalyticsTracer(manager: harness.manager)
        tracer.withSpan(String(repeating: "s", count: 120)) { span in
            span.attributes["user tier!"] = "pro"
            span.attributes["ga_session"] = 3
        }
        try await harness.manager.flush()

        #expect(harness.manager.statistics.rejected == 0)
        let metric = try #require(harness.engine.records.first { $0.name == "metric" }?.parameters)
        #expect(metric.count == 25)
        #expect(metric["metric"] == String(repeating: "l", count: 100))
        #expect(metric["dim_http_method"] == "GET")
        #expect(metric["dim_9lives"] == "x")
        #expect(metric["dim_v"]?.count == 100)
        #expect(metric["dim_z0"] == "0")
        #expect(metric["dim_z9"] == nil)
        let trace = try #require(harness.engine.records.first { $0.name == "trace" }?.parameters)
        #expect(trace["name"]?.count == 100)
        #expect(trace["attr_user_tier_"] == "pro")
        #expect(trace["attr_ga_session"] == "3")
    }

    // MARK: Traces

    @Test func aSpanWithAttributesAndAnErrorEndsAsAFailedTrace() async throws {
        let harness = try Harness()
        let tracer = AnalyticsTracer(manager: harness.manager)
        #expect(throws: ProfileError.self) {
            try tracer.withSpan("load_profile", ofKind: .client) { span in
                span.attributes["http.status_code"] = 500
                span.attributes["cache"] = "miss"
                throw ProfileError()
            }
        }
        let events = try await Self.delivered("trace", harness)
        let trace = try #require(events.first)
        #expect(events.count == 1)
        #expect(trace["name"] == "load_profile")
        #expect(trace["outcome"] == "error")
        #expect(trace["error"] == "ProfileError")
        #expect(trace["kind"] == "client")
        #expect(trace["attr_http_status_code"] == "500")
        #expect(trace["attr_cache"] == "miss")
        #expect(trace["trace_id"]?.count == 32)
        #expect(trace["span_id"]?.count == 16)
        #expect(trace["parent_id"] == nil)
        #expect(trace["duration_ms"].flatMap(Double.init) != nil)
    }

    @Test func aNestedSpanCarriesItsParentsID() async throws {
        let harness = try Harness()
        let tracer = AnalyticsTracer(manager: harness.manager)
        try await tracer.withSpan("checkout") { _ in
            try await harness.manager.trace("charge_card") {
                try await tracer.withSpan("call_bank") { _ in try await Task.sleep(for: .milliseconds(1)) }
            }
        }
        let events = try await Self.delivered("trace", harness)
        let byName = Dictionary(events.map { ($0["name"] ?? "", $0) }, uniquingKeysWith: { $1 })
        let outer = try #require(byName["checkout"])
        let middle = try #require(byName["charge_card"])
        let inner = try #require(byName["call_bank"])
        #expect(middle["parent_id"] == outer["span_id"])
        #expect(inner["parent_id"] == middle["span_id"])
        #expect(Set(events.map { $0["trace_id"] }).count == 1)
        #expect(events.map { $0["outcome"] } == ["ok", "ok", "ok"])
    }

    @Test func traceMeasuresTheBodyAndReturnsItsResult() async throws {
        let harness = try Harness()
        let value = try await harness.manager.trace("fetch_user_profile", attributes: ["source": "network"]) {
            try await Task.sleep(for: .milliseconds(50))
            return 42
        }
        #expect(value == 42)
        await #expect(throws: ProfileError.self) {
            try await harness.manager.trace("fetch_user_profile") { throw ProfileError() }
        }
        let events = try await Self.delivered("trace", harness)
        #expect(events.count == 2)
        #expect(try #require(events[0]["duration_ms"].flatMap(Double.init)) >= 50)
        #expect(events[0]["outcome"] == "ok")
        #expect(events[0]["attr_source"] == "network")
        #expect(events[1]["outcome"] == "error")
        #expect(events[1]["error"] == "ProfileError")
    }

    @Test func traceparentIsExtractedAndInjected() async throws {
        let harness = try Harness()
        let tracer = AnalyticsTracer(manager: harness.manager)
        var context = ServiceContext.topLevel
        tracer.extract(
            ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"], into: &context,
            using: HeaderExtractor())
        var outgoing: [String: String] = [:]
        tracer.withSpan("handle_request", context: context, ofKind: .server) { span in
            tracer.inject(span.context, into: &outgoing, using: HeaderInjector())
        }
        let trace = try #require(try await Self.delivered("trace", harness).first)
        #expect(trace["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(trace["parent_id"] == "00f067aa0ba902b7")
        #expect(outgoing["traceparent"] == "00-4bf92f3577b34da6a3ce929d0e0e4736-\(trace["span_id"] ?? "")-01")

        var untouched = ServiceContext.topLevel
        tracer.extract(["traceparent": "00-0000-bad-01"], into: &untouched, using: HeaderExtractor())
        #expect(untouched.analyticsSpanContext == nil)
    }

    @Test func spansAreForwardedToADownstreamTracer() async throws {
        let harness = try Harness()
        let downstream = RecordingTracer()
        let tracer = AnalyticsTracer(manager: harness.manager, forwardingTo: downstream)
        #expect(throws: ProfileError.self) {
            try tracer.withSpan("sync_contacts") { span in
                span.attributes["count"] = 12
                throw ProfileError()
            }
        }
        #expect(
            downstream.log.values == ["start sync_contacts", "error ProfileError", "status error", "end sync_contacts"])
        #expect(downstream.attributes.values.last?["count"]?.toSpanAttribute() == .int64(12))
        var headers: [String: String] = [:]
        tracer.inject(ServiceContext.topLevel, into: &headers, using: HeaderInjector())
        #expect(headers == ["x-recording": "1"])  // the downstream tracer owns propagation
        #expect(try await Self.delivered("trace", harness).first?["outcome"] == "error")
    }

    // MARK: HTTP and counts

    @Test func recordHTTPStripsQueryValuesAndCredentials() async throws {
        let harness = try Harness()
        let url = "https://user:pw@api.example.com/v1/search?q=shoes&token=s3cr3t&page=2#section"
        harness.manager.recordHTTP(
            method: "get", url: url, status: 200, duration: .milliseconds(84), bytes: 5_120,
            keepingQueryValuesOf: ["page"])
        harness.manager.recordHTTP(method: "POST", url: url, status: nil, duration: .seconds(2))
        harness.manager.recordHTTP(method: "GET", url: "not a url?email=a@b.example", status: 503, duration: .zero)
        let events = try await Self.delivered("http_request", harness)
        #expect(
            events[0] == [
                "method": "GET", "url": "https://api.example.com/v1/search?q&token&page=2", "status": "200",
                "outcome": "ok", "duration_ms": "84", "bytes": "5120",
            ])
        #expect(
            events[1] == [
                "method": "POST", "url": "https://api.example.com/v1/search?q&token&page", "outcome": "error",
                "duration_ms": "2000",
            ])
        #expect(events[2]["url"] == "not a url?email")
        #expect(events[2]["outcome"] == "error")
    }

    @Test func countLogsOneCounterEvent() async throws {
        let harness = try Harness()
        harness.manager.count("export_started", by: 3, dimensions: ["format": "pdf"])
        #expect(
            try await Self.delivered("metric", harness) == [
                ["metric": "export_started", "kind": "counter", "count": "1", "sum": "3", "dim_format": "pdf"]
            ])
    }
}

struct ProfileError: Error {}

struct HeaderExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}

struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
}

/// A tracer recording what its spans are told, to check ``AnalyticsTracer`` forwards everything.
struct RecordingTracer: Tracer {
    let log = Collected<String>()
    let attributes = Collected<SpanAttributes>()

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> RecordingSpan {
        log.append("start \(operationName)")
        return RecordingSpan(operationName: operationName, context: context(), tracer: self)
    }

    func forceFlush() {}

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        injector.inject("1", forKey: "x-recording", into: &carrier)
    }
}

final class RecordingSpan: Span {
    let context: ServiceContext
    let tracer: RecordingTracer
    private let name: Mutex<String>
    private let state = Mutex<SpanAttributes>([:])

    init(operationName: String, context: ServiceContext, tracer: RecordingTracer) {
        name = Mutex(operationName)
        self.context = context
        self.tracer = tracer
    }

    var operationName: String {
        get { name.withLock { $0 } }
        set { name.withLock { $0 = newValue } }
    }

    var attributes: SpanAttributes {
        get { state.withLock { $0 } }
        set {
            state.withLock { $0 = newValue }
            tracer.attributes.append(newValue)
        }
    }

    var isRecording: Bool { true }
    func setStatus(_ status: SpanStatus) { tracer.log.append("status \(status.code)") }
    func addEvent(_ event: SpanEvent) { tracer.log.append("event \(event.name)") }
    func addLink(_ link: SpanLink) {}

    func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        tracer.log.append("error \(type(of: error))")
    }

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        tracer.log.append("end \(operationName)")
    }
}

/// The README's "Metrics and traces" snippet as written. Compiled, not called: it bootstraps the process-wide systems.
func observabilityReadmeSnippet(
    engine: any AnalyticsEngine, queue: AnalyticsQueue, logger: Logger, prometheus: any MetricsFactory,
    otelTracer: any Tracer, fetchProfile: () async throws -> String
) async throws {
    let analytics = try AnalyticsManager(engine: engine, queue: queue, logger: logger)
    let metrics = try AnalyticsMetricsFactory(manager: analytics)  // a `metric` event per series every 60 s
    MetricsSystem.bootstrap(MultiplexMetricsHandler(factories: [metrics, prometheus]))
    InstrumentationSystem.bootstrap(AnalyticsTracer(manager: analytics, forwardingTo: otelTracer))

    let profile = try await analytics.trace("fetch_user_profile", attributes: ["source": "network"]) {
        try await fetchProfile()
    }
    analytics.recordHTTP(
        method: "GET", url: "https://api.example.com/users/42?token=abc", status: 200,
        duration: .milliseconds(84), bytes: 5_120)  // url: https://api.example.com/users/42?token
    analytics.count("export_started", dimensions: ["format": "pdf"])
    metrics.flush()  // before the app goes to the background: emit the windows now
    try await analytics.flush()
    _ = profile
}

/// The Observability doc comments' examples as written. Compiled, not called: one bootstraps the process-wide tracer.
func observabilityDocCommentExamples(
    analytics: AnalyticsManager, otelTracer: any Tracer, fetchProfile: () async throws -> String
) async throws {
    let options = AnalyticsMetricsOptions(
        flushInterval: .seconds(30), recordsLabel: { $0.hasPrefix("http_") || $0.hasPrefix("db_") })
    let profile = try await analytics.trace("fetch_user_profile", attributes: ["source": "cache"]) {
        try await fetchProfile()
    }
    analytics.recordHTTP(
        method: "GET", url: "https://api.example.com/search?q=shoes&token=abc", status: 200,
        duration: .milliseconds(84), bytes: 5_120, keepingQueryValuesOf: ["q"])
    analytics.count("export_started", dimensions: ["format": "pdf"])
    InstrumentationSystem.bootstrap(AnalyticsTracer(manager: analytics, forwardingTo: otelTracer))
    let user = try await InstrumentationSystem.tracer.withSpan("fetch_user_profile") { span in
        span.attributes["cache"] = "miss"
        return try await fetchProfile()
    }
    let ids = ServiceContext.current?.analyticsSpanContext  // inside a span: trace and span id for a log line
    _ = (options, profile, user, ids)
}
