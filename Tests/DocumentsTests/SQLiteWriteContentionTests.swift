@_spi(Engine) import Documents
import Foundation
import GRDB
import Logging
import SuiteTestSupport
import Synchronization
import Testing

/// A commit that finds another connection holding the file's write lock waits for it without holding a thread of
/// Swift's cooperative pool.
@Suite("SQLite writes under another process's lock")
struct SQLiteWriteContentionTests {
    func put(_ path: String) -> DocumentMutation {
        DocumentMutation(path: path, kind: .put(body: [1], indexEntries: [IndexEntry(index: "n", key: [1])]))
    }

    @Test("inline commits waiting on a lock held elsewhere leave the cooperative pool free, then all succeed")
    func waitingForTheLockDoesNotBlockThePool() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        // One stream, in order: an engine's debug line when a commit gives way to another connection's lock, and
        // `ended` when a commit ends (succeeded or failed).
        let (events, event) = AsyncStream.makeStream(of: String.self)
        let logger = Logger(label: "test") { _ in SignallingLogHandler { event.yield($0) } }
        // More engines (each with its own gate) than a small machine has cooperative threads.
        let engines = try (0..<6).map { _ in try SQLiteDocumentEngine(path: path, logger: logger) }
        _ = try await engines[0].commit([put("held/first")], commitTime: 0)
        // Another connection, as another process would: it takes the write lock and keeps it for a while.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: configuration)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }

        // No clock decides the test: the lock is released only once every commit waits for it and other tasks ran.
        // Had the waiting commits held the pool's threads, neither this task nor those could run until the commits
        // gave up at SQLite's busy timeout (10 s), so a commit would end first.
        let ended = Flag()
        let commits = Task {
            try await withThrowingTaskGroup(of: Int64.self) { group in
                for (i, engine) in engines.enumerated() {
                    group.addTask {
                        defer {
                            ended.value.store(true, ordering: .sequentiallyConsistent)
                            event.yield(Self.ended)
                        }
                        return try await engine.commit([put("held/d\(i)")], commitTime: 0).sequence
                    }
                }
                return try await group.reduce(into: [Int64]()) { $0.append($1) }
            }
        }
        var waiting = 0
        for await line in events {
            if line == Self.ended { break }
            if line.contains("waiting for it") { waiting += 1 }
            if waiting == engines.count { break }
        }
        #expect(waiting == engines.count, "only \(waiting) commits waited for the lock")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { await Task.yield() } }
        }
        let endedFirst = ended.value.load(ordering: .sequentiallyConsistent)
        #expect(!endedFirst, "a commit ended before other tasks could run: the waiting commits held the pool")
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }

        let sequences = try await commits.value
        #expect(Set(sequences).count == engines.count)
        #expect(try await engines[0].documents(inCollection: "held", after: nil, limit: nil).count == engines.count + 1)
        for engine in engines { try engine.close() }
    }

    /// What a commit of the test above puts on the event stream when it ends.
    static let ended = "a commit ended"
}

/// A flag tasks share.
private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
