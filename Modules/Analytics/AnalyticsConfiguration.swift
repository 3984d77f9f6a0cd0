public import Foundation

/// How an ``AnalyticsManager`` enriches, filters and delivers events. Every field has a working default.
///
/// ```swift
/// var configuration = AnalyticsConfiguration(context: ["app_version": "2.4.1"])
/// configuration.privacy = AnalyticsPrivacyPolicy(rules: ["email": .hash], salt: Data("secret".utf8))
/// configuration.sampling = AnalyticsSampling(rates: ["scroll": 0.1])
/// configuration.onRejection = { rejection in logger.warning("\(rejection)") }
/// ```
public struct AnalyticsConfiguration: Sendable {
    /// Context added to every record, such as `app_version`; it wins over the automatic context on a key both set.
    public var context: [String: String]
    /// The id of the first session this manager starts, when no persisted session continues; later sessions (and
    /// all of them when nil) get a fresh UUID v7.
    public var sessionID: UUID?
    /// When sessions end and whether `session_start` and `session_end` are recorded (30 minutes of inactivity).
    public var sessions: AnalyticsSessionPolicy
    /// Whether the app, OS, locale and library facts are added to every record's context.
    public var collectsAutomaticContext: Bool
    /// The automatic context to add; nil: gathered from the main bundle, the process and the locale once, when the
    /// manager starts. Set it in tests, or to report facts of your own.
    public var automaticContext: AnalyticsAutomaticContext?
    /// The validation limits (Firebase Analytics' by default).
    public var limits: AnalyticsLimits
    /// What happens to each parameter before anything is stored or sent.
    public var privacy: AnalyticsPrivacyPolicy
    /// Which share of events to keep.
    public var sampling: AnalyticsSampling
    /// Backoff for failed deliveries.
    public var retry: AnalyticsRetryPolicy
    /// Whether events are collected while the user's consent is ``AnalyticsConsent/undetermined``; a stored decision
    /// (``AnalyticsManager/optIn()``, ``AnalyticsManager/optOut()``) overrides it.
    public var collectionEnabled: Bool
    /// The most events buffered in memory between `log` and the queue; past it, `log` drops and counts.
    public var bufferCapacity: Int
    /// The most records handed to the engine in one batch.
    public var batchSize: Int
    /// How often the background writer retries due deliveries when nothing is logged.
    public var deliveryInterval: Duration
    /// Called (on the background writer) for each rejected event.
    public var onRejection: (@Sendable (AnalyticsRejection) -> Void)?
    /// A source of numbers in `[0, 1)` for sampling decisions (injectable for tests).
    public var random: @Sendable () -> Double

    /// Creates a configuration.
    public init(
        context: [String: String] = [:], sessionID: UUID? = nil, sessions: AnalyticsSessionPolicy = .init(),
        collectsAutomaticContext: Bool = true, automaticContext: AnalyticsAutomaticContext? = nil,
        limits: AnalyticsLimits = AnalyticsLimits(),
        privacy: AnalyticsPrivacyPolicy = AnalyticsPrivacyPolicy(), sampling: AnalyticsSampling = AnalyticsSampling(),
        retry: AnalyticsRetryPolicy = AnalyticsRetryPolicy(), collectionEnabled: Bool = true,
        bufferCapacity: Int = 10_000, batchSize: Int = 100, deliveryInterval: Duration = .seconds(5),
        onRejection: (@Sendable (AnalyticsRejection) -> Void)? = nil,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.context = context
        self.sessionID = sessionID
        self.sessions = sessions
        self.collectsAutomaticContext = collectsAutomaticContext
        self.automaticContext = automaticContext
        self.limits = limits
        self.privacy = privacy
        self.sampling = sampling
        self.retry = retry
        self.collectionEnabled = collectionEnabled
        self.bufferCapacity = bufferCapacity
        self.batchSize = batchSize
        self.deliveryInterval = deliveryInterval
        self.onRejection = onRejection
        self.random = random
    }

    /// Checks every limit, rate and size.
    ///
    /// - Throws: ``AnalyticsError`` `.invalidConfiguration` naming the value.
    package func validate() throws(AnalyticsError) {
        try limits.validate()
        try sampling.validate()
        try retry.validate()
        try sessions.validate()
        for (name, value) in [("bufferCapacity", bufferCapacity), ("batchSize", batchSize)] where value < 1 {
            throw AnalyticsError(
                .invalidConfiguration, "analytics \(name) is \(value); it must be at least 1",
                hint: "pass a positive value, e.g. AnalyticsConfiguration(\(name): 100)")
        }
        if deliveryInterval <= .zero {
            throw AnalyticsError(.invalidConfiguration, "analytics deliveryInterval must be positive")
        }
    }
}
