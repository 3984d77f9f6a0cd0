import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns a walked file into a ``StorageItem`` with the scan's layout rules: into a ``MappedFile`` of a chunk on the
/// scan's path (bytes, no strings), or into the item itself.
struct ItemMapper: Sendable {
    var root: String
    var options: StorageScanOptions
    /// `root + "/"`, what every id starts with.
    private let idPrefix: [UInt8]

    init(root: String, options: StorageScanOptions) {
        self.root = root
        self.options = options
        idPrefix = Array(root.utf8) + [UInt8(ascii: "/")]
    }

    /// The content type of the last extension mapped: files of one kind come in runs.
    struct TypeCache {
        var ext: [UInt8]? = nil
        var known = false
        var contentType: [UInt8] = []
        var category = 0
    }

    /// The item of the file at `path` (relative to the root).
    func item(path: [UInt8], stat: FileStat, rootFD: Int32) -> StorageItem {
        var chunk = MappedChunk()
        var cache = TypeCache()
        map(path: path, stat: stat, rootFD: rootFD, into: &chunk, cache: &cache)
        return chunk.item(chunk.files[0], root: root)
    }

    /// Appends the file at `path` (relative to the root) to `chunk`, as ``item(path:stat:rootFD:)`` maps it.
    func map(path: [UInt8], stat: FileStat, rootFD: Int32, into chunk: inout MappedChunk, cache: inout TypeCache) {
        var captures: LayoutCaptures?
        var rule: LayoutRule?
        for candidate in options.layout {
            if let found = candidate.captures(path) {
                captures = found
                rule = candidate
                break
            }
        }
        /// The placeholder `name`'s capture appended to the chunk, if the matching rule captured it.
        func captured(_ name: Int) -> ByteSpan? {
            switch captures {
            case .ranges(let ranges): ranges[name].map { chunk.appendEscaped(path[$0]) }
            case .text(let match):
                [match.service, match.groupId, match.contentId, match.contentSubId, match.ext][name].map {
                    chunk.append($0)
                }
            case nil: nil
            }
        }
        let nameStart = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        let name = path[nameStart...]
        let dot = name.lastIndex(of: UInt8(ascii: "."))
        let stem = dot.flatMap { $0 > name.startIndex ? name[..<$0] : nil } ?? name

        let ext = captured(4) ?? dot.flatMap { $0 > name.startIndex ? chunk.appendEscaped(name[($0 + 1)...]) : nil }
        var contentType: ByteSpan
        var category: Int
        if options.sniffContent, let sniffed = sniff(path, rootFD: rootFD) {
            contentType = chunk.append(sniffed)
            category = StorageCategory(contentType: sniffed).code
        } else {
            lookUpType(ext.map { chunk.slice($0) }, cache: &cache)
            contentType = chunk.append(cache.contentType)
            category = cache.category
        }

        let group: ByteSpan
        if let value = captured(1) {
            group = value
        } else if let slash = path.firstIndex(of: UInt8(ascii: "/")) {
            group = chunk.appendEscaped(path[..<slash])
        } else {
            group = chunk.append(CollectionOfOne(UInt8(ascii: ".")))
        }
        let service =
            captured(0) ?? rule?.service.map { chunk.append($0) } ?? chunk.append(options.service)
        let contentId = captured(2) ?? chunk.appendEscaped(stem)
        let contentSubId = captured(3) ?? .none
        let prefix = chunk.append(idPrefix)
        let escapedPath = chunk.appendEscaped(path[...])
        let fileName = chunk.appendEscaped(name)
        let rawPath = chunk.append(path)
        chunk.files.append(
            MappedFile(
                id: ByteSpan(start: prefix.start, count: prefix.count + escapedPath.count), service: service,
                groupId: group, contentId: contentId, contentSubId: contentSubId, contentType: contentType,
                fileName: fileName, path: rawPath, category: category, logical: stat.size, allocated: stat.allocated,
                modified: stat.modified, created: stat.created, device: stat.device, inode: stat.inode,
                linkCount: stat.linkCount))
    }

    /// Sets `cache` to the content type of the escaped extension `ext` (``StorageContentType/unknown`` without one).
    private func lookUpType(_ ext: ArraySlice<UInt8>?, cache: inout TypeCache) {
        if cache.known {
            switch (cache.ext, ext) {
            case (nil, nil): return
            case (let cached?, let ext?) where cached.elementsEqual(ext): return
            default: break
            }
        }
        let type = ext.map { StorageContentType.forExtension(String(decoding: $0, as: UTF8.self)) }
        let contentType = type ?? StorageContentType.unknown
        cache = TypeCache(
            ext: ext.map { Array($0) }, known: true, contentType: Array(contentType.utf8),
            category: StorageCategory(contentType: contentType).code)
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
