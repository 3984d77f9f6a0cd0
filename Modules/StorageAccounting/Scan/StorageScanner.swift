import Foundation
public import Logging
public import SuiteCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fills a ``SQLiteStorageIndex`` from a directory of app data: the incremental first scan of seed 001.
///
/// The root is split into *units* (see ``StorageScanProgress``): with the layout `chats/{groupId}/…` one unit is one
/// chat. Each unit is walked (`readdir` + `lstat`, never following links) and committed in one transaction that
/// replaces what the index held for it, so:
///
/// - queries during a scan already show every finished unit, and ``StorageScanProgress`` after each commit says how
///   far the scan is (units done of total, files, bytes, rate);
/// - a scan that is cancelled or crashes loses at most the unit it was walking; scanning the same root again with
///   the same options resumes, skipping the units already committed (``StorageScanResult/unitsResumed``);
/// - a new scan of a scanned root replaces its items unit by unit, and removes the items of units that are gone.
///
/// ```swift
/// let scanner = StorageScanner(index: index, bus: bus)
/// let result = try await scanner.scan(
///     root: "/var/lib/app", options: StorageScanOptions(layout: [try LayoutRule("chats/{groupId}/**")])
/// ) { progress in
///     print("\(progress.unitsDone)/\(progress.unitsTotal) \(progress.files) files")
/// }
/// ```
public final class StorageScanner: Sendable {
    /// The index the scanner fills.
    @_spi(Engine) public let index: any StorageScanIndex
    private let events: EventPublisher?
    private let logger: Logger
    let budget: CommitBudget

    /// A scanner writing into `index`, publishing `storage.scanned` on `bus` when given.
    public convenience init(
        index: SQLiteStorageIndex, bus: EventBus? = nil, logger: Logger = Logger(label: "suite.storage")
    ) {
        self.init(index: index, bus: bus, logger: logger, budget: .scan)
    }

    /// A scanner writing into any scanning index (an engine of the host's registry), publishing `storage.scanned` on
    /// `bus` when given.
    @_spi(Engine) public convenience init(
        index: any StorageScanIndex, bus: EventBus? = nil, logger: Logger = Logger(label: "suite.storage")
    ) {
        self.init(index: index, bus: bus, logger: logger, budget: .scan)
    }

    /// A scanner committing a scan's units in transactions of `budget`.
    init(
        index: any StorageScanIndex, bus: EventBus? = nil, logger: Logger = Logger(label: "suite.storage"),
        budget: CommitBudget
    ) {
        self.index = index
        self.events = bus?.publisher(source: "storage")
        self.logger = logger
        self.budget = budget
    }

