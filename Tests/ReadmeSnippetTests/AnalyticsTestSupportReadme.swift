// swift-format-ignore-file
// Modules/AnalyticsTestSupport/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line).
import Analytics
import AnalyticsTestSupport
import Foundation

func analyticsTestSupportReadme() async throws {
    let engine = InMemoryAnalyticsEngine(rejecting: { $0.name == "debug_only" ? "not for production" : nil })
    let queue = try AnalyticsQueue(path: NSTemporaryDirectory() + "analytics-test.sqlite")
    let analytics = try AnalyticsManager(engine: engine, queue: queue)
    analytics.log(NamedAnalyticsEvent("checkout_started", parameters: ["items": "3"]))
    try await analytics.flush()
    assert(engine.records.contains { $0.name == "checkout_started" })
    engine.failNextDeliveries(2)   // the next two batches fail: the queue retries them with backoff
}
