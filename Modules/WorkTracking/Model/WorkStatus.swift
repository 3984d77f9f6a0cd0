/// Where a work day stands: prepare → working ⇄ break → ended.
///
/// | from | allowed |
/// |---|---|
/// | prepare | working (`start`) |
/// | working | break (`break`), ended (`end`) |
/// | break | working (`resume`), ended (`end`, closes the break) |
/// | ended | nothing; `reopen` explicitly (the time between the end and the reopen becomes a break) |
public enum WorkStatus: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Planned, not started.
    case prepare
    /// Working now.
    case working
    /// On a break now.
    case onBreak = "break"
    /// Done for the day.
    case ended

    /// The statuses the flow allows next (``WorkAction/reopen`` aside).
    public var allowedNext: [WorkStatus] {
        switch self {
        case .prepare: [.working]
        case .working: [.onBreak, .ended]
        case .onBreak: [.working, .ended]
        case .ended: []
        }
    }

    /// Whether the day is open: working or on a break.
    public var isOpen: Bool { self == .working || self == .onBreak }

    public var description: String { rawValue }
}

/// A change of status people ask for; each names the one status it moves to and the statuses it moves from.
public enum WorkAction: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// prepare → working.
    case start
    /// working → break.
    case pause = "break"
    /// break → working.
    case resume
    /// working or break → ended.
    case end
    /// ended → working, explicitly.
    case reopen

    /// The status the action moves to.
    public var target: WorkStatus {
        switch self {
        case .start, .resume, .reopen: .working
        case .pause: .onBreak
        case .end: .ended
        }
    }

    /// The statuses the action may start from.
    public var sources: [WorkStatus] {
        switch self {
        case .start: [.prepare]
        case .pause: [.working]
        case .resume: [.onBreak]
        case .end: [.working, .onBreak]
        case .reopen: [.ended]
        }
    }

    /// The action that moves `from` to `to` in the flow (reopen for ended → working), if any.
    public static func between(_ from: WorkStatus, _ to: WorkStatus) -> WorkAction? {
        allCases.first { $0.sources.contains(from) && $0.target == to }
    }

    /// The actions allowed from `status`, as people type them.
    public static func allowed(from status: WorkStatus) -> [WorkAction] {
        allCases.filter { $0.sources.contains(status) }
    }

    public var description: String { rawValue }

    /// The error for this action refused from `status` on `date`: it names the status and what is allowed from it.
    func refused(from status: WorkStatus, on date: WorkDate) -> WorkError {
        let allowed = WorkAction.allowed(from: status)
        let list = allowed.map { "\($0.rawValue) (→ \($0.target))" }.joined(separator: ", ")
        let verb: String =
            switch self {
            case .start: "start"
            case .pause: "take a break"
            case .resume: "resume"
            case .end: "end the day"
            case .reopen: "reopen"
            }
        return WorkError(
            .invalidTransition,
            "cannot \(verb): the day \(date) is \(status)",
            hint: allowed.isEmpty ? "nothing is allowed from \(status)" : "from \(status): \(list)")
    }
}
