@_spi(Engine) import Documents
import Foundation
import NIOCore
import PostgresNIO

/// A commit worked out before it reaches the database: its plan (``PostgresCommitPlan``) and either its copy (a large
/// commit of unconditional puts, ``PostgresCopyCommit``) or the `commit_v3` call with every parameter encoded but the
/// commit time, which ``PostgresDocumentEngine/commit(_:_:)`` binds last. The bulk importer prepares its next chunk
/// this way (`prepareCommit`) while the chunk before writes.
struct PostgresPreparedCommit: Sendable {
    var plan: PostgresCommitPlan
    var mutationCount: Int
    /// The commit as `COPY`, when it can be one.
    var copy: PostgresCopyCommit?
    /// The `commit_v3` call; `nil` for a copy, which builds it only if it has to run it (``functionCall()``).
    private var function: PostgresQuery?
    private let schema: String
    private let json: Bool

    init(_ mutations: [DocumentMutation], schema: String, json: Bool) throws {
        let plan = try PostgresCommitPlan(mutations)
        self.plan = plan
        self.mutationCount = mutations.count
        self.schema = schema
        self.json = json
        self.copy = PostgresCopyCommit(plan, schema: schema, json: json)
        if copy == nil { function = try Self.functionCall(plan, schema: schema, json: json) }
    }

    /// The `commit_v3` call, but for its commit time (`$17`).
    func functionCall() throws -> PostgresQuery {
        if let function { return function }
        return try Self.functionCall(plan, schema: schema, json: json)
    }

    private static func functionCall(_ plan: PostgresCommitPlan, schema: String, json: Bool) throws -> PostgresQuery {
        var entryPaths: [String] = []
        var entryIndexes: [String] = []
        var entryKeys: [ByteBuffer] = []
        for write in plan.writes where write.body != nil {
            for entry in write.entries {
                entryPaths.append(write.path)
                entryIndexes.append(entry.index)
                entryKeys.append(PostgresDocumentEngine.buffer(entry.key))
            }
        }
        let writes = plan.writes
        let jsonTexts = json ? writes.map { $0.body.map(PostgresJSON.text) ?? "" } : writes.map { _ in "" }
        let empty = ByteBuffer()
        // Sixteen parameters, then the commit time as $17 (bound when the commit runs).
        let query: PostgresQuery = """
            SELECT sequence, failed, failed_version, create_times FROM \(unescaped: schema).commit_v3(
                $17::bigint, \(!writes.isEmpty),
                \(plan.checks.map(\.path))::text[], \(plan.checks.map(\.kind.rawValue))::smallint[],
                \(plan.checks.map(\.version))::bigint[], \(plan.requiredSequence)::bigint,
                \(writes.map(\.path))::text[], \(writes.map(\.parts.parent))::text[],
                \(writes.map(\.parts.collectionID))::text[],
                \(writes.map { PostgresDocumentEngine.buffer(EnginePath.nameKey($0.path)) })::bytea[],
                \(writes.map { $0.body != nil })::boolean[],
                \(writes.map { $0.body.map(PostgresDocumentEngine.buffer) ?? empty })::bytea[],
                \(writes.map(\.keepsCreateTime))::boolean[], \(jsonTexts)::text[],
                \(entryPaths)::text[], \(entryIndexes)::text[], \(entryKeys)::bytea[])
            """
        guard query.binds.count == 16 else {
            throw DocumentsError(
                .storage, "commit_v3 got \(query.binds.count) parameters before its commit time, not 16")
        }
        return query
    }
}

/// The bulk importer prepares its next chunk's `commit_v3` call (plan, encoded parameters) while the chunk before
/// writes. Through the plugin ABI this is the `prepareCommit` operation.
extension PostgresDocumentEngine: CommitPreparing {
    func prepareCommit(_ mutations: [DocumentMutation]) async throws -> PreparedCommit {
        if mutations.isEmpty { return PreparedCommit(mutations: mutations) }
        return PreparedCommit(
            mutations: mutations, engineWork: try PostgresPreparedCommit(mutations, schema: schema, json: options.json),
            preparedBy: instanceID)
    }

    func prepareCommit(_ puts: BulkPuts) async throws -> PreparedCommit {
        try await prepareCommit(puts.mutations())
    }

    func commit(_ prepared: PreparedCommit, commitTime: Int64) async throws -> CommitResult {
        guard let work = prepared.engineWork else {
            return try await commit(prepared.mutations, commitTime: commitTime)
        }
        guard prepared.preparedBy == instanceID, let own = work as? PostgresPreparedCommit else {
            throw PreparedCommit.wrongEngine()
        }
        return try await commit(own, commitTime)
    }
}
