@_spi(Engine) import Documents
import Foundation

/// Issue 10, item 3: a range query with a small limit over a store with many pending index operations (change rows no
/// flush has put into a run, as short-lived `suite docs` processes leave) against the same query once they are
/// flushed. The pending side warms the process's pending copy first (one read of the change log, paid once per
/// process); both sides then run the same queries, alternating rounds, each keeping its best.
enum PendingScanBenchmarks {
    /// Index operations left pending (the figure).
    static let pendingOperations = 250_000
    /// Queries per round.
    static let queriesPerRound = 200

    static func run(scale: Double) async throws -> [BenchResult] {
        try await DocumentsBenchmarks.withTempFiles("pending") { files in try await run(scale: scale, files: files) }
    }

    static func run(scale: Double, files: TempFiles) async throws -> [BenchResult] {
        let wanted = max(10_000, Int(Double(pendingOperations) * scale))
        let pendingPath = files.next("pending")
        let flushedPath = files.next("flushed")
        let pendingEngine = try SQLiteDocumentEngine(path: pendingPath, pendingLimit: wanted * 4)
        let flushedEngine = try SQLiteDocumentEngine(path: flushedPath, pendingLimit: wanted * 4)
        let pendingStore = DocumentStore(engine: pendingEngine)
        let flushedStore = DocumentStore(engine: flushedEngine)
        // Orders in commits of 250 (about 4,500 operations each, below a direct run) until `wanted` are pending.
        var written = 0
        var pending = 0
        while pending < wanted {
            for store in [pendingStore, flushedStore] {
                let batch = store.batch()
                for i in written..<written + 250 {
                    batch.setData(
                        OrderGenerator.order(i, customer: i / 20),
                        forDocument: try store.document("orders/o" + String(1_000_000 + i)))
                }
                try await batch.commit()
            }
            written += 250
            pending = try await pendingEngine.indexStatus()?.pendingOperations ?? 0
        }
        // The flushed side: everything in runs.
        _ = try await flushedEngine.rebuildIndexes()
        let flushedStatus = try await flushedEngine.indexStatus()
        guard flushedStatus?.pendingOperations == 0 else {
            throw BenchError("the flushed store kept pending operations")
        }

        func query(_ store: DocumentStore, _ n: Int) throws -> Query {
            let low = Double(20 + (n * 37) % 400)
            return try store.collection("orders").query.whereField("total", isGreaterThanOrEqualTo: .double(low))
                .order(by: "total").limit(to: 5)
        }
        func round(_ store: DocumentStore) async throws -> Double {
            let start = ContinuousClock.now
            for n in 0..<queriesPerRound {
                let snapshot = try await query(store, n).getDocuments()
                if snapshot.documents.count != 5 {
                    throw BenchError("a range query returned \(snapshot.documents.count) documents")
                }
            }
            return DocumentsBenchmarks.seconds(since: start) * 1e6 / Double(queriesPerRound)
        }
        let warm = ContinuousClock.now
        _ = try await query(pendingStore, 0).getDocuments()
        let warmMicros = DocumentsBenchmarks.seconds(since: warm) * 1e6
        _ = try await query(flushedStore, 0).getDocuments()
        var best = (pending: Double.infinity, flushed: Double.infinity)
        for _ in 0..<5 {
            best.pending = min(best.pending, try await round(pendingStore))
            best.flushed = min(best.flushed, try await round(flushedStore))
        }
        // The pending operations are still pending (nothing flushed them meanwhile).
        let after = try await pendingEngine.indexStatus()?.pendingOperations ?? 0
        await pendingStore.close()
        await flushedStore.close()
        return [
            BenchResult(
                name: "range query, limit 5, \(after) pending index operations (µs/query)", ours: best.pending,
                peer: best.flushed, peerName: "the same query on the flushed store (µs/query)", unit: "µs",
                target: "≤ 1.5"),
            BenchResult(
                name: "first range query of a process over \(after) pending operations, reading them (reference)",
                ours: warmMicros, peer: best.flushed, peerName: "a query on the flushed store (µs)", unit: "µs"),
        ]
    }
}
