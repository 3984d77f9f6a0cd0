public import Foundation

/// One stored thing the index accounts for: seed 001's storage item (LINE's `StorageItemModelable`) plus what a tool
/// on a real file system needs — where the file is, its logical and allocated sizes, and its inode.
///
/// Items come from a scan (``StorageScanner``: one per regular file under a managed root, ``id`` its absolute path in
/// ``StoragePath``'s escaped form), from the app (``StorageIndex/record(_:)``, e.g. a chat attachment as it is
/// received), or from bus events (``StorageBusRecorder``: cache entries, which have no file of their own).
///
/// ```swift
/// let photo = StorageItem(
///     id: "msg-981/0", serviceType: "chat", groupId: "chat-42", contentId: "msg-981", contentType: "image/jpeg",
///     sizeInBytes: 182_113, createdDate: Date(), fileName: "IMG_0001.jpg")
/// try await index.record([photo])
/// ```
public struct StorageItem: Codable, Sendable, Hashable, Identifiable {
    /// Unique in the index. A scanned file's id is its absolute path (escaped); recording an item with an id that is
    /// already indexed replaces it.
    public var id: String
    /// The service the item belongs to (`chat`, `caches`, `files`, …): the index is shared by services.
    public var serviceType: String
    /// The group the item is listed under: a chat id for chat, a tier for caches, a folder for files.
    public var groupId: String
    /// The content within the group (a message id).
    public var contentId: String
    /// A part of the content (the second photo of a message), if any.
    public var contentSubId: String?
    /// A MIME type (`image/jpeg`); ``category`` follows from it.
    public var contentType: String
    /// The logical size: `st_size`, what the bytes of the content add up to.
    public var sizeInBytes: Int64
    /// The allocated size: `st_blocks × 512` from `lstat` (less than ``sizeInBytes`` for a sparse file, rounded up
    /// to whole blocks otherwise). Equal to ``sizeInBytes`` for an item recorded without it.
    public var allocatedBytes: Int64
    /// When the content was stored. For a scanned file: its modification time (Linux keeps no creation time in
    /// `lstat`).
    public var createdDate: Date
    /// The file's last modification time (``createdDate`` for an item recorded without one).
    public var modifiedDate: Date
    /// The name shown to a person.
    public var fileName: String
    /// Anything else the service wants to keep with the item (a JSON text, a thumbnail key).
    public var additionalData: String?
    /// The managed root the file lives under (an absolute, resolved path), or `nil` for an item without a file.
    public var root: String?
    /// The file's path relative to ``root``.
    public var path: StoragePath?
    /// The file system's device number (with ``inode``, identifies hard links), if known.
    public var device: UInt64?
    /// The file's inode number, if known.
    public var inode: UInt64?
    /// The file's link count when it was measured (`st_nlink`); more than 1 for a hard-linked file.
    public var linkCount: Int

    /// The item's category, from ``contentType``.
    public var category: StorageCategory { StorageCategory(contentType: contentType) }

    /// The item's file as an absolute path (escaped), when it has one.
    public var absolutePath: String? {
        guard let root, let path else { return nil }
        return path.bytes.isEmpty ? root : root + "/" + path.description
    }

    /// Creates an item; ``allocatedBytes`` defaults to ``sizeInBytes`` and ``modifiedDate`` to ``createdDate``.
    public init(
        id: String, serviceType: String, groupId: String, contentId: String, contentSubId: String? = nil,
        contentType: String, sizeInBytes: Int64, allocatedBytes: Int64? = nil, createdDate: Date,
        modifiedDate: Date? = nil, fileName: String, additionalData: String? = nil, root: String? = nil,
        path: StoragePath? = nil, device: UInt64? = nil, inode: UInt64? = nil, linkCount: Int = 1
    ) {
        self.id = id
        self.serviceType = serviceType
        self.groupId = groupId
        self.contentId = contentId
        self.contentSubId = contentSubId
        self.contentType = contentType
        self.sizeInBytes = sizeInBytes
        self.allocatedBytes = allocatedBytes ?? sizeInBytes
        self.createdDate = createdDate
        self.modifiedDate = modifiedDate ?? createdDate
        self.fileName = fileName
        self.additionalData = additionalData
        self.root = root
        self.path = path
        self.device = device
        self.inode = inode
        self.linkCount = linkCount
    }

    /// Throws when the item cannot be indexed: an empty id, service or group, a negative size, a path without a root.
    func validate() throws {
        if id.isEmpty || serviceType.isEmpty || groupId.isEmpty {
            throw StorageError(
                .invalidInput, "a storage item needs a non-empty id, serviceType and groupId (item '\(id)')",
                hint: "set id, serviceType and groupId on the StorageItem")
        }
        if sizeInBytes < 0 || allocatedBytes < 0 {
            throw StorageError(.invalidInput, "item '\(id)' has a negative size", hint: "sizes are bytes, 0 or more")
        }
        if (root == nil) != (path == nil) {
            throw StorageError(
                .invalidInput, "item '\(id)' has a root without a path or a path without a root",
                hint: "set both root and path for an item with a file, neither for one without")
        }
    }
}
