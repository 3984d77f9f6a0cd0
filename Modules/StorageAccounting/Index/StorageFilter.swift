public import Foundation

/// Which items a query, an estimate or a cleanup concerns. Every non-empty list narrows the selection (values within
/// one list are alternatives); the empty filter, ``all``, selects everything.
///
/// ```swift
/// let oldVideos = StorageFilter(categories: [.video], modifiedBefore: Date(timeIntervalSinceNow: -90 * 86_400))
/// let chat = StorageFilter(services: ["chat"], groups: ["chat-42"])
/// ```
public struct StorageFilter: Codable, Sendable, Hashable {
    /// Only items of these services.
    public var services: [String]
    /// Only items of these groups (in any of the selected services).
    public var groups: [String]
    /// Only items of these categories.
    public var categories: [StorageCategory]
    /// Only these items.
    public var ids: [String]
    /// Only items with a file under one of these managed roots (absolute, resolved paths as scanned).
    public var roots: [String]
    /// Only items last modified before this date.
    public var modifiedBefore: Date?

    /// Everything.
    public static let all = StorageFilter()

    /// Creates a filter; every argument left out selects everything.
    public init(
        services: [String] = [], groups: [String] = [], categories: [StorageCategory] = [], ids: [String] = [],
        roots: [String] = [], modifiedBefore: Date? = nil
    ) {
        self.services = services
        self.groups = groups
        self.categories = categories
        self.ids = ids
        self.roots = roots
        self.modifiedBefore = modifiedBefore
    }

    /// Whether the filter selects everything.
    public var isEmpty: Bool {
        services.isEmpty && groups.isEmpty && categories.isEmpty && ids.isEmpty && roots.isEmpty
            && modifiedBefore == nil
    }

    /// Whether only services, groups and categories are constrained: the maintained per-group totals answer it.
    var isAggregatable: Bool { ids.isEmpty && roots.isEmpty && modifiedBefore == nil }
}

/// Counts and sizes of a selection of items.
///
/// Bytes count every inode once: two hard links to one file in the selection count its size once, as `du` does.
/// ``items`` counts index entries (each link is one).
public struct StorageUsage: Codable, Sendable, Hashable {
    /// Index entries.
    public var items: Int
    /// Logical bytes (`st_size`).
    public var logicalBytes: Int64
    /// Allocated bytes (`st_blocks × 512`): what the disk gives up.
    public var allocatedBytes: Int64

    /// Creates a usage.
    @_spi(Engine) public init(items: Int = 0, logicalBytes: Int64 = 0, allocatedBytes: Int64 = 0) {
        self.items = items
        self.logicalBytes = logicalBytes
        self.allocatedBytes = allocatedBytes
    }

    static func + (lhs: StorageUsage, rhs: StorageUsage) -> StorageUsage {
        StorageUsage(
            items: lhs.items + rhs.items, logicalBytes: lhs.logicalBytes + rhs.logicalBytes,
            allocatedBytes: lhs.allocatedBytes + rhs.allocatedBytes)
    }
}

/// The usage of one category.
public struct StorageCategoryUsage: Codable, Sendable, Hashable {
    /// The category.
    public var category: StorageCategory
    /// Its items and bytes.
    public var usage: StorageUsage
}

/// The usage of one group of one service: a row of the "which chats use my storage" list.
public struct StorageGroupUsage: Codable, Sendable, Hashable, Identifiable {
    /// `service/groupId`: stable across snapshots.
    public var id: String { "\(service)/\(groupId)" }
    /// The service.
    public var service: String
    /// The group.
    public var groupId: String
    /// Its items and bytes.
    public var usage: StorageUsage
}

/// The usage of one service.
public struct StorageServiceUsage: Codable, Sendable, Hashable {
    /// The service.
    public var service: String
    /// Its items and bytes.
    public var usage: StorageUsage
}

/// One group in detail: its usage, per category, and its largest items.
public struct StorageGroupDetail: Codable, Sendable, Hashable {
    /// The group id.
    public var groupId: String
    /// The services holding items in the group.
    public var services: [String]
    /// All its items and bytes.
    public var usage: StorageUsage
    /// Per category, largest first.
    public var categories: [StorageCategoryUsage]
    /// Its largest items (allocated size), largest first.
    public var largest: [StorageItem]
}

/// What deleting a selection would give back to the disk.
///
/// A hard-linked file's blocks are freed only when every link to it is deleted: an inode counts as freed when all of
/// its `st_nlink` links (as measured at the scan) are in the selection.
public struct StorageFreedEstimate: Codable, Sendable, Hashable {
    /// Items selected.
    public var items: Int
    /// Logical bytes freed.
    public var logicalBytes: Int64
    /// Allocated bytes freed.
    public var allocatedBytes: Int64
    /// Selected items whose file keeps existing through a link outside the selection (their bytes are not counted).
    public var itemsKeptByOtherLinks: Int
}

/// The index at a glance: `suite storage report` (`--json` prints this value).
public struct StorageReport: Codable, Sendable, Hashable {
    /// Allocated bytes of everything, each inode once.
    public var allocatedBytes: Int64
    /// Logical bytes of everything, each inode once.
    public var logicalBytes: Int64
    /// Index entries.
    public var items: Int
    /// Every category with items, largest first.
    public var categories: [StorageCategoryUsage]
    /// The largest groups, largest first.
    public var groups: [StorageGroupUsage]
    /// Every service, largest first.
    public var services: [StorageServiceUsage]
}

/// How ``StorageIndex/groups(_:sort:limit:)`` orders groups.
public enum StorageGroupSort: String, Codable, Sendable, CaseIterable {
    /// Allocated bytes, largest first (ties by name).
    case size
    /// Item count, most first (ties by name).
    case count
    /// Service then group id, ascending.
    case name
}

/// How ``StorageIndex/items(_:order:limit:)`` orders items.
public enum StorageItemOrder: String, Codable, Sendable, CaseIterable {
    /// Allocated bytes, largest first.
    case largest
    /// Modification time, oldest first.
    case oldest
    /// Modification time, newest first.
    case newest
    /// Id, ascending.
    case id
}
