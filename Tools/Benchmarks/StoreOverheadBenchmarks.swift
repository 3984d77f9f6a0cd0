@_spi(Engine) import Documents
import Foundation
import SuiteCore

/// The store's own cost per single-document write, with storage taken out: `setData` of a new order through a
/// ``DocumentStore`` over an ``InMemoryDocumentEngine``, beside the same engine committing the same document already
/// encoded (body and index entries built beforehand). The ratio is the share of a commit the engine itself takes;
/// `1 / ours − 1 / peer` is what the store adds per write (path parsing, encoding, index keys, snapshot, costs).
enum StoreOverheadBenchmarks {
    static func run(scale: Double) async throws -> [BenchResult] {
        let count = max(2_000, Int(20_000 * scale))
        let rounds = 5
        let ids = OrderGenerator.ids(count: count * rounds * 2, seed: 7)
        let documents = (0..<count).map { OrderGenerator.order(2_000_000 + $0, customer: $0) }
        let kinds = documents.map { data in
            DocumentMutation.Kind.put(
                body: ValueCodec.encode(data), indexEntries: indexEntries(data, prefix: "orders|"))
        }
        let clock = SystemWallClock()
        var ours = 0.0
        var peer = 0.0
        var next = 0
        for _ in 0..<rounds {
            let store = DocumentStore(engine: InMemoryDocumentEngine())
            let base = next
            next += count
            ours = max(
                ours,
                try await bestRate(operations: count, repeats: 1) {
                    for j in 0..<count {
                        try await store.document("orders/" + ids[base + j]).setData(documents[j])
                    }
                })
            await store.close()

            let engine = InMemoryDocumentEngine()
            let peerBase = next
            next += count
            peer = max(
                peer,
                try await bestRate(operations: count, repeats: 1) {
                    for j in 0..<count {
                        let mutation = DocumentMutation(
                            path: "orders/" + ids[peerBase + j], kind: kinds[j], precondition: .none)
                        _ = try await engine.commit([mutation], commitTime: Timestamp(clock.now).microseconds)
                    }
                })
        }
        FileHandle.standardError.write(
            Data(
                String(
                    format: "  store overhead: setData %.2f µs, engine commit %.2f µs, store adds %.2f µs per write\n",
                    1e6 / ours, 1e6 / peer, 1e6 / ours - 1e6 / peer
                ).utf8))
        return [
            BenchResult(
                name: "single-document setData over the in-memory engine (store overhead)", ours: ours, peer: peer,
                peerName: "in-memory engine commit of the pre-encoded mutation", unit: "commits/s")
        ]
    }

    /// The entries the store gives a document whose field names are all simple: every field, nested map fields
    /// included, in `<collection>|<field>`, and distinct array elements in `<collection>|<field>|contains`.
    static func indexEntries(_ map: DocumentData, prefix: String) -> [IndexEntry] {
        var entries: [IndexEntry] = []
        for (name, value) in map {
            let index = prefix + name
            entries.append(IndexEntry(index: index, key: IndexKey.encode(value)))
            switch value {
            case .array(let elements):
                var seen = Set<[UInt8]>()
                for element in elements {
                    let key = IndexKey.encode(element)
                    if seen.insert(key).inserted { entries.append(IndexEntry(index: index + "|contains", key: key)) }
                }
            case .map(let nested):
                entries += indexEntries(nested, prefix: index + ".")
            default:
                break
            }
        }
        return entries
    }
}
