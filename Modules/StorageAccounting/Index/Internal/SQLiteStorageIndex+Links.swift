import GRDB

// Hard links: every answer counts an inode once per bucket (the total, a service, a group, a category). The sums in
// `group_totals` count every link, so each bucket has a correction to subtract: for each inode with several rows
// (nlink > 1) in the bucket, the sum of those rows' sizes minus the largest. `link_corrections` holds the corrections
// of the whole index, kept by the write path in the same transaction as `group_totals`; answers for a narrower
// selection compute theirs from the selection's linked rows with the same rule (`LinkCorrections.of`).

/// One indexed link of a file with more than one link, as the corrections see it.
struct LinkEntry: Hashable {
    var service: String
    var groupId: String
    var category: Int
    var logical: Int64
    var allocated: Int64
}

/// A file's identity: device and inode, as stored (bit patterns of the `UInt64`s).
struct InodeKey: Hashable {
    var device: Int64
    var inode: Int64
}

/// A bucket of the answers. Stored in `link_corrections` as (bucket, service, groupId, category), with the parts a
/// kind does not use as `''` and `-1`.
struct LinkBucket: Hashable {
    enum Kind: Int {
        case total = 0
        case service = 1
        case group = 2
        case category = 3
    }
    var kind: Kind
    var service = ""
    var groupId = ""
    var category = -1

    static let total = LinkBucket(kind: .total)

    /// The four buckets a link of `entry` counts in.
    static func buckets(of entry: LinkEntry) -> [LinkBucket] {
        [
            .total, LinkBucket(kind: .service, service: entry.service),
            LinkBucket(kind: .group, service: entry.service, groupId: entry.groupId),
            LinkBucket(kind: .category, category: entry.category),
        ]
    }
}

/// Bytes to subtract per bucket so that each inode counts once in it.
struct LinkCorrections {
    var values: [LinkBucket: StorageUsage] = [:]

    /// The corrections of one inode's links: in each bucket holding two or more of them, their sizes' sum minus the
    /// largest (logical and allocated each on its own).
    static func of(_ links: [LinkEntry]) -> LinkCorrections {
        var result = LinkCorrections()
        guard links.count > 1 else { return result }
        var perBucket: [LinkBucket: (count: Int, sum: StorageUsage, max: StorageUsage)] = [:]
        for link in links {
            for bucket in LinkBucket.buckets(of: link) {
                var entry = perBucket[bucket] ?? (0, StorageUsage(), StorageUsage())
                entry.count += 1
                entry.sum.logicalBytes += link.logical
                entry.sum.allocatedBytes += link.allocated
                entry.max.logicalBytes = max(entry.max.logicalBytes, link.logical)
                entry.max.allocatedBytes = max(entry.max.allocatedBytes, link.allocated)
                perBucket[bucket] = entry
            }
        }
        for (bucket, entry) in perBucket where entry.count > 1 {
            result.values[bucket] = StorageUsage(
                logicalBytes: entry.sum.logicalBytes - entry.max.logicalBytes,
                allocatedBytes: entry.sum.allocatedBytes - entry.max.allocatedBytes)
        }
        return result
    }

    /// The corrections of linked rows of many inodes.
    static func of(rows: [LinkedRow]) -> LinkCorrections {
        var byInode: [InodeKey: [LinkEntry]] = [:]
        for row in rows {
            byInode[InodeKey(device: row.device, inode: row.inode), default: []].append(
                LinkEntry(
                    service: row.service, groupId: row.groupId, category: row.category, logical: row.logical,
                    allocated: row.allocated))
        }
        var result = LinkCorrections()
        for links in byInode.values where links.count > 1 { result.add(of(links), sign: 1) }
        return result
    }

    mutating func add(_ other: LinkCorrections, sign: Int64) {
        for (bucket, usage) in other.values {
            var value = values[bucket] ?? StorageUsage()
            value.logicalBytes += sign * usage.logicalBytes
            value.allocatedBytes += sign * usage.allocatedBytes
            values[bucket] = value
        }
    }

    subscript(bucket: LinkBucket) -> StorageUsage { values[bucket] ?? StorageUsage() }

