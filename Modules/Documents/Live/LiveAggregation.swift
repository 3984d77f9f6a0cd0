public import Observation

/// An aggregation that stays current: an `@Observable` model of a count, sum or average over a query, for SwiftUI or
/// any code that observes.
///
/// It starts listening when created and stops when released (or when the store closes, keeping its last values). Its
/// properties change on the main actor, where SwiftUI reads them; a view that reads ``count`` is redrawn when a write
/// changes the count.
///
/// ```swift
/// let orders = try store.collection("orders").whereField("status", isEqualTo: "open")
/// let totals = LiveAggregation(orders.aggregate([.count, .sum("total")]))
///
/// struct TotalsView: View {
///     let totals: LiveAggregation
///     var body: some View {
///         Text("\(totals.count ?? 0) open orders")
///     }
/// }
/// ```
///
/// Without SwiftUI, observe it with `withObservationTracking`, or read it whenever convenient.
@MainActor @Observable
public final class LiveAggregation {
    /// The aggregation followed.
    public let aggregation: AggregateQuery
    /// The results as last computed; `nil` until the first computation.
    public private(set) var snapshot: AggregateSnapshot?
    /// Whether the first computation is still under way (no ``snapshot`` and no ``error`` yet).
    public private(set) var isLoading = true
    /// Whether the data is a local copy the server has not confirmed (``DocumentStore/isFromCache``): always `false`
    /// on a plain store; on a Sync replica, `true` until a pull succeeds and again while the server is unreachable.
    public private(set) var isFromCache: Bool
    /// Why listening stopped (an invalid field, a missing index, the engine failed…); `nil` while it goes on.
    /// Listening does not resume after an error: create a new model to retry.
    public private(set) var error: DocumentsError?

    @ObservationIgnored private let tasks = LiveTasks()

    /// Starts following `aggregation`.
    public init(_ aggregation: AggregateQuery) {
        self.aggregation = aggregation
        let store = aggregation.query.store
        self.isFromCache = store.isFromCache
        listen(to: aggregation.snapshots(), store: store, tasks: tasks)
    }

    /// The count, when the aggregation asks for it; `nil` while loading.
    public var count: Int? { snapshot?.count }

    /// The result named `alias` (`count`, `sum(total)`, `average(total)`); `nil` while loading or when not asked for.
    public func value(_ alias: String) -> DocumentValue? { snapshot?.get(alias) }
}

extension LiveAggregation: LiveModel {
    func receive(_ snapshot: AggregateSnapshot) {
        self.snapshot = snapshot
        if isLoading { isLoading = false }
    }

    func end(_ error: DocumentsError?) {
        if let error { self.error = error }
        if isLoading { isLoading = false }
    }

    func receive(isFromCache: Bool) {
        if self.isFromCache != isFromCache { self.isFromCache = isFromCache }
    }
}
