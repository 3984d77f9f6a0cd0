public import Observation

/// Query results that stay current: an `@Observable` model of a query (Firestore's `@FirestoreQuery`), for SwiftUI or
/// any code that observes.
///
/// It starts listening when created and stops when released (or when the store closes, keeping its last values). Its
/// properties change on the main actor, where SwiftUI reads them; a list that reads ``documents`` is redrawn when a
/// write adds, changes, moves or removes a result.
///
/// ```swift
/// let open = LiveQuery(try store.collection("orders").whereField("status", isEqualTo: "open").order(by: "total"))
///
/// struct OrdersView: View {
///     let open: LiveQuery
///     var body: some View {
///         List(open.documents, id: \.path) { order in Text(order.documentID) }
///             .overlay { if open.isLoading { ProgressView() } }
///         if open.isFromCache { Text("Offline: saved copy") }
///     }
/// }
/// ```
///
/// Without SwiftUI, observe it with `withObservationTracking`, or read it whenever convenient.
@MainActor @Observable
public final class LiveQuery {
    /// The query followed.
    public let query: Query
    /// The results as last seen, with the changes since the previous ones; `nil` until the first read.
    /// Its `metadata` is as of the moment it was read; ``isFromCache`` below stays current.
    public private(set) var snapshot: QuerySnapshot?
    /// Whether the first read is still under way (no ``snapshot`` and no ``error`` yet).
    public private(set) var isLoading = true
    /// Whether the data is a local copy the server has not confirmed (``DocumentStore/isFromCache``): always `false`
    /// on a plain store; on a Sync replica, `true` until a pull succeeds and again while the server is unreachable.
    public private(set) var isFromCache: Bool
    /// Why listening stopped (an invalid query, a missing index, the engine failed…); `nil` while it goes on.
    /// Listening does not resume after an error: create a new model to retry.
    public private(set) var error: DocumentsError?

    @ObservationIgnored private let tasks = LiveTasks()

    /// Starts following `query` (a ``Query`` or a ``CollectionReference``).
    public init(_ query: some QueryConvertible) {
        let query = query.query
        self.query = query
        self.isFromCache = query.store.isFromCache
        listen(to: query.snapshots(), store: query.store, tasks: tasks)
    }

    /// The matching documents in query order; empty while loading.
    public var documents: [DocumentSnapshot] { snapshot?.documents ?? [] }

    /// The results decoded into `type` (each `@DocumentID` property filled from its path), in query order. Throws
    /// when a document does not decode into `type`.
    public func documents<T: Decodable>(as type: T.Type) throws -> [T] {
        try documents.map { try $0.data(as: type) }
    }
}

extension LiveQuery: LiveModel {
    func receive(_ snapshot: QuerySnapshot) {
        self.snapshot = snapshot
        if isLoading { isLoading = false }
    }

    func end(_ error: DocumentsError?) {
        if let error { self.error = error }
        if isLoading { isLoading = false }
    }

    func receive(isFromCache: Bool) {
        if self.isFromCache != isFromCache { self.isFromCache = isFromCache }
    }
}