    /// Scans `root` into the index; see the type's documentation.
    ///
    /// `progress` is awaited after planning and after each committed unit (never concurrently with itself); a query
    /// made from it sees every unit it counts as done.
    ///
    /// - Throws: ``StorageError`` — `.notFound`/`.io` when the root cannot be opened, `.invalidInput` for bad
    ///   options, `.cancelled` when the task is cancelled (committed units stay; scan again to resume), `.storage`.
    public func scan(
        root: String, options: StorageScanOptions = StorageScanOptions(),
        progress: (@Sendable (StorageScanProgress) async -> Void)? = nil
    ) async throws -> StorageScanResult {
        try options.validate()
        let started = ContinuousClock.now
        let rootPath = try Self.resolve(root)
        let rootFD = try FileWalker.openRoot(rootPath)
        defer { close(rootFD) }

        let previous = try await index.scanState(root: rootPath)
        let resumable = previous.map { !$0.finished && $0.options == options.withoutRestart } ?? false
        let resumed = resumable && !options.restart
        let scanId = resumed ? (previous?.scanId ?? UUID().uuidString) : UUID().uuidString
        if !resumed { try await index.beginScan(root: rootPath, scanId: scanId, options: options) }
        let done = resumed ? (previous?.doneUnits ?? []) : []

        let (units, planWarnings) = try await runBlocking {
            let walker = FileWalker()
            return (ScanUnit.plan(rootFD: rootFD, depth: options.effectiveUnitDepth, walker: walker), walker.warnings)
        }
        let mapper = ItemMapper(root: rootPath, options: options)
        let stop = StopFlag()
        var pending = units.filter { !done.contains($0.key) }[...]
        // Walks and maps the units ahead on a thread of its own while the index's writer inserts them.
        let prefetcher = UnitPrefetcher(
            units: Array(pending), rootFD: rootFD, mapper: mapper, shouldStop: { stop.isSet })
        let walk = ScanUnitWalk(rootFD: rootFD, mapper: mapper, shouldStop: { stop.isSet }, prefetcher: prefetcher)
        var result = StorageScanResult(
            root: rootPath, scanId: scanId, resumed: resumed, unitsTotal: units.count, unitsWalked: 0,
            unitsResumed: units.filter { done.contains($0.key) }.count, files: 0, directories: 0, otherEntries: 0,
            logicalBytes: 0, allocatedBytes: 0, removedItems: 0, warnings: planWarnings, durationSeconds: 0)
        func report(_ current: String?) async {
            guard let progress else { return }
            let elapsed = Self.seconds(ContinuousClock.now - started)
            await progress(
                StorageScanProgress(
                    root: rootPath, unitsDone: result.unitsResumed + result.unitsWalked, unitsTotal: units.count,
                    unitsResumed: result.unitsResumed, files: result.files, logicalBytes: result.logicalBytes,
                    allocatedBytes: result.allocatedBytes, currentUnit: current, elapsedSeconds: elapsed,
                    filesPerSecond: elapsed > 0 ? Double(result.files) / elapsed : 0))
        }
        await report(nil)

        prefetcher.start()
        do {
            while let first = pending.first {
                if Task.isCancelled { throw Self.cancelled(rootPath) }
                let outcomes: [UnitOutcome]
                do {
                    outcomes = try await withTaskCancellationHandler {
                        try await index.commitUnits(pending, root: rootPath, scanId: scanId, budget: budget, walk: walk)
                    } onCancel: {
                        stop.set()
                        prefetcher.stop()
                    }
                } catch let error as StorageError where error.code == .cancelled {
                    throw Self.cancelled(rootPath)
                }
                let last = pending[pending.startIndex + max(0, outcomes.count - 1)]
                pending = pending.dropFirst(max(1, outcomes.count))
                for outcome in outcomes { result.add(outcome) }
                await report(outcomes.isEmpty ? first.displayName : last.displayName)
            }
        } catch {
            // The walking thread reads `rootFD`: it ends before the descriptor closes.
            prefetcher.stop()
            await prefetcher.finished()
            throw error
        }
        await prefetcher.finished()
        result.removedItems = try await index.finishScan(root: rootPath, scanId: scanId, units: units)
        result.durationSeconds = Self.seconds(ContinuousClock.now - started)
        logger.info(
            "scanned storage root",
            metadata: ["root": "\(rootPath)", "files": "\(result.files)", "units": "\(result.unitsWalked)"])
        events?.publish(
            StorageScannedEvent(
                payload: .init(
                    root: rootPath, files: result.files, logicalBytes: result.logicalBytes,
                    allocatedBytes: result.allocatedBytes, units: result.unitsWalked, resumed: resumed,
                    warnings: result.warnings.count)))
        return result
    }

    /// Walks the given units of a scanned root again (with the options of its last scan) and commits each; used by
    /// ``Reconciler`` to repair what it found. Returns the files indexed.
    func rescan(root: String, units: [ScanUnit]) async throws -> UnitOutcome {
        let options = try await index.scanState(root: root)?.options ?? StorageScanOptions()
        let rootFD = try FileWalker.openRoot(root)
        defer { close(rootFD) }
        let walk = ScanUnitWalk(rootFD: rootFD, mapper: ItemMapper(root: root, options: options))
        var total = UnitOutcome()
        for unit in units.sorted() {
            guard
                let outcome = try await index.commitUnits(
                    [unit], root: root, scanId: nil, budget: .everyUnit, walk: walk
                ).first
            else { continue }
            total.files += outcome.files
            total.directories += outcome.directories
            total.logicalBytes += outcome.logicalBytes
            total.allocatedBytes += outcome.allocatedBytes
            total.warnings += outcome.warnings
        }
        return total
    }

    /// `path` made absolute and resolved (`realpath`): the form roots are stored under.
    static func resolve(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else {
            let code = errno
            throw StorageError(
                code == ENOENT ? .notFound : .io, "cannot resolve \(path): \(String(cString: strerror(code)))",
                hint: "pass an existing directory")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func cancelled(_ root: String) -> StorageError {
        StorageError(
            .cancelled, "the scan of \(root) was cancelled; finished units are indexed",
            hint: "scan the same root again with the same options to resume")
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension StorageScanResult {
    /// Counts a committed unit.
    mutating func add(_ outcome: UnitOutcome) {
        unitsWalked += 1
        files += outcome.files
        directories += outcome.directories
        otherEntries += outcome.otherEntries
        logicalBytes += outcome.logicalBytes
        allocatedBytes += outcome.allocatedBytes
        warnings += outcome.warnings
    }
}

extension StorageScanOptions {
    /// The options with ``restart`` off, as stored with a scan.
    var withoutRestart: StorageScanOptions {
        var copy = self
        copy.restart = false
        return copy
    }
}

/// A flag a cancellation handler sets and a blocking walk polls.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
