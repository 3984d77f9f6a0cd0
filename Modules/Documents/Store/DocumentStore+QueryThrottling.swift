import Synchronization

/// One query execution's result, shared by the calls that coalesced on it (``QueryCoalescing``).
struct SharedQueryResult: Sendable {
    var documents: [DocumentSnapshot]
    var sequence: Int64
    /// The reads the execution was billed: what each call sharing it saved.
    var billedReads: Int64
}

extension DocumentStore {
    /// Runs a one-shot query: shared with an identical running execution when coalescing is on, rate-limited, billed
    /// once per execution.
    func runQuery(_ query: Query, whenRateLimited behavior: QueryRateLimit.Behavior?) async throws -> QuerySnapshot {
        let behavior = behavior ?? options.queryRateLimit?.whenLimited ?? .wait
        let shared: SharedQueryResult
        if let queryCoalescer {
            let key = QueryKey(try QueryRunner.normalize(query), behavior: behavior)
            let sequence = knownSequence.load(ordering: .relaxed)
            let outcome = try await queryCoalescer.run(key, sequence: sequence) { [self] in
                try await executeQuery(query, behavior)
            }
            if outcome.shared {
                recordQueryCounts(QueryThrottleCounts(coalesced: 1, readsSaved: outcome.value.billedReads))
            }
            shared = outcome.value
        } else {
            shared = try await executeQuery(query, behavior)
        }
        return marked(QuerySnapshot(documents: shared.documents, documentChanges: [], sequence: shared.sequence))
    }

    /// One execution of a query: a rate-limit token, the run, its bill.
    private func executeQuery(_ query: Query, _ behavior: QueryRateLimit.Behavior) async throws -> SharedQueryResult {
        try await admitQuery(behavior)
        let result = try await QueryRunner(query: query).run()
        let reads = Int64(max(1, result.documents.count))
        recordCost(kind: "query", collection: query.costCollection, CostCounts(reads: reads))
        return SharedQueryResult(documents: result.documents, sequence: result.sequence, billedReads: reads)
    }

    /// Takes a rate-limit token for one query execution (at once without a limit), counting waits and refusals.
    func admitQuery(_ behavior: QueryRateLimit.Behavior?) async throws {
        guard let queryLimiter else { return }
        do {
            let admission = try await queryLimiter.acquire(behavior ?? queryLimiter.limit.whenLimited)
            if case .waited(let wait) = admission {
                let (seconds, attoseconds) = wait.components
                let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
                recordQueryCounts(QueryThrottleCounts(throttled: 1, throttledWaitMicroseconds: microseconds))
            }
        } catch let error as DocumentsError where error.code == .rateLimited {
            recordQueryCounts(QueryThrottleCounts(rejected: 1))
            throw error
        }
    }

    /// Reads one document, shared with an identical running read when coalescing is on.
    func readDocument(_ path: DocumentPath) async throws -> DocumentSnapshot {
        guard let documentCoalescer else { return try await getDocuments([path])[0] }
        let sequence = knownSequence.load(ordering: .relaxed)
        let outcome = try await documentCoalescer.run(path.string, sequence: sequence) { [self] in
            let stored = try await engine.documents(at: [path.string])
            recordCost(kind: "get", collection: path.collection.collectionID, CostCounts(reads: 1))
            guard let document = stored.first ?? nil else { return DocumentSnapshot.missing(path) }
            return try DocumentSnapshot(stored: document, path: path)
        }
        if outcome.shared { recordQueryCounts(QueryThrottleCounts(coalesced: 1, readsSaved: 1)) }
        return marked([outcome.value])[0]
    }

    /// Adds coalescing and rate-limit counts to the cost counters.
    func recordQueryCounts(_ counts: QueryThrottleCounts) {
        let now = ContinuousClock.now
        let shouldFlush = state.withLock { state in
            state.pendingCosts.queries.add(counts)
            state.sessionCosts.queries.add(counts)
            return isFlushDue(&state, now: now)
        }
        if shouldFlush {
            Task { [weak self] in try? await self?.flushCosts() }
        }
    }
}
