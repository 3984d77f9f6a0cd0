import Foundation
public import Logging
import SuiteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How thoroughly ``Reconciler`` compares the index with the disk.
public enum ReconcileMode: String, Codable, Sendable, CaseIterable {
    /// Directory modification times recorded at the scan against `lstat` now: one `lstat` per directory. Sees files
    /// created, deleted or renamed; cannot see a file appended to or rewritten in place (its directory's time does not
    /// change) — ``ReconcileReport/limitations`` says so in every cheap report.
    case cheap
    /// Every file: walks each unit and compares it with the index — missing files, files not indexed, size drift.
    case full
}

/// A file whose size or time on disk differs from the index.
public struct StorageDrift: Codable, Sendable, Hashable {
    /// The file, relative to the root.
    public var path: StoragePath
    /// Logical bytes in the index.
    public var indexedLogicalBytes: Int64
    /// Logical bytes on disk.
    public var diskLogicalBytes: Int64
    /// Allocated bytes in the index.
    public var indexedAllocatedBytes: Int64
    /// Allocated bytes on disk.
    public var diskAllocatedBytes: Int64
}

/// What a reconciliation found (and, with `fix`, repaired). Lists hold at most ``Reconciler/listLimit`` paths each;
/// the counts are exact.
public struct ReconcileReport: Codable, Sendable, Hashable {
    /// The root (absolute, resolved).
    public var root: String
    /// The mode.
    public var mode: ReconcileMode
    /// Directories whose modification time changed since the scan (cheap mode).
    public var changedDirectories: [StoragePath] = []
    /// Directories recorded at the scan that are gone (cheap mode).
    public var missingDirectories: [StoragePath] = []
    /// Indexed files that are not on disk (full mode).
    public var missingFiles: [StoragePath] = []
    /// Files on disk that are not indexed (full mode).
    public var unindexedFiles: [StoragePath] = []
    /// Files whose size differs (full mode).
    public var drifted: [StorageDrift] = []
    /// Exact counts: changed or missing directories, missing files, unindexed files, drifted files.
    public var counts = Counts()
    /// Units (see ``StorageScanProgress``) that differ; with `fix`, those rescanned.
    public var unitsAffected = 0
    /// Whether the differences were repaired (by rescanning the affected units).
    public var fixed = false
    /// What this mode cannot see.
    public var limitations: [String] = []
    /// What could not be read.
    public var warnings: [StorageWarning] = []

    /// Exact numbers of differences.
    public struct Counts: Codable, Sendable, Hashable {
        /// Changed directories.
        public var changedDirectories = 0
        /// Missing directories.
        public var missingDirectories = 0
        /// Missing files.
        public var missingFiles = 0
        /// Unindexed files.
        public var unindexedFiles = 0
        /// Drifted files.
        public var drifted = 0
    }

    /// Whether nothing differs.
    public var isConsistent: Bool { unitsAffected == 0 }
}

/// Compares a scanned root with the index and repairs it: seed 001's reconciliation, for when the app crashed between
/// a file change and the index update. Run it on a schedule with ``IdleScheduler``.
///
/// ```swift
/// let reconciler = Reconciler(scanner: scanner)
/// let report = try await reconciler.reconcile(root: appData, mode: .cheap, fix: true)
/// if !report.isConsistent { print(report.counts) }
/// ```
public final class Reconciler: Sendable {
    /// At most this many paths per list in a report.
    public static let listLimit = 1000
    /// The scanner used to repair (its index is the one compared).
    public let scanner: StorageScanner
    private let logger: Logger

    /// A reconciler for the roots `scanner`'s index holds.
    public init(scanner: StorageScanner, logger: Logger = Logger(label: "suite.storage")) {
        self.scanner = scanner
        self.logger = logger
    }

    /// Reconciles every scanned root.
    public func reconcileAll(mode: ReconcileMode, fix: Bool) async throws -> [ReconcileReport] {
        var reports: [ReconcileReport] = []
        for root in try await scanner.index.scannedRoots() {
            reports.append(try await reconcile(root: root, mode: mode, fix: fix))
        }
        return reports
    }

    /// Compares `root` (which must have been scanned) with the index; with `fix`, rescans what differs.
    ///
    /// - Throws: ``StorageError`` `.notFound` when the root was never scanned or is gone, `.io`, `.storage`.
    public func reconcile(root: String, mode: ReconcileMode, fix: Bool) async throws -> ReconcileReport {
        let rootPath = try StorageScanner.resolve(root)
        guard let state = try await scanner.index.scanState(root: rootPath) else {
            throw StorageError(
                .notFound, "\(rootPath) has never been scanned", hint: "run `suite storage scan \(rootPath)` first")
        }
        var report = ReconcileReport(root: rootPath, mode: mode)
        let affected: Set<ScanUnit>
        switch mode {
        case .cheap:
            affected = try await cheap(rootPath, depth: state.options.effectiveUnitDepth, into: &report)
            report.limitations = [
                "appending to or rewriting a file in place changes neither its directory's modification time nor "
                    + "anything else this mode reads: size drift is invisible here (use --full)",
                "a change that restores a directory's modification time (touch -d, a restored backup) is missed",
            ]
        case .full:
            affected = try await full(rootPath, depth: state.options.effectiveUnitDepth, into: &report)
        }
        report.unitsAffected = affected.count
        if fix && !affected.isEmpty {
            let outcome = try await scanner.rescan(root: rootPath, units: Array(affected))
            report.warnings += outcome.warnings
            report.fixed = true
        }
        logger.info(
            "reconciled storage root",
            metadata: ["root": "\(rootPath)", "mode": "\(mode.rawValue)", "units": "\(affected.count)"])
        return report
    }

