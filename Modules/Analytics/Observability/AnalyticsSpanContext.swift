public import Tracing

/// The identity of an ``AnalyticsSpan``: W3C Trace Context ids in lowercase hex, carried in a `ServiceContext` so
/// child spans (and outgoing requests, through ``AnalyticsTracer``'s `inject`) find their parent.
///
/// ```swift
/// let ids = ServiceContext.current?.analyticsSpanContext   // inside a span: trace and span id for a log line
/// ```
public struct AnalyticsSpanContext: Sendable, Hashable {
    /// The trace's id: 32 lowercase hex digits, shared by every span of the trace.
    public var traceID: String
    /// The span's id: 16 lowercase hex digits.
    public var spanID: String
    /// The parent span's id, nil for a root span.
    public var parentSpanID: String?

    /// Creates a span context from ids.
    package init(traceID: String, spanID: String, parentSpanID: String? = nil) {
        self.traceID = traceID
        self.spanID = spanID
        self.parentSpanID = parentSpanID
    }

    /// Parses a W3C `traceparent` header (`00-<trace id>-<parent id>-<flags>`); nil when it is malformed or uses the
    /// all-zero ids the specification declares invalid. The parsed span is the remote parent of the spans started
    /// under it.
    package init?(traceparent: String) {
        let fields = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        // Version 00 has exactly four fields; a later version may append more, which are ignored.
        guard fields.count == 4 || (fields.count > 4 && fields[0] != "00"), fields[0].count == 2, fields[0] != "ff",
            fields[3].count == 2,
            Self.isHex(fields[0]), Self.isHex(fields[3]),
            fields[1].count == 32, Self.isHex(fields[1]), fields[1].contains(where: { $0 != "0" }),
            fields[2].count == 16, Self.isHex(fields[2]), fields[2].contains(where: { $0 != "0" })
        else { return nil }
        self.init(traceID: String(fields[1]).lowercased(), spanID: String(fields[2]).lowercased())
    }

    /// This span as a W3C `traceparent` header value, sampled flag set.
    public var traceparent: String { "00-\(traceID)-\(spanID)-01" }

    /// A new root span context with random ids.
    static func root(using generator: inout some RandomNumberGenerator) -> AnalyticsSpanContext {
        AnalyticsSpanContext(
            traceID: hex(generator.next(), generator.next()), spanID: hex(nonZero(using: &generator)))
    }

    /// A new context for a child of this span: same trace, a random span id, this span as parent.
    func child(using generator: inout some RandomNumberGenerator) -> AnalyticsSpanContext {
        AnalyticsSpanContext(traceID: traceID, spanID: Self.hex(Self.nonZero(using: &generator)), parentSpanID: spanID)
    }

    private static func nonZero(using generator: inout some RandomNumberGenerator) -> UInt64 {
        max(generator.next() as UInt64, 1)
    }

    private static func hex(_ words: UInt64...) -> String {
        words.map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    private static func isHex(_ text: Substring) -> Bool {
        text.unicodeScalars.allSatisfy {
            ("0"..."9").contains($0) || ("a"..."f").contains($0) || ("A"..."F").contains($0)
        }
    }

    /// The `ServiceContext` key under which the span context travels.
    enum Key: ServiceContextKey {
        typealias Value = AnalyticsSpanContext
        static var nameOverride: String? { "analytics-span-context" }
    }
}

extension ServiceContext {
    /// The ``AnalyticsSpanContext`` of the span this context belongs to, if an ``AnalyticsTracer`` made one.
    public var analyticsSpanContext: AnalyticsSpanContext? {
        get { self[AnalyticsSpanContext.Key.self] }
        set { self[AnalyticsSpanContext.Key.self] = newValue }
    }
}
