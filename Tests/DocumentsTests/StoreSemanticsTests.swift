import DocumentEngineContract
import Documents
import Foundation
import SuiteCore
import Testing

/// Firestore's write and query semantics where the store used to differ (issue 10, item 10).
@Suite struct StoreSemanticsTests {
    typealias T = StoreTesting

    // MARK: - Merging sets

    @Test("a merging set with a nested map sets h.g and keeps h's other fields, also for plain data")
    func mergeNestedMap() async throws {
        let store = try await T.store(.inMemory)
        let ref = try store.document("docs/d")
        try await ref.setData(["h": ["g": 1, "k": 2], "x": 1])
        // Plain data (as the command line and `setData(from:merge:)` give it), not FieldValue literals.
        let merged = try await ref.setData(FieldValue.fields(["h": ["g": 3]]), merge: true)
        #expect(merged.data == ["h": ["g": 3, "k": 2], "x": 1])
        let literal = try await ref.setData(["h": ["g": 4]], merge: true)
        #expect(literal.data == ["h": ["g": 4, "k": 2], "x": 1])
    }

    @Test("mergeFields with a nested path takes the value from nested data")
    func mergeFieldsNestedPath() async throws {
        let store = try await T.store(.inMemory)
        let ref = try store.document("docs/d")
        try await ref.setData(["h": ["g": 1, "k": 2]])
        let merged = try await ref.setData(FieldValue.fields(["h": ["g": 4, "other": 9]]), mergeFields: ["h.g"])
        #expect(merged.data == ["h": ["g": 4, "k": 2]])
        let missing = await T.documentsError {
            try await ref.setData(FieldValue.fields(["h": ["other": 9]]), mergeFields: ["h.g"])
        }
        #expect(missing?.message.contains("missing from the data") == true)
    }

    @Test("a delete outside the merge fields, or below a merge path, is an error; at a merge path it deletes")
    func deleteAndMergeFields() async throws {
        let store = try await T.store(.inMemory)
        let ref = try store.document("docs/d")
        try await ref.setData(["a": 1, "b": 2, "h": ["g": 1, "k": 2]])
        let outside = await T.documentsError {
            try await ref.setData(["a": 5, "b": .delete], mergeFields: ["a"])
        }
        #expect(outside?.code == .invalidValue)
        #expect(outside?.message.contains("'b'") == true)
        let below = await T.documentsError {
            try await ref.setData(["h": ["g": .delete]], mergeFields: ["h"])
        }
        #expect(below?.code == .invalidValue)
        #expect(below?.message.contains("inside merged field 'h'") == true)
        #expect(try await ref.getDocument().data == ["a": 1, "b": 2, "h": ["g": 1, "k": 2]])
        let deleted = try await ref.setData(["h": ["g": .delete]], mergeFields: ["h.g"])
        #expect(deleted.data == ["a": 1, "b": 2, "h": ["k": 2]])
    }

    @Test("a nested delete with merge-all on a missing parent changes nothing")
    func nestedDeleteOnMissingParent() async throws {
        let store = try await T.store(.inMemory)
        let ref = try store.document("docs/d")
        try await ref.setData(["a": 1])
        let result = try await ref.setData(["h": ["g": .delete]], merge: true)
        #expect(result.data == ["a": 1])
    }

    // MARK: - Updates

    @Test("overlapping or duplicate paths in one update are an error, every time")
    func overlappingUpdatePaths() async throws {
        let store = try await T.store(.inMemory)
        let ref = try store.document("docs/d")
        try await ref.setData(["a": ["b": 0]])
        for _ in 0..<12 {
            let overlap = await T.documentsError { try await ref.updateData(["a.b": 1, "a": 2]) }
            #expect(overlap?.code == .invalidField)
            #expect(overlap?.message.contains("'a' and 'a.b'") == true)
        }
        let duplicate = await T.documentsError { try await ref.updateData(["a.b": 1, "`a`.b": 2]) }
        #expect(duplicate?.code == .invalidField)
        #expect(duplicate?.message.contains("twice") == true)
        let byPath = await T.documentsError {
            try await ref.updateData(fieldPaths: [try FieldPath("a"): 1, try FieldPath("a.c"): 2])
        }
        #expect(byPath?.code == .invalidField)
        #expect(try await ref.getDocument().data == ["a": ["b": 0]])
    }

    @Test("an update with no fields is an error and leaves the version alone")
    func emptyUpdate() async throws {
        let store = try await T.store(.inMemory)
        let ref = try store.document("docs/d")
        let written = try await ref.setData(["a": 1])
        let error = await T.documentsError { try await ref.updateData([:]) }
        #expect(error?.code == .invalidValue)
        #expect(try await ref.getDocument().version == written.version)
        let batch = store.batch()
        batch.updateData([:], forDocument: ref)
        #expect(await T.documentsError { try await batch.commit() }?.code == .invalidValue)
    }

