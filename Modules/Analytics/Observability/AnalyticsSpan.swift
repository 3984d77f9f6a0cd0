import Synchronization
public import Tracing

/// A span started by an ``AnalyticsTracer``: when it ends it logs one `trace` event.
///
/// | parameter | value |
/// |---|---|
/// | `name` | the operation name, cut to the value limit |
/// | `duration_ms` | from the start instant to the end instant |
/// | `outcome` | `error` when the status is `.error`, or when an error was recorded and no status was set; `ok` otherwise |
/// | `error` | the type of the last recorded error (never its message, which may hold personal data) |
/// | `kind` | `internal`, `server`, `client`, `producer` or `consumer` |
/// | `trace_id`, `span_id`, `parent_id` | the ``AnalyticsSpanContext`` ids (`parent_id` only for a child span) |
/// | `attr_<name>` | each attribute, the name sanitised to the parameter name rules; arrays joined with `,` |
///
/// Attributes past the parameter limit are dropped in name order. Span events and links are not recorded. Ending a
/// span a second time does nothing. When the tracer forwards to another tracer, every call is also made on that
/// tracer's span (``downstream``).
public final class AnalyticsSpan: Span {
    private struct State {
        var operationName: String
        var attributes: SpanAttributes = [:]
        var status: SpanStatus?
        var errorType: String?
        var ended = false
    }

    /// The service context of this span; its `Tracing/ServiceContext/analyticsSpanContext` holds the span's ids.
    public let context: ServiceContext
    /// The span's ids.
    public let spanContext: AnalyticsSpanContext
    /// The span's kind.
    public let kind: SpanKind
    /// The span of the tracer this span's ``AnalyticsTracer`` forwards to, if any.
    public let downstream: (any Span)?
    private let manager: AnalyticsManager
    private let startNanoseconds: UInt64
    private let state: Mutex<State>

    init(
        operationName: String, kind: SpanKind, context: ServiceContext, spanContext: AnalyticsSpanContext,
        startNanoseconds: UInt64, manager: AnalyticsManager, downstream: (any Span)?
    ) {
        self.downstream = downstream
        self.context = context
        self.spanContext = spanContext
        self.kind = kind
        self.manager = manager
        self.startNanoseconds = startNanoseconds
        state = Mutex(State(operationName: operationName))
    }

    /// The operation's name, reported as the event's `name`.
    public var operationName: String {
        get { state.withLock { $0.operationName } }
        set {
            state.withLock { $0.operationName = newValue }
            downstream?.operationName = newValue
        }
    }

    /// The span's attributes, reported as `attr_<name>` parameters.
    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set {
            state.withLock { $0.attributes = newValue }
            downstream?.attributes = newValue
        }
    }

    /// True until the span ends.
    public var isRecording: Bool { state.withLock { !$0.ended } }

    /// Sets the status deciding the `outcome`.
    public func setStatus(_ status: SpanStatus) {
        state.withLock { $0.status = status }
        downstream?.setStatus(status)
    }

    /// Not recorded (an analytics event has no place for a span's timeline); forwarded to ``downstream``.
    public func addEvent(_ event: SpanEvent) {
        downstream?.addEvent(event)
    }

    /// Remembers the error's type for the `error` parameter and merges `attributes` into the span's.
    public func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        state.withLock { state in
            state.errorType = String(describing: type(of: error))
            attributes.forEach { name, value in state.attributes[name] = value }
        }
        if let downstream {
            let instant = instant()
            downstream.recordError(error, attributes: attributes, at: instant)
        }
    }

    /// Not recorded (links point at other traces, which an analytics event does not follow); forwarded to
    /// ``downstream``.
    public func addLink(_ link: SpanLink) {
        downstream?.addLink(link)
    }

    /// Ends the span and logs its `trace` event (only the first time).
    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        guard
            let ended = state.withLock({ state -> State? in
                guard !state.ended else { return nil }
                state.ended = true
                return state
            })
        else { return }
        let instant = instant()
        downstream?.end(at: instant)
        let end = instant.nanosecondsSinceEpoch
        let duration = end > startNanoseconds ? end - startNanoseconds : 0
        manager.log(NamedAnalyticsEvent("trace", parameters: parameters(of: ended, durationNanoseconds: duration)))
    }

    /// The `trace` event's parameters, fixed fields first so attributes are what the parameter limit drops.
    private func parameters(of ended: State, durationNanoseconds duration: UInt64) -> [String: String] {
        var parameters = ObservabilityParameters(limits: manager.configuration.limits)
        parameters.add("name", ended.operationName)
        parameters.add("duration_ms", Double(duration) / 1_000_000)
        let failed = ended.status.map { $0.code == .error } ?? (ended.errorType != nil)
        parameters.add("outcome", failed ? "error" : "ok")
        if let errorType = ended.errorType {
            parameters.add("error", errorType)
        }
        parameters.add("kind", Self.name(of: kind))
        parameters.add("trace_id", spanContext.traceID)
        parameters.add("span_id", spanContext.spanID)
        if let parent = spanContext.parentSpanID {
            parameters.add("parent_id", parent)
        }
        var pairs: [(String, String)] = []
        ended.attributes.forEach { name, value in
            if let text = Self.text(of: value) { pairs.append((name, text)) }
        }
        parameters.add(prefix: "attr_", pairs)
        return parameters.parameters
    }

    private static func name(of kind: SpanKind) -> String {
        switch kind {
        case .server: "server"
        case .client: "client"
        case .producer: "producer"
        case .consumer: "consumer"
        default: "internal"
        }
    }

    /// The attribute as a parameter value; nil for a kind this version does not know.
    private static func text(of attribute: SpanAttribute) -> String? {
        switch attribute {
        case .int32(let value): "\(value)"
        case .int64(let value): "\(value)"
        case .double(let value): ObservabilityParameters.format(value)
        case .bool(let value): "\(value)"
        case .string(let value): value
        case .stringConvertible(let value): value.description
        case .int32Array(let values): values.map { "\($0)" }.joined(separator: ",")
        case .int64Array(let values): values.map { "\($0)" }.joined(separator: ",")
        case .doubleArray(let values): values.map(ObservabilityParameters.format).joined(separator: ",")
        case .boolArray(let values): values.map { "\($0)" }.joined(separator: ",")
        case .stringArray(let values): values.joined(separator: ",")
        case .stringConvertibleArray(let values): values.map(\.description).joined(separator: ",")
        default: nil
        }
    }
}
