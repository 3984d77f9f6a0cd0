import GRPCCore
import SuiteServer

extension FirestoreAccess {
    /// Reads each call of these methods counts against the caller's quotas: one per call (the opening of a Listen
    /// stream included). Writes and deletes are counted per document by ``admit(_:writes:)``.
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
