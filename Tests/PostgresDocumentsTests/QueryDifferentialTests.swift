import Documents
import Foundation
import Testing

// A differential fuzzer for queries, as SQLite's and CockroachDB's query layers are kept honest: random documents
// and random queries run on the memory engine, the SQLite engine and the `postgres` plugin must give the same
// answer — the same documents in the same order, the same aggregation, or the same error code — and that answer must
// be what Firestore's semantics give (QueryFuzzModel). A difference fails the test with a reproduction: the seed, the
// documents (shrunk: documents dropped while the difference stays) and the query.
//
// CI runs a fixed set of seeds. A long run (`make fuzz`):
//   SUITE_QUERY_FUZZ_SECONDS=600 [SUITE_QUERY_FUZZ_SEED=<first seed>] \
//     swift test --skip-build --disable-xctest --filter QueryDifferentialTests
// Each document set is one seed (the first is SUITE_QUERY_FUZZ_SEED, default the time); a reported seed replays
// with SUITE_QUERY_FUZZ_SEED=<seed> SUITE_QUERY_FUZZ_SETS=1.

/// Counts of one fuzzing run.
struct FuzzTally: CustomStringConvertible {
    var sets = 0
    var queries = 0
    var answered = 0
    var refused: [String: Int] = [:]
    var indexesDeclared = 0
    var differences: [FuzzDifference] = []

    var description: String {
        let errors = refused.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "\(sets) document sets, \(queries) queries: \(answered) answered alike and as Firestore would, "
            + "refused alike: [\(errors)], \(indexesDeclared) indexes declared on demand, "
            + "\(differences.count) differences"
    }
}

@Suite("Query differential: memory, SQLite and PostgreSQL against Firestore's semantics", .serialized)
struct QueryDifferentialTests {
    static let ciSeeds: [UInt64] = [1, 2, 3, 4, 5, 6]
    static let queriesPerSet = 50

    /// The fixed seeds (CI); with `SUITE_QUERY_FUZZ_SECONDS` set, the long run of `make fuzz` instead (one test, so
    /// that no run shows a skipped test).
    @Test func enginesAgreeWithEachOtherAndWithFirestore() async throws {
        if ProcessInfo.processInfo.environment["SUITE_QUERY_FUZZ_SECONDS"] != nil { return try await longRun() }
        var tally = FuzzTally()
        for seed in Self.ciSeeds {
            try await Self.fuzz(seed: seed, queries: Self.queriesPerSet, tally: &tally)
        }
        print("query differential (CI seeds): \(tally)")
        for difference in tally.differences { Issue.record("\(difference)") }
        #expect(tally.queries == Self.ciSeeds.count * Self.queriesPerSet)
    }

    /// The long mode: document sets from consecutive seeds until `SUITE_QUERY_FUZZ_SECONDS` have passed.
    func longRun() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = Double(environment["SUITE_QUERY_FUZZ_SECONDS"] ?? "") ?? 60
        let sets = environment["SUITE_QUERY_FUZZ_SETS"].flatMap { Int($0) }
        var seed = environment["SUITE_QUERY_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64(Date().timeIntervalSince1970)
        print("query differential: long run of \(seconds) s from seed \(seed)")
        let deadline = Date().addingTimeInterval(seconds)
        var tally = FuzzTally()
        while Date() < deadline, tally.differences.count < 20, sets.map({ tally.sets < $0 }) ?? true {
            try await Self.fuzz(seed: seed, queries: 100, tally: &tally)
            seed &+= 1
            if tally.sets % 10 == 0 { print("query differential: \(tally)") }
        }
        print("query differential (long run, last seed \(seed &- 1)): \(tally)")
        for difference in tally.differences { Issue.record("\(difference)") }
    }

    /// One document set from `seed` and `queries` queries on it.
    static func fuzz(seed: UInt64, queries: Int, tally: inout FuzzTally) async throws {
        var generator = QueryFuzzGenerator(seed: seed)
        let documents = generator.documentSet()
        let stores = try await FuzzStores.open(with: documents)
        tally.sets += 1
        var declaring = 12
        for number in 1...queries {
            let query = generator.query(documents: documents)
            tally.queries += 1
            let before = declaring
            let found = await FuzzCheck.check(query, on: stores, documents: documents, declaring: &declaring)
            tally.indexesDeclared += before - declaring
            if FuzzStores.verbose {
                print("seed \(seed) query \(number): \(FuzzRender.query(query)) -> \(found.outcomes[0])")
            }
            guard found.differs else {
                if case .error(let code) = found.outcomes[0] {
                    tally.refused[code, default: 0] += 1
                } else {
                    tally.answered += 1
                }
                continue
            }
            let shrunk = await FuzzCheck.shrink(query, documents)
            var outcomes = found.outcomes
            var expected = found.expected
            if let smaller = try? await FuzzStores.open(with: shrunk) {
                var budget = 4
                let again = await FuzzCheck.check(query, on: smaller, documents: shrunk, declaring: &budget)
                if again.differs { (outcomes, expected) = (again.outcomes, again.expected) }
                await smaller.close()
            }
            let difference = FuzzDifference(
                seed: seed, queryNumber: number, documents: shrunk, query: query,
                outcomes: zip(stores.stores.map(\.name), outcomes).map { (name: $0, outcome: $1) },
                expected: expected)
            print(difference)
            tally.differences.append(difference)
        }
        await stores.close()
    }
}
