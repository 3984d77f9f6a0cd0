@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import Foundation
import PostgresTestSupport
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Synchronization
import Testing

/// What the `postgres` engine does beyond the shared contract: sharing one schema between engines (as between
/// servers), NOTIFY wake-ups, the JSONB copy, its errors, and a server that goes away.
@Suite("PostgresDocuments engine")
struct PostgresEngineTests {
    private func put(_ path: String, _ data: DocumentData) -> DocumentMutation {
        DocumentMutation(path: path, kind: .put(body: ValueCodec.encode(data), indexEntries: []))
    }

    /// The first commit on a new server, retried: a loaded machine can take longer than the connect timeout to log in
    /// a debug-built engine (SCRAM), and these tests are about what happens after it.
    private func firstCommit(_ engine: PluginDocumentEngine, _ mutation: DocumentMutation) async throws {
        for attempt in 1...3 {
            do {
                _ = try await engine.commit([mutation], commitTime: 1)
                return
            } catch let error as DocumentsError where attempt < 3 && error.message.contains("no connection within") {
                continue
            }
        }
    }

    /// Returns once `engine` listens for NOTIFY. An engine starts listening at its first wait and, once it listens,
    /// wakes every wait (to look at the log): this first wait, with nothing committed, ends then and not at its timeout.
    /// From then on only a commit's NOTIFY (or a timeout) ends a wait.
    private func listening(_ engine: PluginDocumentEngine) async throws {
        await engine.waitForChanges(after: try await engine.lastSequence(), timeout: .seconds(30))
    }

    @Test("a waiting engine wakes on another engine's commit at once, not at its timeout")
    func notifyWakesWaiters() async throws {
        let options = try await PostgresFixture.options()
        let waiting = try PostgresFixture.engine(options)
        let writing = try PostgresFixture.engine(options)
        let last = try await waiting.lastSequence()
        try await listening(waiting)
        // A long wait and a commit from the other engine: the wait ends with the commit's NOTIFY, whether it arrives
        // while the wait runs or just before it starts (the engine then knows a later sequence was committed).
        let started = ContinuousClock.now
        async let woke: Void = waiting.waitForChanges(after: last, timeout: .seconds(30))
        _ = try await writing.commit([put("users/u1", ["n": 1])], commitTime: 1)
        await woke
        let elapsed = ContinuousClock.now - started
        // Below the wait's 30 s timeout; not tighter, as a full parallel test run can keep a task from a thread for
        // seconds.
        #expect(elapsed < .seconds(25), "waited \(elapsed) for a commit notified at once")
        #expect(try await waiting.lastSequence() == last + 1)
    }

