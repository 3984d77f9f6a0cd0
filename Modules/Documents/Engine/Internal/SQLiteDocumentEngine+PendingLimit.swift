import Logging

extension SQLiteDocumentEngine {
    /// An engine that keeps up to `pendingLimit` pending index operations: no background flush and no direct run
    /// before that many (benchmarks measure scans over a store left with many pending operations, as short-lived
    /// processes leave one).
    package convenience init(path: String, pendingLimit: Int) throws {
        var tuning = IndexTuning()
        tuning.flushThreshold = max(1, pendingLimit)
        tuning.directRunThreshold = max(1, pendingLimit)
        tuning.leaveBehind = max(1, pendingLimit)
        try self.init(path: path, durability: .normal, logger: Logger(label: "suite.documents"), tuning: tuning)
    }
}
