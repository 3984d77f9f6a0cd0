import Foundation
public import Logging
public import SuiteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Deletes files and their index rows by category, group, service, item or age — safely.
///
/// ``plan(_:listing:)`` is the dry run: what a selection holds and what deleting it would free, hard links accounted for
/// (an inode is freed only when all its links go). ``execute(_:)`` deletes: for each selected item, the file first,
/// then (in batches) its row, so a crash in between leaves rows for missing files, which ``Reconciler`` repairs.
///
/// Safety: a file is deleted only below a *managed root* (the roots given to `init`, else the roots this index has
/// scanned), and only when its stored path is relative, has no empty, `.` or `..` component, and no component is a
/// symbolic link: every directory on the way is opened from the root with `O_NOFOLLOW`, and the file itself must be
/// a regular file by `lstat` (a link is refused, never followed). Items without a file (cache entries recorded from
/// events) are refused too: remove them with ``StorageIndex/remove(ids:)``.
///
/// ```swift
/// let cleaner = StorageCleaner(index: index)
/// let selection = StorageFilter(groups: ["chat-42"], categories: [.video])
/// let plan = try await cleaner.plan(selection)  // dry run: plan.freed.allocatedBytes
/// let done = try await cleaner.execute(selection)  // deletes files and rows
/// ```
public final class StorageCleaner: Sendable {
    /// The index the cleaner reads and updates.
    @_spi(Engine) public let index: any StorageScanIndex
    private let managedRoots: [String]?
    private let events: EventPublisher?
    private let logger: Logger

    /// A cleaner deleting only below `managedRoots` (absolute paths; the index's scanned roots when `nil`).
    public convenience init(
        index: SQLiteStorageIndex, managedRoots: [String]? = nil, bus: EventBus? = nil,
        logger: Logger = Logger(label: "suite.storage")
    ) {
        self.init(index: index as any StorageScanIndex, managedRoots: managedRoots, bus: bus, logger: logger)
    }

    /// A cleaner of any scanning index (an engine of the host's registry), deleting only below `managedRoots`.
    @_spi(Engine) public init(
        index: any StorageScanIndex, managedRoots: [String]? = nil, bus: EventBus? = nil,
        logger: Logger = Logger(label: "suite.storage")
    ) {
        self.index = index
        self.managedRoots = managedRoots
        self.events = bus?.publisher(source: "storage")
        self.logger = logger
    }

    /// The dry run: what `filter` selects and what deleting it would free.
    ///
    /// - Throws: ``StorageError`` `.invalidInput` for an empty filter (a cleanup always names what it deletes).
    public func plan(_ filter: StorageFilter, listing limit: Int = 100) async throws -> StorageCleanupPlan {
        try Self.checkSelective(filter)
        return StorageCleanupPlan(
            filter: filter, freed: try await index.freedIfDeleted(filter),
            categories: try await index.categories(filter),
            groups: try await index.groups(filter, sort: .size, limit: nil),
            largest: try await index.items(filter, order: .largest, limit: limit))
    }

    /// Deletes the files and rows `filter` selects; see the type's documentation.
    ///
    /// - Throws: ``StorageError`` `.invalidInput` for an empty filter, `.storage` when the index fails (files deleted
    ///   before that are then reported by reconciliation as missing).
    public func execute(_ filter: StorageFilter) async throws -> StorageCleanupResult {
        try Self.checkSelective(filter)
        var roots: [String] = []
        var configured = managedRoots ?? []
        if managedRoots == nil { configured = try await index.scannedRoots() }
        for root in configured {
            roots.append((try? StorageScanner.resolve(root)) ?? root)
        }
        var result = StorageCleanupResult()
        var after: String?
        while true {
            let page = try await index.itemsPage(filter, after: after, limit: 1000)
            guard let last = page.last else { break }
            after = last.id
            let managed = roots
            let outcome = try await runBlocking { Self.deleteFiles(page, managedRoots: managed) }
            try await index.remove(ids: outcome.removable)
            result.deleted += outcome.deleted
            result.alreadyMissing += outcome.missing
            result.freedAllocatedBytes += outcome.freedAllocated
            result.freedLogicalBytes += outcome.freedLogical
            result.refused += outcome.refused
        }
        logger.info(
            "storage cleanup", metadata: ["deleted": "\(result.deleted)", "refused": "\(result.refused.count)"])
        events?.publish(
            StorageCleanedEvent(
                payload: .init(
                    items: result.deleted, freedBytes: result.freedAllocatedBytes, refused: result.refused.count)))
        return result
    }

    private static func checkSelective(_ filter: StorageFilter) throws {
        if filter.isEmpty {
            throw StorageError(
                .invalidInput, "a cleanup must select something: the filter is empty",
                hint: "pass --category, --group, --older-than or an item id")
        }
    }

    private struct PageOutcome: Sendable {
        var removable: [String] = []
        var deleted = 0
        var missing = 0
        var freedAllocated: Int64 = 0
        var freedLogical: Int64 = 0
        var refused: [StorageCleanupRefusal] = []
    }

