import DocumentEngineContract
import Documents
import Foundation
import Testing

/// Writers of one document in one store queue for it instead of racing: a write without a precondition (an
/// increment) never fails for contention, however many run at once, and none is lost.
@Suite("Concurrent writers of one document")
struct StoreWriteQueueTests {
    @Test(
        "200 concurrent increments of one document all succeed with a single attempt each, and add up",
        arguments: [DocumentEngineFactory.inMemory, .sqlite])
    func concurrentIncrementsNeverConflict(_ factory: DocumentEngineFactory) async throws {
        var options = DocumentStore.Options()
        // One attempt: a write that raced another and lost its version check would fail instead of retrying.
        options.writeRetries = 1
        let store = DocumentStore(engine: try await factory.make().engine, options: options)
        let counter = try store.document("counters/c")
        try await counter.setData(["n": 0])
        let writers = 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<writers {
                group.addTask {
                    if i.isMultiple(of: 2) {
                        try await counter.updateData(["n": .increment(1)])
                    } else {
                        try await counter.setData(["n": .increment(1), "by\(i % 5)": .value(.bool(true))], merge: true)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await counter.getDocument().get("n", as: Int.self) == writers)
        await store.close()
    }

    @Test("writes of several documents take their locks in one order: crossing batches both finish")
    func crossingBatchesDoNotDeadlock() async throws {
        var options = DocumentStore.Options()
        options.writeRetries = 1
        let store = DocumentStore(engine: try await DocumentEngineFactory.inMemory.make().engine, options: options)
        let paths = (0..<8).map { "counters/c\($0)" }
        for path in paths { try await store.document(path).setData(["n": 0]) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<100 {
                // Each batch increments the same documents, half of them listed in reverse.
                let order = i.isMultiple(of: 2) ? paths : paths.reversed()
                group.addTask {
                    let batch = store.batch()
                    for path in order { try batch.updateData(["n": .increment(1)], forDocument: store.document(path)) }
                    _ = try await batch.commit()
                }
            }
            try await group.waitForAll()
        }
        for path in paths { #expect(try await store.document(path).getDocument().get("n", as: Int.self) == 100) }
        await store.close()
    }
}