    /// The stored corrections of the whole index.
    static func stored(_ db: Database) throws -> LinkCorrections {
        var result = LinkCorrections()
        let rows = try Row.fetchCursor(
            db, sql: "SELECT bucket, service, groupId, category, logical, allocated FROM link_corrections")
        while let row = try rows.next() {
            guard let kind = LinkBucket.Kind(rawValue: row[0]) else { continue }
            let bucket = LinkBucket(kind: kind, service: row[1], groupId: row[2], category: row[3])
            result.values[bucket] = StorageUsage(logicalBytes: row[4], allocatedBytes: row[5])
        }
        return result
    }

    /// The stored correction of the whole index's total.
    static func storedTotal(_ db: Database) throws -> StorageUsage {
        let row = try Row.fetchOne(
            db,
            sql: "SELECT logical, allocated FROM link_corrections WHERE bucket = 0 AND service = '' AND groupId = '' "
                + "AND category = -1")
        return StorageUsage(logicalBytes: row?[0] ?? 0, allocatedBytes: row?[1] ?? 0)
    }

    /// Adds these values to the stored corrections, deleting the rows that reach zero.
    func applyStored(_ db: Database) throws {
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO link_corrections (bucket, service, groupId, category, logical, allocated)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (bucket, service, groupId, category) DO UPDATE SET
                    logical = logical + excluded.logical, allocated = allocated + excluded.allocated
                """)
        let prune = try db.cachedStatement(
            sql: """
                DELETE FROM link_corrections WHERE bucket = ? AND service = ? AND groupId = ? AND category = ?
                    AND logical = 0 AND allocated = 0
                """)
        for (bucket, usage) in values where usage.logicalBytes != 0 || usage.allocatedBytes != 0 {
            let key: StatementArguments = [bucket.kind.rawValue, bucket.service, bucket.groupId, bucket.category]
            try upsert.execute(arguments: key + [usage.logicalBytes, usage.allocatedBytes])
            try prune.execute(arguments: key)
        }
    }
}

/// The linked rows a write transaction added and removed, per inode: enough to update `link_corrections` at its end.
struct LinkChanges {
    var added: [InodeKey: [LinkEntry]] = [:]
    var removed: [InodeKey: [LinkEntry]] = [:]

    var isEmpty: Bool { added.isEmpty && removed.isEmpty }

    /// Notes a row written (`sign` 1) or deleted (-1); only rows with a device, an inode and `nlink > 1` count.
    mutating func note(device: Int64?, inode: Int64?, linkCount: Int, _ entry: LinkEntry, sign: Int) {
        guard linkCount > 1, let device, let inode else { return }
        let key = InodeKey(device: device, inode: inode)
        if sign > 0 { added[key, default: []].append(entry) } else { removed[key, default: []].append(entry) }
    }

    /// Updates `link_corrections` by each touched inode's corrections now minus before the transaction (its rows now,
    /// plus those removed, less those added).
    func apply(_ db: Database) throws {
        guard !isEmpty else { return }
        let select = try db.cachedStatement(
            sql: """
                SELECT service, groupId, category, logical, allocated FROM items
                WHERE dev = ? AND ino = ? AND nlink > 1
                """)
        var change = LinkCorrections()
        for key in Set(added.keys).union(removed.keys) {
            let now = try Row.fetchAll(select, arguments: [key.device, key.inode]).map { row in
                LinkEntry(service: row[0], groupId: row[1], category: row[2], logical: row[3], allocated: row[4])
            }
            var before = now + (removed[key] ?? [])
            for entry in added[key] ?? [] {
                if let position = before.firstIndex(of: entry) { before.remove(at: position) }
            }
            change.add(.of(now), sign: 1)
            change.add(.of(before), sign: -1)
        }
        try change.applyStored(db)
    }
}

extension SQLiteStorageIndex {
    /// Creates `link_corrections` and fills it from the items (migration v3).
    static func createLinkCorrections(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE link_corrections (
                    bucket INTEGER NOT NULL,
                    service TEXT NOT NULL,
                    groupId TEXT NOT NULL,
                    category INTEGER NOT NULL,
                    logical INTEGER NOT NULL,
                    allocated INTEGER NOT NULL,
                    PRIMARY KEY (bucket, service, groupId, category)
                ) WITHOUT ROWID
                """)
        try LinkCorrections.of(rows: linkedRows(db, .all)).applyStored(db)
    }
}
