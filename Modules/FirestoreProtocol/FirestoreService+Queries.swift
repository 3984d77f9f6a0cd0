import Documents
import Foundation
import GRPCCore
import Logging
import SuiteServer
import SwiftProtobuf

/// The query calls: RunQuery (with vector search), RunAggregationQuery, PartitionQuery.
extension FirestoreService {
    func runQuery(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_RunQueryRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Firestore_V1_RunQueryResponse> {
        try await streaming("RunQuery", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.parent, what: "parent", caller: caller)
            try Self.refuseReadTime(Self.isSet(message.readTime))
            let translated = try database.values.query(
                message.structuredQuery, parent: message.parent, store: database.store)
            try await authorize(translated, caller: caller, in: database)
            let transaction = transaction(for: message, database: database)
            let explain = message.hasExplainOptions ? message.explainOptions : nil
            var explained: Google_Firestore_V1_ExplainMetrics?
            if let explain {
                explained = try await explainMetrics(translated, store: database.store, analyze: explain.analyze)
                if !explain.analyze {
                    var response = Google_Firestore_V1_RunQueryResponse()
                    response.explainMetrics = explained ?? Google_Firestore_V1_ExplainMetrics()
                    return [response]
                }
            }
            let started = ContinuousClock.now
            let snapshots = try await run(translated, in: database, transaction: transaction)
            if var metrics = explained {
                metrics.executionStats.resultsReturned = Int64(snapshots.count)
                let elapsed = ContinuousClock.now - started
                metrics.executionStats.executionDuration.seconds = elapsed.components.seconds
                metrics.executionStats.executionDuration.nanos = Int32(elapsed.components.attoseconds / 1_000_000_000)
                explained = metrics
            }
            let readTime = FirestoreValues.timestamp(Timestamp(Date()).microseconds)
            var responses = snapshots.map { snapshot in
                var response = Google_Firestore_V1_RunQueryResponse()
                response.document = database.values.document(snapshot, mask: translated.mask)
                response.readTime = readTime
                return response
            }
            if responses.isEmpty {
                var response = Google_Firestore_V1_RunQueryResponse()
                response.readTime = readTime
                responses.append(response)
            }
            if message.newTransactionOptions != nil, let transaction {
                responses[0].transaction = transaction
            }
            if let explained { responses[responses.count - 1].explainMetrics = explained }
            try await access.admit(caller, documentsRead: snapshots.count)
            metrics.documents(read: snapshots.count)
            return responses
        }
    }

    func runAggregationQuery(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_RunAggregationQueryRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Firestore_V1_RunAggregationQueryResponse> {
        try await streaming("RunAggregationQuery", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.parent, what: "parent", caller: caller)
            try Self.refuseReadTime(Self.isSet(message.readTime))
            let aggregation = message.structuredAggregationQuery
            var translated = try database.values.query(
                aggregation.structuredQuery, parent: message.parent, store: database.store)
            try await authorize(translated, caller: caller, in: database)
            guard !aggregation.aggregations.isEmpty, aggregation.aggregations.count <= 5 else {
                throw RPCError(
                    code: .invalidArgument, message: "An aggregation query needs from 1 to 5 aggregations")
            }
            let transaction = transaction(for: message, database: database)
            // Firestore counts, sums and averages over the documents that have every field the aggregations name.
            var fields: [FieldPath] = []
            for entry in aggregation.aggregations {
                switch entry.operator {
                case .sum(let sum)?: fields.append(try FirestoreValues.fieldPath(sum.field.fieldPath, what: "sum"))
                case .avg(let avg)?: fields.append(try FirestoreValues.fieldPath(avg.field.fieldPath, what: "avg"))
                default: break
                }
            }
            translated.mask = nil
            let documents = try await run(translated, in: database, transaction: transaction).filter { document in
                fields.allSatisfy { document.get($0) != nil }
            }
            var result = Google_Firestore_V1_AggregationResult()
            var aliases = Set<String>()
            for (index, entry) in aggregation.aggregations.enumerated() {
                let alias = entry.alias.isEmpty ? "field_\(index + 1)" : entry.alias
                guard aliases.insert(alias).inserted else {
                    throw RPCError(code: .invalidArgument, message: "Duplicate alias \(alias) in aggregations")
                }
                var counted = documents
                if case .count(let count)? = entry.operator, count.hasUpTo {
                    guard count.upTo.value > 0 else {
                        throw RPCError(code: .invalidArgument, message: "up_to must be greater than zero")
                    }
                    counted = Array(documents.prefix(Int(clamping: count.upTo.value)))
                }
                result.aggregateFields[alias] = database.values.proto(try Self.aggregate(entry, over: counted))
            }
            var response = Google_Firestore_V1_RunAggregationQueryResponse()
            response.result = result
            response.readTime = FirestoreValues.timestamp(Timestamp(Date()).microseconds)
            if message.newTransactionOptions != nil, let transaction {
                response.transaction = transaction
            }
            return [response]
        }
    }

