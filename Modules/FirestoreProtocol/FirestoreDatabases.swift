import Documents
import GRPCCore
import Synchronization

/// The databases of one server: `(default)` is the server's Documents store (the one the JSON API, `suite docs`,
/// Sync and the console see); another id is a store of its own, created when an admin first uses it (as Google's
/// emulator does). Others get NOT_FOUND for a database that does not exist yet.
final class FirestoreDatabases: Sendable {
    /// Opens the store of a database id other than `(default)`; `create` says whether a missing one is made.
    /// Answers nil when it does not exist and `create` is false.
    typealias Opener = @Sendable (_ id: String, _ create: Bool) async throws -> DocumentStore?

    private let main: DocumentStore
    private let opener: Opener
    private let opened = Mutex<[String: DocumentStore]>([:])

    init(main: DocumentStore, opener: @escaping Opener) {
        self.main = main
        self.opener = opener
    }

    /// The store of `id`.
    func store(_ id: String, create: Bool) async throws -> DocumentStore {
        if id == "(default)" { return main }
        if let store = opened.withLock({ $0[id] }) { return store }
        guard Self.isValid(id) else {
            throw RPCError(
                code: .invalidArgument,
                message: "Invalid database id '\(id)': 4 to 63 lowercase letters, digits or hyphens, starting with a "
                    + "letter, or (default)")
        }
        guard let store = try await opener(id, create) else {
            throw RPCError(code: .notFound, message: "The database \(id) does not exist.")
        }
        let existing = opened.withLock { opened -> DocumentStore? in
            if let existing = opened[id] { return existing }
            opened[id] = store
            return nil
        }
        guard let existing else { return store }
        await store.close()  // another call opened it first
        return existing
    }

    /// Closes the stores opened for other database ids.
    func close() async {
        let stores = opened.withLock { opened in
            defer { opened = [:] }
            return Array(opened.values)
        }
        for store in stores { await store.close() }
    }

    static func isValid(_ id: String) -> Bool {
        guard (4...63).contains(id.count), let first = id.unicodeScalars.first, ("a"..."z").contains(first) else {
            return false
        }
        return id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}
