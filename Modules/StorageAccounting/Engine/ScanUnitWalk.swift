/// The scanner's side of replacing a unit (``StorageScanIndex/commitUnits(_:root:scanId:budget:walk:)``): the index
/// calls ``walk(_:directory:item:)`` inside its write transaction and stores what it is handed; the walk reads the
/// disk and maps each file to an item with the scan's layout rules. Engine API.
@_spi(Engine) public struct ScanUnitWalk: Sendable {
    /// The root, open (`FileWalker.openRoot`); paths are relative to it.
    let rootFD: Int32
    /// Files to items, with the scan's options.
    let mapper: ItemMapper
    /// Whether to stop (the scan was cancelled): asked every 256 entries.
    let shouldStop: @Sendable () -> Bool

    init(rootFD: Int32, mapper: ItemMapper, shouldStop: @escaping @Sendable () -> Bool = { false }) {
        self.rootFD = rootFD
        self.mapper = mapper
        self.shouldStop = shouldStop
    }

    /// Walks `unit`: `directory` gets each directory's path (relative to the root) and modification time in
    /// nanoseconds, `item` each regular file as an item. Returns what the walk found. A unit whose directory is gone
    /// is empty, without a warning.
    ///
    /// - Throws: what `directory` or `item` throw; `CancellationError` once ``shouldStop`` answers true.
    @_spi(Engine) public func walk(
        _ unit: ScanUnit, directory: (_ path: [UInt8], _ modified: Int64) throws -> Void,
        item: (StorageItem) throws -> Void
    ) throws -> UnitOutcome {
        var outcome = UnitOutcome()
        let walker = FileWalker()
        try walker.walk(
            rootFD: rootFD, start: unit.directory, recursive: unit.recursive, shouldStop: shouldStop,
            onDirectory: { path, stat in
                outcome.directories += 1
                try directory(path, stat.modified)
            },
            onEntry: { path, stat in
                guard stat.kind == .regular else {
                    outcome.otherEntries += 1
                    return
                }
                try item(mapper.item(path: path, stat: stat, rootFD: rootFD))
                outcome.files += 1
                outcome.logicalBytes += stat.size
                outcome.allocatedBytes += stat.allocated
            })
        // A unit that vanished is not worth a warning: it is simply empty now.
        outcome.warnings = walker.warnings.filter {
            !($0.path.bytes == unit.directory && $0.message.contains("No such file"))
        }
        return outcome
    }
}
