import Documents
import Foundation
import GRPCCore
import Synchronization

/// The transactions begun over the protocol and not yet committed or rolled back: an id (opaque bytes to the
/// client) to the store's ``Transaction``, which records the reads made in it and is committed only if none of them
/// changed meanwhile (ABORTED otherwise; clients retry). Idle ones expire after 270 s, as Firestore's do.
final class FirestoreTransactions: Sendable {
    struct Entry: Sendable {
        var transaction: Transaction
        var database: String
        var readOnly: Bool
        var lastUsed: ContinuousClock.Instant
    }

    private let entries = Mutex<[Data: Entry]>([:])
    static let idleLimit = Duration.seconds(270)

    /// Begins a transaction on `store`; a retried read-write transaction's previous id is dropped.
    func begin(
        store: DocumentStore, database: String, options: Google_Firestore_V1_TransactionOptions?
    ) -> Data {
        var id = Data(count: 16)
        for index in id.indices { id[index] = UInt8.random(in: 0...255) }
        let readOnly: Bool = if case .readOnly? = options?.mode { true } else { false }
        let retried: Data? =
            if case .readWrite(let mode)? = options?.mode, !mode.retryTransaction.isEmpty {
                mode.retryTransaction
            } else { nil }
        let now = ContinuousClock.now
        entries.withLock { entries in
            if let retried { entries[retried] = nil }
            entries = entries.filter { now - $0.value.lastUsed < Self.idleLimit }
            entries[id] = Entry(
                transaction: Transaction(store: store), database: database, readOnly: readOnly, lastUsed: now)
        }
        return id
    }

    /// The transaction `id` of `database`, or INVALID_ARGUMENT as Firestore answers an unknown or expired one.
    func entry(_ id: Data, database: String) throws -> Entry {
        let now = ContinuousClock.now
        let entry = entries.withLock { entries -> Entry? in
            guard var entry = entries[id], now - entry.lastUsed < Self.idleLimit else { return nil }
            entry.lastUsed = now
            entries[id] = entry
            return entry
        }
        guard let entry, entry.database == database else {
            throw RPCError(
                code: .invalidArgument,
                message: "The referenced transaction has expired or is no longer valid.")
        }
        return entry
    }

    /// Ends the transaction `id` (commit or rollback).
    func end(_ id: Data) -> Entry? { entries.withLock { $0.removeValue(forKey: id) } }

    /// Puts back a transaction whose commit the rules refused: nothing of it was written, so the client may still roll
    /// it back (Google's clients do so before they report the error).
    func restore(_ id: Data, _ entry: Entry) {
        var entry = entry
        entry.lastUsed = .now
        entries.withLock { $0[id] = entry }
    }

    /// Transactions still open.
    var count: Int { entries.withLock { $0.count } }
}