    func partitionQuery(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_PartitionQueryRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_PartitionQueryResponse> {
        try await unary("PartitionQuery", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.parent, what: "parent", caller: caller)
            try Self.refuseReadTime(Self.isSet(message.readTime))
            let translated = try database.values.query(
                message.structuredQuery, parent: message.parent, store: database.store)
            try await authorize(translated, caller: caller, in: database)
            guard message.partitionCount > 0 else {
                throw RPCError(code: .invalidArgument, message: "partition_count must be positive")
            }
            // One partition (no cursors): the whole query, which the protocol allows.
            return Google_Firestore_V1_PartitionQueryResponse()
        }
    }

    // MARK: Explain

    /// Firestore's explain metrics from Suite's planner: the indexes used (each `{query_scope, properties}`), and
    /// with `analyze` the index entries and documents the query read.
    func explainMetrics(_ translated: TranslatedQuery, store: DocumentStore, analyze: Bool) async throws
        -> Google_Firestore_V1_ExplainMetrics
    {
        let query = translated.query
        let plan = try await withAutoIndexes(store) { try await query.explain() }
        var metrics = Google_Firestore_V1_ExplainMetrics()
        metrics.planSummary.indexesUsed = plan.indexes.map { index in
            var entry = Google_Protobuf_Struct()
            entry.fields["query_scope"] = Google_Protobuf_Value(
                stringValue: plan.collectionGroup ? "Collection group" : "Collection")
            entry.fields["properties"] = Google_Protobuf_Value(stringValue: index)
            return entry
        }
        if analyze {
            metrics.executionStats.readOperations = Int64(plan.documentsRead)
            metrics.executionStats.debugStats.fields = [
                "index_entries_scanned": Google_Protobuf_Value(stringValue: "\(plan.indexEntriesScanned)"),
                "documents_scanned": Google_Protobuf_Value(stringValue: "\(plan.documentsRead)"),
                "strategy": Google_Protobuf_Value(stringValue: plan.strategy),
            ]
        }
        return metrics
    }

    // MARK: Running

    /// The transaction a read names: an existing one, or one begun for it (nil outside a transaction).
    func transaction(for request: some ReadsInTransaction, database: Database) -> Data? {
        if let options = request.newTransactionOptions {
            return transactions.begin(store: database.store, database: database.names.database, options: options)
        }
        return request.transaction.isEmpty ? nil : request.transaction
    }

    /// A query is allowed only when the rules allow reading every document it could return (with path rules: its
    /// collection, and a collection group only for admins, as in the JSON API).
    func authorize(_ query: TranslatedQuery, caller: ServerAccounts.Account, in database: Database) async throws {
        try await access.requireList(caller, query, in: database)
    }

