import Foundation
import SuiteCore
import SuiteTestSupport
import Synchronization
import Testing

@_spi(Engine) @testable import StorageAccounting

/// A service's own model, as LINE's ChatStorageItemModel.
struct ChatAttachment: StorageItemConvertible, Equatable {
    var chatId: String
    var messageId: String
    var bytes: Int64
    var name: String
    var sent: Date

    var storageItem: StorageItem {
        StorageItem(
            id: "chat/\(chatId)/\(messageId)", serviceType: "chat", groupId: chatId, contentId: messageId,
            contentType: StorageContentType.forFileName(name), sizeInBytes: bytes, createdDate: sent, fileName: name)
    }

    init(chatId: String, messageId: String, bytes: Int64, name: String, sent: Date) {
        (self.chatId, self.messageId, self.bytes, self.name, self.sent) = (chatId, messageId, bytes, name, sent)
    }

    init(storageItem item: StorageItem) throws {
        guard item.serviceType == "chat" else { throw StorageError(.invalidInput, "not a chat item") }
        (chatId, messageId, bytes, name, sent) =
            (item.groupId, item.contentId, item.sizeInBytes, item.fileName, item.createdDate)
    }
}

@Suite("The index")
struct IndexTests {
    @Test("record, replace and remove keep the totals, groups and categories exact")
    func recordAndRemove() async throws {
        let index = try makeIndex()
        let sent = Date(timeIntervalSince1970: 1_700_000_000)
        let models = [
            ChatAttachment(chatId: "c1", messageId: "m1", bytes: 100, name: "a.jpg", sent: sent),
            ChatAttachment(chatId: "c1", messageId: "m2", bytes: 200, name: "b.mp4", sent: sent),
            ChatAttachment(chatId: "c2", messageId: "m3", bytes: 50, name: "c.m4a", sent: sent),
        ]
        try await index.record(models)
        #expect(try await index.total() == StorageUsage(items: 3, logicalBytes: 350, allocatedBytes: 350))
        // Replacing an item adjusts, never double counts.
        try await index.record(ChatAttachment(chatId: "c1", messageId: "m1", bytes: 1000, name: "a.jpg", sent: sent))
        #expect(try await index.total() == StorageUsage(items: 3, logicalBytes: 1250, allocatedBytes: 1250))
        let groups = try await index.groups(.all, sort: .size, limit: nil)
        #expect(groups.map(\.groupId) == ["c1", "c2"] && groups[0].usage.items == 2)
        let byCount = try await index.groups(.all, sort: .count, limit: 1)
        #expect(byCount.map(\.groupId) == ["c1"])
        #expect(try await index.categories(.all).map(\.category) == [.image, .video, .audio])
        let back = try await index.models(ChatAttachment.self, matching: StorageFilter(groups: ["c2"]))
        #expect(back == [models[2]])
        #expect(try await index.remove(id: "chat/c2/m3"))
        #expect(!(try await index.remove(id: "chat/c2/m3")))
        #expect(try await index.groups(.all, sort: .size, limit: nil).map(\.groupId) == ["c1"])
        // Non-aggregatable filters give the same answers from the items themselves.
        let old = try await index.usage(StorageFilter(modifiedBefore: Date()))
        #expect(old == StorageUsage(items: 2, logicalBytes: 1200, allocatedBytes: 1200))
        await #expect(throws: StorageError.self) {
            try await index.record(
                StorageItem(
                    id: "", serviceType: "x", groupId: "g", contentId: "c", contentType: "", sizeInBytes: 1,
                    createdDate: sent, fileName: ""))
        }
        try await index.close()
        await #expect(throws: StorageError.self) { try await index.total() }
    }

    @Test("many ids in one filter, and a file that is not an index")
    func largeFiltersAndStrangers() async throws {
        let index = try makeIndex()
        let now = Date()
        try await index.record(
            (0..<3000).map {
                StorageItem(
                    id: "i\($0)", serviceType: "s", groupId: "g\($0 % 7)", contentId: "\($0)",
                    contentType: "image/png", sizeInBytes: 10, createdDate: now, fileName: "f")
            })
        let ids = (0..<2000).map { "i\($0)" }
        #expect(try await index.usage(StorageFilter(ids: ids)).items == 2000)
        #expect(try await index.freedIfDeleted(StorageFilter(ids: ids)).logicalBytes == 20_000)
    }

    @Test("paths keep every byte; the escaped form round-trips")
    func pathEscaping() throws {
        let raw: [UInt8] = Array("a\\b/c d/".utf8) + [0xFF, 0xC3, 0xA9, 0xE2, 0x82]
        let path = StoragePath(bytes: raw)
        #expect(path.description == "a\\\\b/c d/\\xffé\\xe2\\x82")
        #expect(StoragePath(escaped: path.description) == path)
        let json = try JSONEncoder().encode(path)
        #expect(try JSONDecoder().decode(StoragePath.self, from: json) == path)
        #expect(StoragePath(escaped: "bad\\q") == nil)
    }

    @Test("content types from extensions and first bytes; categories")
    func contentTypes() throws {
        #expect(StorageContentType.forExtension("JPG") == "image/jpeg")
        #expect(StorageContentType.forFileName("x.tar.gz") == "application/gzip")
        #expect(StorageContentType.forFileName(".hidden") == StorageContentType.unknown)
        let samples: [([UInt8], String)] = [
            ([0xFF, 0xD8, 0xFF, 0xE0], "image/jpeg"), ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "image/png"),
            (Array("GIF89a".utf8), "image/gif"), (Array("RIFF\0\0\0\0WEBP".utf8), "image/webp"),
            (Array("RIFF\0\0\0\0WAVE".utf8), "audio/wav"), (Array("\0\0\0\u{18}ftypisom".utf8), "video/mp4"),
            (Array("\0\0\0\u{14}ftypqt  ".utf8), "video/quicktime"), (Array("ID3\u{3}".utf8), "audio/mpeg"),
            (Array("OggS".utf8), "audio/ogg"), (Array("%PDF-1.7".utf8), "application/pdf"),
            ([0x50, 0x4B, 0x03, 0x04], "application/zip"),
        ]
        for (bytes, type) in samples { #expect(StorageContentType.sniff(bytes) == type) }
        #expect(StorageContentType.sniff(Array("hello".utf8)) == nil)
        #expect(StorageCategory(contentType: "application/pdf") == .file)
        #expect(StorageCategory(contentType: "application/octet-stream") == .other)
        #expect(try StorageCategory(parsing: "photos") == .image)
        #expect(throws: StorageError.self) { try StorageCategory(parsing: "pictures!") }
    }

    @Test("layout rules: placeholders, stars, ** and regular expressions; bad rules are refused")
    func layoutRules() throws {
        let chat = try LayoutRule("chats/{groupId}/{contentId}.{ext}")
        let match = try #require(chat.match(StoragePath("chats/c1/a.b.jpg")))
        #expect(match.groupId == "c1" && match.contentId == "a.b" && match.ext == "jpg")
        #expect(chat.match(StoragePath("chats/c1/sub/a.jpg")) == nil)
        #expect(chat.groupDepth == 2)
        let deep = try LayoutRule("{service}/**/{groupId}-*/{contentId}_{contentSubId}.{ext}")
        let found = try #require(deep.match(StoragePath("mail/x/y/box-7/m1_2.eml")))
        #expect(found.service == "mail" && found.groupId == "box" && found.contentId == "m1")
        #expect(found.contentSubId == "2" && found.ext == "eml")
        #expect(deep.groupDepth == nil)
        let regex = try LayoutRule(#"regex:^media/(?<groupId>[^/]+)/(?<contentId>[^/]+)$"#, service: "media")
        #expect(regex.match(StoragePath("media/g/x"))?.groupId == "g")
        #expect(regex.description.hasPrefix("media="))
        for bad in ["", "a**b", "chats/{nope}", "chats/{groupId", "regex:("] {
            #expect(throws: StorageError.self) { try LayoutRule(bad) }
        }
        let decoded = try JSONDecoder().decode(LayoutRule.self, from: try JSONEncoder().encode(chat))
        #expect(decoded == chat)
    }
}
