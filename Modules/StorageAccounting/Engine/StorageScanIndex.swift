/// What ``StorageScanner``, ``Reconciler`` and ``StorageCleaner`` need of an index beyond ``StorageIndex``: the state
/// of each root's scan, units replaced in write transactions while the scanner walks them, and the directory stamps
/// and files that reconciliation compares with the disk. Engine API (`@_spi(Engine) import StorageAccounting`): an
/// app calls the scanner, the reconciler and the cleaner, never these. ``SQLiteStorageIndex`` is the one engine.
///
/// A *unit* (``ScanUnit``) is a directory with everything below it, or the files directly in a shallower directory;
/// its ``ScanUnit/key`` tags the rows it produced (items and directory stamps), so replacing a unit replaces exactly
/// them.
@_spi(Engine) public protocol StorageScanIndex: StorageIndex {
    /// The roots scanned into this index, sorted.
    func scannedRoots() async throws -> [String]

    /// The stored scan of `root` (absolute and resolved), if any.
    func scanState(root: String) async throws -> ScanState?

    /// Records the start of a new scan of `root` with `options`, forgetting the units done by any earlier one.
    func beginScan(root: String, scanId: String, options: StorageScanOptions) async throws

    /// Replaces the rows of a prefix of `units` with what `walk` finds in them now, in one write transaction: units
    /// are taken from `walk` (inside the transaction; during a scan, walked ahead by the scanner's thread) until one
    /// brings it to `budget`. Marks each done for `scanId` when given
    /// (`nil`: a repair outside a scan). Returns one outcome per unit committed, at least one.
    func commitUnits(
        _ units: ArraySlice<ScanUnit>, root: String, scanId: String?, budget: CommitBudget, walk: ScanUnitWalk
    ) async throws -> [UnitOutcome]

    /// Ends the scan `scanId` of `root` whose plan was `units`: removes the rows of units no longer in it and marks
    /// the scan finished. Returns how many items were removed.
    func finishScan(root: String, scanId: String, units: [ScanUnit]) async throws -> Int

    /// The directory stamps of `root`: each directory's path (relative to the root) → its unit's key and its
    /// modification time in nanoseconds, as the last walk of its unit saw them.
    func directoryStamps(root: String) async throws -> [[UInt8]: (unit: [UInt8], modified: Int64)]

    /// The indexed files of the unit `unit` (a ``ScanUnit/key``) of `root`, by path relative to the root.
    func unitFiles(root: String, unit: [UInt8]) async throws -> [[UInt8]: IndexedFile]

    /// The keys of the units of `root` that hold items or directory stamps.
    func knownUnits(root: String) async throws -> Set<[UInt8]>

    /// The items `filter` selects with ids after `after` (all when `nil`), in id order, at most `limit`: paging
    /// through a selection too large to hold.
    func itemsPage(_ filter: StorageFilter, after: String?, limit: Int) async throws -> [StorageItem]
}
