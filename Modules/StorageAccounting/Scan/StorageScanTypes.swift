public import Foundation

/// How a scan maps files to items.
public struct StorageScanOptions: Codable, Sendable, Hashable {
    /// Layout rules, first match wins (see ``LayoutRule``).
    public var layout: [LayoutRule]
    /// The service of files no rule gives one (`--service NAME`).
    public var service: String
    /// Whether to read each file's first bytes to recognise its content type (JPEG, PNG, MP4, …) instead of trusting
    /// its extension; an unrecognised file falls back to its extension. Costs one `open` + `read` per file.
    public var sniffContent: Bool
    /// The directory depth of a scan unit (what is committed at once and what a resumed scan skips); by default the
    /// rules' group depth (the deepest fixed depth of a `{groupId}`), else 1: each top-level directory.
    public var unitDepth: Int?
    /// Start over even when an unfinished scan of the root could be resumed.
    public var restart: Bool

    /// Creates options; the defaults index every file under service `files`, grouped by top-level directory.
    public init(
        layout: [LayoutRule] = [], service: String = "files", sniffContent: Bool = false, unitDepth: Int? = nil,
        restart: Bool = false
    ) {
        self.layout = layout
        self.service = service
        self.sniffContent = sniffContent
        self.unitDepth = unitDepth
        self.restart = restart
    }

    /// The unit depth in effect.
    package var effectiveUnitDepth: Int {
        min(16, max(1, unitDepth ?? layout.compactMap(\.groupDepth).max() ?? 1))
    }

    /// Throws on a service name that is empty or an explicit unit depth out of 1...16.
    func validate() throws {
        if service.isEmpty {
            throw StorageError(.invalidInput, "the scan's service name is empty", hint: "pass --service NAME")
        }
        if let unitDepth, !(1...16).contains(unitDepth) {
            throw StorageError(.invalidInput, "unit depth \(unitDepth) is out of range", hint: "use 1 to 16")
        }
    }
}

/// How far a scan is: sent after planning and after each committed unit.
///
/// A *unit* is one directory at the scan's unit depth with everything below it (with the layout
/// `chats/{groupId}/…` a unit is one chat), or the files directly inside a shallower directory. Each unit is
/// committed in one transaction, so when a progress value says `unitsDone`, queries already see those units.
public struct StorageScanProgress: Codable, Sendable, Hashable {
    /// The root being scanned (absolute, resolved).
    public var root: String
    /// Units committed (including those a resumed scan found already done).
    public var unitsDone: Int
    /// Units in the root.
    public var unitsTotal: Int
    /// Units a resumed scan skipped because an interrupted run had committed them.
    public var unitsResumed: Int
    /// Regular files indexed by this run.
    public var files: Int
    /// Their logical bytes.
    public var logicalBytes: Int64
    /// Their allocated bytes.
    public var allocatedBytes: Int64
    /// The unit just committed (escaped path; `dir/` + ` (files)` for the files directly in a directory).
    public var currentUnit: String?
    /// Seconds since the run started.
    public var elapsedSeconds: Double
    /// Files indexed per second by this run.
    public var filesPerSecond: Double
    /// Fraction of units done, 0...1.
    public var fractionDone: Double { unitsTotal == 0 ? 1 : Double(unitsDone) / Double(unitsTotal) }
}

/// The outcome of a scan.
public struct StorageScanResult: Codable, Sendable, Hashable {
    /// The root (absolute, resolved).
    public var root: String
    /// The scan's id (kept when a scan resumes).
    public var scanId: String
    /// Whether this run resumed an interrupted scan.
    public var resumed: Bool
    /// Units in the root.
    public var unitsTotal: Int
    /// Units this run walked and committed.
    public var unitsWalked: Int
    /// Units skipped because an interrupted run had committed them.
    public var unitsResumed: Int
    /// Regular files indexed by this run.
    public var files: Int
    /// Directories walked by this run.
    public var directories: Int
    /// Entries that are neither regular files nor directories (symbolic links, sockets, devices): not indexed.
    public var otherEntries: Int
    /// Logical bytes indexed by this run.
    public var logicalBytes: Int64
    /// Allocated bytes indexed by this run.
    public var allocatedBytes: Int64
    /// Items removed because their unit no longer exists.
    public var removedItems: Int
    /// What could not be read (unreadable directories, files that vanished during the walk).
    public var warnings: [StorageWarning]
    /// Wall time of this run.
    public var durationSeconds: Double
}
