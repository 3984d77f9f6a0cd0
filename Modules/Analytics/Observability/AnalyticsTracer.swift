public import Tracing

/// A swift-distributed-tracing backend that logs each ended span as a `trace` event (see ``AnalyticsSpan`` for its
/// parameters), so a library already emitting spans is recorded with no change.
///
/// Span ids follow W3C Trace Context and travel in the task-local `ServiceContext`: a span started inside another
/// carries the outer span's id as `parent_id`. `inject` writes a `traceparent` header and `extract` reads one, so a
/// trace continues across HTTP hops. The tracer never bootstraps anything; the app does.
///
/// swift-distributed-tracing has no multiplex tracer (`MultiplexInstrument` multiplexes `inject` and `extract`, but
/// `InstrumentationSystem.tracer` uses its first tracer only), so to keep exporting to another tracer (swift-otel's,
/// say) pass it as `forwardingTo`: each span is then also started on that tracer and every call forwarded to it.
///
/// ```swift
/// InstrumentationSystem.bootstrap(AnalyticsTracer(manager: analytics, forwardingTo: otelTracer))
/// let user = try await InstrumentationSystem.tracer.withSpan("fetch_user_profile") { span in
///     span.attributes["cache"] = "miss"
///     return try await fetchProfile()
/// }
/// ```
public struct AnalyticsTracer: Tracer {
    /// The W3C Trace Context header `inject` and `extract` use.
    public static let traceparentHeader = "traceparent"

    /// The manager the `trace` events are logged to.
    public let manager: AnalyticsManager
    /// The tracer every span is also started on, and every `inject` and `extract` forwarded to, if any.
    public let downstream: (any Tracer)?

    /// Creates a tracer logging to `manager` and, when `downstream` is given, forwarding every span to it.
    public init(manager: AnalyticsManager, forwardingTo downstream: (any Tracer)? = nil) {
        self.manager = manager
        self.downstream = downstream
    }

    /// Starts a span: a child of the ``AnalyticsSpanContext`` in `context` when there is one, a new trace otherwise.
    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> AnalyticsSpan {
        let parent = context()
        let instant = instant()
        var generator = SystemRandomNumberGenerator()
        let spanContext = parent.analyticsSpanContext?.child(using: &generator) ?? .root(using: &generator)
        let downstreamSpan = downstream?.startSpan(
            operationName, context: parent, ofKind: kind, at: instant, function: function, file: fileID, line: line)
        var context = downstreamSpan?.context ?? parent
        context.analyticsSpanContext = spanContext
        return AnalyticsSpan(
            operationName: operationName, kind: kind, context: context, spanContext: spanContext,
            startNanoseconds: instant.nanosecondsSinceEpoch, manager: manager, downstream: downstreamSpan)
    }

    /// Does nothing: spans are logged to the manager when they end, and `try await manager.flush()` delivers them.
    /// (Flush a ``downstream`` tracer through its own API.)
    public func forceFlush() {}

    /// Reads a `traceparent` header from `carrier` into `context`, so the next span continues the remote trace (and
    /// lets a ``downstream`` tracer read its headers too).
    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
        downstream?.extract(carrier, into: &context, using: extractor)
        guard let header = extractor.extract(key: Self.traceparentHeader, from: carrier),
            let remote = AnalyticsSpanContext(traceparent: header)
        else { return }
        context.analyticsSpanContext = remote
    }

    /// Writes the `traceparent` header of the span in `context` into `carrier` (nothing without one); with a
    /// ``downstream`` tracer, that tracer's `inject` writes the headers instead, so a request carries one
    /// `traceparent`.
    public func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        if let downstream {
            downstream.inject(context, into: &carrier, using: injector)
            return
        }
        guard let spanContext = context.analyticsSpanContext else { return }
        injector.inject(spanContext.traceparent, forKey: Self.traceparentHeader, into: &carrier)
    }
}
