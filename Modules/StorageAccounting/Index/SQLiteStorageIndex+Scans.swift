import Foundation
import GRDB

/// What committing one unit found.
struct UnitOutcome: Sendable {
    var files = 0
    var directories = 0
    var otherEntries = 0
    var logicalBytes: Int64 = 0
    var allocatedBytes: Int64 = 0
    var warnings: [StorageWarning] = []
}

/// When a scan commits: after the unit that brings the open transaction to `files` files or `duration` of walking.
/// Larger transactions write each touched page of the table and its indexes once per commit instead of once per unit.
struct CommitBudget: Sendable {
    var files: Int
    var duration: Duration

    /// About ten commits a second at most: finished groups show within a tenth of a second.
    static let scan = CommitBudget(files: 4_000, duration: .milliseconds(100))
    /// One unit per transaction.
    static let everyUnit = CommitBudget(files: 0, duration: .zero)
}

/// The stored state of a root's scan.
struct ScanState: Sendable {
    var scanId: String
    var options: StorageScanOptions
    var finished: Bool
    var doneUnits: Set<[UInt8]>
}

// The scan-side writes and reads: replacing a unit, the scan state, directory stamps.
extension SQLiteStorageIndex {
    /// Replaces the items and directory stamps of a prefix of `units` with what a walk of them finds now, in one
    /// transaction, and marks them done for `scanId` when given: units are walked until one brings the transaction to
    /// `budget`. Returns one outcome per unit committed (at least one). A unit whose directory is gone ends up empty.
    func commitUnits(
        _ units: ArraySlice<ScanUnit>, root: String, rootFD: Int32, mapper: ItemMapper, scanId: String?,
        budget: CommitBudget = .everyUnit, shouldStop: @escaping @Sendable () -> Bool
    ) async throws -> [UnitOutcome] {
        let name = units.first.map(\.displayName) ?? "nothing"
        return try await write("index \(name) of \(root)") { db in
            // Only a first scan's own units may load without the deferred indexes; anything else builds them.
            if scanId == nil { try Self.ensureIndexes(db) }
            let bulk = try Self.isBulkLoading(db)
            let started = ContinuousClock.now
            var delta = GroupTotalsDelta()
            var outcomes: [UnitOutcome] = []
            var files = 0
            for unit in units {
                let outcome = try Self.replaceUnit(
                    unit, root: root, rootFD: rootFD, mapper: mapper, scanId: scanId, bulk: bulk, db: db,
                    delta: &delta, shouldStop: shouldStop)
                outcomes.append(outcome)
                files += outcome.files
                if files >= budget.files || ContinuousClock.now - started >= budget.duration { break }
            }
            try delta.apply(db)
            return outcomes
        }
    }

    /// One unit's part of ``commitUnits(_:root:rootFD:mapper:scanId:budget:shouldStop:)``.
    private static func replaceUnit(
        _ unit: ScanUnit, root: String, rootFD: Int32, mapper: ItemMapper, scanId: String?, bulk: Bool, db: Database,
        delta: inout GroupTotalsDelta, shouldStop: @escaping @Sendable () -> Bool
    ) throws -> UnitOutcome {
        let key = Data(unit.key)
        if !bulk { _ = try deleteItems(db, where: "root = ? AND unit = ?", [root, key], delta: &delta) }
        try db.execute(sql: "DELETE FROM directories WHERE root = ? AND unit = ?", arguments: [root, key])
        var outcome = UnitOutcome()
        let walker = FileWalker()
        let stamp = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO directories (root, path, unit, mtime) VALUES (?, ?, ?, ?)")
        try walker.walk(
            rootFD: rootFD, start: unit.directory, recursive: unit.recursive, shouldStop: shouldStop,
            onDirectory: { path, stat in
                outcome.directories += 1
                try stamp.execute(arguments: [root, Data(path), key, stat.modified])
            },
            onEntry: { path, stat in
                guard stat.kind == .regular else {
                    outcome.otherEntries += 1
                    return
                }
                let item = mapper.item(path: path, stat: stat, rootFD: rootFD)
                try insert(item, unit: unit.key, into: db, delta: &delta, bulk: bulk)
                outcome.files += 1
                outcome.logicalBytes += stat.size
                outcome.allocatedBytes += stat.allocated
            })
        if let scanId {
            try db.execute(
                sql: "INSERT OR REPLACE INTO scan_units (root, unit, scanId) VALUES (?, ?, ?)",
                arguments: [root, key, scanId])
        }
        // A unit that vanished is not worth a warning: it is simply empty now.
        outcome.warnings = walker.warnings.filter {
            !($0.path.bytes == unit.directory && $0.message.contains("No such file"))
        }
        return outcome
    }

