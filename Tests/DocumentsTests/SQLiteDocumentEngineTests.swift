import Foundation
import GRDB
import Logging
import SuiteTestSupport
import Testing

@_spi(Engine) @testable import Documents

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What only the SQLite engine promises beyond the contract: clear errors on bad files, both durability levels, and
/// no acknowledged commit lost when the process is killed.
@Suite("SQLiteDocumentEngine")
struct SQLiteDocumentEngineTests {
    private func put(_ path: String, entries: [IndexEntry] = []) -> DocumentMutation {
        DocumentMutation(path: path, kind: .put(body: Array(path.utf8), indexEntries: entries))
    }

    private func expectOpenFails(_ path: String, code: DocumentsError.Code) {
        do {
            _ = try SQLiteDocumentEngine(path: path, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
            Issue.record("opening \(path) should fail")
        } catch let error as DocumentsError {
            #expect(error.code == code, "\(error)")
            #expect(error.hint != nil)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func refusesAFileThatIsNotADatabase() throws {
        let path = try TemporaryFiles.newDatabasePath()
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        expectOpenFails(path, code: .corrupted)
    }

    @Test func refusesAnotherApplicationsDatabase() throws {
        let path = try TemporaryFiles.newDatabasePath()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE songs (title TEXT)") }
        try queue.close()
        expectOpenFails(path, code: .corrupted)
    }

    @Test func refusesAFileFromANewerSchema() throws {
        let path = try TemporaryFiles.newDatabasePath()
        try SQLiteDocumentEngine(path: path).close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v999')") }
        try queue.close()
        expectOpenFails(path, code: .unsupported)
    }

    @Test func migratesAVersion1FileToIntegerIndexIDs() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let queue = try DatabaseQueue(path: path)
        try SQLiteDocumentEngine.migrator.migrate(queue, upTo: "v1")
        let old = [IndexEntry(index: "i", key: [1]), IndexEntry(index: "j", key: [2])]
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO documents (parent, doc_id, collection_id, version, create_time, update_time, change_id,
                    index_keys, name_key) VALUES ('c', 'd', 'c', 1, 1, 1, ?, ?, ?)
                    """,
                arguments: [Int64(1) << 20, Data(IndexEntryList.encode(old)), Data(EnginePath.nameKey("c/d"))])
            try db.execute(
                sql:
                    "INSERT INTO changes (id, path, version, create_time, update_time, body) VALUES (?, 'c/d', 1, 1, 1, ?)",
                arguments: [Int64(1) << 20, Data("body".utf8)])
            try db.execute(
                sql: "INSERT INTO index_entries (idx, entry_key, path) VALUES ('i', x'01', 'c/d'), ('j', x'02', 'c/d')")
        }
        try queue.close()

        let engine = try SQLiteDocumentEngine(path: path)
        #expect(try await engine.document(at: "c/d")?.body == Array("body".utf8))
        #expect(try await engine.documents(inCollectionGroup: "c", after: nil, limit: nil).map(\.path) == ["c/d"])
        #expect(try await engine.scan(IndexScan(index: "i")) == [IndexHit(key: [1], path: "c/d")])
        #expect(try await engine.scan(IndexScan(index: "j")) == [IndexHit(key: [2], path: "c/d")])
        // An update replaces exactly the migrated entries; a new index gets an id of its own.
        _ = try await engine.commit(
            [put("c/d", entries: [IndexEntry(index: "i", key: [3]), IndexEntry(index: "k", key: [4])])], commitTime: 2)
        #expect(try await engine.scan(IndexScan(index: "i")) == [IndexHit(key: [3], path: "c/d")])
        #expect(try await engine.scan(IndexScan(index: "j")).isEmpty)
        #expect(try await engine.scan(IndexScan(index: "k")) == [IndexHit(key: [4], path: "c/d")])
        try await engine.removeIndex("i")
        #expect(try await engine.scan(IndexScan(index: "i")).isEmpty)
        #expect(try await engine.scan(IndexScan(index: "k")) == [IndexHit(key: [4], path: "c/d")])
        try engine.close()

        let check = try DatabaseQueue(path: path)
        let names = try await check.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM index_names ORDER BY id")
        }
        #expect(names == ["i", "j", "k"])
        try check.close()
    }

    @Test func anIndexIDCreatedByARolledBackCommitIsNotKept() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine(path: path)
        // A failing commit leaves nothing behind, no index id either; another writer then takes the next id.
        await #expect(throws: DocumentsError.self) {
            _ = try await engine.commit(
                [
                    put("c/a", entries: [IndexEntry(index: "x", key: [1])]),
                    DocumentMutation(path: "c/b", kind: .delete, precondition: .exists(true)),
                ],
                commitTime: 1)
        }
        // Another writer (a second engine on the same file) takes the next id for another name.
        let other = try SQLiteDocumentEngine(path: path)
        _ = try await other.commit([put("c/y", entries: [IndexEntry(index: "y", key: [2])])], commitTime: 2)
        #expect(try await engine.scan(IndexScan(index: "x")).isEmpty)
        #expect(try await engine.scan(IndexScan(index: "y")) == [IndexHit(key: [2], path: "c/y")])
        _ = try await engine.commit([put("c/a", entries: [IndexEntry(index: "x", key: [1])])], commitTime: 3)
        #expect(try await other.scan(IndexScan(index: "x")) == [IndexHit(key: [1], path: "c/a")])
        #expect(try await other.scan(IndexScan(index: "y")) == [IndexHit(key: [2], path: "c/y")])
        try other.close()
        try engine.close()
    }

    @Test func reportsAnUnwritableLocation() throws {
        expectOpenFails("/nonexistent-directory/\(UUID().uuidString)/documents.sqlite", code: .storage)
    }

    @Test func usesWALAndTheChosenSynchronousLevel() async throws {
        for durability in SQLiteDocumentEngine.Durability.allCases {
            let path = try TemporaryFiles.newDatabasePath()
            let engine = try SQLiteDocumentEngine(path: path, durability: durability)
            #expect(try await engine.synchronousLevel() == (durability == .full ? 2 : 1))
            _ = try await engine.commit([put("c/d")], commitTime: 1)
            #expect(try await engine.document(at: "c/d")?.version == 1)
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            try engine.close()
            let queue = try DatabaseQueue(path: path)
            let mode = try await queue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
            try queue.close()
        }
    }

    @Test func reportsCorruptStoredIndexEntries() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine(
            path: path, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        _ = try await engine.commit([put("c/d", entries: [IndexEntry(index: "i", key: [1])])], commitTime: 1)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: "UPDATE changes SET index_keys = x'05FFFF'") }
        try queue.close()
        let error = await #expect(throws: DocumentsError.self) {
            _ = try await engine.commit([put("c/d")], commitTime: 2)
        }
        #expect(error?.code == .corrupted)
        #expect(try await engine.lastSequence() == 1)
    }

    @Test func failsCleanlyAfterClose() async throws {
        let engine = try SQLiteDocumentEngine(
            path: try TemporaryFiles.newDatabasePath(),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        try engine.close()
        let error = await #expect(throws: DocumentsError.self) {
            _ = try await engine.commit([put("c/d")], commitTime: 1)
        }
        #expect(error?.message.contains("closed") == true, "\(String(describing: error))")
    }

    // MARK: Crash safety

    /// Runs the real `documents-crash-writer` executable (Tools/CrashWriter), which commits in a loop printing
    /// `ACK <sequence> <n> <count>` after each acknowledged commit, and kills it with SIGKILL at a random moment. With
    /// `indexHeavy`, its commits also make the engine flush pending index operations and merge runs in the
    /// background, so the kill can land in those too.
    @Test(arguments: [false, true])
    func killedWriterLosesNoAcknowledgedCommit(indexHeavy: Bool) async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let process = TestProcess()
        process.executableURL = TestSupport.binDirectory.appendingPathComponent("documents-crash-writer")
        process.arguments = indexHeavy ? [path, "--index-heavy"] : [path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let killAfter = 150 + Int.random(in: 0..<100)

        // Read the child's output on a plain thread (blocking reads), kill it after `killAfter` acknowledgements.
        let text: String = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let handle = output.fileHandleForReading
                var data = Data()
                var killed = false
                let started = Date()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    data.append(chunk)
                    if !killed {
                        let acks = data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
                        if acks >= killAfter || Date().timeIntervalSince(started) > 30 {
                            usleep(UInt32.random(in: 0..<3000))
                            process.signal(SIGKILL)
                            killed = true
                        }
                    }
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        // Only whole lines count: a line cut by the kill was never acknowledged.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let acks: [(sequence: Int64, n: Int, count: Int)] = lines.compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0] == "ACK", let s = Int64(fields[1]), let n = Int(fields[2]),
                let c = Int(fields[3])
            else { return nil }
            return (s, n, c)
        }
        #expect(acks.count >= 100, "the child acknowledged only \(acks.count) commits")

        let engine = try SQLiteDocumentEngine(path: path)
        // The safety net agrees: every document's own entries, and nothing else, in what scans return.
        let verification = try await engine.verifyIndexes()
        #expect(verification.isConsistent, "after kill -9: \(verification.differences.prefix(5))")
        #expect(verification.entries > 0)
        let last = try await engine.lastSequence()
        #expect(last >= acks.last?.sequence ?? 0)
        let changes = try await engine.changes(after: 0, limit: Int(last) * (indexHeavy ? 8_200 : 200) + 10)
        var recordsPerSequence: [Int64: Int] = [:]
        for change in changes { recordsPerSequence[change.sequence, default: 0] += 1 }
        for ack in acks {
            #expect(recordsPerSequence[ack.sequence] == ack.count, "commit \(ack.sequence) is missing or partial")
            let document = try await engine.document(at: "crash/d\(ack.n)-\(ack.count - 1)")
            #expect(document?.version == ack.sequence)
        }
        // Commits are whole: every sequence in the log has all of its documents and index entries.
        let documents = try await engine.documents(inCollection: "crash", after: nil, limit: nil)
        #expect(documents.count == changes.count)
        #expect(try await engine.scan(IndexScan(index: "n")).count == changes.count)
        if indexHeavy {
            // Each one-document commit's 4,096 entries, none lost or doubled by a flush or merge the kill cut short.
            let single = recordsPerSequence.values.filter { $0 == 1 }.count
            #expect(try await engine.scan(IndexScan(index: "m")).count == single * 4096)
            // A partial run of the killed process stays until its lease expires (30 s after its last renewal).
            let leases = try await engine.pool.read { db in
                try Int64.fetchAll(db, sql: "SELECT lease_until FROM index_runs WHERE tier < 0")
            }
            let now = SQLiteIndexMaintenance.nowMilliseconds()
            #expect(leases.allSatisfy { $0 <= now + SQLiteIndexMaintenance.leaseMilliseconds }, "\(leases)")
            try await engine.pool.write { db in
                try db.execute(sql: "UPDATE index_runs SET lease_until = 0 WHERE tier < 0")
            }
            let later = try SQLiteDocumentEngine(path: path)
            let abandoned = try await later.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM index_runs WHERE tier < 0") ?? -1
            }
            #expect(abandoned == 0, "a partial run of the killed process was left behind after its lease expired")
            try later.close()
        }
        // And the reopened file takes new commits.
        #expect(try await engine.commit([put("crash/after")], commitTime: 0).sequence == last + 1)
    }
}
