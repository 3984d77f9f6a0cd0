@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import Foundation
import PostgresTestSupport
import SuiteCore
import SuitePluginKit
import Synchronization
import Testing

/// The `postgres` engine's change-log pruning (options `change-log-days`, `change-log-minimum`) and its index
/// verification and rebuild, through the real plugin on a real server.
@Suite("PostgresDocuments change-log pruning and index checks")
struct PostgresMaintenanceTests {
    private func put(_ path: String, _ n: Int, index: String = "n") -> DocumentMutation {
        DocumentMutation(
            path: path,
            kind: .put(
                body: ValueCodec.encode(["n": .int(Int64(n))]),
                indexEntries: [IndexEntry(index: index, key: [UInt8(n & 0xFF)])]))
    }

    private func expectResync(_ engine: some DocumentEngine, after sequence: Int64) async {
        do {
            _ = try await engine.changes(after: sequence, limit: 100)
            Issue.record("changes after \(sequence) were answered, not refused")
        } catch let error as DocumentsError {
            #expect(error.code == .resyncRequired, "\(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    private func rows(_ sql: String) async throws -> String {
        try await PostgresServer.shared().psql(sql).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("pruning keeps the latest records and the documents, and a read before the horizon must resync")
    func prunesToTheMinimum() async throws {
        let options = try await PostgresFixture.options(extra: ["change-log-days": 0, "change-log-minimum": 5])
        let schema = options["schema"]?.stringValue ?? ""
        let engine = try PostgresFixture.engine(options)
        // 40 commits (one a delete) at times 1…40 µs after the epoch: all older than any age.
        for i in 1...40 {
            let mutation = i == 25 ? DocumentMutation(path: "c/d3", kind: .delete) : put("c/d\(i % 10)", i)
            _ = try await engine.commit([mutation], commitTime: Int64(i))
        }
        let documents = try await engine.documents(inCollection: "c", after: nil, limit: nil)
        let hits = try await engine.scan(IndexScan(index: "n"))
        let log = try await engine.changes(after: 0, limit: 100)
        #expect(log.count == 40)
        #expect(try await engine.changeLogStatus() == ChangeLogStatus(records: 40, horizon: 0, lastSequence: 40))

        // Shutting down prunes (as a commit every 64 sequences does, one step at a time).
        await engine.shutdown()
        let reopened = try PostgresFixture.engine(options)
        let status = try #require(try await reopened.changeLogStatus())
        #expect(status == ChangeLogStatus(records: 5, horizon: 35, lastSequence: 40))
        #expect(try await rows("SELECT min(sequence), count(*) FROM \(schema).changes") == "36|5")
        #expect(try await reopened.changes(after: 35, limit: 100) == Array(log.suffix(5)))
        #expect(try await reopened.changes(after: 38, limit: 100) == Array(log.suffix(2)))
        await expectResync(reopened, after: 34)
        await expectResync(reopened, after: 0)
        #expect(try await reopened.documents(inCollection: "c", after: nil, limit: nil) == documents)
        #expect(try await reopened.scan(IndexScan(index: "n")) == hits)
        // Nothing more goes: the minimum holds.
        _ = try await reopened.commit([put("c/d1", 41)], commitTime: 41)
        await reopened.shutdown()
        let again = try PostgresFixture.engine(options)
        #expect(try await again.changeLogStatus() == ChangeLogStatus(records: 5, horizon: 36, lastSequence: 41))
    }

    @Test("pruning stops at the first commit younger than change-log-days, a delete included")
    func keepsYoungCommits() async throws {
        let options = try await PostgresFixture.options(extra: ["change-log-days": 1, "change-log-minimum": 1])
        let engine = try PostgresFixture.engine(options)
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        for i in 1...30 {
            // Commit 10 deletes an old document, commit 21 — the first young one — deletes another.
            let mutation =
                i == 10 || i == 21 ? DocumentMutation(path: "c/d\(i - 5)", kind: .delete) : put("c/d\(i)", i)
            _ = try await engine.commit([mutation], commitTime: i <= 20 ? Int64(i) : now)
        }
        await engine.shutdown()
        let reopened = try PostgresFixture.engine(options)
        #expect(try await reopened.changeLogStatus()?.horizon == 20)
        let kept = try await reopened.changes(after: 20, limit: 100)
        #expect(kept.map(\.sequence) == Array(21...30))
        #expect(kept.first?.document == nil)
        await expectResync(reopened, after: 19)
    }

    @Test("bad retention options are refused with the option named")
    func badRetentionOptions() async throws {
        for (extra, message) in [
            (["change-log-days": -1], "'change-log-days' must be a number of days from 0 to 36500"),
            (["change-log-days": "week"], "'change-log-days' must be a number of days"),
            (["change-log-minimum": 0], "'change-log-minimum' must be a whole number from 1"),
            (["change-log-minimum": 2.5], "'change-log-minimum' must be a whole number from 1"),
        ] as [([String: JSONValue], String)] {
            do {
                _ = try PostgresFixture.engine(try await PostgresFixture.options(extra: extra))
                Issue.record("accepted \(extra)")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }

    @Test("a follower never sees a gap while two engines commit and prune: whole pages or resyncRequired")
    func pruningDoesNotRaceWithCommitsOrReaders() async throws {
        let options = try await PostgresFixture.options(extra: ["change-log-days": 0, "change-log-minimum": 10])
        let writers = [try PostgresFixture.engine(options), try PostgresFixture.engine(options)]
        let reader = try PostgresFixture.engine(options)
        let finished = Flag()
        // 260 commits: after sequences 64, 128, 192 and 256, whichever engine committed them prunes a step.
        let writing = Task {
            defer { finished.value.store(true, ordering: .sequentiallyConsistent) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (w, writer) in writers.enumerated() {
                    group.addTask {
                        for i in 0..<130 { _ = try await writer.commit([put("w\(w)/d\(i % 7)", i)], commitTime: 1) }
                    }
                }
                try await group.waitForAll()
            }
        }
        var after: Int64 = 0
        var gaps: [String] = []
        var resyncs = 0
        while true {
            let wasFinished = finished.value.load(ordering: .sequentiallyConsistent)
            do {
                let records = try await reader.changes(after: after, limit: 20)
                // One record per commit: a page starts right after `after` and has no hole.
                let expected = Array((after + 1)..<(after + 1 + Int64(records.count)))
                if records.map(\.sequence) != expected { gaps.append("after \(after): \(records.map(\.sequence))") }
                if let last = records.last {
                    after = last.sequence
                } else if wasFinished {
                    break
                } else {
                    try await Task.sleep(for: .milliseconds(5))
                }
            } catch let error as DocumentsError where error.code == .resyncRequired {
                resyncs += 1
                after = try #require(try await reader.changeLogStatus()).horizon
            }
        }
        try await writing.value
        #expect(gaps.isEmpty, "\(gaps.prefix(5)) (\(resyncs) resyncs)")
        #expect(after == 260)
        let status = try #require(try await reader.changeLogStatus())
        #expect(status.lastSequence == 260)
        #expect(status.horizon >= 192 && status.horizon < 260, "\(status)")
        #expect(status.records == Int(260 - status.horizon))
        let log = try await reader.changes(after: status.horizon, limit: 1_000)
        #expect(log.map(\.sequence) == Array((status.horizon + 1)...260))
    }
}

private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