    /// The stored scan of `root`, if any.
    func scanState(root: String) async throws -> ScanState? {
        try await read("read the scan state of \(root)") { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT scanId, service, layout, finishedAt FROM scans WHERE root = ?", arguments: [root])
            else { return nil }
            let scanId: String = row[0]
            let layoutText: String = row[2]
            let options =
                (try? JSONDecoder().decode(StorageScanOptions.self, from: Data(layoutText.utf8)))
                ?? StorageScanOptions(service: row[1])
            let done = try Data.fetchAll(
                db, sql: "SELECT unit FROM scan_units WHERE root = ? AND scanId = ?", arguments: [root, scanId])
            let finishedAt: Int64? = row[3]
            return ScanState(
                scanId: scanId, options: options, finished: finishedAt != nil, doneUnits: Set(done.map { Array($0) }))
        }
    }

    /// Records the start of a new scan of `root`, forgetting the units of any earlier one.
    func beginScan(root: String, scanId: String, options: StorageScanOptions) async throws {
        var stored = options
        stored.restart = false
        let text = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
        try await write("start a scan of \(root)") { db in
            try Self.beginBulkLoadIfEmpty(db)
            try db.execute(sql: "DELETE FROM scan_units WHERE root = ?", arguments: [root])
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO scans (root, scanId, service, layout, startedAt, finishedAt)
                    VALUES (?, ?, ?, ?, ?, NULL)
                    """, arguments: [root, scanId, options.service, text, Self.nanoseconds(Date())])
        }
    }

    /// Finishes the scan: removes the items and stamps of units that no longer exist; returns the items removed.
    func finishScan(root: String, scanId: String, units: [ScanUnit]) async throws -> Int {
        let keep = Set(units.map(\.key))
        return try await write("finish the scan of \(root)") { db in
            try Self.ensureIndexes(db)
            var delta = GroupTotalsDelta()
            var removed = 0
            let stale = try Data.fetchAll(
                db, sql: "SELECT DISTINCT unit FROM directories WHERE root = ?", arguments: [root]
            ).filter { !keep.contains(Array($0)) }
            let staleItems = try Data.fetchAll(
                db, sql: "SELECT DISTINCT unit FROM items WHERE root = ? AND unit IS NOT NULL", arguments: [root]
            ).filter { !keep.contains(Array($0)) }
            for unit in Set(stale + staleItems) {
                removed += try Self.deleteItems(db, where: "root = ? AND unit = ?", [root, unit], delta: &delta)
                try db.execute(sql: "DELETE FROM directories WHERE root = ? AND unit = ?", arguments: [root, unit])
            }
            try delta.apply(db)
            try db.execute(sql: "DELETE FROM scan_units WHERE root = ?", arguments: [root])
            try db.execute(
                sql: "UPDATE scans SET finishedAt = ? WHERE root = ? AND scanId = ?",
                arguments: [Self.nanoseconds(Date()), root, scanId])
            return removed
        }
    }

    /// The roots scanned into this index, sorted.
    package func scannedRoots() async throws -> [String] {
        try await read("list the scanned roots") { db in
            try String.fetchAll(db, sql: "SELECT root FROM scans ORDER BY root")
        }
    }

    /// Directory stamps of `root`: path → (unit key, modification time in nanoseconds).
    func directoryStamps(root: String) async throws -> [[UInt8]: (unit: [UInt8], modified: Int64)] {
        try await read("read the directory stamps of \(root)") { db in
            var stamps: [[UInt8]: (unit: [UInt8], modified: Int64)] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT path, unit, mtime FROM directories WHERE root = ?", arguments: [root])
            while let row = try rows.next() {
                let path: Data = row[0]
                let unit: Data = row[1]
                stamps[Array(path)] = (Array(unit), row[2])
            }
            return stamps
        }
    }

    /// The indexed files of one unit: path → (id, logical, allocated, modified).
    func unitFiles(root: String, unit: [UInt8]) async throws -> [[UInt8]: IndexedFile] {
        try await read("read the indexed files of \(root)") { db in
            var files: [[UInt8]: IndexedFile] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT path, id, logical, allocated, modified FROM items WHERE root = ? AND unit = ?",
                arguments: [root, Data(unit)])
            while let row = try rows.next() {
                let path: Data = row[0]
                files[Array(path)] = IndexedFile(id: row[1], logical: row[2], allocated: row[3], modified: row[4])
            }
            return files
        }
    }

    /// The unit keys holding items or directory stamps under `root`.
    func knownUnits(root: String) async throws -> Set<[UInt8]> {
        try await read("list the units of \(root)") { db in
            let fromDirectories = try Data.fetchAll(
                db, sql: "SELECT DISTINCT unit FROM directories WHERE root = ?", arguments: [root])
            let fromItems = try Data.fetchAll(
                db, sql: "SELECT DISTINCT unit FROM items WHERE root = ? AND unit IS NOT NULL", arguments: [root])
            return Set((fromDirectories + fromItems).map { Array($0) })
        }
    }
}

/// An indexed file as reconciliation compares it with the disk.
struct IndexedFile: Sendable {
    var id: String
    var logical: Int64
    var allocated: Int64
    var modified: Int64
}
