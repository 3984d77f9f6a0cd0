/// Per-user limits on documents read, written and deleted, per minute and per UTC day (`server.quotas` in the
/// configuration): over a limit, the JSON API answers 429 with `Retry-After` and the Firestore protocol
/// RESOURCE_EXHAUSTED. Documents are counted as Firestore bills them: a query returning no document costs one read.
///
/// ```swift
/// var limits = QuotaLimits()
/// limits.perMinute = .init(reads: 600, writes: 120, deletes: 60)
/// limits.perDay = .init(reads: 50_000)   // writes and deletes unlimited per day
/// let server = SuiteServer(store: store, accounts: accounts, configuration: .init(quotas: limits))
/// ```
public struct QuotaLimits: Sendable, Hashable {
    /// The documents one user may read, write and delete in one window; `nil` is unlimited.
    public struct Allowance: Sendable, Hashable {
        /// Documents read (a query answering none costs one).
        public var reads: Int?
        /// Documents set, updated or created (deletes are counted apart).
        public var writes: Int?
        /// Documents deleted.
        public var deletes: Int?

        /// Creates an allowance; an omitted kind is unlimited.
        public init(reads: Int? = nil, writes: Int? = nil, deletes: Int? = nil) {
            self.reads = reads
            self.writes = writes
            self.deletes = deletes
        }

        /// The limit of one kind.
        public subscript(kind: QuotaKind) -> Int? {
            switch kind {
            case .reads: reads
            case .writes: writes
            case .deletes: deletes
            }
        }

        /// Whether no kind is limited.
        public var isUnlimited: Bool { reads == nil && writes == nil && deletes == nil }
    }

    /// The limits per minute (UTC minutes: a window opens at each minute's start).
    public var perMinute: Allowance
    /// The limits per UTC day.
    public var perDay: Allowance
    /// Whether admins are exempt (the default) or limited as other users.
    public var adminsExempt: Bool

    /// Creates limits; with no argument nothing is limited.
    public init(perMinute: Allowance = Allowance(), perDay: Allowance = Allowance(), adminsExempt: Bool = true) {
        self.perMinute = perMinute
        self.perDay = perDay
        self.adminsExempt = adminsExempt
    }

    /// The allowance of one window.
    public subscript(window: QuotaWindow) -> Allowance {
        switch window {
        case .minute: perMinute
        case .day: perDay
        }
    }

    /// Whether nothing is limited.
    public var isUnlimited: Bool { perMinute.isUnlimited && perDay.isUnlimited }
}

/// What a quota counts: documents read, written or deleted.
public enum QuotaKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// Documents read.
    case reads
    /// Documents set, updated or created.
    case writes
    /// Documents deleted.
    case deletes
}

/// A quota's window: fixed UTC minutes and days.
public enum QuotaWindow: String, Sendable, Hashable, CaseIterable, Codable {
    /// A calendar minute (UTC).
    case minute
    /// A calendar day (UTC).
    case day

    /// The window's length in seconds.
    public var seconds: Int64 {
        switch self {
        case .minute: 60
        case .day: 86_400
        }
    }
}
