import Documents
import DocumentsPluginSupport
import Foundation
import SuiteCore
import SuiteTestSupport

/// What one engine answered to a generated query, in a form compared exactly: each document's path and its data
/// rendered canonically (doubles by value with NaN and -0.0 spelled out, map keys sorted), an aggregation's value, or
/// an error's code.
enum FuzzOutcome: Equatable, CustomStringConvertible {
    case documents([String])
    case aggregate(String)
    case error(String)

    var description: String {
        switch self {
        case .documents(let rows): "\(rows.count) documents" + rows.map { "\n      " + $0 }.joined()
        case .aggregate(let value): "aggregate " + value
        case .error(let code): "error " + code
        }
    }

    var isError: Bool { if case .error = self { true } else { false } }
}

/// A store on each engine the fuzzer compares: memory, SQLite (with small index runs, so scans merge several) and
/// the `postgres` plugin through the plugin adapter.
struct FuzzStores {
    var stores: [(name: String, store: DocumentStore)]

    /// `SUITE_QUERY_FUZZ_VERBOSE` set: print every query, its answer and the errors' messages.
    static let verbose = ProcessInfo.processInfo.environment["SUITE_QUERY_FUZZ_VERBOSE"] != nil

    static func open() async throws -> FuzzStores {
        var options = DocumentStore.Options()
        options.indexRefreshInterval = .zero
        let clock = ManualWallClock()
        func store(_ engine: any DocumentEngine) -> DocumentStore {
            DocumentStore(engine: engine, clock: clock, options: options)
        }
        let sqlite = try SQLiteDocumentEngine(path: TestSupport.temporaryFile("query-fuzz.sqlite"))
        let postgres = try PostgresFixture.engine(try await PostgresFixture.options(extra: ["pool-size": 2]))
        return FuzzStores(stores: [
            ("memory", store(InMemoryDocumentEngine())), ("sqlite", store(sqlite)), ("postgres", store(postgres)),
        ])
    }

    /// Opens stores holding `documents`, its indexes declared first.
    static func open(with documents: FuzzDocumentSet) async throws -> FuzzStores {
        let stores = try await open()
        for (_, store) in stores.stores {
            for index in documents.indexes { try await store.declareIndex(index) }
            for commit in documents.commits {
                let batch = store.batch()
                for write in commit {
                    let reference = try store.document(write.path)
                    if let data = write.data {
                        batch.setData(data, forDocument: reference)
                    } else {
                        batch.deleteDocument(reference)
                    }
                }
                try await batch.commit()
            }
        }
        return stores
    }

    func close() async {
        for (_, store) in stores { await store.close() }
    }

    /// Runs `query` on every store; declares the index the engines all ask for (as Firestore's emulator does) and
    /// runs again, at most `declaring` times.
    func run(_ query: FuzzQuery, declaring: inout Int) async -> [FuzzOutcome] {
        while true {
            var outcomes: [FuzzOutcome] = []
            var missing: IndexDefinition?
            for (_, store) in stores {
                let (outcome, index) = await Self.run(query, on: store)
                outcomes.append(outcome)
                missing = missing ?? index
            }
            guard declaring > 0, let missing, outcomes.allSatisfy({ $0 == .error("missingIndex") }) else {
                return outcomes
            }
            declaring -= 1
            do {
                for (_, store) in stores { try await store.declareIndex(missing) }
            } catch {
                // The engines ask for an index that cannot be declared (see QUERY-FUZZ-FINDINGS.md).
                if FuzzStores.verbose { print("  cannot declare \(missing): \(error)") }
                return outcomes.map { _ in .error("unservable index") }
            }
        }
    }

