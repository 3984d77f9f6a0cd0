import GRPCCore
import SuiteServer

extension FirestoreAccess {
    /// Calls of these methods are admitted against the caller's read quota before they run: one read (the opening of
    /// a Listen stream included); ListDocuments, BatchGetDocuments and RunQuery are then charged the further
    /// documents they return (``admit(_:documentsRead:)``). Writes and deletes are counted per document by
    /// ``admit(_:writes:)``.
    static let readCalls: Set<String> = [
        "GetDocument", "ListDocuments", "BatchGetDocuments", "RunQuery", "RunAggregationQuery", "ListCollectionIds",
        "PartitionQuery", "Listen",
    ]

    /// Admits a call of `method` against `caller`'s read quota (calls that do not read pass); over a limit,
    /// RESOURCE_EXHAUSTED.
    func admit(_ caller: ServerAccounts.Account, method: String) async throws {
        guard let quotas, Self.readCalls.contains(method) else { return }
        try await admit(quotas, caller, QuotaCost(reads: 1))
    }

    /// Charges the documents a read call returned beyond the one its admission counted (Firestore bills a read per
    /// document), before the answer goes out: over a limit the call gets RESOURCE_EXHAUSTED and no documents.
    func admit(_ caller: ServerAccounts.Account, documentsRead count: Int) async throws {
        guard let quotas, count > 1 else { return }
        try await admit(quotas, caller, QuotaCost(reads: count - 1))
    }

    /// Admits the writes of a commit: a delete against the deletes quota, any other write against the writes quota.
    func admit(_ caller: ServerAccounts.Account, writes: [Google_Firestore_V1_Write]) async throws {
        guard let quotas else { return }
        try await admit(
            quotas, caller,
            .writes(ops: writes.map { if case .delete? = $0.operation { "delete" } else { "write" } }))
    }

    private func admit(_ quotas: ServerQuotas, _ caller: ServerAccounts.Account, _ cost: QuotaCost) async throws {
        do {
            try await quotas.admit(caller, cost)
        } catch let error as ServerError where error.code == .tooManyRequests {
            throw RPCError(
                code: .resourceExhausted,
                message: "Quota exceeded: \(error.message); retry in \(error.retryAfter ?? 1) s.")
        }
    }
}
