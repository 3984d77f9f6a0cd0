/// The scanner's side of replacing a unit (``StorageScanIndex/commitUnits(_:root:scanId:budget:walk:)``): the index
/// calls ``walk(_:directory:item:)`` inside its write transaction and stores what it is handed; the walk reads the
/// disk and maps each file to an item with the scan's layout rules. During a scan, a thread of the scanner's walks and
/// maps the units ahead of the index (``UnitPrefetcher``), so what the index is handed is mostly ready. Engine API.
@_spi(Engine) public struct ScanUnitWalk: Sendable {
    /// The root, open (`FileWalker.openRoot`); paths are relative to it.
    let rootFD: Int32
    /// Files to items, with the scan's options.
    let mapper: ItemMapper
    /// Whether to stop (the scan was cancelled): asked every 256 entries.
    let shouldStop: @Sendable () -> Bool
    /// The units walked ahead, when the scanner runs a prefetching thread.
    let prefetcher: UnitPrefetcher?

    /// At most this many files in a chunk.
    static let chunkFiles = 1_024

    init(
        rootFD: Int32, mapper: ItemMapper, shouldStop: @escaping @Sendable () -> Bool = { false },
        prefetcher: UnitPrefetcher? = nil
    ) {
        self.rootFD = rootFD
        self.mapper = mapper
        self.shouldStop = shouldStop
        self.prefetcher = prefetcher
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
        try walkChunks(unit) { chunk in
            for stamp in chunk.directories { try directory(Array(chunk.slice(stamp.path)), stamp.modified) }
            for file in chunk.files { try item(chunk.item(file, root: mapper.root)) }
        }
    }

    /// Walks `unit`, handing its directories and mapped files to `body` in chunks of at most ``chunkFiles`` files (the
    /// last one possibly empty): from the prefetching thread when it walked the unit ahead, else walking it now.
    func walkChunks(_ unit: ScanUnit, _ body: (MappedChunk) throws -> Void) throws -> UnitOutcome {
        if let prefetcher, let outcome = try prefetcher.take(unit, body) { return outcome }
        return try Self.walk(unit, rootFD: rootFD, mapper: mapper, shouldStop: shouldStop, deliver: body)
    }

    /// Walks `unit` from the disk, handing chunks to `deliver` as they fill.
    static func walk(
        _ unit: ScanUnit, rootFD: Int32, mapper: ItemMapper, shouldStop: () -> Bool,
        deliver: (MappedChunk) throws -> Void
    ) throws -> UnitOutcome {
        var outcome = UnitOutcome()
        var chunk = MappedChunk(capacity: 64)
        var cache = ItemMapper.TypeCache()
        let walker = FileWalker()
        try walker.walk(
            rootFD: rootFD, start: unit.directory, recursive: unit.recursive, shouldStop: shouldStop,
            onDirectory: { path, stat in
                outcome.directories += 1
                chunk.directories.append((chunk.append(path), stat.modified))
            },
            onEntry: { path, stat in
                guard stat.kind == .regular else {
                    outcome.otherEntries += 1
                    return
                }
                mapper.map(path: path, stat: stat, rootFD: rootFD, into: &chunk, cache: &cache)
                outcome.files += 1
                outcome.logicalBytes += stat.size
                outcome.allocatedBytes += stat.allocated
                if chunk.files.count >= chunkFiles {
                    try deliver(chunk)
                    chunk = MappedChunk(capacity: chunkFiles)
                }
            })
        try deliver(chunk)
        // A unit that vanished is not worth a warning: it is simply empty now.
        outcome.warnings = walker.warnings.filter {
            !($0.path.bytes == unit.directory && $0.message.contains("No such file"))
        }
        return outcome
    }
}
