import Synchronization

/// A check of a commit's writes made inside the commit, once each write is resolved against the documents as they
/// are at that moment: how `suite serve` applies rules that judge the data. It throws (as a rule
/// ``DocumentsError/Code-swift.struct/permissionDenied``) to refuse the whole commit.
///
/// What the review read is protected like a transaction's reads: if a document it saw changes before the commit
/// lands, the commit is resolved and reviewed again.
package struct CommitReview: Sendable {
    /// One write as the review sees it.
    package struct Write: Sendable {
        /// The document.
        package var path: DocumentPath
        /// The document before the commit; nil when it was missing, or not read (``isBeforeKnown`` false).
        package var before: DocumentData?
        /// Whether `before` was read: false for a blind write the review said it can judge without
        /// (``needsBefore``).
        package var isBeforeKnown: Bool
        /// The document after this write; nil when the write deletes it.
        package var after: DocumentData?
        /// Whether the write may only create the document (its precondition: it does not exist).
        package var mustCreate: Bool = false
    }

    /// The check.
    package var review: @Sendable (_ writes: [Write], _ documents: CommitDocuments) async throws -> Void
    /// Whether judging a write to this path needs the document as it was (a blind set need not read it otherwise).
    package var needsBefore: @Sendable (_ path: DocumentPath) -> Bool

    /// Creates a review.
    package init(
        needsBefore: @escaping @Sendable (_ path: DocumentPath) -> Bool = { _ in true },
        _ review: @escaping @Sendable (_ writes: [Write], _ documents: CommitDocuments) async throws -> Void
    ) {
        self.needsBefore = needsBefore
        self.review = review
    }
}

/// Other documents as a commit's review reads them: as stored before the commit, or as the commit leaves them.
package final class CommitDocuments: Sendable {
    private let engine: any DocumentEngine
    /// Each written path's final data (nil: deleted).
    private let written: ExactKeyDictionary<DocumentData?>
    /// Each written path's data before the commit.
    private let before: ExactKeyDictionary<DocumentData?>
    /// By the paths' bytes, as the maps above: canonically equivalent paths are two documents.
    private let reads = Mutex(ExactKeyDictionary<StoredDocument?>())

    init(
        engine: any DocumentEngine, written: ExactKeyDictionary<DocumentData?>,
        before: ExactKeyDictionary<DocumentData?>
    ) {
        self.engine = engine
        self.written = written
        self.before = before
    }

    /// The document at `path` before the commit, or after it when `after`; nil when missing.
    package func document(_ path: String, after: Bool) async throws -> DocumentData? {
        if after, let final = written[path] { return final }
        if let known = before[path] { return known }
        if let stored = reads.withLock({ $0[path] }) { return try stored.map { try ValueCodec.decode($0.body) } }
        let stored = try await engine.documents(at: [path]).first ?? nil
        reads.withLock { $0[path] = stored }
        return try stored.map { try ValueCodec.decode($0.body) }
    }

    /// Check-only mutations for the documents read that the commit does not write: the commit fails (and is retried)
    /// if one of them changed.
    func checks() -> [DocumentMutation] {
        reads.withLock { reads in
            // A document the commit also writes is not checked after its own write (its version has moved on).
            reads.keys.filter { written[$0] == nil }.sorted().map { path in
                DocumentMutation(
                    path: path, kind: .check,
                    precondition: (reads[path] ?? nil).map { .version($0.version) } ?? .exists(false))
            }
        }
    }
}
