import Documents

extension SyncClient {
    /// Runs work that reaches the server and keeps the replica store's `Documents/DocumentStore/isFromCache` with
    /// Firestore's meaning: `true` once the server could not be reached (``SyncError/Code/offline``), `false` once
    /// work that `confirms` the replica's data (a pull to the end of the server's feed) succeeded. Other failures
    /// leave it as it was. The caller holds the gate, so changes keep the order of the work.
    func reachingServer<T: Sendable>(confirms: Bool, _ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            if confirms { store.setFromCache(false) }
            return result
        } catch let error as SyncError where error.code == .offline {
            store.setFromCache(true)
            throw error
        }
    }
}
