import Documents

/// Document, collection and field paths from arbitrary text: each either parses or throws; what parses prints back to
/// a path that parses to the same value.
enum PathsHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = FuzzInput.text(bytes)
        if let path = try? DocumentPath(text) {
            _ = path.documentID
            _ = path.collection.collectionID
            guard (try? DocumentPath(path.string)) == path else { FuzzInput.fail("document path \(path) reparses") }
            _ = try? path.collection(text)
        }
        if let path = try? CollectionPath(text) {
            _ = path.collectionID
            _ = path.parent
            _ = try? path.document(text)
            _ = path.newDocument()
        }
        if let field = try? FieldPath(text) {
            let canonical = field.canonicalString
            guard let again = try? FieldPath(canonical), again == field else {
                FuzzInput.fail("field path \(text) prints as \(canonical), which does not parse back")
            }
            _ = try? field.appending(text)
        }
        _ = try? FieldPath(segments: FuzzInput.lines(bytes, 8))
        _ = try? DocumentPath(segments: FuzzInput.lines(bytes, 8))
    }
}
