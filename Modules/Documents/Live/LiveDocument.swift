public import Observation

/// A document that stays current: an `@Observable` model of one document, for SwiftUI or any code that observes.
///
/// It starts listening when created and stops when released (or when the store closes, keeping its last values). Its
/// properties change on the main actor, where SwiftUI reads them; a view that reads ``snapshot`` is redrawn when the
/// document changes.
///
/// ```swift
/// let user = LiveDocument(try store.document("users/u1"))  // kept by the owner, e.g. in a view's @State
///
/// struct ProfileView: View {
///     let user: LiveDocument
///     var body: some View {
///         if let name = try? user.snapshot?.get("name", as: String.self) { Text(name) }
///         if user.isFromCache { Text("Offline: saved copy") }
///         if let error = user.error { Text(error.message) }
///     }
/// }
/// ```
///
/// Without SwiftUI, observe it with `withObservationTracking`, or read it whenever convenient.
@MainActor @Observable
public final class LiveDocument {
    /// The document followed.
    public let reference: DocumentReference
    /// The document as last seen (with `exists == false` when it does not exist); `nil` until the first read.
    /// Its `metadata` is as of the moment it was read; ``isFromCache`` below stays current.
    public private(set) var snapshot: DocumentSnapshot?
    /// Whether the first read is still under way (no ``snapshot`` and no ``error`` yet).
    public private(set) var isLoading = true
    /// Whether the data is a local copy the server has not confirmed (``DocumentStore/isFromCache``): always `false`
    /// on a plain store; on a Sync replica, `true` until a pull succeeds and again while the server is unreachable.
    public private(set) var isFromCache: Bool
    /// Why listening stopped (the engine failed); `nil` while it goes on. Listening does not resume after an error:
    /// create a new model to retry.
    public private(set) var error: DocumentsError?

    @ObservationIgnored private let tasks = LiveTasks()

    /// Starts following the document at `reference`.
    public init(_ reference: DocumentReference) {
        self.reference = reference
        self.isFromCache = reference.store.isFromCache
        listen(to: reference.snapshots(), store: reference.store, tasks: tasks)
    }

    /// The document's fields; `nil` when it does not exist or is still loading.
    public var data: DocumentData? { snapshot?.data }

    /// Whether the document exists (`false` while loading).
    public var exists: Bool { snapshot?.exists ?? false }

    /// The document decoded into `type` (its `@DocumentID` property filled from the path); `nil` when it does not
    /// exist or is still loading. Throws when it does not decode into `type`.
    public func data<T: Decodable>(as type: T.Type) throws -> T? {
        guard let snapshot, snapshot.exists else { return nil }
        return try snapshot.data(as: type)
    }
}

extension LiveDocument: LiveModel {
    func receive(_ snapshot: DocumentSnapshot) {
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
