import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import SuiteCore
import SuiteServer
import SuiteTestSupport
import Testing

/// Per-user quotas: RESOURCE_EXHAUSTED on the Firestore protocol, and the admission itself (windows, Retry-After,
/// kinds counted apart, two servers leasing from one store) with a clock the tests move.
@Suite struct QuotaTests {
    /// GetDocument of `path` with `token`; the status code, or nil when the call answered (found or not).
    static func get(_ server: FirestoreTestServer, token: String, path: String) async -> RPCError.Code? {
        do {
            try await server.withClient { client in
                var request = Google_Firestore_V1_GetDocumentRequest()
                request.name = FirestoreTestServer.name(path)
                _ = try await client.getDocument(request, metadata: ["authorization": "Bearer \(token)"])
            }
            return nil
        } catch let error as RPCError {
            return error.code == .notFound ? nil : error.code
        } catch {
            return .unknown
        }
    }

    /// Deletes `path` with `token` through Commit; the status code, or nil on success.
    static func delete(_ server: FirestoreTestServer, token: String, path: String) async -> RPCError.Code? {
        do {
            try await server.withClient { client in
                var request = Google_Firestore_V1_CommitRequest()
                request.database = FirestoreTestServer.project
                var write = Google_Firestore_V1_Write()
                write.delete = FirestoreTestServer.name(path)
                request.writes = [write]
                _ = try await client.commit(request, metadata: ["authorization": "Bearer \(token)"])
            }
            return nil
        } catch let error as RPCError {
            return error.code
        } catch {
            return .unknown
        }
    }

    @Test func overTheLimitIsResourceExhaustedWhileAnotherUserIsServed() async throws {
        let server = try await FirestoreTestServer.start(
            quotas: QuotaLimits(perDay: .init(reads: 3, deletes: 1)))
        let ana = try await server.accounts.add("ana")
        let bob = try await server.accounts.add("bob")
        for _ in 0..<3 { #expect(await Self.get(server, token: ana, path: "users/ana") == nil) }
        #expect(await Self.get(server, token: ana, path: "users/ana") == .resourceExhausted)
        #expect(await Self.get(server, token: bob, path: "users/bob") == nil)
        // Deletes have an allowance of their own, counted per document of a commit.
        #expect(await Self.delete(server, token: ana, path: "users/ana") == nil)
        #expect(await Self.delete(server, token: ana, path: "users/ana") == .resourceExhausted)
        #expect(server.metrics.render().contains(#"suite_quota_rejections_total{kind="reads",window="day"} 1"#))
        #expect(
            server.metrics.render().contains(
                #"suite_grpc_calls_total{method="GetDocument",code="RESOURCE_EXHAUSTED"} 1"#))
        await server.stop()
    }

    static func store() throws -> (DocumentStore, ManualWallClock) {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_020))  // 20 s into a minute
        let directory = try TestSupport.makeTemporaryDirectory("quotas")
        let engine = try SQLiteDocumentEngine(path: directory.appendingPathComponent("documents.sqlite").path)
        return (DocumentStore(engine: engine, clock: clock), clock)
    }

    /// Admits `cost` for `uid`; the refusal's Retry-After, or nil when admitted.
    static func admit(_ quotas: ServerQuotas, _ uid: String, _ cost: QuotaCost) async throws -> Int? {
        do {
            try await quotas.admit(ServerAccounts.Account(uid: uid, isAdmin: false), cost)
            return nil
        } catch let error as ServerError where error.code == .tooManyRequests {
            return error.retryAfter
        }
    }

    @Test func windowsRetryAfterAndKindsCountedApart() async throws {
        let (store, clock) = try Self.store()
        let quotas = ServerQuotas(
            limits: QuotaLimits(perMinute: .init(reads: 2, writes: 5), perDay: .init(reads: 3)), store: store,
            metrics: ServerMetrics())
        #expect(try await Self.admit(quotas, "ana", .reads(0)) == nil)  // a query answering nothing: one read
        #expect(try await Self.admit(quotas, "ana", .reads(1)) == nil)
        #expect(try await Self.admit(quotas, "ana", .reads(1)) == 40)  // the minute ends in 40 s
        #expect(try await Self.admit(quotas, "ana", .writes(ops: ["set", "delete", "update"])) == nil)
        // 2 + 4 > 5: refused, and nothing taken; 2 + 3 = 5 then passes.
        #expect(try await Self.admit(quotas, "ana", .writes(ops: ["set", "set", "set", "set"])) == 40)
        #expect(try await Self.admit(quotas, "ana", .writes(ops: ["set", "set", "set"])) == nil)
        #expect(try await Self.admit(quotas, "ana", .writes(ops: ["set"])) == 40)
        #expect(try await Self.admit(quotas, "bob", .reads(2)) == nil)
        clock.advance(by: 40)  // the next minute: one read left of the day
        #expect(try await Self.admit(quotas, "ana", .reads(1)) == nil)
        let secondsToMidnight = 86_400 - Int(clock.now.timeIntervalSince1970) % 86_400
        #expect(try await Self.admit(quotas, "ana", .reads(1)) == secondsToMidnight)
        // A request larger than the limit is refused outright.
        #expect(try await Self.admit(quotas, "bob", .writes(ops: Array(repeating: "set", count: 6))) != nil)
        await store.close()
    }

    @Test func twoServersLeasingFromOneStoreAdmitExactlyTheLimit() async throws {
        let (store, _) = try Self.store()
        let limit = 50
        let servers = (0..<2).map { _ in
            ServerQuotas(limits: QuotaLimits(perMinute: .init(reads: limit)), store: store, metrics: ServerMetrics())
        }
        let admitted = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<(4 * limit) {
                group.addTask { try await Self.admit(servers[index % 2], "ana", .reads(1)) == nil ? 1 : 0 }
            }
            return try await group.reduce(0, +)
        }
        #expect(admitted <= limit)
        // What each server still holds, then nothing: the two admitted exactly the limit.
        var total = admitted
        for server in servers {
            while total <= limit, try await Self.admit(server, "ana", .reads(1)) == nil { total += 1 }
        }
        #expect(total == limit)
        await store.close()
    }
}
