import Foundation
import SuiteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Seed 001's whole-app size: bundle + (data − caches) + app-group containers, in allocated bytes (blocks × 512 from
/// `lstat`; Foundation's allocated-size resource values are 8× too high on Linux, swift-corelibs-foundation #4885).
///
/// Every directory is walked with ``StorageScanner``'s POSIX walker (links not followed); each inode counts once
/// across all of them; directories' own blocks count, as `du` counts them. When the caches directory lies inside the
/// data directory it is left out of the data walk; when it lies elsewhere it is measured and reported but there is
/// nothing to subtract.
///
/// ```swift
/// let size = try await AppSize.measure(bundle: "/opt/app", data: "/var/lib/app", caches: "/var/lib/app/Caches")
/// print(size.totalBytes)
/// ```
public struct AppSize: Codable, Sendable, Hashable {
    /// The bundle's allocated bytes.
    public var bundleBytes: Int64
    /// The data directory's allocated bytes, caches included.
    public var dataBytes: Int64
    /// The caches directory's allocated bytes.
    public var cachesBytes: Int64
    /// Each app-group container's allocated bytes, in the order given.
    public var groups: [Entry]
    /// bundle + (data − caches) + groups.
    public var totalBytes: Int64
    /// The same sum in logical bytes (`st_size`).
    public var totalLogicalBytes: Int64
    /// What could not be read.
    public var warnings: [String]

    /// One app-group container.
    public struct Entry: Codable, Sendable, Hashable {
        /// Its path.
        public var path: String
        /// Its allocated bytes.
        public var bytes: Int64
    }

    /// Measures an app; see the type's documentation.
    ///
    /// - Throws: ``StorageError`` `.notFound` or `.io` for a directory that cannot be opened.
    public static func measure(bundle: String, data: String, caches: String?, groups: [String] = []) async throws
        -> AppSize
    {
        try await runBlocking {
            var seen: Set<[UInt64]> = []
            var warnings: [String] = []
            func size(_ path: String, excluding: String? = nil) throws -> (Int64, Int64) {
                let root = try StorageScanner.resolve(path)
                let fd = try FileWalker.openRoot(root)
                defer { close(fd) }
                let skip = excluding.flatMap { try? StorageScanner.resolve($0) }.flatMap { excluded -> [UInt8]? in
                    excluded.hasPrefix(root + "/") ? Array(excluded.dropFirst(root.count + 1).utf8) : nil
                }
                var allocated: Int64 = 0
                var logical: Int64 = 0
                func add(_ path: [UInt8], _ stat: FileStat) {
                    guard seen.insert([stat.device, stat.inode]).inserted else { return }
                    allocated += stat.allocated
                    logical += stat.size
                }
                let walker = FileWalker()
                try walker.walk(
                    rootFD: fd, start: [], recursive: true,
                    onDirectory: { path, stat in
                        if let skip, path == skip || path.starts(with: skip + [UInt8(ascii: "/")]) { return }
                        add(path, stat)
                    },
                    onEntry: { path, stat in
                        if let skip, path.starts(with: skip + [UInt8(ascii: "/")]) { return }
                        add(path, stat)
                    })
                warnings += walker.warnings.map { "\(root): \($0)" }
                return (allocated, logical)
            }
            let cachesInData =
                caches.flatMap { try? StorageScanner.resolve($0) }.map { resolvedCaches in
                    (try? StorageScanner.resolve(data)).map { resolvedCaches.hasPrefix($0 + "/") } ?? false
                } ?? false
            let bundleSize = try size(bundle)
            // Caches first when they are inside data, so that data's walk (which skips them) adds only the rest.
            let cachesSize = try caches.map { try size($0) } ?? (0, 0)
            let rest = try size(data, excluding: cachesInData ? caches : nil)
            var groupEntries: [Entry] = []
            var groupsAllocated: Int64 = 0
            var groupsLogical: Int64 = 0
            for group in groups {
                let measured = try size(group)
                groupEntries.append(Entry(path: group, bytes: measured.0))
                groupsAllocated += measured.0
                groupsLogical += measured.1
            }
            let dataAllocated = cachesInData ? rest.0 + cachesSize.0 : rest.0
            return AppSize(
                bundleBytes: bundleSize.0, dataBytes: dataAllocated, cachesBytes: cachesSize.0, groups: groupEntries,
                totalBytes: bundleSize.0 + rest.0 + groupsAllocated,
                totalLogicalBytes: bundleSize.1 + rest.1 + groupsLogical, warnings: warnings)
        }
    }
}
