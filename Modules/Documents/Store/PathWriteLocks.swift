import SuiteCore

/// Serializes this store's own writers of one document. A write that must read its document to resolve it (a
/// transform such as an increment, an update, a merge, a precondition) takes its document's lock for the read and the
/// commit, so writers of one document in this process queue instead of racing, failing their version check and
/// retrying: under many concurrent increments of a few documents, retries could otherwise run out and fail a write
/// that has no precondition. Writers in other processes (other servers on one PostgreSQL) still meet the commit's
/// version check and its retries.
///
/// Paths share 64 locks by hash; a commit takes its locks in ascending order, so two commits of several documents
/// cannot wait for each other. A commit started while the task already holds locks (a nested write) takes none.
struct PathWriteLocks: Sendable {
    private let gates: [AsyncGate]

    /// Set while the current task holds path locks.
    @TaskLocal static var held = false

    init(stripes: Int = 64) { gates = (0..<max(1, stripes)).map { _ in AsyncGate() } }

    /// Runs `body` holding the locks of `paths` (none when `paths` is empty or the task holds locks already).
    func withLocks<T: Sendable>(_ paths: [String], _ body: () async throws -> T) async throws -> T {
        if paths.isEmpty || Self.held { return try await body() }
        let stripes = Set(paths.map { Int(UInt(bitPattern: $0.hashValue) % UInt(gates.count)) }).sorted()
        for stripe in stripes { await gates[stripe].lock() }
        defer { for stripe in stripes.reversed() { gates[stripe].unlock() } }
        return try await Self.$held.withValue(true) { try await body() }
    }
}
