import Foundation
import GRDB
import Logging
import Synchronization

extension SQLiteDocumentEngine: DocumentEngine {
    /// Applies the mutations in one write transaction; see ``DocumentEngine/commit(_:commitTime:)``.
    ///
    /// Mutations apply in order (a later mutation of a path sees the earlier one's result); a failing precondition
    /// rolls the whole transaction back. The change log gets one record per distinct path with its final state. An
    /// empty commit writes nothing and returns the current last sequence.
    @_spi(Engine) public func commit(_ mutations: [DocumentMutation], commitTime: Int64) async throws -> CommitResult {
        if mutations.isEmpty { return CommitResult(sequence: try await lastSequence(), documents: []) }
        let split = CommitChecks(mutations)
        return try await run(
            try CommitWork(split.writes, ahead: false, indexIDs: indexIDs, tuning: tuning), split, commitTime)
    }

    /// Works out, outside any transaction, what a bulk commit needs no database for: each put's own index entries
    /// (by index id, canonical) and their encoding, and — for the usual import of new documents — every entry as a
    /// put, sorted, ready to be written as a run. The bulk importer prepares its next chunk so while the previous one
    /// writes. Small commits prepare nothing: their work is small and the write follows at once.
    package func prepareCommit(_ mutations: [DocumentMutation]) async throws -> PreparedCommit {
        let writes = CommitChecks(mutations).writes
        return PreparedCommit(
            mutations: mutations,
            engineWork: writes.isEmpty
                ? nil : try CommitWork(writes, ahead: true, indexIDs: indexIDs, tuning: tuning),
            preparedBy: instanceID)
    }

    /// Prepares a bulk commit of puts from their flat entries (``BulkPuts``): ids for every index name (a new name
    /// is created in a short transaction of its own first), every entry sorted as a put straight from the batch, and
    /// each document's own-entry list encoded from the sorted buffer. No array per document or per key is built.
    package func prepareCommit(_ puts: BulkPuts) async throws -> PreparedCommit {
        let mutations = puts.paths.indices.map { i in
            DocumentMutation(path: puts.paths[i], kind: .put(body: puts.bodies[i], indexEntries: []))
        }
        if mutations.isEmpty { return PreparedCommit(mutations: []) }
        let ids = try await indexIDs(creating: puts.entries.names)
        return PreparedCommit(
            mutations: mutations,
            engineWork: try CommitWork(bulk: puts, mutations: mutations, ids: ids, tuning: tuning),
            preparedBy: instanceID)
    }

    /// The ids of the index names `names`, creating (and committing) those that do not exist yet.
    func indexIDs(creating names: [String]) async throws -> [Int64] {
        let known = indexIDs.snapshot()
        let missing = names.filter { known[$0] == nil }
        if missing.isEmpty { return names.map { known[$0]! } }
        let indexIDs = indexIDs
        let created = try await write { db in try missing.map { try indexIDs.idCreating($0, db) } }
        // Committed now: the ids are the file's for good.
        let ids = indexIDs.remember(zip(missing, created))
        return names.map { ids[$0]! }
    }

    /// Commits what ``prepareCommit(_:)`` prepared; see ``commit(_:commitTime:)-(Array<DocumentMutation>,_)``.
    ///
    /// - Throws: ``DocumentsError/Code-swift.struct/wrongEngine`` when another engine (instance) prepared it: its work
    ///   holds that engine's index ids.
    package func commit(_ prepared: PreparedCommit, commitTime: Int64) async throws -> CommitResult {
        let mutations = prepared.mutations
        let work: CommitWork?
        if let engineWork = prepared.engineWork {
            guard prepared.preparedBy == instanceID, let own = engineWork as? CommitWork else {
                throw PreparedCommit.wrongEngine(path: path)
            }
            work = own
        } else {
            work = nil
        }
        if mutations.isEmpty { return CommitResult(sequence: try await lastSequence(), documents: []) }
        let split = CommitChecks(mutations)
        return try await run(
            work ?? CommitWork(split.writes, ahead: false, indexIDs: indexIDs, tuning: tuning), split, commitTime)
    }

    /// Applies `split`'s writes and verifies its checks in one write transaction (checks that no write of the commit
    /// shadows before the writes, the others after them), so the checks hold at the commit's instant.
    private func run(_ work: CommitWork, _ split: CommitChecks, _ commitTime: Int64) async throws -> CommitResult {
        let indexIDs = indexIDs
        let writerPending = writerPending
        let tuning = tuning
        let mutations = split.writes
        let inline = mutations.count <= Self.inlineWriteLimit
        if !inline { try await waitForMerges() }
        let (result, maintain) = try await write(inline: inline) { db in
            if !split.checks.isEmpty {
                try split.verifyUnshadowed { path in try Self.currentVersion(of: path, db) }
                if mutations.isEmpty {
                    return (CommitResult(sequence: try Self.lastSequence(db), documents: []), false)
                }
            }
            let (result, maintain) = try Self.apply(
                mutations, work: work, commitTime: commitTime, indexIDs: indexIDs, writerPending: writerPending,
                tuning: tuning, db: db)
            try split.verifyShadowed(results: result.documents)
            return (result, maintain)
        }
        if maintain { maintenance.kick() }
        if !mutations.isEmpty { hasCommitted.store(true, ordering: .relaxed) }
        if !mutations.isEmpty && (result.sequence % Self.pruneInterval == 0 || mutations.count >= 1_000) {
            do {
                try await pruneChangeLog(steps: 1)
            } catch {
                logger.debug("change-log pruning failed", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
        return split.merge(result)
    }

    /// The version of the document at `path`, or `nil`; inside a transaction.
    static func currentVersion(of path: String, _ db: Database) throws -> Int64? {
        let parts = try EnginePath.split(document: path)
        let select = try SQLiteStatement(db, "SELECT version FROM documents WHERE parent = ?1 AND doc_id = ?2")
        defer { select.reset() }
        select.bind(parts.parent, at: 1)
        select.bind(parts.id, at: 2)
        return try select.step() ? select.int64(0) : nil
    }

    /// Backpressure on bulk commits: while there are more than ``IndexTuning/maximumRuns`` runs, waits for the
    /// background merges, at most ``IndexTuning/maximumMergeWait`` — suspended, not blocking a thread.
    private func waitForMerges() async throws {
        let deadline = ContinuousClock.now + tuning.maximumMergeWait
        var kicked = false
        while try read({ db in try RunInfo.count(db) }) > tuning.maximumRuns, ContinuousClock.now < deadline {
            if !kicked {
                maintenance.kick()
                kicked = true
            }
            guard maintenance.status().running else { return }  // nothing left that it can merge
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
