import Foundation
import GRDB

/// What committing one unit found. Engine API: a ``ScanUnitWalk`` makes it, a ``StorageScanIndex`` hands it back.
@_spi(Engine) public struct UnitOutcome: Sendable {
    /// Regular files indexed.
    @_spi(Engine) public var files = 0
    /// Directories walked (the unit's own included).
    @_spi(Engine) public var directories = 0
    /// Entries that are not regular files or directories (links, devices…): not indexed.
    @_spi(Engine) public var otherEntries = 0
    /// The files' logical bytes.
    @_spi(Engine) public var logicalBytes: Int64 = 0
    /// The files' allocated bytes.
    @_spi(Engine) public var allocatedBytes: Int64 = 0
    /// What could not be read.
    @_spi(Engine) public var warnings: [StorageWarning] = []

    /// Nothing found yet.
    @_spi(Engine) public init() {}
}

/// When a scan commits: after the unit that brings the open transaction to `files` files or `duration` of walking.
/// Larger transactions write each touched page of the table and its indexes once per commit instead of once per unit.
/// Engine API.
@_spi(Engine) public struct CommitBudget: Sendable {
    /// Files walked in one transaction before it commits.
    @_spi(Engine) public var files: Int
    /// Walking time in one transaction before it commits.
    @_spi(Engine) public var duration: Duration

    /// About ten commits a second at most: finished groups show within a tenth of a second.
    static let scan = CommitBudget(files: 4_000, duration: .milliseconds(100))
    /// One unit per transaction.
    static let everyUnit = CommitBudget(files: 0, duration: .zero)
}

/// The stored state of a root's scan. Engine API: a ``StorageScanIndex`` keeps it.
@_spi(Engine) public struct ScanState: Sendable {
    /// The scan's id (a resumed scan keeps it).
    @_spi(Engine) public var scanId: String
    /// The options it was started with (``StorageScanOptions/restart`` off).
    @_spi(Engine) public var options: StorageScanOptions
    /// Whether it ran to its end.
    @_spi(Engine) public var finished: Bool
    /// The keys of the units it committed.
    @_spi(Engine) public var doneUnits: Set<[UInt8]>

    /// A scan's state.
    @_spi(Engine) public init(scanId: String, options: StorageScanOptions, finished: Bool, doneUnits: Set<[UInt8]>) {
        self.scanId = scanId
        self.options = options
        self.finished = finished
        self.doneUnits = doneUnits
    }
}

@_spi(Engine) extension SQLiteStorageIndex: StorageScanIndex {}

// The scan-side writes and reads: replacing a unit, the scan state, directory stamps (see StorageScanIndex).
extension SQLiteStorageIndex {
    /// Replaces the items and directory stamps of a prefix of `units` with what `walk` finds in them now, in one
    /// transaction, and marks them done for `scanId` when given: units are walked until one brings the transaction to
    /// `budget`. Returns one outcome per unit committed (at least one). A unit whose directory is gone ends up empty.
    @_spi(Engine) public func commitUnits(
        _ units: ArraySlice<ScanUnit>, root: String, scanId: String?, budget: CommitBudget, walk: ScanUnitWalk
    ) async throws -> [UnitOutcome] {
        let name = units.first.map(\.displayName) ?? "nothing"
        return try await write("index \(name) of \(root)") { db in
            // Only a first scan's own units may load without the deferred indexes; anything else builds them.
            if scanId == nil { try Self.ensureIndexes(db) }
            let bulk = try Self.isBulkLoading(db)
            if bulk { try db.execute(sql: "PRAGMA cache_size = -\(Self.loadCacheSize)") }
            let started = ContinuousClock.now
            var delta = GroupTotalsDelta()
            var outcomes: [UnitOutcome] = []
            var files = 0
            for unit in units {
                let outcome = try Self.replaceUnit(
                    unit, root: root, walk: walk, scanId: scanId, bulk: bulk, db: db, delta: &delta)
                outcomes.append(outcome)
                files += outcome.files
                if files >= budget.files || ContinuousClock.now - started >= budget.duration { break }
            }
            try delta.apply(db)
            return outcomes
        }
    }

