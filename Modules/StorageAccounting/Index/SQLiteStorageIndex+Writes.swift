import Foundation
import GRDB

/// Changes to `group_totals` and `link_corrections` gathered during a write transaction and applied once at its end.
struct GroupTotalsDelta {
    struct Key: Hashable {
        var service: String
        var groupId: String
        var category: Int
    }
    struct Value {
        var items = 0
        var logical: Int64 = 0
        var allocated: Int64 = 0

        /// One more item of these sizes.
        mutating func add(logical: Int64, allocated: Int64) {
            items += 1
            self.logical += logical
            self.allocated += allocated
        }
    }
    var values: [Key: Value] = [:]
    var links = LinkChanges()

    mutating func add(service: String, groupId: String, category: Int, logical: Int64, allocated: Int64, sign: Int) {
        func update(_ value: inout Value) {
            value.items += sign
            value.logical += Int64(sign) * logical
            value.allocated += Int64(sign) * allocated
        }
        // One hash of the key per row.
        update(&values[Key(service: service, groupId: groupId, category: category), default: Value()])
    }

    /// Adds the items counted in `totals` to the row of (service, group, category).
    mutating func add(service: String, groupId: String, category: Int, _ totals: Value) {
        let key = Key(service: service, groupId: groupId, category: category)
        values[key, default: Value()].items += totals.items
        values[key, default: Value()].logical += totals.logical
        values[key, default: Value()].allocated += totals.allocated
    }

    /// Upserts every changed row and deletes those left without items; updates the hard-link corrections.
    func apply(_ db: Database) throws {
        try links.apply(db)
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO group_totals (service, groupId, category, items, logical, allocated)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (service, groupId, category) DO UPDATE SET
                    items = items + excluded.items, logical = logical + excluded.logical,
                    allocated = allocated + excluded.allocated
                """)
        let prune = try db.cachedStatement(
            sql: "DELETE FROM group_totals WHERE service = ? AND groupId = ? AND category = ? AND items <= 0")
        for (key, value) in values where value.items != 0 || value.logical != 0 || value.allocated != 0 {
            try upsert.execute(arguments: [
                key.service, key.groupId, key.category, value.items, value.logical, value.allocated,
            ])
            if value.items < 0 { try prune.execute(arguments: [key.service, key.groupId, key.category]) }
        }
    }
}

extension SQLiteStorageIndex {
    /// The columns of `items` in the order ``insert(_:unit:into:delta:)`` binds and ``decodeItem(_:)`` reads them.
    static let itemColumns =
        "id, service, groupId, contentId, contentSubId, contentType, category, logical, allocated, created, modified, "
        + "fileName, additionalData, root, path, unit, dev, ino, nlink"

    /// Inserts `item` (replacing an item with its id) and records the change in `delta`. With `bulk` (a first scan
    /// while the deferred indexes are missing, see ``ensureIndexes(_:)``), the id is known to be new.
    static func insert(
        _ item: StorageItem, unit: [UInt8]?, into db: Database, delta: inout GroupTotalsDelta, bulk: Bool = false
    ) throws {
        let category = item.category.code
        let values = "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        let statement = try ItemInsert(
            db,
            sql: "INSERT INTO items (\(itemColumns)) \(values)" + (bulk ? "" : " ON CONFLICT (id) DO NOTHING"))
        try statement.run(item, category: category, unit: unit)
        if !bulk, db.changesCount == 0 {
            // Rare: the id is indexed already (recorded again, or scanned under another unit). Replace it.
            _ = try deleteItems(db, where: "id = ?", [item.id], delta: &delta)
            try statement.run(item, category: category, unit: unit)
        }
        delta.add(
            service: item.serviceType, groupId: item.groupId, category: category, logical: item.sizeInBytes,
            allocated: item.allocatedBytes, sign: 1)
        if item.linkCount > 1 {
            delta.links.note(
                device: item.device.map { Int64(bitPattern: $0) }, inode: item.inode.map { Int64(bitPattern: $0) },
                linkCount: item.linkCount,
                LinkEntry(
                    service: item.serviceType, groupId: item.groupId, category: category, logical: item.sizeInBytes,
                    allocated: item.allocatedBytes),
                sign: 1)
        }
    }

    /// Deletes the items matching `condition`, recording the change in `delta`; returns how many went.
    static func deleteItems(
        _ db: Database, where condition: String, _ arguments: StatementArguments, delta: inout GroupTotalsDelta
    ) throws -> Int {
        let rows = try Row.fetchCursor(
            db,
            sql: """
                DELETE FROM items WHERE \(condition)
                RETURNING service, groupId, category, logical, allocated, dev, ino, nlink
                """,
            arguments: arguments)
        var count = 0
        while let row = try rows.next() {
            let entry = LinkEntry(
                service: row[0], groupId: row[1], category: row[2], logical: row[3], allocated: row[4])
            delta.add(
                service: entry.service, groupId: entry.groupId, category: entry.category, logical: entry.logical,
                allocated: entry.allocated, sign: -1)
            delta.links.note(device: row[5], inode: row[6], linkCount: row[7], entry, sign: -1)
            count += 1
        }
        return count
    }

    static func nanoseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1e9).rounded()
        return value.isFinite ? Int64(clamping: Int64(exactly: value) ?? (value > 0 ? .max : .min)) : 0
    }

    static func date(nanoseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(nanoseconds) / 1e9) }

    /// The item in a row selected with ``itemColumns``.
    static func decodeItem(_ row: Row) -> StorageItem {
        let pathData: Data? = row[14]
        let device: Int64? = row[16]
        let inode: Int64? = row[17]
        return StorageItem(
            id: row[0], serviceType: row[1], groupId: row[2], contentId: row[3], contentSubId: row[4],
            contentType: row[5], sizeInBytes: row[7], allocatedBytes: row[8],
            createdDate: date(nanoseconds: row[9]), modifiedDate: date(nanoseconds: row[10]), fileName: row[11],
            additionalData: row[12], root: row[13], path: pathData.map { StoragePath(bytes: Array($0)) },
            device: device.map { UInt64(bitPattern: $0) }, inode: inode.map { UInt64(bitPattern: $0) },
            linkCount: row[18])
    }
}

extension SQLiteStorageIndex {
    public func record(_ items: [StorageItem]) async throws {
        for item in items { try item.validate() }
        guard !items.isEmpty else { return }
        try await write("record \(items.count) storage items") { db in
            try Self.ensureIndexes(db)
            var delta = GroupTotalsDelta()
            for item in items { try Self.insert(item, unit: nil, into: db, delta: &delta) }
            try delta.apply(db)
        }
    }

    @discardableResult
    public func remove(ids: [String]) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        return try await write("remove \(ids.count) storage items") { db in
            try Self.ensureIndexes(db)
            var delta = GroupTotalsDelta()
            var removed = 0
            for id in ids { removed += try Self.deleteItems(db, where: "id = ?", [id], delta: &delta) }
            try delta.apply(db)
            return removed
        }
    }
}
