/// An engine that accepts every batch and discards it: analytics switched off without changing call sites.
public struct NoOpAnalyticsEngine: AnalyticsEngine {
    /// Creates the engine.
    public init() {}

    /// Reports every record delivered.
    public func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport { .delivered }
}