    /// Runs a translated query: offset and limit, a collection group's scope, vector search; in a transaction the
    /// documents read are recorded.
    func run(_ translated: TranslatedQuery, in database: Database, transaction: Data?) async throws
        -> [DocumentSnapshot]
    {
        if translated.limit == 0 { return [] }
        var query = translated.query
        let pushLimit = translated.scope == nil && translated.nearest == nil
        if pushLimit, let limit = translated.limit {
            let (total, overflow) = limit.addingReportingOverflow(translated.offset)
            query = query.limit(overflow ? Int.max : total)
        }
        var documents = try await withAutoIndexes(database.store) { try await query.getDocuments().documents }
        if let scope = translated.scope { documents = documents.filter { $0.path.string.hasPrefix(scope) } }
        if let nearest = translated.nearest {
            documents = try Self.nearest(nearest, in: documents, values: database.values)
        }
        documents = Array(documents.dropFirst(translated.offset))
        if !pushLimit || translated.nearest != nil, let limit = translated.limit {
            documents = Array(documents.prefix(limit))
        }
        if let transaction, !transaction.isEmpty {
            let entry = try transactions.entry(transaction, database: database.names.database)
            for document in documents { entry.transaction.record(document) }
            // A read-only transaction's reads must hold at one moment: the query's results and the reads before it.
            if entry.readOnly { _ = try await entry.transaction.getDocumentsAtOneMoment([]) }
        }
        return documents
    }

    /// Runs `body`; with auto indexes (as Firestore's emulator, which needs no index declared), a composite index
    /// the query misses is declared and the query run again.
    func withAutoIndexes<T>(_ store: DocumentStore, _ body: () async throws -> T) async throws -> T {
        var declared = 0
        while true {
            do {
                return try await body()
            } catch let error as DocumentsError where error.code == .missingIndex && autoIndexes && declared < 8 {
                guard let missing = error.underlying as? MissingIndex else { throw error }
                logger.info("declaring the index \(missing.definition.description) (auto indexes)")
                try await store.declareIndex(missing.definition)
                declared += 1
            }
        }
    }

    /// One aggregation over the documents a query returned: count, sum (an integer while every addend is one and
    /// it does not overflow), average (a double, null without numbers).
    static func aggregate(
        _ aggregation: Google_Firestore_V1_StructuredAggregationQuery.Aggregation, over documents: [DocumentSnapshot]
    ) throws -> DocumentValue {
        switch aggregation.operator {
        case .count?:
            return .int(Int64(documents.count))
        case .sum(let sum)?:
            let field = try FirestoreValues.fieldPath(sum.field.fieldPath, what: "sum")
            var integer: Int64 = 0
            var double = 0.0
            var isDouble = false
            for document in documents {
                switch document.get(field) {
                case .int(let n)?:
                    let (next, overflow) = integer.addingReportingOverflow(n)
                    if overflow || isDouble {
                        isDouble = true
                        double += Double(n)
                    } else {
                        integer = next
                    }
                case .double(let d)?:
                    isDouble = true
                    double += d
                default: continue
                }
            }
            return isDouble ? .double(double + Double(integer)) : .int(integer)
        case .avg(let avg)?:
            let field = try FirestoreValues.fieldPath(avg.field.fieldPath, what: "avg")
            var total = 0.0
            var count = 0
            for document in documents {
                switch document.get(field) {
                case .int(let n)?: total += Double(n)
                case .double(let d)?: total += d
                default: continue
                }
                count += 1
            }
            return count == 0 ? .null : .double(total / Double(count))
        case nil:
            throw RPCError(code: .invalidArgument, message: "An aggregation needs count, sum or avg")
        }
    }
}

/// A read request that may run in a transaction, or begin one (`new_transaction`).
protocol ReadsInTransaction {
    /// The transaction's id, empty when none.
    var transaction: Data { get }
    /// The options of a transaction to begin for this read.
    var newTransactionOptions: Google_Firestore_V1_TransactionOptions? { get }
}

extension Google_Firestore_V1_RunQueryRequest: ReadsInTransaction {
    var newTransactionOptions: Google_Firestore_V1_TransactionOptions? {
        if case .newTransaction(let options)? = consistencySelector { options } else { nil }
    }
}

extension Google_Firestore_V1_RunAggregationQueryRequest: ReadsInTransaction {
    var newTransactionOptions: Google_Firestore_V1_TransactionOptions? {
        if case .newTransaction(let options)? = consistencySelector { options } else { nil }
    }
}

extension Google_Firestore_V1_BatchGetDocumentsRequest: ReadsInTransaction {
    var newTransactionOptions: Google_Firestore_V1_TransactionOptions? {
        if case .newTransaction(let options)? = consistencySelector { options } else { nil }
    }
}