    /// Deletes the files of `items` (blocking). Rows of deleted and already missing files are `removable`.
    private static func deleteFiles(_ items: [StorageItem], managedRoots: [String]) -> PageOutcome {
        var outcome = PageOutcome()
        var rootFDs: [String: Int32] = [:]
        defer { for fd in rootFDs.values { close(fd) } }
        for item in items {
            func refuse(_ reason: String) {
                outcome.refused.append(StorageCleanupRefusal(id: item.id, path: item.absolutePath, reason: reason))
            }
            guard let root = item.root, let path = item.path else {
                refuse("the item has no file; remove its row with StorageIndex.remove(ids:)")
                continue
            }
            guard managedRoots.contains(root) else {
                refuse("\(root) is not a managed root")
                continue
            }
            if let problem = unsafeReason(path.bytes) {
                refuse(problem)
                continue
            }
            let rootFD: Int32
            if let open = rootFDs[root] {
                rootFD = open
            } else {
                guard let opened = try? FileWalker.openRoot(root) else {
                    refuse("cannot open the root \(root)")
                    continue
                }
                rootFDs[root] = opened
                rootFD = opened
            }
            switch deleteFile(path.bytes, rootFD: rootFD) {
            case .deleted(let freedAllocated, let freedLogical):
                outcome.deleted += 1
                outcome.freedAllocated += freedAllocated
                outcome.freedLogical += freedLogical
                outcome.removable.append(item.id)
            case .missing:
                outcome.missing += 1
                outcome.removable.append(item.id)
            case .refused(let reason):
                refuse(reason)
            }
        }
        return outcome
    }

    /// Why a stored relative path cannot be deleted safely, or `nil`.
    static func unsafeReason(_ path: [UInt8]) -> String? {
        if path.isEmpty { return "the stored path is empty" }
        if path.first == UInt8(ascii: "/") { return "the stored path '\(StoragePath(bytes: path))' is absolute" }
        for component in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.isEmpty || component.elementsEqual([46]) || component.elementsEqual([46, 46]) {
                return "the stored path '\(StoragePath(bytes: path))' has an empty, '.' or '..' component"
            }
        }
        return nil
    }

    private enum FileOutcome {
        case deleted(allocated: Int64, logical: Int64)
        case missing
        case refused(String)
    }

    private static func deleteFile(_ path: [UInt8], rootFD: Int32) -> FileOutcome {
        let slash = path.lastIndex(of: UInt8(ascii: "/"))
        let parent = slash.map { Array(path[..<$0]) } ?? []
        let name = slash.map { Array(path[($0 + 1)...]) } ?? path
        let parentFD: Int32
        switch FileWalker.openBelow(rootFD, parent) {
        case .success(let fd): parentFD = fd
        case .failure(let error):
            return error.code == .notFound ? .missing : .refused(error.message)
        }
        defer { close(parentFD) }
        var st = stat()
        guard FileWalker.withCString(name, { fstatat(parentFD, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 else {
            return errno == ENOENT ? .missing : .refused(String(cString: strerror(errno)))
        }
        let info = FileStat(st)
        guard info.kind == .regular else {
            return .refused("'\(StoragePath(bytes: path))' is not a regular file (a symbolic link is never followed)")
        }
        guard FileWalker.withCString(name, { unlinkat(parentFD, $0, 0) }) == 0 else {
            return errno == ENOENT ? .missing : .refused("cannot delete: \(String(cString: strerror(errno)))")
        }
        // Blocks come back only with the last link.
        return info.linkCount <= 1
            ? .deleted(allocated: info.allocated, logical: info.size) : .deleted(allocated: 0, logical: 0)
    }
}

/// The dry run of a cleanup.
public struct StorageCleanupPlan: Codable, Sendable, Hashable {
    /// The selection.
    public var filter: StorageFilter
    /// What deleting it frees (``StorageFreedEstimate/items`` is how many items it selects).
    public var freed: StorageFreedEstimate
    /// The selection per category.
    public var categories: [StorageCategoryUsage]
    /// The selection per group, largest first.
    public var groups: [StorageGroupUsage]
    /// Its largest items (up to the `listing` limit of ``StorageCleaner/plan(_:listing:)``).
    public var largest: [StorageItem]
}

/// An item a cleanup did not delete, and why.
public struct StorageCleanupRefusal: Codable, Sendable, Hashable {
    /// The item's id.
    public var id: String
    /// Its file (escaped), if it has one.
    public var path: String?
    /// Why it was not deleted.
    public var reason: String
}

/// What a cleanup did.
public struct StorageCleanupResult: Codable, Sendable, Hashable {
    /// Files deleted (their rows too).
    public var deleted = 0
    /// Items whose file was already gone (their rows were removed).
    public var alreadyMissing = 0
    /// Allocated bytes given back (a file with other links left frees nothing).
    public var freedAllocatedBytes: Int64 = 0
    /// Logical bytes given back.
    public var freedLogicalBytes: Int64 = 0
    /// Items not deleted, with the reason.
    public var refused: [StorageCleanupRefusal] = []
}