    /// One unit's part of ``commitUnits(_:root:scanId:budget:walk:)``.
    private static func replaceUnit(
        _ unit: ScanUnit, root: String, walk: ScanUnitWalk, scanId: String?, bulk: Bool, db: Database,
        delta: inout GroupTotalsDelta
    ) throws -> UnitOutcome {
        let key = Data(unit.key)
        if !bulk { _ = try deleteItems(db, where: "root = ? AND unit = ?", [root, key], delta: &delta) }
        try db.execute(sql: "DELETE FROM directories WHERE root = ? AND unit = ?", arguments: [root, key])
        let stamp = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO directories (root, path, unit, mtime) VALUES (?, ?, ?, ?)")
        let values = "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        let statement = try ItemInsert(
            db, sql: "INSERT INTO items (\(itemColumns)) \(values)" + (bulk ? "" : " ON CONFLICT (id) DO NOTHING"))
        let rootBytes = Array(root.utf8)
        let outcome = try walk.walkChunks(unit) { chunk in
            for directory in chunk.directories {
                try stamp.execute(arguments: [root, Data(chunk.slice(directory.path)), key, directory.modified])
            }
            try insert(
                chunk, root: root, rootBytes: rootBytes, unit: unit.key, statement: statement, db: db, delta: &delta)
        }
        if let scanId {
            try db.execute(
                sql: "INSERT OR REPLACE INTO scan_units (root, unit, scanId) VALUES (?, ?, ?)",
                arguments: [root, key, scanId])
        }
        return outcome
    }

    /// Inserts the files of a scan's chunk like ``insert(_:unit:into:delta:bulk:)`` inserts their items, binding their
    /// bytes as they are and adding to `delta` once per run of files of one service, group and category.
    private static func insert(
        _ chunk: MappedChunk, root: String, rootBytes: [UInt8], unit: [UInt8], statement: ItemInsert, db: Database,
        delta: inout GroupTotalsDelta
    ) throws {
        var run: (file: MappedFile, totals: GroupTotalsDelta.Value)?
        func flush() {
            guard let (file, totals) = run else { return }
            delta.add(
                service: chunk.string(file.service) ?? "", groupId: chunk.string(file.groupId) ?? "",
                category: file.category, totals)
        }
        try chunk.bytes.withUnsafeBytes { bytes in
            try rootBytes.withUnsafeBytes { rootBytes in
                try unit.withUnsafeBytes { unitBytes in
                    for file in chunk.files {
                        if try !statement.run(file, bytes: bytes, root: rootBytes, unit: unitBytes) {
                            // Rare: the id is indexed already (recorded by the app, or scanned under another unit).
                            _ = try deleteItems(db, where: "id = ?", [chunk.string(file.id)], delta: &delta)
                            _ = try statement.run(file, bytes: bytes, root: rootBytes, unit: unitBytes)
                        }
                        if let current = run, current.file.category == file.category,
                            chunk.same(current.file.groupId, file.groupId),
                            chunk.same(current.file.service, file.service)
                        {
                            run?.totals.add(logical: file.logical, allocated: file.allocated)
                        } else {
                            flush()
                            var totals = GroupTotalsDelta.Value()
                            totals.add(logical: file.logical, allocated: file.allocated)
                            run = (file, totals)
                        }
                        if file.linkCount > 1 {
                            delta.links.note(
                                device: Int64(bitPattern: file.device), inode: Int64(bitPattern: file.inode),
                                linkCount: file.linkCount,
                                LinkEntry(
                                    service: chunk.string(file.service) ?? "",
                                    groupId: chunk.string(file.groupId) ?? "",
                                    category: file.category, logical: file.logical, allocated: file.allocated),
                                sign: 1)
                        }
                    }
                }
            }
        }
        flush()
    }

    /// The stored scan of `root`, if any.
    @_spi(Engine) public func scanState(root: String) async throws -> ScanState? {
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
    @_spi(Engine) public func beginScan(root: String, scanId: String, options: StorageScanOptions) async throws {
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
    @_spi(Engine) public func finishScan(root: String, scanId: String, units: [ScanUnit]) async throws -> Int {
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
    @_spi(Engine) public func scannedRoots() async throws -> [String] {
        try await read("list the scanned roots") { db in
            try String.fetchAll(db, sql: "SELECT root FROM scans ORDER BY root")
        }
    }

    /// Directory stamps of `root`: path → (unit key, modification time in nanoseconds).
    @_spi(Engine) public func directoryStamps(root: String) async throws -> [[UInt8]: (unit: [UInt8], modified: Int64)]
    {
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
    @_spi(Engine) public func unitFiles(root: String, unit: [UInt8]) async throws -> [[UInt8]: IndexedFile] {
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
    @_spi(Engine) public func knownUnits(root: String) async throws -> Set<[UInt8]> {
        try await read("list the units of \(root)") { db in
            let fromDirectories = try Data.fetchAll(
                db, sql: "SELECT DISTINCT unit FROM directories WHERE root = ?", arguments: [root])
            let fromItems = try Data.fetchAll(
                db, sql: "SELECT DISTINCT unit FROM items WHERE root = ? AND unit IS NOT NULL", arguments: [root])
            return Set((fromDirectories + fromItems).map { Array($0) })
        }
    }
}

/// An indexed file as reconciliation compares it with the disk. Engine API.
@_spi(Engine) public struct IndexedFile: Sendable {
    /// The item's id.
    @_spi(Engine) public var id: String
    /// Its logical bytes.
    @_spi(Engine) public var logical: Int64
    /// Its allocated bytes.
    @_spi(Engine) public var allocated: Int64
    /// Its modification time in nanoseconds since 1970.
    @_spi(Engine) public var modified: Int64

    /// A file as indexed.
    @_spi(Engine) public init(id: String, logical: Int64, allocated: Int64, modified: Int64) {
        self.id = id
        self.logical = logical
        self.allocated = allocated
        self.modified = modified
    }
}
