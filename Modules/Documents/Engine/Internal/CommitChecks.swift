/// A commit's check-only mutations (``DocumentMutation/Kind-swift.enum/check``) apart from its writes: an engine
/// applies the writes as before and verifies each check, in the same atomic step, against the state the writes before
/// it leave.
struct CommitChecks: Sendable {
    struct Check: Sendable {
        /// The check's position among all mutations.
        var position: Int
        var path: String
        var precondition: WritePrecondition
        /// The position in ``CommitChecks/writes`` of the last write of the same path before the check, if any.
        var afterWrite: Int?
    }

    /// The mutations that write, in order.
    var writes: [DocumentMutation]
    var checks: [Check] = []
    /// The number of mutations, checks included.
    let count: Int

    init(_ mutations: [DocumentMutation]) {
        count = mutations.count
        guard mutations.contains(where: { if case .check = $0.kind { true } else { false } }) else {
            writes = mutations
            return
        }
        writes = []
        var lastWrite: [String: Int] = [:]
        for (position, mutation) in mutations.enumerated() {
            if case .check = mutation.kind {
                checks.append(
                    Check(
                        position: position, path: mutation.path, precondition: mutation.precondition,
                        afterWrite: lastWrite[mutation.path]))
            } else {
                lastWrite[mutation.path] = writes.count
                writes.append(mutation)
            }
        }
    }

    /// Verifies the checks that no earlier write of the commit shadows, against `currentVersion(path)` (`nil`: the
    /// document does not exist): call it before applying the writes.
    func verifyUnshadowed(currentVersion: (String) throws -> Int64?) throws {
        for check in checks where check.afterWrite == nil && check.precondition != .none {
            try check.precondition.check(path: check.path, currentVersion: try currentVersion(check.path))
        }
    }

    /// Verifies the checks that follow a write of their path, against the writes' `results`.
    func verifyShadowed(results: [StoredDocument?]) throws {
        for check in checks {
            guard let write = check.afterWrite else { continue }
            try check.precondition.check(path: check.path, currentVersion: results[write]?.version)
        }
    }

    /// `result` (of the writes) with a `nil` document at each check's position.
    func merge(_ result: CommitResult) -> CommitResult {
        if checks.isEmpty { return result }
        var documents: [StoredDocument?] = Array(repeating: nil, count: count)
        var next = 0
        var checkIndex = 0
        for position in 0..<count {
            if checkIndex < checks.count, checks[checkIndex].position == position {
                checkIndex += 1
            } else {
                documents[position] = next < result.documents.count ? result.documents[next] : nil
                next += 1
            }
        }
        return CommitResult(sequence: result.sequence, documents: documents)
    }
}
