@_spi(Engine) import Documents
import Testing

/// Single-document reads go through the engine's own connections (SQLitePointReader): they must see every commit,
/// from this engine or another on the same file, and stop with the engine.
@Suite("SQLite point reads")
struct SQLitePointReadTests {
    private static func put(_ path: String, _ value: String) -> DocumentMutation {
        DocumentMutation(path: path, kind: .put(body: Array(value.utf8), indexEntries: []), precondition: .none)
    }

    @Test func aPointReadSeesEveryCommitAndEndsWithTheEngine() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine(path: path)
        let other = try SQLiteDocumentEngine(path: path)
        #expect(try await engine.documents(at: ["c/a"]) == [nil])
        for round in 1...20 {
            // Alternating writers; the reader's kept connections must never hold an old snapshot.
            let writer = round % 2 == 0 ? engine : other
            _ = try await writer.commit([Self.put("c/a", "v\(round)")], commitTime: Int64(round))
            let read = try await engine.documents(at: ["c/a"])
            #expect(read.first??.body == Array("v\(round)".utf8), "round \(round)")
            #expect(read.first??.version == Int64(round))
        }
        // Many at once: more reads than kept connections.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    let body = try await engine.documents(at: ["c/a"]).first??.body
                    #expect(body == Array("v20".utf8))
                }
            }
            try await group.waitForAll()
        }
        try engine.close()
        await #expect(throws: DocumentsError.self) { _ = try await engine.documents(at: ["c/a"]) }
        #expect(try await other.documents(at: ["c/a"]).first??.body == Array("v20".utf8))
        try other.close()
    }
}
