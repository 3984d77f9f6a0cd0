import Foundation
public import SuiteCore
import Synchronization

/// Turns other modules' bus events into analytics records, by name and without importing those modules: document
/// reads, writes and deletes per collection (`documents.cost`, the Firestore bill), cache hits and misses, sync
/// activity, work-status changes.
///
/// ```swift
/// let recorder = AnalyticsBusRecorder(bus: bus, manager: analytics, prefixes: ["documents.cost", "cache."])
/// // … later
/// recorder.cancel()
/// ```
///
/// A host that opens its manager later (or per unit of work) creates the recorder without one: events are then kept
/// in a bounded buffer (``capacity``; past it they are dropped and counted in ``dropped``) until ``drain()``.
///
/// An event `documents.cost` becomes the analytics event `documents_cost` (dots and dashes become `_`). Its payload's
/// top-level strings, numbers and booleans become parameters (strings cut to the limits' value length); a list
/// becomes `<field>_count`; nested objects and the fields in ``excludedFields`` are left out (a cache `key` is a URL
/// and may name a person). `source` carries the publishing module. What is recorded still passes the manager's
/// privacy policy, validation and sampling.
public final class AnalyticsBusRecorder: Sendable {
    /// What is recorded by default: document costs, and every cache, sync and work event.
    public static let defaultPrefixes = ["documents.cost", "cache.", "sync.", "work."]
    /// Payload fields never recorded by default.
    public static let defaultExcludedFields: Set<String> = ["key", "message"]

    /// The event name prefixes recorded (an exact name, or a prefix ending in `.`).
    public let prefixes: [String]
    /// Payload fields left out.
    public let excludedFields: Set<String>
    /// The most events buffered when the recorder has no manager.
    public let capacity: Int
    private let subscription: Subscription
    private let buffer = RecorderBuffer()

    /// Starts recording the events of `bus` whose names match `prefixes` into `manager`.
    public convenience init(
        bus: EventBus, manager: AnalyticsManager, prefixes: [String] = AnalyticsBusRecorder.defaultPrefixes,
        excludedFields: Set<String> = AnalyticsBusRecorder.defaultExcludedFields
    ) {
        self.init(
            bus: bus, sink: { manager.log($0) }, limits: manager.configuration.limits, prefixes: prefixes,
            excludedFields: excludedFields, capacity: 0)
    }

    /// Starts recording the events of `bus` whose names match `prefixes` into a buffer of `capacity` events, taken
    /// with ``drain()``; `limits` shape names and values.
    public convenience init(
        bus: EventBus, limits: AnalyticsLimits = AnalyticsLimits(),
        prefixes: [String] = AnalyticsBusRecorder.defaultPrefixes,
        excludedFields: Set<String> = AnalyticsBusRecorder.defaultExcludedFields, capacity: Int = 100_000
    ) {
        self.init(
            bus: bus, sink: nil, limits: limits, prefixes: prefixes, excludedFields: excludedFields,
            capacity: capacity)
    }

    private init(
        bus: EventBus, sink: (@Sendable (NamedAnalyticsEvent) -> Void)?, limits: AnalyticsLimits, prefixes: [String],
        excludedFields: Set<String>, capacity: Int
    ) {
        self.prefixes = prefixes
        self.excludedFields = excludedFields
        self.capacity = capacity
        let buffer = self.buffer
        subscription = bus.subscribeAll { [prefixes, excludedFields] event, envelope in
            guard Self.matches(envelope.name, prefixes) else { return }
            let recorded = Self.event(
                name: envelope.name, source: envelope.source, payload: Self.json(event.payload),
                excluding: excludedFields, limits: limits)
            if let sink { return sink(recorded) }
            buffer.state.withLock { buffer in
                if buffer.events.count < capacity { buffer.events.append(recorded) } else { buffer.dropped += 1 }
            }
        }
    }

    /// Takes the buffered events (none when the recorder logs into a manager).
    public func drain() -> [NamedAnalyticsEvent] {
        buffer.state.withLock { buffer in
            defer { buffer.events.removeAll() }
            return buffer.events
        }
    }

    /// Events dropped because the buffer was full.
    public var dropped: Int { buffer.state.withLock { $0.dropped } }

    /// Stops recording.
    public func cancel() { subscription.cancel() }

    deinit { subscription.cancel() }

    static func matches(_ name: String, _ prefixes: [String]) -> Bool {
        prefixes.contains { prefix in prefix.hasSuffix(".") ? name.hasPrefix(prefix) : name == prefix }
    }

    private static func json(_ payload: some Encodable) -> JSONValue {
        guard let data = try? JSONEncoder().encode(payload), let value = try? JSONValue(parsing: data) else {
            return .object([:])
        }
        return value
    }

    /// The analytics event for a bus event named `name` from `source` carrying `payload`.
    static func event(
        name: String, source: String, payload: JSONValue, excluding excluded: Set<String>, limits: AnalyticsLimits
    ) -> NamedAnalyticsEvent {
        var parameters = ["source": String(source.prefix(limits.maximumValueLength))]
        for (key, value) in (payload.objectValue ?? [:]).sorted(by: { $0.key < $1.key })
        where !excluded.contains(key) {
            guard parameters.count < limits.maximumParameterCount else { break }
            let text: String
            var field = key
            switch value {
            case .string(let string): text = string
            case .int(let number): text = "\(number)"
            case .double(let number): text = JSONValue.format(number)
            case .bool(let flag): text = flag ? "true" : "false"
            case .array(let items):
                text = "\(items.count)"
                field = key + "_count"
            case .object, .null: continue
            }
            parameters[analyticsName(field, limit: limits.maximumParameterNameLength)] = String(
                text.prefix(limits.maximumValueLength))
        }
        return NamedAnalyticsEvent(analyticsName(name, limit: limits.maximumNameLength), parameters: parameters)
    }

    /// `name` with every character other than a letter, digit or `_` turned into `_`, cut to `limit`.
    static func analyticsName(_ name: String, limit: Int) -> String {
        // Bus names and payload keys are mostly ASCII already: check bytes before building anything (this runs for
        // every field of every recorded event).
        func allowed(_ byte: UInt8) -> Bool {
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95
        }
        if name.utf8.count <= limit, name.utf8.allSatisfy(allowed) { return name }
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars.prefix(limit) {
            scalars.append(scalar.isASCII && allowed(UInt8(scalar.value)) ? scalar : "_")
        }
        return String(scalars)
    }
}

/// The recorder's buffer, shared with its bus handler.
final class RecorderBuffer: Sendable {
    let state = Mutex<(events: [NamedAnalyticsEvent], dropped: Int)>(([], 0))
}
