/// Delivers each batch to several engines at once (e.g. SQLite locally and HTTP remotely).
///
/// A record counts as delivered when every engine accepted it. An engine that throws makes the whole batch retry, and
/// a record one engine asks to retry is retried: the engines that had accepted it receive it again (same id), so
/// engines behind a multiplex deduplicate by ``AnalyticsRecord/id``. A rejection by any engine is final.
public struct MultiplexAnalyticsEngine: AnalyticsEngine {
    /// The engines, in the order they are called.
    public let engines: [any AnalyticsEngine]

    /// Creates a multiplex over `engines`.
    public init(_ engines: [any AnalyticsEngine]) {
        self.engines = engines
    }

    /// Delivers the batch to every engine concurrently and merges their reports.
    public func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport {
        let results = await withTaskGroup(of: (Int, Result<DeliveryReport, any Error>).self) { group in
            for (index, engine) in engines.enumerated() {
                group.addTask {
                    do { return (index, .success(try await engine.deliver(batch))) } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results: [(Int, Result<DeliveryReport, any Error>)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }
        }
        var merged = DeliveryReport()
        for (_, result) in results {
            let report = try result.get()
            merged.rejected.merge(report.rejected) { first, _ in first }
            merged.retry.merge(report.retry) { first, _ in first }
        }
        for id in merged.rejected.keys { merged.retry[id] = nil }
        return merged
    }
}
