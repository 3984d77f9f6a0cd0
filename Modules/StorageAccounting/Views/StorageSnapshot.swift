/// A sorted list of groups with stable identifiers, for live views: seed 001's diffable data source.
///
/// Take a snapshot, keep it, take another later and ask for the ``StorageSnapshotDiff`` between them: which rows to
/// insert, remove, move and reload — like applying an `NSDiffableDataSourceSnapshot`.
///
/// ```swift
/// let before = try await StorageSnapshot.groups(of: index)
/// // … a scan commits more units …
/// let after = try await StorageSnapshot.groups(of: index)
/// let changes = after.difference(from: before)  // inserted, removed, moved, updated
/// ```
public struct StorageSnapshot: Codable, Sendable, Hashable {
    /// The rows in display order.
    public var rows: [StorageGroupUsage]

    /// A snapshot of `rows` as given.
    public init(rows: [StorageGroupUsage]) { self.rows = rows }

    /// The groups of `filter` from `index`, sorted by `sort`.
    public static func groups(
        of index: some StorageIndex, filter: StorageFilter = .all, sort: StorageGroupSort = .size
    ) async throws -> StorageSnapshot {
        StorageSnapshot(rows: try await index.groups(filter, sort: sort, limit: nil))
    }

    /// The row identifiers (``StorageGroupUsage/id``) in order.
    public var identifiers: [String] { rows.map(\.id) }

    /// The changes that turn `old` into this snapshot. Moves are the fewest that restore the new order: rows kept in
    /// place form the longest run common to both orders.
    public func difference(from old: StorageSnapshot) -> StorageSnapshotDiff {
        var oldIndex: [String: Int] = [:]
        for (position, row) in old.rows.enumerated() { oldIndex[row.id] = position }
        var newIndex: [String: Int] = [:]
        for (position, row) in rows.enumerated() { newIndex[row.id] = position }

        var diff = StorageSnapshotDiff()
        for (position, row) in old.rows.enumerated() where newIndex[row.id] == nil {
            diff.removed.append(.init(id: row.id, index: position))
        }
        var common: [(id: String, old: Int, new: Int)] = []
        for (position, row) in rows.enumerated() {
            guard let before = oldIndex[row.id] else {
                diff.inserted.append(.init(id: row.id, index: position))
                continue
            }
            common.append((row.id, before, position))
            if old.rows[before] != row { diff.updated.append(row.id) }
        }
        let stay = Self.longestIncreasing(common.map(\.old))
        for (offset, entry) in common.enumerated() where !stay.contains(offset) {
            diff.moved.append(.init(id: entry.id, from: entry.old, to: entry.new))
        }
        return diff
    }

    /// Offsets of a longest strictly increasing subsequence of `values` (patience sorting, O(n log n)).
    private static func longestIncreasing(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // offsets into values
        var previous = [Int](repeating: -1, count: values.count)
        for (offset, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[offset] = tails[low - 1] }
            if low == tails.count { tails.append(offset) } else { tails[low] = offset }
        }
        var result: Set<Int> = []
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            result.insert(cursor)
            cursor = previous[cursor]
        }
        return result
    }
}

/// The changes between two ``StorageSnapshot``s.
public struct StorageSnapshotDiff: Codable, Sendable, Hashable {
    /// A row at a position (in the old snapshot for removals, the new one for insertions).
    public struct Position: Codable, Sendable, Hashable {
        /// The row's identifier.
        public var id: String
        /// Its position.
        public var index: Int
    }
    /// A row that changed position.
    public struct Move: Codable, Sendable, Hashable {
        /// The row's identifier.
        public var id: String
        /// Its position in the old snapshot.
        public var from: Int
        /// Its position in the new snapshot.
        public var to: Int
    }
    /// Rows only in the new snapshot.
    public var inserted: [Position] = []
    /// Rows only in the old snapshot.
    public var removed: [Position] = []
    /// Rows in both whose relative order changed.
    public var moved: [Move] = []
    /// Rows in both whose values (items, bytes) changed.
    public var updated: [String] = []

    /// Whether the snapshots show the same rows in the same order with the same values.
    public var isEmpty: Bool { inserted.isEmpty && removed.isEmpty && moved.isEmpty && updated.isEmpty }
}
