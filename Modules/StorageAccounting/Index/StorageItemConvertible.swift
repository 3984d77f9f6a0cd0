/// A service's own model that the index can store and rebuild: LINE's `StorageItemConvertible`
/// (`StorageItemModelable & StorageItemConstructible`).
///
/// ```swift
/// struct ChatAttachment: StorageItemConvertible {
///     var chatId: String, messageId: String, bytes: Int64, name: String, sent: Date
///     var storageItem: StorageItem {
///         StorageItem(
///             id: "chat/\(chatId)/\(messageId)", serviceType: "chat", groupId: chatId, contentId: messageId,
///             contentType: StorageContentType.forFileName(name), sizeInBytes: bytes, createdDate: sent,
///             fileName: name)
///     }
///     init(storageItem item: StorageItem) throws {
///         (chatId, messageId, bytes, name, sent) =
///             (item.groupId, item.contentId, item.sizeInBytes, item.fileName, item.createdDate)
///     }
/// }
/// try await index.record([attachment])
/// let attachments = try await index.models(ChatAttachment.self, matching: StorageFilter(services: ["chat"]))
/// ```
public protocol StorageItemConvertible: Sendable {
    /// The model as an index item.
    var storageItem: StorageItem { get }
    /// Rebuilds the model from an item the index returned; throws when the item is not one of this model's.
    init(storageItem: StorageItem) throws
}
