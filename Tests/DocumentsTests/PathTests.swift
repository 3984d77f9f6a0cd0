import Documents
import Testing

@Suite("Paths")
struct PathTests {
    @Test func documentPathParts() throws {
        let path = try DocumentPath("users/u1/orders/o7")
        #expect(path.segments == ["users", "u1", "orders", "o7"])
        #expect(path.documentID == "o7")
        #expect(path.collection.string == "users/u1/orders")
        #expect(path.collection.collectionID == "orders")
        #expect(path.collection.parent?.string == "users/u1")
        #expect(path.description == "users/u1/orders/o7")
        #expect(try path.collection("items").string == "users/u1/orders/o7/items")
    }

    @Test(arguments: [
        "users", "a/b/c", "", "/users/u1", "users/u1/", "users//u1", "users/./x", "users/..", "users/__x__",
    ])
    func invalidDocumentPaths(_ text: String) {
        #expect {
            try DocumentPath(text)
        } throws: { error in
            guard let error = error as? DocumentsError else { return false }
            return error.code == .invalidPath && error.hint != nil
        }
    }

    @Test func collectionPathWhereDocumentNeededNamesIt() {
        do {
            _ = try DocumentPath("users")
            Issue.record("expected an error")
        } catch let error as DocumentsError {
            #expect(error.message.contains("collection path"))
            #expect(error.hint?.contains("users/<id>") == true)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func segmentLimit() throws {
        let ok = Array(repeating: "a", count: 100).joined(separator: "/")
        #expect(try DocumentPath(ok).segments.count == 100)
        let tooMany = Array(repeating: "a", count: 102).joined(separator: "/")
        #expect(throws: DocumentsError.self) { try DocumentPath(tooMany) }
    }

    @Test func collectionPaths() throws {
        let users = try CollectionPath("users")
        #expect(users.parent == nil)
        #expect(users.collectionID == "users")
        let doc = try users.document("u1")
        #expect(doc == (try DocumentPath("users/u1")))
        #expect(throws: DocumentsError.self) { try CollectionPath("users/u1") }
        #expect(throws: DocumentsError.self) { try users.document("a/b") }
        #expect(throws: DocumentsError.self) { try users.document("") }
        #expect(throws: DocumentsError.self) { try users.document("..") }
        let auto = users.newDocument()
        #expect(auto.documentID.count == 20)
        #expect(auto.collection == users)
    }

    @Test func slashBeforeCombiningMarkStillSeparates() throws {
        let path = try DocumentPath("users/\u{301}x")
        #expect(path.segments == ["users", "\u{301}x"])
        #expect(path.documentID == "\u{301}x")
    }

    @Test func segmentsInitializer() throws {
        #expect(try DocumentPath(segments: ["users", "u1"]).string == "users/u1")
        #expect(throws: DocumentsError.self) { try DocumentPath(segments: ["users", "u/1"]) }
    }

    @Test func documentPathOrderingIsBySegment() throws {
        let a = try DocumentPath("c/a")
        let b = try DocumentPath("c/a!")
        let nested = try DocumentPath("c/a/sub/x")
        // Segment-wise: "a" < "a!" even though "/" (0x2F) > "!" (0x21) as raw text.
        #expect(a < b)
        #expect(nested < b)
        #expect(a < nested)
        #expect(try DocumentPath("c/B") < DocumentPath("c/a"))
    }

    @Test func autoIDs() {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = AutoID.generate()
            #expect(id.utf8.count == 20)
            #expect(id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) })
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }
}
