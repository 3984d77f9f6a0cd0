import Documents
import Synchronization

/// The commits a plugin prepared for its host (`prepareCommit`), by handle, until the host commits them
/// (`commitPrepared`). Only the last ``capacity`` are kept: a host that prepares and never commits (an import that
/// failed halfway) cannot make the plugin hold more. A handle that is gone answers `wrongEngine` with nothing
/// written, and the host then commits the mutations it still has.
final class PreparedCommits: Sendable {
    /// Prepared commits kept at most (the bulk importer has one on its way at a time).
    static let capacity = 4

    private struct State {
        var next: Int64 = 1
        var kept: [(handle: Int64, commit: PreparedCommit)] = []
    }
    private let state = Mutex(State())

    /// Keeps `commit`; returns its handle.
    func keep(_ commit: PreparedCommit) -> Int64 {
        state.withLock { state in
            let handle = state.next
            state.next += 1
            state.kept.append((handle, commit))
            if state.kept.count > Self.capacity { state.kept.removeFirst(state.kept.count - Self.capacity) }
            return handle
        }
    }

    /// Takes the commit prepared as `handle` out, if it is still kept.
    func take(_ handle: Int64) -> PreparedCommit? {
        state.withLock { state in
            guard let position = state.kept.firstIndex(where: { $0.handle == handle }) else { return nil }
            return state.kept.remove(at: position).commit
        }
    }

    /// The failure of a `commitPrepared` whose handle is not kept (any more).
    static func unknown(_ handle: Int64) -> DocumentsError {
        DocumentsError(
            .wrongEngine, "this documents engine plugin holds no prepared commit \(handle)",
            hint: "nothing was written; commit the mutations themselves (the host does so by itself)")
    }
}
