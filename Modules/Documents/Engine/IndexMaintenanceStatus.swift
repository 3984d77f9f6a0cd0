public import SuiteCore

/// What an engine's index maintenance has left to do: the index operations commits wrote but no flush has put into a
/// sorted run yet, and the runs. `DocumentEngine/indexStatus()` returns it; `suite docs stats` prints it.
///
/// The SQLite engine keeps a small commit's index changes in its change-log rows ("pending operations") and every
/// process reads them on its first query, so a large number of them makes each new process slower to start querying;
/// a graceful ``DocumentEngine/shutdown()`` leaves at most a few thousand.
///
/// ```swift
/// if let status = try await store.indexStatus() {
///     print("pending index operations: \(status.pendingOperations)")
/// }
/// ```
public struct IndexMaintenanceStatus: Sendable, Hashable {
    /// Index operations (puts and removals) written by commits and not yet flushed into a run.
    public var pendingOperations: Int
    /// Sorted runs of index entries (a background merge keeps their number logarithmic).
    public var runs: Int
    /// Entries in those runs, removal markers included.
    public var runEntries: Int
    /// Whether this engine is flushing or merging in the background right now.
    public var isMaintenanceRunning: Bool
    /// The last failure of this engine's background flush or merge, until one succeeds (it is retried).
    public var lastMaintenanceError: String?

    /// A status with these values.
    public init(
        pendingOperations: Int, runs: Int, runEntries: Int, isMaintenanceRunning: Bool = false,
        lastMaintenanceError: String? = nil
    ) {
        self.pendingOperations = pendingOperations
        self.runs = runs
        self.runEntries = runEntries
        self.isMaintenanceRunning = isMaintenanceRunning
        self.lastMaintenanceError = lastMaintenanceError
    }

    /// The status as JSON: `{"pendingOperations": N, "runs": N, "runEntries": N, "maintenanceRunning": bool}`, plus
    /// `"lastMaintenanceError"` when there is one.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "pendingOperations": .int(Int64(pendingOperations)), "runs": .int(Int64(runs)),
            "runEntries": .int(Int64(runEntries)), "maintenanceRunning": .bool(isMaintenanceRunning),
        ]
        if let lastMaintenanceError { object["lastMaintenanceError"] = .string(lastMaintenanceError) }
        return .object(object)
    }
}
