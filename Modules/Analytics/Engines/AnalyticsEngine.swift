/// The seam where delivery is swapped: an engine receives batches of records and says what it did with each.
///
/// A record the report does not name was delivered and leaves the queue. A record in ``DeliveryReport/rejected`` is
/// refused for good (it is kept as failed, with the reason, and never retried); one in ``DeliveryReport/retry`` stays
/// queued and is retried with backoff. Throwing retries the whole batch. So one bad event never drops its batch.
///
/// Delivery is at least once: after a crash or a failed batch a record can arrive again, with the same
/// ``AnalyticsRecord/id``; an engine that stores records deduplicates by it.
public protocol AnalyticsEngine: Sendable {
    /// Delivers `batch` (in logging order) and reports the records it did not accept.
    func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport
}
