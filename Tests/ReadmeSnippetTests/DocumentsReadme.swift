// swift-format-ignore-file
// Modules/Documents/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line). Compiled,
// not called: its listener loop runs until the task ends (DocumentsTests' `readmeExample` runs the same calls).
import Documents
import SuiteCore

func documentsReadme() async throws {
    let bus = EventBus()  // optional: commits and costs are published on it
    let store = DocumentStore(engine: try SQLiteDocumentEngine(path: "documents.sqlite"), bus: bus)
    let user = try store.document("users/u1")
    let written = try await user.setData(["name": "Ana", "points": 25])  // the result: data, version, updateTime

    // Redeem a reward: reads first, then writes; retried if the user document moves meanwhile.
    try await store.runTransaction { tx in
        let points = try await tx.getDocument(user).get("points", as: Int.self) ?? 0
        guard points >= 10 else { throw DocumentsError(.invalidValue, "not enough points") }
        try tx.updateData(["points": .increment(-10)], forDocument: user)
        tx.setData(
            ["user": .value(.reference("users/u1")), "delta": -10],
            forDocument: try store.collection("pointTransactions").document())
    }

    let rich = try await store.collection("users").whereField("points", isGreaterThanOrEqualTo: 10).getDocuments()
    for try await snapshot in try store.collection("users").query.snapshots() { print(snapshot.documentChanges) }
    _ = (written, rich)
}

@MainActor
func followOpenOrders(in store: DocumentStore) throws -> (LiveQuery, LiveAggregation) {
    let open = try store.collection("orders").whereField("status", isEqualTo: "open")
    let orders = LiveQuery(open)  // orders.documents, orders.isLoading, orders.error
    let totals = LiveAggregation(open.aggregate([.count, .sum("amount")]))  // totals.count, totals.value("sum(amount)")
    return (orders, totals)
}

func storeWithQueryControls() throws -> DocumentStore {
    var options = DocumentStore.Options()
    options.queryCoalescing = QueryCoalescing(isEnabled: true, reuseWindow: .milliseconds(50))
    options.queryRateLimit = QueryRateLimit(perSecond: 20, burst: 40)  // over it, a query waits for its token
    return DocumentStore(engine: try SQLiteDocumentEngine(path: "documents.sqlite"), options: options)
}

func firstPage(of store: DocumentStore) async throws -> QuerySnapshot {
    let page = try await store.collection("orders").limit(to: 20).getDocuments(whenRateLimited: .fail)
    let saved = try await store.costs().queries  // coalesced, readsSaved, throttled, throttledWait, rejected
    print("\(saved.coalesced) executions and \(saved.readsSaved) reads saved")
    return page
}