    private func cheap(_ root: String, depth: Int, into report: inout ReconcileReport) async throws -> Set<ScanUnit> {
        let stamps = try await scanner.index.directoryStamps(root: root)
        let known = try await scanner.index.knownUnits(root: root)
        let (affected, found) = try await runBlocking {
            var affected: Set<ScanUnit> = []
            var result = ReconcileReport(root: root, mode: .cheap)
            let rootFD = try FileWalker.openRoot(root)
            defer { close(rootFD) }
            var replan = false
            for (path, stamp) in stamps {
                switch FileWalker.statBelow(rootFD, path) {
                case .success(let stat) where stat.kind == .directory:
                    guard stat.modified != stamp.modified else { continue }
                    result.counts.changedDirectories += 1
                    if result.changedDirectories.count < Self.listLimit {
                        result.changedDirectories.append(StoragePath(bytes: path))
                    }
                default:
                    result.counts.missingDirectories += 1
                    if result.missingDirectories.count < Self.listLimit {
                        result.missingDirectories.append(StoragePath(bytes: path))
                    }
                }
                let unit = ScanUnit(key: stamp.unit)
                affected.insert(unit)
                // A shallow directory that changed may have gained or lost whole units.
                if !unit.recursive { replan = true }
            }
            if replan {
                let walker = FileWalker()
                let planned = ScanUnit.plan(rootFD: rootFD, depth: depth, walker: walker)
                let plannedKeys = Set(planned.map(\.key))
                for unit in planned where !known.contains(unit.key) { affected.insert(unit) }
                for key in known where !plannedKeys.contains(key) { affected.insert(ScanUnit(key: key)) }
                result.warnings += walker.warnings
            }
            result.changedDirectories.sort()
            result.missingDirectories.sort()
            return (affected, result)
        }
        report.changedDirectories = found.changedDirectories
        report.missingDirectories = found.missingDirectories
        report.counts = found.counts
        report.warnings += found.warnings
        return affected
    }

    private func full(_ root: String, depth: Int, into report: inout ReconcileReport) async throws -> Set<ScanUnit> {
        let known = try await scanner.index.knownUnits(root: root)
        let planned = try await runBlocking {
            let rootFD = try FileWalker.openRoot(root)
            defer { close(rootFD) }
            return ScanUnit.plan(rootFD: rootFD, depth: depth, walker: FileWalker())
        }
        let units = Set(planned).union(known.map { ScanUnit(key: $0) }).sorted()
        var affected: Set<ScanUnit> = []
        for unit in units {
            let indexed = try await scanner.index.unitFiles(root: root, unit: unit.key)
            let (disk, warnings) = try await runBlocking {
                let rootFD = try FileWalker.openRoot(root)
                defer { close(rootFD) }
                var files: [[UInt8]: FileStat] = [:]
                let walker = FileWalker()
                try walker.walk(
                    rootFD: rootFD, start: unit.directory, recursive: unit.recursive, onDirectory: { _, _ in },
                    onEntry: { path, stat in if stat.kind == .regular { files[path] = stat } })
                return (files, walker.warnings.filter { !$0.message.contains("No such file") })
            }
            report.warnings += warnings
            var differs = false
            for (path, file) in indexed {
                guard let stat = disk[path] else {
                    differs = true
                    report.counts.missingFiles += 1
                    if report.missingFiles.count < Self.listLimit {
                        report.missingFiles.append(StoragePath(bytes: path))
                    }
                    continue
                }
                // Times went through a `Date` (a Double): equal within a microsecond.
                if stat.size != file.logical || stat.allocated != file.allocated
                    || abs(stat.modified - file.modified) > 1000
                {
                    differs = true
                    report.counts.drifted += 1
                    if report.drifted.count < Self.listLimit {
                        report.drifted.append(
                            StorageDrift(
                                path: StoragePath(bytes: path), indexedLogicalBytes: file.logical,
                                diskLogicalBytes: stat.size, indexedAllocatedBytes: file.allocated,
                                diskAllocatedBytes: stat.allocated))
                    }
                }
            }
            for path in disk.keys where indexed[path] == nil {
                differs = true
                report.counts.unindexedFiles += 1
                if report.unindexedFiles.count < Self.listLimit {
                    report.unindexedFiles.append(StoragePath(bytes: path))
                }
            }
            if differs { affected.insert(unit) }
        }
        report.missingFiles.sort()
        report.unindexedFiles.sort()
        report.drifted.sort { $0.path < $1.path }
        return affected
    }
}
