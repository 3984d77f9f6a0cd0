/// The index of stored items: LINE's `StorageManagementAbstractDatabase`. Totals and per-group lists come from
/// aggregates over it, never from walking files.
///
/// Built-in engine: ``SQLiteStorageIndex``. Every method is safe to call concurrently; writes are atomic (all of a
/// call's items or none). Bytes in every answer count each inode once (see ``StorageUsage``).
///
/// ```swift
/// let index = try SQLiteStorageIndex(path: dataDirectory + "/storage.sqlite")
/// try await index.record([photo])
/// let total = try await index.usage(.all)
/// let chats = try await index.groups(StorageFilter(services: ["chat"]), sort: .size, limit: 20)
/// ```
public protocol StorageIndex: Sendable {
    /// Adds `items`, replacing any indexed item with the same id, in one transaction.
    ///
    /// - Throws: ``StorageError`` `.invalidInput` for an item that fails validation (nothing is written), `.storage`.
    func record(_ items: [StorageItem]) async throws

    /// Removes the items with these ids (unknown ids are ignored) in one transaction; returns how many were removed.
    @discardableResult
    func remove(ids: [String]) async throws -> Int

    /// The items, logical and allocated bytes of the selection.
    func usage(_ filter: StorageFilter) async throws -> StorageUsage

    /// The selection per category, largest (allocated) first; categories without items are left out.
    func categories(_ filter: StorageFilter) async throws -> [StorageCategoryUsage]

    /// The selection per (service, group), ordered by `sort`, at most `limit` groups (all when `nil`).
    func groups(_ filter: StorageFilter, sort: StorageGroupSort, limit: Int?) async throws -> [StorageGroupUsage]

    /// The selection per service, largest first.
    func services(_ filter: StorageFilter) async throws -> [StorageServiceUsage]

    /// The selected items in `order`, at most `limit` (all when `nil`).
    func items(_ filter: StorageFilter, order: StorageItemOrder, limit: Int?) async throws -> [StorageItem]

    /// What deleting the selection would free, hard links accounted for.
    func freedIfDeleted(_ filter: StorageFilter) async throws -> StorageFreedEstimate

    /// Totals, categories, the `topGroups` largest groups and the services, in one consistent read.
    func report(topGroups: Int) async throws -> StorageReport

    /// Closes the index; later calls throw.
    func close() async throws
}

extension StorageIndex {
    /// Adds or replaces one item.
    public func record(_ item: StorageItem) async throws { try await record([item]) }

    /// Adds or replaces service models (their ``StorageItemConvertible/storageItem``).
    public func record<Model: StorageItemConvertible>(_ models: [Model]) async throws {
        try await record(models.map(\.storageItem))
    }

    /// Adds or replaces one service model.
    public func record(_ model: some StorageItemConvertible) async throws { try await record([model.storageItem]) }

    /// Removes one item; returns whether it was indexed.
    @discardableResult
    public func remove(id: String) async throws -> Bool { try await remove(ids: [id]) == 1 }

    /// The item with this id, if indexed.
    public func item(id: String) async throws -> StorageItem? {
        try await items(StorageFilter(ids: [id]), order: .id, limit: 1).first
    }

    /// Everything indexed: items and bytes.
    public func total() async throws -> StorageUsage { try await usage(.all) }

    /// The `count` largest items (allocated bytes) of the selection.
    public func largest(_ count: Int, in filter: StorageFilter = .all) async throws -> [StorageItem] {
        try await items(filter, order: .largest, limit: count)
    }

    /// The selected items rebuilt as a service's models; items the model refuses are skipped.
    public func models<Model: StorageItemConvertible>(
        _ type: Model.Type, matching filter: StorageFilter, order: StorageItemOrder = .id, limit: Int? = nil
    ) async throws -> [Model] {
        try await items(filter, order: order, limit: limit).compactMap { try? Model(storageItem: $0) }
    }

    /// One group in detail (in `services`, or in any service when empty), with its `largest` largest items; `nil`
    /// when the group has no items.
    public func group(_ groupId: String, services: [String] = [], largest: Int = 10) async throws -> StorageGroupDetail?
    {
        let filter = StorageFilter(services: services, groups: [groupId])
        let usage = try await usage(filter)
        guard usage.items > 0 else { return nil }
        let serviceList = try await self.services(filter).map(\.service)
        return StorageGroupDetail(
            groupId: groupId, services: serviceList, usage: usage, categories: try await categories(filter),
            largest: try await items(filter, order: .largest, limit: largest))
    }
}
