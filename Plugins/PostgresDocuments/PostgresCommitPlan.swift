@_spi(Engine) import Documents

/// A commit worked out before it reaches the database: what it requires of the documents as they are, the final
/// state of every path it writes, and how to build each mutation's result once the database has answered with the
/// commit's sequence and the create times the written documents had.
///
/// Mutations apply in order, so a precondition on a path an earlier mutation of the same commit wrote is decided here
/// (a delete left nothing; a put left a document whose version is the commit's own sequence — a requirement on the
/// sequence the database checks). Preconditions on paths the commit has not touched yet become requirements on the
/// stored documents, checked by `commit_v3` under the commit lock.
struct PostgresCommitPlan: Sendable {
    enum Requirement: Int16, Sendable {
        case exists = 1
        case absent = 2
        case version = 3
    }

    /// One requirement on a document as it is before the commit.
    struct Check: Sendable {
        var path: String
        var kind: Requirement
        var version: Int64
        /// The precondition it comes from, to report a failure in the engine's usual words.
        var precondition: WritePrecondition
    }

    /// The final state of one written path.
    struct Write: Sendable {
        var path: String
        var parts: EnginePath.Parts
        /// `nil` for a delete.
        var body: [UInt8]?
        var entries: [IndexEntry]
        /// Whether the final put keeps the create time the document had before the commit (no delete came first).
        var keepsCreateTime: Bool
    }

    /// What the path had become after each mutation, to build the results.
    private enum Step: Sendable {
        case check
        case delete
        case put(body: [UInt8], keepsCreateTime: Bool, write: Int)
    }

    var checks: [Check] = []
    var requiredSequence: Int64?
    var writes: [Write] = []
    private var steps: [Step] = []

    init(_ mutations: [DocumentMutation]) throws {
        enum State {
            case untouched
            case deleted
            case put(keepsCreateTime: Bool)
        }
        // By the path's UTF-8 bytes: Swift's strings are equal when canonically equivalent (`c/\u{E9}`, `c/e\u{301}`),
        // but those are two documents.
        var states: [[UInt8]: State] = [:]
        var writeIndex: [[UInt8]: Int] = [:]
        for mutation in mutations {
            let path = mutation.path
            let key = Array(path.utf8)
            let parts = try EnginePath.split(document: path)
            let state = states[key] ?? .untouched
            // The precondition, against the state this commit has left so far.
            switch state {
            case .untouched:
                switch mutation.precondition {
                case .none: break
                case .exists(true):
                    checks.append(Check(path: path, kind: .exists, version: 0, precondition: .exists(true)))
                case .exists(false):
                    checks.append(Check(path: path, kind: .absent, version: 0, precondition: .exists(false)))
                case .version(let version):
                    checks.append(Check(path: path, kind: .version, version: version, precondition: .version(version)))
                }
            case .deleted:
                try mutation.precondition.check(path: path, currentVersion: nil)
            case .put:
                switch mutation.precondition {
                case .none, .exists(true): break
                case .exists(false): try mutation.precondition.check(path: path, currentVersion: 0)
                case .version(let version):
                    if let required = requiredSequence, required != version {
                        try mutation.precondition.check(path: path, currentVersion: required)
                    }
                    requiredSequence = version
                }
            }
            switch mutation.kind {
            case .check:
                steps.append(.check)
            case .delete:
                states[key] = .deleted
                record(path, key: key, parts: parts, body: nil, entries: [], keeps: false, in: &writeIndex)
                steps.append(.delete)
            case .put(let body, let entries):
                let keeps: Bool
                switch state {
                case .untouched: keeps = true
                case .deleted: keeps = false
                case .put(let kept): keeps = kept
                }
                states[key] = .put(keepsCreateTime: keeps)
                let index = record(
                    path, key: key, parts: parts, body: body, entries: IndexEntryList.canonical(entries),
                    keeps: keeps, in: &writeIndex)
                steps.append(.put(body: body, keepsCreateTime: keeps, write: index))
            }
        }
    }

    @discardableResult
    private mutating func record(
        _ path: String, key: [UInt8], parts: EnginePath.Parts, body: [UInt8]?, entries: [IndexEntry], keeps: Bool,
        in index: inout [[UInt8]: Int]
    ) -> Int {
        let write = Write(path: path, parts: parts, body: body, entries: entries, keepsCreateTime: keeps)
        if let existing = index[key] {
            writes[existing] = write
            return existing
        }
        index[key] = writes.count
        writes.append(write)
        return writes.count - 1
    }

    /// The failure of check number `position` (from 0) for a document now at `version` (`nil`: none).
    func failure(ofCheck position: Int, currentVersion: Int64?) -> DocumentsError {
        let check = checks[position]
        do {
            try check.precondition.check(path: check.path, currentVersion: currentVersion)
        } catch let error as DocumentsError {
            return error
        } catch {}
        return DocumentsError(
            .preconditionFailed, "a precondition on '\(check.path)' did not hold",
            hint: "nothing was written; re-read the document and retry")
    }

    /// The failure when the commit would not get the sequence a version check of a document it writes asked for.
    func sequenceFailure(actual: Int64) -> DocumentsError {
        DocumentsError(
            .preconditionFailed,
            "a document this commit writes would be at version \(actual), not the \(requiredSequence ?? 0) checked",
            hint: "nothing was written; re-read the document and retry")
    }

    /// Each mutation's result: the document it left (a put) or `nil` (a delete or a check). `createTimes` are the
    /// written paths' create times before the commit (the commit's time for those that did not exist).
    func results(sequence: Int64, commitTime: Int64, createTimes: [Int64]) -> [StoredDocument?] {
        steps.map { step in
            guard case .put(let body, let keeps, let write) = step else { return nil }
            let created = keeps && write < createTimes.count ? createTimes[write] : commitTime
            return StoredDocument(
                path: writes[write].path, body: body, version: sequence, createTime: created, updateTime: commitTime)
        }
    }
}
