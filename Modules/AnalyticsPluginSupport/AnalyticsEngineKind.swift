@_spi(Engine) public import Analytics
import Foundation
public import SuitePluginKit

/// The `analytics` engine kind: an `AnalyticsEngine` in a plugin. One operation, `deliver`, with JSON
/// payloads a C author can read and write with any JSON library:
///
/// ```json
/// request:  {"batch": [{"id": "0193…", "name": "login_failed", "parameters": {"reason": "wrong_password"},
///                       "timestamp": "2026-11-24T10:00:00.123456Z", "sessionID": "…", "context": {…},
///                       "sampleRate": 1}]}
/// response: {"rejected": [{"id": "0193…", "reason": "…"}], "retry": [{"id": "…", "reason": "…"}]}
/// ```
///
/// A record the response does not name was delivered; `rejected` ones are refused for good, `retry` ones are retried
/// with backoff; a failure response retries the whole batch. Records arrive in logging order and may arrive twice
/// (after a crash or a failed batch): deduplicate by `id`.
public enum AnalyticsEngineKind: PluginEngineKind {
    /// `"analytics"` (`EngineKind/analytics`).
    public static let name = EngineKind.analytics

    /// The `AnalyticsError` of the same code (an unknown code name is kept as is).
    public static func error(for failure: PluginFailure) -> any Error {
        AnalyticsError(AnalyticsError.Code(named: failure.code), failure.message, hint: failure.hint)
    }

    /// An `AnalyticsError` keeps its code; any other error becomes `delivery` with its description.
    public static func failure(for error: any Error) -> PluginFailure {
        let analyticsError =
            error as? AnalyticsError ?? AnalyticsError(.delivery, "\(error)", underlying: error)
        return PluginFailure(
            code: analyticsError.code.description, analyticsError.message, hint: analyticsError.hint)
    }

    /// A `delivery` `AnalyticsError` whose `underlying` is the `PluginError`: the batch
    /// is retried.
    public static func error(forCallFailure error: PluginError) -> any Error {
        AnalyticsError(.delivery, "analytics engine plugin: \(error.message)", hint: error.hint, underlying: error)
    }

    /// Delivers a batch: the one operation of the kind.
    public struct Deliver: PluginOperation, Codable, Hashable {
        /// The kind.
        public typealias Kind = AnalyticsEngineKind
        /// `"deliver"`.
        public static let operationName = "deliver"

        /// The records, in logging order.
        public var batch: [Record]

        /// A request delivering `records`.
        public init(_ records: [AnalyticsRecord]) { batch = records.map(Record.init) }

        /// A record as it crosses the boundary: `AnalyticsRecord` with the timestamp in RFC 3339.
        public struct Record: Codable, Sendable, Hashable {
            /// The record's UUID v7, lowercase; the idempotency key.
            public var id: String
            /// The event's name.
            public var name: String
            /// Its parameters.
            public var parameters: [String: String]
            /// When it was logged, RFC 3339 with microseconds, UTC.
            public var timestamp: String
            /// Its session id.
            public var sessionID: String
            /// The record's context (automatic and configured).
            public var context: [String: String]
            /// The sampling rate it was kept at.
            public var sampleRate: Double
            /// The identified user, if any.
            public var userID: String?
            /// The install's anonymous id, lowercase (absent from hosts that predate it).
            public var anonymousID: String?
            /// The user's traits after the privacy policy (absent from hosts that predate them).
            public var traits: [String: String]?

            /// The wire form of `record`.
            public init(_ record: AnalyticsRecord) {
                id = record.id.uuidString.lowercased()
                name = record.name
                parameters = record.parameters
                timestamp = RFC3339Text.format(record.timestamp)
                sessionID = record.sessionID.uuidString.lowercased()
                context = record.context
                sampleRate = record.sampleRate
                userID = record.userID
                anonymousID = record.anonymousID?.uuidString.lowercased()
                traits = record.traits
            }

            /// The record, or nil when its id, session id or timestamp does not parse.
            public var record: AnalyticsRecord? {
                guard let id = UUID(uuidString: id), let session = UUID(uuidString: sessionID),
                    let date = RFC3339Text.parse(timestamp)
                else { return nil }
                return AnalyticsRecord(
                    id: id, name: name, parameters: parameters, timestamp: date, sessionID: session,
                    context: context, sampleRate: sampleRate, userID: userID,
                    anonymousID: anonymousID.flatMap(UUID.init(uuidString:)), traits: traits ?? [:])
            }
        }

        /// What the engine did: the records it refused for good or for now, each with a reason.
        public struct Response: Codable, Sendable, Hashable {
            /// A record named with a reason.
            public struct Item: Codable, Sendable, Hashable {
                /// The record's id.
                public var id: String
                /// Why.
                public var reason: String

                /// Creates an item.
                public init(id: String, reason: String) {
                    self.id = id
                    self.reason = reason
                }
            }
            /// Refused for good.
            public var rejected: [Item]?
            /// To retry later.
            public var retry: [Item]?

            /// The wire form of `report`.
            public init(_ report: DeliveryReport) {
                rejected = report.rejected.map { Item(id: $0.key.uuidString.lowercased(), reason: $0.value) }
                retry = report.retry.map { Item(id: $0.key.uuidString.lowercased(), reason: $0.value) }
            }

            /// The report; ids that are not UUIDs are ignored.
            public var report: DeliveryReport {
                var report = DeliveryReport()
                for item in rejected ?? [] {
                    if let id = UUID(uuidString: item.id) { report.rejected[id] = item.reason }
                }
                for item in retry ?? [] {
                    if let id = UUID(uuidString: item.id) { report.retry[id] = item.reason }
                }
                return report
            }
        }
    }
}

extension EngineKind {
    /// An analytics delivery engine (`deliver` operation; see `AnalyticsPluginSupport`).
    public static let analytics = "analytics"
}