    /// Runs `fuzz` on `store`; with the index a `missingIndex` error names.
    static func run(_ fuzz: FuzzQuery, on store: DocumentStore) async -> (FuzzOutcome, IndexDefinition?) {
        do {
            var query: Query
            switch fuzz.target {
            case .collection(let path): query = try store.collection(path).query
            case .group(let id): query = try store.collectionGroup(id)
            }
            for filter in fuzz.filters { query = query.whereFilter(filter.filter) }
            for order in fuzz.orders { query = query.order(by: order.field, descending: order.descending) }
            if let limit = fuzz.limit { query = fuzz.limitToLast ? query.limit(toLast: limit) : query.limit(to: limit) }
            if let start = fuzz.start {
                switch start.source {
                case .values(let values):
                    query = start.inclusive ? query.start(at: values) : query.start(after: values)
                case .document(let path):
                    let snapshot = try await store.document(path).getDocument()
                    query = start.inclusive ? query.start(atDocument: snapshot) : query.start(afterDocument: snapshot)
                }
            }
            if let end = fuzz.end {
                switch end.source {
                case .values(let values):
                    query = end.inclusive ? query.end(at: values) : query.end(before: values)
                case .document(let path):
                    let snapshot = try await store.document(path).getDocument()
                    query = end.inclusive ? query.end(atDocument: snapshot) : query.end(beforeDocument: snapshot)
                }
            }
            if let aggregate = fuzz.aggregate {
                let field: AggregateField =
                    switch aggregate {
                    case .count: .count
                    case .sum(let name): .sum(name)
                    case .average(let name): .average(name)
                    }
                let snapshot = try await query.aggregate([field]).get()
                return (.aggregate(FuzzRender.value(snapshot.values.first?.value ?? .null)), nil)
            }
            let snapshot = try await query.getDocuments()
            return (.documents(snapshot.documents.map { FuzzRender.row($0.path.string, $0.data ?? [:]) }), nil)
        } catch let error as DocumentsError {
            if verbose { print("  \(error.code): \(error.message)") }
            return (.error(error.code.description), (error.underlying as? MissingIndex)?.definition)
        } catch {
            return (.error("\(type(of: error)): \(error)"), nil)
        }
    }

    /// The model's answer as an outcome.
    static func expected(_ query: FuzzQuery, _ documents: FuzzDocumentSet) -> FuzzOutcome? {
        switch QueryFuzzModel.run(query, documents.finalDocuments) {
        case nil: nil
        case .documents(let rows): .documents(rows.map { FuzzRender.row($0.path, $0.data) })
        case .aggregate(let value): .aggregate(FuzzRender.value(value))
        }
    }
}

/// A difference: which engines answered what, and what Firestore's semantics expect.
struct FuzzDifference: CustomStringConvertible {
    var seed: UInt64
    var queryNumber: Int
    var documents: FuzzDocumentSet
    var query: FuzzQuery
    var outcomes: [(name: String, outcome: FuzzOutcome)]
    var expected: FuzzOutcome?

    var description: String {
        var text = "query differential: seed \(seed), query \(queryNumber)\n  query: \(FuzzRender.query(query))\n"
        for (name, outcome) in outcomes { text += "  \(name): \(outcome)\n" }
        text += "  Firestore's semantics: " + (expected.map { "\($0)" } ?? "(not judged)") + "\n"
        text += "  documents (\(documents.finalDocuments.count) after \(documents.commits.count) commits):\n"
        for index in documents.indexes { text += "    declared index \(index.description)\n" }
        for (number, commit) in documents.commits.enumerated() {
            text += "    commit \(number + 1):\n"
            for write in commit {
                text += "      " + (write.data.map { FuzzRender.row(write.path, $0) } ?? "\(write.path) deleted") + "\n"
            }
        }
        return text
    }
}

