public import Foundation

/// What an ``AnalyticsEngine`` did with a batch: the records it refused (for good, or for now), each with a reason.
/// Every record of the batch not named here was delivered.
public struct DeliveryReport: Sendable, Hashable {
    /// Records refused for good (malformed for this receiver), by id, with the reason.
    public var rejected: [UUID: String]
    /// Records to try again later (a transient failure for that record only), by id, with the reason.
    public var retry: [UUID: String]

    /// Creates a report.
    public init(rejected: [UUID: String] = [:], retry: [UUID: String] = [:]) {
        self.rejected = rejected
        self.retry = retry
    }

    /// Every record of the batch was delivered.
    public static let delivered = DeliveryReport()

    /// Whether every record was delivered.
    public var isComplete: Bool { rejected.isEmpty && retry.isEmpty }
}
