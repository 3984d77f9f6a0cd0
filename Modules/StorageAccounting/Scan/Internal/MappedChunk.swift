import Foundation

/// A run of bytes in a ``MappedChunk``'s buffer; `count < 0` stands for a missing value (SQL NULL).
struct ByteSpan: Sendable, Equatable {
    var start: Int32
    var count: Int32

    static let none = ByteSpan(start: 0, count: -1)

    var isNone: Bool { count < 0 }
}

/// One walked file mapped to its item's columns: text columns as spans of the chunk's buffer (escaped, as
/// ``StorageItem`` holds them), numbers as stored. What a scan inserts, without a ``StorageItem`` (a dozen strings
/// and their allocations) per file.
struct MappedFile: Sendable {
    var id: ByteSpan
    var service: ByteSpan
    var groupId: ByteSpan
    var contentId: ByteSpan
    var contentSubId: ByteSpan
    var contentType: ByteSpan
    var fileName: ByteSpan
    /// The raw path bytes, relative to the root.
    var path: ByteSpan
    /// ``StorageCategory/code`` of the content type.
    var category: Int
    var logical: Int64
    var allocated: Int64
    /// `lstat`'s modification time, nanoseconds since 1970.
    var modified: Int64
    /// The birth time where `stat` has one, nanoseconds since 1970.
    var created: Int64?
    var device: UInt64
    var inode: UInt64
    var linkCount: Int
}

/// Files and directories of one unit (or a part of a large one), mapped, with their bytes in one buffer: what the
/// walk hands the index, and what ``UnitPrefetcher`` queues between its thread and the index's writer.
struct MappedChunk: Sendable {
    /// Every span's bytes.
    var bytes: [UInt8] = []
    var files: [MappedFile] = []
    /// Directories walked: path span and modification time in nanoseconds.
    var directories: [(path: ByteSpan, modified: Int64)] = []

    init(capacity: Int = 0) {
        if capacity > 0 {
            bytes.reserveCapacity(capacity * 160)
            files.reserveCapacity(capacity)
        }
    }

    var isEmpty: Bool { files.isEmpty && directories.isEmpty }

    /// Appends `bytes` and returns their span.
    mutating func append(_ bytes: some Collection<UInt8>) -> ByteSpan {
        let start = self.bytes.count
        self.bytes.append(contentsOf: bytes)
        return ByteSpan(start: Int32(start), count: Int32(self.bytes.count - start))
    }

    /// Appends `text`'s UTF-8 and returns its span.
    mutating func append(_ text: String) -> ByteSpan {
        var text = text
        return text.withUTF8 { append($0) }
    }

    /// Appends `bytes` in ``StoragePath``'s escaped form and returns the span.
    mutating func appendEscaped(_ bytes: ArraySlice<UInt8>) -> ByteSpan {
        // Printable ASCII without a backslash escapes to itself: the common case, without building a String.
        if bytes.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\\") }) { return append(bytes) }
        return append(StoragePath.escape(bytes))
    }

    /// The span's bytes as text (every span holds valid UTF-8: escaped text or a string's bytes).
    func string(_ span: ByteSpan) -> String? {
        guard !span.isNone else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            String(
                decoding: UnsafeBufferPointer(rebasing: buffer[Int(span.start)..<Int(span.start + span.count)]),
                as: UTF8.self)
        }
    }

    /// The span's bytes.
    func slice(_ span: ByteSpan) -> ArraySlice<UInt8> {
        span.isNone ? [] : bytes[Int(span.start)..<Int(span.start + span.count)]
    }

    /// Whether two spans hold the same bytes (both missing counts as equal).
    func same(_ a: ByteSpan, _ b: ByteSpan) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 0, a.start != b.start else { return true }
        return bytes.withUnsafeBytes { raw in
            memcmp(raw.baseAddress! + Int(a.start), raw.baseAddress! + Int(b.start), Int(a.count)) == 0
        }
    }

    /// The file as the ``StorageItem`` the index stores for it.
    func item(_ file: MappedFile, root: String) -> StorageItem {
        let modified = SQLiteStorageIndex.date(nanoseconds: file.modified)
        // The birth time where the file system keeps one (Apple platforms), else the modification time.
        let created = file.created.map { SQLiteStorageIndex.date(nanoseconds: $0) } ?? modified
        return StorageItem(
            id: string(file.id) ?? "", serviceType: string(file.service) ?? "", groupId: string(file.groupId) ?? "",
            contentId: string(file.contentId) ?? "", contentSubId: string(file.contentSubId),
            contentType: string(file.contentType) ?? StorageContentType.unknown, sizeInBytes: file.logical,
            allocatedBytes: file.allocated, createdDate: created, modifiedDate: modified,
            fileName: string(file.fileName) ?? "", root: root, path: StoragePath(bytes: Array(slice(file.path))),
            device: file.device, inode: file.inode, linkCount: file.linkCount)
    }
}
