import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns a walked file into a ``StorageItem`` with the scan's layout rules.
struct ItemMapper: Sendable {
    var root: String
    var options: StorageScanOptions

    func item(path: [UInt8], stat: FileStat, rootFD: Int32) -> StorageItem {
        let storagePath = StoragePath(bytes: path)
        let match = options.layout.lazy.compactMap { rule in rule.match(storagePath).map { (rule, $0) } }.first
        let nameStart = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        let name = path[nameStart...]
        let dot = name.lastIndex(of: UInt8(ascii: "."))
        let stem = dot.flatMap { $0 > name.startIndex ? name[..<$0] : nil } ?? name
        let ext = match?.1.ext ?? dot.flatMap { $0 > name.startIndex ? StoragePath.escape(name[($0 + 1)...]) : nil }
        var contentType = ext.map { StorageContentType.forExtension($0) } ?? StorageContentType.unknown
        if options.sniffContent, let sniffed = sniff(path, rootFD: rootFD) { contentType = sniffed }
        let group: String
        if let captured = match?.1.groupId {
            group = captured
        } else if let slash = path.firstIndex(of: UInt8(ascii: "/")) {
            group = StoragePath.escape(path[..<slash])
        } else {
            group = "."
        }
        let escapedPath = storagePath.description
        let modified = SQLiteStorageIndex.date(nanoseconds: stat.modified)
        // The birth time where the file system keeps one (Apple platforms), else the modification time.
        let created = stat.created.map { SQLiteStorageIndex.date(nanoseconds: $0) } ?? modified
        return StorageItem(
            id: root + "/" + escapedPath, serviceType: match?.1.service ?? match?.0.service ?? options.service,
            groupId: group, contentId: match?.1.contentId ?? StoragePath.escape(stem),
            contentSubId: match?.1.contentSubId, contentType: contentType, sizeInBytes: stat.size,
            allocatedBytes: stat.allocated, createdDate: created, modifiedDate: modified,
            fileName: StoragePath.escape(name), root: root, path: storagePath, device: stat.device, inode: stat.inode,
            linkCount: stat.linkCount)
    }

    /// The content type from the file's first bytes, if recognised.
    private func sniff(_ path: [UInt8], rootFD: Int32) -> String? {
        let fd = FileWalker.withCString(path) { openat(rootFD, $0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: StorageContentType.sniffLength)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return StorageContentType.sniff(Array(buffer.prefix(count)))
    }
}
