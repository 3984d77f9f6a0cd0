import Synchronization

/// The tasks a live model runs. The model is their only owner: when it is released, this handle goes with it and
/// cancels them, which ends the listener's stream and unregisters it from the store's change feed.
final class LiveTasks: Sendable {
    private let tasks = Mutex<[Task<Void, Never>]>([])

    func add(_ task: Task<Void, Never>) { tasks.withLock { $0.append(task) } }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}

/// What a live model does with what its two streams bring. Each method runs on the main actor.
@MainActor
protocol LiveModel: AnyObject, Sendable {
    associatedtype Snapshot: Sendable
    /// A new snapshot from the listener.
    func receive(_ snapshot: Snapshot)
    /// The listener ended: with an error, or without one (the store closed).
    func end(_ error: DocumentsError?)
    /// The store's ``DocumentStore/isFromCache`` changed.
    func receive(isFromCache: Bool)
}

extension LiveModel {
    /// Starts following `snapshots` and the store's ``DocumentStore/isFromCacheUpdates()`` in tasks that hold the
    /// model weakly, owned by `tasks`.
    func listen(
        to snapshots: AsyncThrowingStream<Snapshot, any Error>, store: DocumentStore, tasks: LiveTasks
    ) {
        let sourceUpdates = store.isFromCacheUpdates()
        tasks.add(
            Task { @MainActor [weak self] in
                do {
                    for try await snapshot in snapshots {
                        guard let self else { return }
                        self.receive(snapshot)
                    }
                    self?.end(nil)
                } catch {
                    self?.end(DocumentsError(listening: error))
                }
            })
        tasks.add(
            Task { @MainActor [weak self] in
                for await isFromCache in sourceUpdates {
                    guard let self else { return }
                    self.receive(isFromCache: isFromCache)
                }
            })
    }
}

extension DocumentsError {
    /// `error` as a ``DocumentsError`` (a listener's streams throw only these, but a model's `error` is typed).
    init(listening error: any Error) {
        if let error = error as? DocumentsError {
            self = error
        } else {
            self.init(.storage, "the listener failed: \(error)", underlying: error)
        }
    }
}
