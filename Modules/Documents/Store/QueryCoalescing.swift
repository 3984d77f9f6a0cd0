/// How a store shares one execution among identical one-shot reads (``DocumentStore/Options/queryCoalescing``).
///
/// With coalescing on, a ``QueryConvertible/getDocuments()`` (or ``DocumentReference/getDocument()``) that arrives while an
/// identical one is running waits for that run's result instead of running again: one execution, billed once, and
/// the calls that shared it counted in ``QueryThrottleCounts/coalesced``. Identical means the same normalized query —
/// collection or collection group, filters, orders, limit, cursors, field mask — and the same rate-limit behaviour.
///
/// A call never shares a result older than its own start: it joins a running execution only when no write of this
/// store completed since that execution began (the store compares commit sequences), so a write that finished before
/// the call is always seen. ``reuseWindow`` extends the sharing to results that finished less than that long ago, on
/// the same condition.
///
/// ```swift
/// var options = DocumentStore.Options()
/// options.queryCoalescing = QueryCoalescing(isEnabled: true, reuseWindow: .milliseconds(50))
/// let store = DocumentStore(engine: InMemoryDocumentEngine(), options: options)
/// ```
public struct QueryCoalescing: Sendable, Hashable {
    /// Whether identical concurrent reads share one execution. Off by default: a store behaves as before.
    public var isEnabled: Bool
    /// How long a finished result keeps answering identical calls, provided no write of this store happened since it
    /// began. Zero (the default) shares running executions only. Writes made by other processes on the same engine
    /// are not seen by the store until it reads again: a window of `w` may return a result that misses such a write
    /// for up to `w`. On a Sync replica every write goes through the store, so the window is exact there.
    public var reuseWindow: Duration

    /// Creates the setting.
    public init(isEnabled: Bool = false, reuseWindow: Duration = .zero) {
        self.isEnabled = isEnabled
        self.reuseWindow = reuseWindow
    }

    /// No coalescing (the default).
    public static let disabled = QueryCoalescing()
    /// Running executions are shared; finished results are not reused.
    public static let enabled = QueryCoalescing(isEnabled: true)
}