    @Test("a delete inside a map value of an update is an error (only at a listed path)")
    func nestedDeleteInUpdate() async throws {
        let store = try await T.store(.inMemory)
        let ref = try store.document("docs/d")
        try await ref.setData(["a": ["b": 1, "c": 2]])
        let error = await T.documentsError { try await ref.updateData(["a": ["b": .delete]]) }
        #expect(error?.code == .invalidValue)
        #expect(try await ref.updateData(["a.b": .delete]).data == ["a": ["c": 2]])
    }

    @Test(
        "characters Firestore reserves are errors in a dotted path, allowed inside backticks",
        arguments: ["a~b", "a*", "a/b", "a[0]", "x.b]"])
    func reservedCharacters(_ path: String) async throws {
        #expect(throws: DocumentsError.self) { try FieldPath(path) }
        let store = try await T.store(.inMemory)
        let ref = try store.document("docs/d")
        try await ref.setData(["a": 1])
        #expect(await T.documentsError { try await ref.updateData([path: 1]) }?.code == .invalidField)
        let quoted = "`" + path + "`"
        #expect(try FieldPath(quoted).segments == [path])
        #expect(try await ref.updateData([quoted: 2]).data?[path] == 2)
    }

    // MARK: - Queries

    @Test("an empty cursor is an error; of two cursors of one kind the last wins")
    func cursors() async throws {
        let store = try await T.store(.inMemory)
        try await T.seedUsers(store)
        let users = try store.collection("users").query.whereField("age", isGreaterThan: 0).order(by: "age")
        for query in [users.start(at: []), users.start(after: []), users.end(at: []), users.end(before: [])] {
            #expect(await T.documentsError { _ = try await query.getDocuments() }?.code == .invalidQuery)
        }
        let lastStart = try await users.start(at: [30]).start(after: [45]).getDocuments()
        #expect(T.ids(lastStart) == ["u06", "u08"])
        let lastEnd = try await users.end(before: [45]).end(at: [22]).getDocuments()
        #expect(T.ids(lastEnd) == ["u07", "u03"])
        let emptyThenGiven = try await users.start(at: []).start(at: [50]).getDocuments()
        #expect(T.ids(emptyThenGiven) == ["u06", "u08"])
    }

    @Test(
        "inequalities on several fields: a composite index is named, then the query answers exactly",
        arguments: DocumentEngineFactory.all)
    func inequalitiesOnSeveralFields(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        try await T.seedUsers(store)
        let query = try store.collection("users").query.whereField("age", isGreaterThanOrEqualTo: 25)
            .whereField("name", isLessThan: "Hal")
        let missing = await T.documentsError { _ = try await query.getDocuments() }
        #expect(missing?.code == .missingIndex)
        #expect(missing?.message.contains("suite docs index add users age:asc name:asc") == true)
        try await store.declareIndex(
            IndexDefinition(collectionID: "users", fields: [.init(try FieldPath("age")), .init(try FieldPath("name"))]))
        // Ordered by the inequality fields by name (age, then name), then the id.
        #expect(T.ids(try await query.getDocuments()) == ["u04", "u05", "u01", "u02", "u06"])
        #expect(try await query.count() == 5)
        let limited = try await query.limit(to: 2).getDocuments()
        #expect(T.ids(limited) == ["u04", "u05"])
        try await store.declareIndex(
            IndexDefinition(
                collectionID: "users", fields: [.init(try FieldPath("city")), .init(try FieldPath("points"))]))
        let withEquality = try await store.collection("users").query.whereField("city", isNotEqualTo: "Paris")
            .whereField("points", isGreaterThan: 10).order(by: "city").order(by: "points").getDocuments()
        #expect(T.ids(withEquality).sorted() == ["u02", "u04", "u10"])
    }

    @Test("a backtick-quoted segment followed by more segments parses in a where expression")
    func quotedSegmentsInWhereExpression() async throws {
        let store = try await T.store(.inMemory)
        let docs = try store.collection("docs")
        try await docs.document("d1").setData(FieldValue.fields(["*": ["~": 4]]))
        try await docs.document("d2").setData(FieldValue.fields(["*": ["~": 5]]))
        let query = try docs.whereExpression("`*`.`~` == 4")
        #expect(T.ids(try await query.getDocuments()) == ["d1"])
        let spaced = try docs.whereExpression("`a b`.`c\\`d` == 1")
        #expect(T.ids(try await spaced.getDocuments()).isEmpty)
        #expect(throws: DocumentsError.self) { try docs.whereExpression("`*.x == 4") }
    }
}
