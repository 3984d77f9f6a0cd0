/// Holds back `documents.cost` events: the first operation after a quiet interval goes out at once; later ones are
/// summed per kind and collection until the interval is over, then go out together (the store schedules that).
struct CostEventThrottle: Sendable {
    private var held: [String: DocumentsCost.Payload] = [:]
    private var lastPublished: ContinuousClock.Instant?
    private var scheduled = false

    /// Adds one operation's cost; returns the events due now, and how long to wait before publishing the held ones
    /// (`nil` when nothing needs scheduling).
    mutating func add(
        kind: String, collection: String, _ counts: CostCounts, now: ContinuousClock.Instant, interval: Duration
    ) -> (due: [DocumentsCost.Payload], wait: Duration?) {
        let key = kind + "\u{0}" + collection
        var payload = held[key] ?? .init(kind: kind, collection: collection, reads: 0, writes: 0, deletes: 0)
        payload.reads += counts.reads
        payload.writes += counts.writes
        payload.deletes += counts.deletes
        held[key] = payload
        if scheduled { return ([], nil) }
        if let lastPublished, now - lastPublished < interval {
            scheduled = true
            return ([], interval - (now - lastPublished))
        }
        return (take(now: now), nil)
    }

    /// Every held event, in a stable order; the interval starts again.
    mutating func take(now: ContinuousClock.Instant) -> [DocumentsCost.Payload] {
        defer {
            held.removeAll(keepingCapacity: true)
            scheduled = false
        }
        if !held.isEmpty { lastPublished = now }
        return held.keys.sorted().compactMap { held[$0] }
    }
}
