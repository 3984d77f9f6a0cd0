import Analytics
import Cache
import Documents
import Foundation
import StorageAccounting
import SuiteServer
import SuiteTestSupport
import Synchronization
import Testing

/// Every SQLite store opens a file that does not exist yet from eight threads at once without an error: the first
/// open's switch to WAL and its migrations race in ways SQLite's busy timeout does not cover (SuiteCore's `FirstOpen`).
@Suite struct FirstOpenRaceTests {
    /// Opens a store at a path and returns how to close it.
    typealias Opener = @Sendable (String) throws -> @Sendable () async throws -> Void

    static let stores: [(String, Opener)] = [
        (
            "documents",
            { path in
                let engine = try SQLiteDocumentEngine(path: path)
                return { try engine.close() }
            }
        ),
        (
            "cache",
            { path in
                let store = try SQLiteCacheStore(path: path)
                return { try await store.close() }
            }
        ),
        (
            "storage index",
            { path in
                let index = try SQLiteStorageIndex(path: path)
                return { try await index.close() }
            }
        ),
        (
            "analytics queue",
            { path in
                _ = try AnalyticsQueue(path: path); return {}
            }
        ),
        (
            "analytics events",
            { path in
                _ = try SQLiteAnalyticsEngine(path: path); return {}
            }
        ),
        (
            "server accounts",
            { path in
                let accounts = try ServerAccounts(path: path)
                return { try accounts.close() }
            }
        ),
    ]

    @Test(arguments: stores.map(\.0))
    func eightThreadsOpenANewFileAtOnce(store: String) async throws {
        let open = try #require(Self.stores.first { $0.0 == store }?.1)
        let directory = try TestSupport.makeTemporaryDirectory("first-open")
        defer { try? FileManager.default.removeItem(at: directory) }
        for round in 0..<8 {
            let path = directory.appendingPathComponent("\(round).sqlite").path
            let outcomes = try await TestSupport.offThePool { Self.openTogether(threads: 8, path: path, open) }
            var errors: [String] = []
            for outcome in outcomes {
                switch outcome {
                case .success(let close): try await close()
                case .failure(let error): errors.append("\(error)")
                }
            }
            #expect(errors.isEmpty, "round \(round): \(errors.first ?? "")")
        }
    }

    /// Starts `threads` threads that wait at one barrier, then all open `path`; returns each one's outcome.
    static func openTogether(
        threads: Int, path: String, _ open: @escaping Opener
    ) -> [Result<@Sendable () async throws -> Void, any Error>] {
        let outcomes = Mutex<[Result<@Sendable () async throws -> Void, any Error>]>([])
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<threads {
            done.enter()
            Thread {
                ready.signal()
                go.wait()
                let outcome = Result { try open(path) }
                outcomes.withLock { $0.append(outcome) }
                done.leave()
            }.start()
        }
        for _ in 0..<threads { ready.wait() }
        for _ in 0..<threads { go.signal() }
        done.wait()
        return outcomes.withLock { $0 }
    }
}
