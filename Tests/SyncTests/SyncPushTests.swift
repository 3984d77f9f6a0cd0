import Documents
import Foundation
import SuiteCore
import SuiteTestSupport
import Synchronization
import Testing

@testable import Sync

/// Pushes of several batches: the next batch goes out while the replica commits the previous answer.
@Suite struct SyncPushTests {
    /// An in-process transport that records every push: the mutation ids sent, how many requests were in flight at
    /// once, and (through `onPush`) what the replica held when a request left.
    final class RecordingTransport: SyncTransport {
        let inner: InProcessSyncTransport
        let sent = Mutex<[[String]]>([])
        let inFlight = Mutex((now: 0, most: 0))
        let onPush: @Sendable (Int, SyncPushRequest) async throws -> Void

        init(host: SyncHost, onPush: @escaping @Sendable (Int, SyncPushRequest) async throws -> Void = { _, _ in }) {
            inner = InProcessSyncTransport(host: host)
            self.onPush = onPush
        }

        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
            let index = sent.withLock {
                $0.append(request.mutations.map(\.id))
                return $0.count - 1
            }
            inFlight.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            defer { inFlight.withLock { $0.now -= 1 } }
            try await onPush(index, request)
            // Gives the replica time to run beside the server, as over HTTP.
            try await Task.sleep(for: .milliseconds(5))
            return try await inner.push(request)
        }

        func changes(since: Int64, wait: Duration, limit: Int) async throws -> SyncChangesResponse {
            try await inner.changes(since: since, wait: wait, limit: limit)
        }

        func document(_ path: String) async throws -> JSONValue? { try await inner.document(path) }

        func snapshot(after: String?, limit: Int) async throws -> SyncSnapshotResponse {
            try await inner.snapshot(after: after, limit: limit)
        }
    }

    static func increment(_ path: String) -> JSONValue {
        .object(["op": "update", "path": .string(path), "transforms": ["n": ["increment": 1]]])
    }

    static func store(_ directory: URL, _ name: String) throws -> DocumentStore {
        DocumentStore(engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("\(name).sqlite").path))
    }

    @Test func aPushOfSeveralBatchesAppliesEveryMutationOnceInOrderWithOneRequestInFlight() async throws {
        let directory = try TestSupport.makeTemporaryDirectory("sync-push")
        let host = SyncHost(store: try Self.store(directory, "server"))
        _ = try await host.store.document("items/c").setData(["n": 0])
        let transport = RecordingTransport(host: host)
        let replica = try await SyncClient(store: try Self.store(directory, "replica"), transport: transport)
        try await replica.pull()
        let count = 2 * SyncClient.pushBatch + 150
        for index in 0..<count {
            try await replica.write([
                Self.increment("items/c"),
                .object(["op": "set", "path": "items/last", "data": ["n": .int(Int64(index))]]),
            ])
        }
        let queued = try await replica.pendingMutations(limit: nil).map(\.mutation.id)

        #expect(try await replica.push() == count)
        let sent = transport.sent.withLock { $0 }
        #expect(sent.map(\.count) == [SyncClient.pushBatch, SyncClient.pushBatch, 150])
        #expect(sent.flatMap { $0 } == queued)
        #expect(transport.inFlight.withLock { $0.most } == 1)
        #expect(try await host.store.document("items/c").getDocument().get("n", as: Int64.self) == Int64(count))
        #expect(try await host.store.document("items/last").getDocument().get("n", as: Int64.self) == Int64(count - 1))
        #expect(try await replica.pendingPaths().isEmpty)
        #expect(replica.status.pending == 0)
        let ack = try await replica.store.document(SyncClient.ackPath("items/last")).getDocument()
        #expect(try SyncClient.unpackAck(ack)?.1 == queued.last)
        // Pushing again sends nothing.
        #expect(try await replica.push() == 0)
        #expect(transport.sent.withLock { $0.count } == 3)
    }

    @Test func aBatchWithARejectionIsSettledBeforeTheNextIsSentAndNothingIsAppliedTwiceLocally() async throws {
        let directory = try TestSupport.makeTemporaryDirectory("sync-push")
        let host = SyncHost(store: try Self.store(directory, "server"))
        _ = try await host.store.document("items/c").setData(["n": 0])
        let replicaStore = try Self.store(directory, "replica")
        // Each request after the first finds the earlier batches' outbox entries gone when one of them was rejected.
        let outboxAtSend = Mutex<[Int: Set<String>]>([:])
        let transport = RecordingTransport(host: host) { index, _ in
            let ids = try await replicaStore.collection("_sync/state/outbox").query.getDocuments().documents.compactMap
            {
                try $0.get("id", as: String.self)
            }
            outboxAtSend.withLock { $0[index] = Set(ids) }
        }
        let replica = try await SyncClient(store: replicaStore, transport: transport)
        try await replica.pull()
        let before = 100
        let after = 2 * SyncClient.pushBatch
        for _ in 0..<before { try await replica.write([Self.increment("items/c")]) }
        // Created on the server by someone else meanwhile: this mutation (and its increment) is rejected.
        _ = try await host.store.document("items/taken").setData(["by": "server"])
        try await replica.write([
            Self.increment("items/c"),
            .object(["op": "set", "path": "items/taken", "data": ["by": "replica"], "precondition": ["exists": false]]),
        ])
        let rejectedID = try await replica.pendingMutations(limit: nil).last?.mutation.id
        for _ in 0..<after { try await replica.write([Self.increment("items/c")]) }

        #expect(try await replica.push() == before + after)
        let server = try await host.store.document("items/c").getDocument().get("n", as: Int64.self)
        #expect(server == Int64(before + after))
        // The restore re-applied the writes still pending on top of the server's version: none of them had reached
        // the server, so the replica holds the same count.
        #expect(try await replicaStore.document("items/c").getDocument().get("n", as: Int64.self) == server)
        #expect(try await replicaStore.document("items/taken").getDocument().get("by", as: String.self) == "server")
        let sent = transport.sent.withLock { $0 }
        let firstBatch = try #require(sent.first)
        #expect(firstBatch.contains(try #require(rejectedID)))
        #expect(sent.count == 3)
        #expect(outboxAtSend.withLock { $0[1] }?.isDisjoint(with: firstBatch) == true)
        #expect(sent.flatMap { $0 }.count == Set(sent.flatMap { $0 }).count)
    }
}
