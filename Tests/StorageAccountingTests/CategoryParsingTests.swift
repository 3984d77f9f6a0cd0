import StorageAccounting
import Testing

/// The category names the CLI's `--category` accepts, and what each content type counts as.
@Suite struct CategoryParsingTests {
    @Test func namesAndTheirPluralsParseAndOthersAreRefusedWithTheList() throws {
        #expect(try StorageCategory(parsing: "photos") == .image)
        #expect(try StorageCategory(parsing: "Videos") == .video)
        #expect(try StorageCategory(parsing: "documents") == .file)
        do {
            _ = try StorageCategory(parsing: "vidoe")
            Issue.record("an unknown category was accepted")
        } catch let error as StorageError {
            #expect(error.hint?.contains("image, video, audio, file, other") == true)
        }
    }

    @Test func contentTypesMapToCategories() {
        #expect(StorageCategory(contentType: "image/jpeg") == .image)
        #expect(StorageCategory(contentType: "video/mp4; codecs=avc1") == .video)
        #expect(StorageCategory(contentType: "audio/mpeg") == .audio)
        #expect(StorageCategory(contentType: "text/plain") == .file)
        #expect(StorageCategory(contentType: "application/x-unknown") == .other)
    }
}