/// Checks one generated query against every engine and the model.
enum FuzzCheck {
    /// What the engines answered and the model expects, and whether they differ: the engines disagree with each
    /// other, or answer where the model expects a refusal, or answer other than the model.
    static func check(
        _ query: FuzzQuery, on stores: FuzzStores, documents: FuzzDocumentSet, declaring: inout Int
    ) async -> (outcomes: [FuzzOutcome], expected: FuzzOutcome?, differs: Bool) {
        let outcomes = await stores.run(query, declaring: &declaring)
        let expected = FuzzStores.expected(query, documents)
        guard let first = outcomes.first else { return (outcomes, expected, false) }
        let differs =
            Set(outcomes.map(\.description)).count > 1 || (!first.isError && expected != first)
        return (outcomes, expected, differs)
    }

    /// Drops documents one at a time while the query still shows a difference; returns the smallest set found.
    static func shrink(_ query: FuzzQuery, _ documents: FuzzDocumentSet) async -> FuzzDocumentSet {
        var current = documents
        var attempts = 0
        var progress = true
        while progress && attempts < 60 {
            progress = false
            for path in current.paths {
                attempts += 1
                let candidate = current.dropping(path)
                guard let stores = try? await FuzzStores.open(with: candidate) else { continue }
                var declaring = 4
                let still = await check(query, on: stores, documents: candidate, declaring: &declaring)
                await stores.close()
                if still.differs {
                    current = candidate
                    progress = true
                    break
                }
                if attempts >= 60 { break }
            }
        }
        return current
    }
}

/// Canonical text of values, rows and queries for comparison and reproductions.
enum FuzzRender {
    static func row(_ path: String, _ data: DocumentData) -> String { "\(path) \(value(.map(data)))" }

    static func value(_ value: DocumentValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return "\(b)"
        case .int(let n): return ".int(\(n))"
        case .double(let d): return d.isNaN ? ".double(.nan)" : ".double(\(d))"
        case .timestamp(let t): return ".timestamp(\(t.microseconds))"
        case .string(let s): return s.debugDescription
        case .bytes(let b): return ".bytes(\(b))"
        case .reference(let r): return ".reference(\(r.debugDescription))"
        case .geoPoint(let g): return ".geoPoint(\(g.latitude), \(g.longitude))"
        case .array(let list): return "[" + list.map(Self.value).joined(separator: ", ") + "]"
        case .map(let map):
            if map.isEmpty { return "[:]" }
            let keys = QueryFuzzModel.sortedKeys(map)
            return "[" + keys.map { "\($0.debugDescription): \(Self.value(map[$0] ?? .null))" }.joined(separator: ", ")
                + "]"
        }
    }

    static func filter(_ filter: FuzzFilter) -> String {
        switch filter {
        case .field(let field, let op, let operand): "(\(field) \(op.rawValue) \(value(operand)))"
        case .and(let children): "and(" + children.map(Self.filter).joined(separator: ", ") + ")"
        case .or(let children): "or(" + children.map(Self.filter).joined(separator: ", ") + ")"
        }
    }

    static func cursor(_ cursor: FuzzCursor, start: Bool) -> String {
        let name = start ? (cursor.inclusive ? "startAt" : "startAfter") : (cursor.inclusive ? "endAt" : "endBefore")
        switch cursor.source {
        case .values(let values): return ".\(name)(" + values.map(value).joined(separator: ", ") + ")"
        case .document(let path): return ".\(name)(document \(path))"
        }
    }

    static func query(_ query: FuzzQuery) -> String {
        var text =
            switch query.target {
            case .collection(let path): "collection(\(path))"
            case .group(let id): "collectionGroup(\(id))"
            }
        for filter in query.filters { text += ".where" + self.filter(filter) }
        for order in query.orders { text += ".orderBy(\(order.field)\(order.descending ? " desc" : ""))" }
        if let limit = query.limit { text += query.limitToLast ? ".limitToLast(\(limit))" : ".limit(\(limit))" }
        if let start = query.start { text += cursor(start, start: true) }
        if let end = query.end { text += cursor(end, start: false) }
        switch query.aggregate {
        case nil: break
        case .count: text += ".count()"
        case .sum(let field): text += ".sum(\(field))"
        case .average(let field): text += ".average(\(field))"
        }
        return text
    }
}
