import Documents
import Foundation
import GRDB
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
        // More engines (each with its own gate) than a small machine has cooperative threads.
        let engines = try (0..<6).map { _ in try SQLiteDocumentEngine(path: path) }
        _ = try await engines[0].commit([put("held/first")], commitTime: 0)
        // Another connection, as another process would: it takes the write lock and keeps it for a while.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: configuration)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }

        let commits = Task {
            try await withThrowingTaskGroup(of: Int64.self) { group in
                for (i, engine) in engines.enumerated() {
                    group.addTask { try await engine.commit([put("held/d\(i)")], commitTime: 0).sequence }
                }
                return try await group.reduce(into: [Int64]()) { $0.append($1) }
            }
        }
        // While the commits wait, other tasks still run. If the waiting commits held the pool's threads (each for up
        // to the 10 s busy timeout), these tasks could not run until a plain thread releases the lock after 8 s.
        let release = LockRelease(other)
        DispatchQueue.global().asyncAfter(deadline: .now() + 8) { release.run(byTimer: true) }
        try await Task.sleep(for: .milliseconds(200))  // the commits are waiting for the lock by now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { await Task.yield() } }
        }
        release.run(byTimer: false)
        #expect(!release.wasByTimer, "other tasks ran only after the lock was released: the commits held the pool")

        let sequences = try await commits.value
        #expect(Set(sequences).count == engines.count)
        #expect(try await engines[0].documents(inCollection: "held", after: nil, limit: nil).count == engines.count + 1)
        for engine in engines { try engine.close() }
    }
}

/// Ends the other connection's transaction once, from whichever comes first: the test or a plain thread's timer.
final class LockRelease: Sendable {
    private let queue: DatabaseQueue
    private let state = Mutex<(done: Bool, byTimer: Bool)>((false, false))

    init(_ queue: DatabaseQueue) { self.queue = queue }

    var wasByTimer: Bool { state.withLock { $0.byTimer } }

    func run(byTimer: Bool) {
        let first = state.withLock { state -> Bool in
            guard !state.done else { return false }
            state = (true, byTimer)
            return true
        }
        if first { try? queue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") } }
    }
}