    @Test("a commit PostgreSQL fails as it ends (at the protocol's Sync) is an error, never an acknowledged write")
    func failureAsTheCommitEndsIsReported() async throws {
        let options = try await PostgresFixture.options()
        let engine = try PostgresFixture.engine(options)
        _ = try await engine.commit([put("users/u0", ["n": 0])], commitTime: 1)
        let schema = options["schema"]?.stringValue ?? ""
        // A deferred constraint trigger fails the statement's implicit transaction when it commits, after the
        // statement answered its row: what an immediate shutdown of PostgreSQL does to a commit in flight (the bank
        // test, Tools/faults/bank, lost an acknowledged transfer that way).
        _ = try await PostgresServer.shared().psql(
            """
            CREATE FUNCTION \(schema).refuse() RETURNS trigger LANGUAGE plpgsql
                AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$;
            CREATE CONSTRAINT TRIGGER refuse AFTER INSERT ON \(schema).documents DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW WHEN (NEW.path = 'users/doomed') EXECUTE FUNCTION \(schema).refuse();
            """)
        await #expect(throws: DocumentsError.self) {
            _ = try await engine.commit([put("users/doomed", ["n": 1])], commitTime: 2)
        }
        let found = try await engine.documents(at: ["users/doomed"])
        #expect(found.count == 1 && found[0] == nil)
        let next = try await engine.commit([put("users/u1", ["n": 1])], commitTime: 3)
        #expect(next.sequence == 2)
    }

    @Test("a listener of one store sees another store's commit promptly")
    func listenersFollowOtherEngines() async throws {
        let options = try await PostgresFixture.options()
        // A poll interval far longer than the test: only NOTIFY can deliver the change in time.
        var slow = DocumentStore.Options()
        slow.listenerPollInterval = .seconds(60)
        let watchingEngine = try PostgresFixture.engine(options)
        // Listening before the listener starts: its feed's waits end only by a NOTIFY (or their 60 s timeout).
        try await listening(watchingEngine)
        let watching = DocumentStore(engine: watchingEngine, options: slow)
        let writing = DocumentStore(engine: try PostgresFixture.engine(options))
        var snapshots = try watching.document("users/ana").snapshots().makeAsyncIterator()
        #expect(try await snapshots.next()?.exists == false)
        try await writing.document("users/ana").setData(["points": 3])
        let started = ContinuousClock.now
        let next = try await snapshots.next()
        #expect(next?.get("points") == 3)
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test("updateMetadata is atomic across engines on one schema (compare-and-set through the ABI)")
    func metadataUpdatesAddUpAcrossEngines() async throws {
        let options = try await PostgresFixture.options()
        let engines = [try PostgresFixture.engine(options), try PostgresFixture.engine(options)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                let engine = engines[i % 2]
                group.addTask {
                    try await engine.updateMetadata(forKey: "count") { bytes in
                        let n = bytes.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                        return Array(String(n + 1).utf8)
                    }
                }
            }
            try await group.waitForAll()
        }
        let stored = try await engines[0].metadata(forKey: "count").map { String(decoding: $0, as: UTF8.self) }
        #expect(stored == "40")
    }

    @Test("the json option keeps each body as JSONB that SQL reads")
    func jsonCopyIsReadableFromSQL() async throws {
        let options = try await PostgresFixture.options(json: true)
        let schema = options["schema"]?.stringValue ?? ""
        let store = DocumentStore(engine: try PostgresFixture.engine(options))
        try await store.document("users/ana").setData(["name": "Ana", "points": 7, "tags": ["a", "b"]])
        let server = try await PostgresServer.shared()
        let row = try await server.psql(
            "SELECT data->>'name', (data->>'points')::int, jsonb_array_length(data->'tags') FROM \(schema).documents")
        #expect(row.trimmingCharacters(in: .whitespacesAndNewlines) == "Ana|7|2")
        // The body stays the authority: the store reads it back exactly.
        #expect(try await store.document("users/ana").getDocument().data?["points"] == 7)
    }

    @Test("bad options are refused at start with the option named")
    func badOptions() async throws {
        let server = try await PostgresServer.shared()
        let cases: [(JSONValue, String)] = [
            (["url": "mysql://x"], "not a postgres:// URL"),
            (["url": .string(server.url), "pool-sise": 2], "did you mean 'pool-size'"),
            (["url": .string(server.url), "pool-size": 0], "'pool-size' must be a whole number from 1 to 200"),
            (["url": .string(server.url), "schema": "Drop Table"], "'schema' must be a plain SQL identifier"),
            (["url": .string(server.url + "?sslmode=maybe")], "unknown sslmode 'maybe'"),
            ([:], "needs a 'url' option"),
        ]
        for (options, message) in cases {
            do {
                _ = try PostgresFixture.engine(options)
                Issue.record("accepted \(options)")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
        let missing = server.url.replacingOccurrences(of: "/postgres", with: "/nosuchdb")
        do {
            _ = try PostgresFixture.engine(["url": .string(missing)])
            Issue.record("connected to a missing database")
        } catch {
            #expect("\(error)".contains("has no database 'nosuchdb'"), "\(error)")
            #expect(!"\(error)".contains(PostgresServer.password))
        }
    }

    @Test("a server that goes away fails reads with a clear error, and the engine recovers when it is back")
    func serverRestart() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let options: JSONValue = [
            "url": .string(server.url), "schema": "restart", "pool-size": 2, "connect-timeout": 20,
        ]
        let engine = try PostgresFixture.engine(options)
        try await firstCommit(engine, put("users/a", ["n": 1]))
        server.kill()
        let killed = ContinuousClock.now
        do {
            _ = try await engine.document(at: "users/a")
            Issue.record("read succeeded with the server killed")
        } catch let error as DocumentsError {
            #expect(error.code == .storage)
            #expect(error.message.contains("127.0.0.1:\(server.port)/postgres"), "\(error.message)")
        }
        // Not postgres-nio's wait for its circuit breaker (a minute, then ever longer): the connect timeout, 20 s here.
        #expect(ContinuousClock.now - killed < .seconds(55), "a read waited \(ContinuousClock.now - killed)")
        try await server.restart()
        var recovered: StoredDocument?
        // The pool reconnects with a growing backoff; a few seconds here.
        for _ in 0..<300 where recovered == nil {
            recovered = try? await engine.document(at: "users/a")
            if recovered == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(recovered?.version == 1)
        var sequence: Int64?
        for _ in 0..<100 where sequence == nil {
            sequence = try? await engine.commit([put("users/b", ["n": 2])], commitTime: 2).sequence
            if sequence == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(sequence == 2)
    }

    @Test(
        "reads and commits on connections the server keeps terminating each end with an answer or an error, never hang")
    func terminatedConnectionsNeverHang() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let options: JSONValue = [
            "url": .string(server.url), "schema": "terminated", "pool-size": 4, "connect-timeout": 20,
        ]
        // A call the plugin never answers fails at this deadline (`.timeout`): far above a connect, far below a hang.
        let engine = try PostgresFixture.engine(options, callTimeout: .seconds(40))
        try await firstCommit(engine, put("users/a", ["n": 0]))
        // postgres-nio loses a query written to a connection that has just closed (it never answers nor fails it):
        // terminating the engine's backends over and over, while it reads and commits, opens that window often.
        let terminator = BackendTerminator(server: server)
        terminator.start()
        var answered = 0
        var refused = 0
        for round in 0..<40 {
            let outcomes = await withTaskGroup(of: DocumentsError?.self) { group in
                for i in 0..<6 {
                    group.addTask {
                        do {
                            if i == 0 {
                                _ = try await engine.commit([put("users/c\(round)", ["n": 1])], commitTime: 2)
                            } else {
                                _ = try await engine.document(at: "users/a")
                            }
                            return nil
                        } catch let error as DocumentsError {
                            return error
                        } catch {
                            return DocumentsError(.unsupported, "not a DocumentsError: \(error)")
                        }
                    }
                }
                return await group.reduce(into: [DocumentsError?]()) { $0.append($1) }
            }
            for outcome in outcomes {
                if let outcome {
                    // A lost connection, said so at once; not the plugin host's deadline for a call never answered.
                    #expect(outcome.code == .storage && !(outcome.underlying is PluginError), "\(outcome)")
                    refused += 1
                } else {
                    answered += 1
                }
            }
        }
        let rounds = await terminator.stop()
        #expect(rounds > 0)
        #expect(answered > 0, "answered \(answered), refused \(refused)")
    }

    @Test("a server killed under a stream of commits keeps every acknowledged one and no partial one")
    func killUnderCommits() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let options: JSONValue = [
            "url": .string(server.url), "schema": "crash", "pool-size": 4, "connect-timeout": 10,
        ]
        let engine = try PostgresFixture.engine(options)
        let progress = Counter()
        let writer = Task { () -> [String] in
            var acknowledged: [String] = []
            var i = 0
            while i < 100_000 {
                let path = "items/i\(i)"
                let mutation = DocumentMutation(
                    path: path,
                    kind: .put(
                        body: ValueCodec.encode(["i": .int(Int64(i))]),
                        indexEntries: [IndexEntry(index: "by-i", key: Array("\(i)".utf8))]))
                do {
                    _ = try await engine.commit([mutation], commitTime: Int64(i))
                    acknowledged.append(path)
                    progress.value.add(1, ordering: .relaxed)
                    i += 1
                } catch {
                    // Before the kill, a slow machine's lease timeout (nothing sent): retry. After it, the stream ends.
                    if progress.killed.load(ordering: .relaxed) { return acknowledged }
                }
            }
            return acknowledged
        }
        // Kill it mid-stream: once a few dozen commits have been acknowledged (however slow the machine is).
        let deadline = ContinuousClock.now + .seconds(120)
        while progress.value.load(ordering: .relaxed) < 30, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        progress.killed.store(true, ordering: .relaxed)
        server.kill()
        let acknowledged = await writer.value
        #expect(acknowledged.count > 10)
        try await server.restart()
        let reopened = try PostgresFixture.engine(options)
        let found = try await reopened.documents(at: acknowledged)
        #expect(found.allSatisfy { $0 != nil }, "an acknowledged commit is missing after the crash")
        // Whatever is there is whole: each document has its index entry and its change record.
        let all = try await reopened.documents(inCollection: "items", after: nil, limit: nil)
        let entries = try await reopened.scan(IndexScan(index: "by-i"))
        let changes = try await reopened.changes(after: 0, limit: 200_000)
        #expect(Set(entries.map(\.path)) == Set(all.map(\.path)))
        #expect(changes.count == all.count)
        #expect(try await reopened.lastSequence() == Int64(all.count))
        #expect(all.count >= acknowledged.count && all.count <= acknowledged.count + 1)
    }
}

private final class Counter: Sendable {
    let value = Atomic<Int>(0)
    let killed = Atomic<Bool>(false)
}

/// Terminates every client backend of a server, over and over, on a thread of its own (psql blocks).
private final class BackendTerminator: Sendable {
    private let server: PostgresServer
    private let stopping = Atomic<Bool>(false)
    private let rounds = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    init(server: PostgresServer) { self.server = server }

    func start() {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                _ = try? server.psqlBlocking(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
                    """)
                rounds.add(1, ordering: .relaxed)
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops and returns how many times it terminated the backends.
    func stop() async -> Int {
        stopping.store(true, ordering: .relaxed)
        _ = try? await TestSupport.offThePool { [done] in done.wait() }
        return rounds.load(ordering: .relaxed)
    }
}
