@_spi(Engine) import Documents
import Testing

// The contract's commits, preconditions, reads, scans, change log and metadata.

private func body(_ text: String) -> [UInt8] { Array(text.utf8) }

private func entry(_ index: String, _ key: [UInt8]) -> IndexEntry { IndexEntry(index: index, key: key) }

private func put(
    _ path: String,
    _ text: String = "body",
    entries: [IndexEntry] = [],
    _ precondition: WritePrecondition = .none
) -> DocumentMutation {
    DocumentMutation(path: path, kind: .put(body: body(text), indexEntries: entries), precondition: precondition)
}

private func delete(_ path: String, _ precondition: WritePrecondition = .none) -> DocumentMutation {
    DocumentMutation(path: path, kind: .delete, precondition: precondition)
}

private func expectPreconditionFailure(_ work: () async throws -> Void) async {
    do {
        try await work()
        Issue.record("expected a precondition failure")
    } catch let error as DocumentsError {
        #expect(error.code == .preconditionFailed)
    } catch {
        Issue.record("unexpected error \(error)")
    }
}

private func check(_ path: String, _ precondition: WritePrecondition) -> DocumentMutation {
    DocumentMutation(path: path, kind: .check, precondition: precondition)
}

extension DocumentEngineContract {
    // MARK: Checks (a transaction's reads)

    static func checksAreVerifiedWithTheCommitAndWriteNothing(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        let first = try await engine.commit([put("c/a", "a"), put("c/b", "b")], commitTime: 1)
        // Checks that hold: the commit writes only its put; a check's result is nil; no record for checked paths.
        let second = try await engine.commit(
            [check("c/a", .version(first.sequence)), put("c/w", "w"), check("c/missing", .exists(false))],
            commitTime: 2)
        #expect(second.sequence == first.sequence + 1)
        #expect(second.documents.count == 3)
        #expect(second.documents[0] == nil && second.documents[2] == nil)
        #expect(second.documents[1]?.path == "c/w")
        #expect(try await engine.changes(after: first.sequence, limit: 10).map(\.path) == ["c/w"])
        #expect(try await engine.document(at: "c/a")?.version == first.sequence)

        // A check that fails fails the whole commit: nothing is written.
        _ = try await engine.commit([put("c/b", "b2")], commitTime: 3)
        await expectPreconditionFailure {
            _ = try await engine.commit([check("c/b", .version(first.sequence)), put("c/x", "x")], commitTime: 4)
        }
        await expectPreconditionFailure {
            _ = try await engine.commit([put("c/y", "y"), check("c/a", .exists(false))], commitTime: 4)
        }
        #expect(try await engine.documents(at: ["c/x", "c/y"]) == [nil, nil])

        // Checks only: verified, nothing written, no sequence used.
        let last = try await engine.lastSequence()
        let checked = try await engine.commit(
            [check("c/a", .exists(true)), check("c/z", .exists(false))], commitTime: 5)
        #expect(checked.sequence == last)
        #expect(checked.documents == [nil, nil])
        #expect(try await engine.lastSequence() == last)
        await expectPreconditionFailure {
            _ = try await engine.commit([check("c/a", .version(last + 100))], commitTime: 5)
        }

        // A check after a write of its path sees that write; one before it sees the state before the commit.
        let shadowed = try await engine.commit(
            [check("c/n", .exists(false)), put("c/n", "n"), check("c/n", .exists(true))], commitTime: 6)
        #expect(shadowed.documents.map { $0?.path } == [nil, "c/n", nil])
        await expectPreconditionFailure {
            _ = try await engine.commit([delete("c/n"), check("c/n", .exists(true))], commitTime: 7)
        }
        #expect(try await engine.document(at: "c/n") != nil)
    }

    static func updateMetadataReadsAndWritesInOneStep(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        for _ in 0..<3 {
            try await engine.updateMetadata(forKey: "n") { bytes in [UInt8((bytes?.first ?? 0) + 1)] }
        }
        #expect(try await engine.metadata(forKey: "n") == [3])
        try await engine.updateMetadata(forKey: "n") { _ in nil }
        #expect(try await engine.metadata(forKey: "n") == nil)
    }

    // MARK: Commits and reads

    static func putThenReadBack(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        #expect(try await engine.lastSequence() == 0)
        let result = try await engine.commit([put("users/u1", "one"), put("users/u2", "two")], commitTime: 1_000)
        #expect(result.sequence == 1)
        let expected1 = StoredDocument(
            path: "users/u1", body: body("one"), version: 1, createTime: 1_000, updateTime: 1_000)
        let expected2 = StoredDocument(
            path: "users/u2", body: body("two"), version: 1, createTime: 1_000, updateTime: 1_000)
        #expect(result.documents == [expected1, expected2])
        let read = try await engine.documents(at: ["users/u2", "users/missing", "users/u1"])
        #expect(read == [expected2, nil, expected1])
        #expect(try await engine.document(at: "users/u1") == expected1)
        #expect(try await engine.lastSequence() == 1)
    }

    static func emptyBodyAndKeyRoundTrip(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit(
            [DocumentMutation(path: "c/d", kind: .put(body: [], indexEntries: [entry("i", [])]))],
            commitTime: 1
        )
        #expect(try await engine.document(at: "c/d")?.body == [])
        #expect(try await engine.scan(IndexScan(index: "i")) == [IndexHit(key: [], path: "c/d")])
    }

    static func versionsAreCommitSequences(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit([put("users/u1", "a")], commitTime: 10)
        _ = try await engine.commit([put("users/u2", "b")], commitTime: 20)
        let third = try await engine.commit([put("users/u1", "c")], commitTime: 30)
        #expect(third.sequence == 3)
        let u1 = try #require(try await engine.document(at: "users/u1"))
        #expect(u1.version == 3)
        #expect(u1.createTime == 10)
        #expect(u1.updateTime == 30)
        #expect(u1.body == body("c"))
        #expect(try await engine.document(at: "users/u2")?.version == 2)
        #expect(try await engine.lastSequence() == 3)
    }

    static func emptyCommitWritesNothing(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit([put("users/u1")], commitTime: 1)
        let result = try await engine.commit([], commitTime: 2)
        #expect(result == CommitResult(sequence: 1, documents: []))
        #expect(try await engine.lastSequence() == 1)
        #expect(try await engine.changes(after: 0, limit: 10).count == 1)
    }

    // MARK: Preconditions and atomicity

    static func preconditionsAreChecked(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit([put("users/u1", "v1", .exists(false))], commitTime: 1)
        await expectPreconditionFailure {
            _ = try await engine.commit([put("users/u1", "x", .exists(false))], commitTime: 2)
        }
        await expectPreconditionFailure {
            _ = try await engine.commit([put("users/u9", "x", .exists(true))], commitTime: 2)
        }
        await expectPreconditionFailure {
            _ = try await engine.commit([put("users/u1", "x", .version(7))], commitTime: 2)
        }
        await expectPreconditionFailure {
            _ = try await engine.commit([put("users/u9", "x", .version(1))], commitTime: 2)
        }
        await expectPreconditionFailure {
            _ = try await engine.commit([delete("users/u9", .exists(true))], commitTime: 2)
        }
        let updated = try await engine.commit([put("users/u1", "v2", .version(1))], commitTime: 3)
        #expect(updated.sequence == 2)
        _ = try await engine.commit([put("users/u1", "v3", .exists(true))], commitTime: 4)
        _ = try await engine.commit([delete("users/u1", .version(3))], commitTime: 5)
        #expect(try await engine.document(at: "users/u1") == nil)
        #expect(try await engine.lastSequence() == 4)
    }

    static func failingPreconditionChangesNothing(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit([put("users/u1", "old", entries: [entry("users|n", [1])])], commitTime: 1)
        await expectPreconditionFailure {
            _ = try await engine.commit(
                [
                    put("users/u1", "new", entries: [entry("users|n", [2])]),
                    put("users/u2", "new", entries: [entry("users|n", [3])]),
                    delete("users/u1"),
                    put("users/u3", "new", .version(99)),
                ],
                commitTime: 2
            )
        }
        #expect(try await engine.document(at: "users/u1")?.body == body("old"))
        #expect(try await engine.document(at: "users/u2") == nil)
        #expect(try await engine.scan(IndexScan(index: "users|n")) == [IndexHit(key: [1], path: "users/u1")])
        #expect(try await engine.lastSequence() == 1)
        #expect(try await engine.changes(after: 0, limit: 100).count == 1)
        #expect(try await engine.documents(inCollection: "users", after: nil, limit: nil).map(\.path) == ["users/u1"])
        // The next commit gets the next sequence: the failed one used none.
        #expect(try await engine.commit([put("users/u2")], commitTime: 3).sequence == 2)
    }

    static func laterMutationsSeeEarlierOnesInTheSameCommit(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        let result = try await engine.commit(
            [
                put("users/u1", "first", entries: [entry("i", [1])], .exists(false)),
                put("users/u1", "second", entries: [entry("i", [2])], .exists(true)),
                put("users/u2", "x"),
                delete("users/u2", .version(1)),
            ],
            commitTime: 5
        )
        #expect(result.sequence == 1)
        #expect(result.documents.map { $0?.body } == [body("first"), body("second"), body("x"), nil])
        #expect(try await engine.document(at: "users/u1")?.body == body("second"))
        #expect(try await engine.document(at: "users/u2") == nil)
        #expect(try await engine.scan(IndexScan(index: "i")) == [IndexHit(key: [2], path: "users/u1")])
        let changes = try await engine.changes(after: 0, limit: 10)
        #expect(changes.map(\.path) == ["users/u1", "users/u2"])
        #expect(changes[0].document?.body == body("second"))
        #expect(changes[1].document == nil)
    }

    // MARK: Change log

    static func changeLogRecordsEveryCommitInOrder(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit([put("users/u1", "a"), put("users/u2", "b")], commitTime: 10)
        _ = try await engine.commit([put("users/u1", "c")], commitTime: 20)
        _ = try await engine.commit([delete("users/u2")], commitTime: 30)
        _ = try await engine.commit([delete("users/never")], commitTime: 40)

        let all = try await engine.changes(after: 0, limit: 100)
        #expect(all.map(\.sequence) == [1, 1, 2, 3, 4])
        #expect(all.map(\.path) == ["users/u1", "users/u2", "users/u1", "users/u2", "users/never"])
        #expect(
            all[0].document
                == StoredDocument(path: "users/u1", body: body("a"), version: 1, createTime: 10, updateTime: 10)
        )
        #expect(
            all[2].document
                == StoredDocument(path: "users/u1", body: body("c"), version: 2, createTime: 10, updateTime: 20)
        )
        #expect(all[3].document == nil)
        #expect(all[4].document == nil)

        #expect(try await engine.changes(after: 1, limit: 100).map(\.sequence) == [2, 3, 4])
        #expect(try await engine.changes(after: 0, limit: 1).map(\.path) == ["users/u1"])
        #expect(try await engine.changes(after: 2, limit: 1).map(\.sequence) == [3])
        #expect(try await engine.changes(after: 4, limit: 100).isEmpty)
        #expect(try await engine.changes(after: -5, limit: 100).count == 5)
        #expect(try await engine.changes(after: 0, limit: 0).isEmpty)
        #expect(try await engine.changes(after: .max, limit: 10).isEmpty)
    }

    // MARK: Index scans

    /// Entries: key [1] → a; [2] → b, c; [2, 0] → d; [3] → e; [] → f.
    private static func scanFixture(_ factory: DocumentEngineFactory) async throws -> any DocumentEngine {
        let engine = try await factory.make().engine
        _ = try await engine.commit(
            [
                put("c/e", entries: [entry("i", [3])]),
                put("c/c", entries: [entry("i", [2])]),
                put("c/a", entries: [entry("i", [1]), entry("other", [2])]),
                put("c/d", entries: [entry("i", [2, 0])]),
                put("c/b", entries: [entry("i", [2])]),
                put("c/f", entries: [entry("i", [])]),
            ],
            commitTime: 1
        )
        return engine
    }

    private static func paths(_ hits: [IndexHit]) -> [String] { hits.map { String($0.path.dropFirst(2)) } }

    static func scansInKeyThenPathOrder(_ factory: DocumentEngineFactory) async throws {
        let engine = try await scanFixture(factory)
        let all = try await engine.scan(IndexScan(index: "i"))
        #expect(paths(all) == ["f", "a", "b", "c", "d", "e"])
        #expect(all.map(\.key) == [[], [1], [2], [2], [2, 0], [3]])
        #expect(paths(try await engine.scan(IndexScan(index: "i", reverse: true))) == ["e", "d", "c", "b", "a", "f"])
        #expect(try await engine.scan(IndexScan(index: "other")) == [IndexHit(key: [2], path: "c/a")])
        #expect(try await engine.scan(IndexScan(index: "missing")).isEmpty)
    }

    /// An engine that reads documents with a scan returns the very hits of `scan`, each with its current document.
    static func scanReadingDocumentsMatchesScanThenGet(_ factory: DocumentEngineFactory) async throws {
        let engine = try await scanFixture(factory)
        _ = try await engine.commit([delete("c/e")], commitTime: 50)
        _ = try await engine.commit([put("c/x", entries: [entry("i", [3])])], commitTime: 51)
        let (from, to) = (IndexBound(key: [1], inclusive: true), IndexBound(key: [3], inclusive: false))
        let scans = [
            IndexScan(index: "i"), IndexScan(index: "i", lower: IndexBound(key: [2], inclusive: false), limit: 2),
            IndexScan(index: "i", limit: 0), IndexScan(index: "missing"),
            IndexScan(index: "i", lower: from, upper: to, limit: 5),  // a query's usual page, and reversed
            IndexScan(index: "i", lower: from, upper: to, reverse: true, limit: 2),
        ]
        for scan in scans {
            guard let scanned = try await engine.scanReadingDocuments(scan) else { continue }
            let hits = try await engine.scan(scan)
            #expect(scanned.hits == hits, "\(scan)")
            #expect(scanned.documents == (try await engine.documents(at: hits.map(\.path))), "\(scan)")
        }
    }

    static func scanBoundsAreInclusiveOrExclusive(_ factory: DocumentEngineFactory) async throws {
        let engine = try await scanFixture(factory)
        func scan(_ lower: IndexBound?, _ upper: IndexBound?, reverse: Bool = false, limit: Int? = nil) async throws
            -> [String]
        {
            paths(
                try await engine.scan(IndexScan(index: "i", lower: lower, upper: upper, reverse: reverse, limit: limit))
            )
        }
        let incl2 = IndexBound(key: [2], inclusive: true)
        let excl2 = IndexBound(key: [2], inclusive: false)
        #expect(try await scan(incl2, nil) == ["b", "c", "d", "e"])
        #expect(try await scan(excl2, nil) == ["d", "e"])
        #expect(try await scan(nil, incl2) == ["f", "a", "b", "c"])
        #expect(try await scan(nil, excl2) == ["f", "a"])
        #expect(try await scan(incl2, incl2) == ["b", "c"])
        #expect(try await scan(excl2, excl2).isEmpty)
        #expect(
            try await scan(IndexBound(key: [1], inclusive: false), IndexBound(key: [3], inclusive: false)) == [
                "b", "c", "d",
            ])
        #expect(
            try await scan(IndexBound(key: [1], inclusive: true), IndexBound(key: [2, 0], inclusive: true)) == [
                "a", "b", "c", "d",
            ])
        #expect(try await scan(IndexBound(key: [3], inclusive: true), IndexBound(key: [1], inclusive: true)).isEmpty)
        #expect(try await scan(IndexBound(key: [], inclusive: false), nil, limit: 1) == ["a"])
        #expect(try await scan(IndexBound(key: [9], inclusive: true), nil).isEmpty)
    }

    static func scanReverseAndLimit(_ factory: DocumentEngineFactory) async throws {
        let engine = try await scanFixture(factory)
        func scan(_ lower: IndexBound?, _ upper: IndexBound?, limit: Int?) async throws -> [String] {
            paths(try await engine.scan(IndexScan(index: "i", lower: lower, upper: upper, reverse: true, limit: limit)))
        }
        let incl2 = IndexBound(key: [2], inclusive: true)
        let excl2 = IndexBound(key: [2], inclusive: false)
        #expect(try await scan(nil, incl2, limit: nil) == ["c", "b", "a", "f"])
        #expect(try await scan(nil, excl2, limit: nil) == ["a", "f"])
        #expect(try await scan(incl2, nil, limit: 2) == ["e", "d"])
        #expect(try await scan(excl2, nil, limit: nil) == ["e", "d"])
        #expect(try await scan(incl2, incl2, limit: 1) == ["c"])
        #expect(try await scan(nil, nil, limit: 0).isEmpty)
        #expect(paths(try await engine.scan(IndexScan(index: "i", limit: 3))) == ["f", "a", "b"])
    }

    static func updateReplacesIndexEntries(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit(
            [put("u/1", entries: [entry("a", [1]), entry("b", [1]), entry("b", [2])])],
            commitTime: 1
        )
        _ = try await engine.commit(
            [put("u/1", entries: [entry("b", [2]), entry("b", [3]), entry("c", [1]), entry("c", [1])])],
            commitTime: 2
        )
        #expect(try await engine.scan(IndexScan(index: "a")).isEmpty)
        #expect(try await engine.scan(IndexScan(index: "b")).map(\.key) == [[2], [3]])
        #expect(try await engine.scan(IndexScan(index: "c")) == [IndexHit(key: [1], path: "u/1")])
        _ = try await engine.commit([put("u/1")], commitTime: 3)
        for index in ["a", "b", "c"] { #expect(try await engine.scan(IndexScan(index: index)).isEmpty) }
    }

    static func deleteRemovesDocumentAndEntries(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit(
            [put("u/1", entries: [entry("a", [1])]), put("u/2", entries: [entry("a", [1])])],
            commitTime: 1
        )
        let result = try await engine.commit([delete("u/1"), delete("u/nothing")], commitTime: 2)
        #expect(result.documents == [nil, nil])
        #expect(try await engine.document(at: "u/1") == nil)
        #expect(try await engine.scan(IndexScan(index: "a")) == [IndexHit(key: [1], path: "u/2")])
        #expect(try await engine.documents(inCollection: "u", after: nil, limit: nil).map(\.path) == ["u/2"])
        #expect(try await engine.documents(inCollectionGroup: "u", after: nil, limit: nil).map(\.path) == ["u/2"])
        // Recreated: a new document with a new create time.
        _ = try await engine.commit([put("u/1")], commitTime: 3)
        #expect(try await engine.document(at: "u/1")?.createTime == 3)
    }

    // MARK: Collections

    private static func collectionFixture(_ factory: DocumentEngineFactory) async throws -> any DocumentEngine {
        let engine = try await factory.make().engine
        _ = try await engine.commit(
            [
                put("users/u2"), put("users/u1"), put("users/u10"), put("users/u1/orders/o2"),
                put("users/u1/orders/o1"), put("users/u2/orders/o1"), put("orders/z"), put("orders/a"),
                put("a-b/y/orders/2"), put("a/x/orders/1"), put("usersX/q"),
            ],
            commitTime: 1
        )
        return engine
    }

    static func listsACollectionInPathOrder(_ factory: DocumentEngineFactory) async throws {
        let engine = try await collectionFixture(factory)
        func list(_ collection: String, after: String? = nil, limit: Int? = nil) async throws -> [String] {
            try await engine.documents(inCollection: collection, after: after, limit: limit).map(\.path)
        }
        #expect(try await list("users") == ["users/u1", "users/u10", "users/u2"])
        #expect(try await list("users", after: "users/u1") == ["users/u10", "users/u2"])
        #expect(try await list("users", after: "users/u1", limit: 1) == ["users/u10"])
        #expect(try await list("users", after: "users/u0") == ["users/u1", "users/u10", "users/u2"])
        #expect(try await list("users", after: "users/u2").isEmpty)
        // A cursor inside a document's subtree resumes after that document.
        #expect(try await list("users", after: "users/u1/orders/o9") == ["users/u10", "users/u2"])
        // Cursors outside the collection: before it or after it in path order.
        #expect(try await list("users", after: "apples/a") == ["users/u1", "users/u10", "users/u2"])
        #expect(try await list("users", after: "zebras/z").isEmpty)
        #expect(try await list("users", limit: 0).isEmpty)
        #expect(try await list("users/u1/orders") == ["users/u1/orders/o1", "users/u1/orders/o2"])
        #expect(try await list("users/u3/orders").isEmpty)
        let documents = try await engine.documents(inCollection: "users/u1/orders", after: nil, limit: nil)
        #expect(documents.allSatisfy { $0.body == body("body") && $0.version == 1 })
    }

    static func listsACollectionGroupInDocumentNameOrder(_ factory: DocumentEngineFactory) async throws {
        let engine = try await collectionFixture(factory)
        func group(_ id: String, after: String? = nil, limit: Int? = nil) async throws -> [String] {
            try await engine.documents(inCollectionGroup: id, after: after, limit: limit).map(\.path)
        }
        // Segment by segment: "a" < "a-b" although "a-" < "a/" bytewise.
        let all = [
            "a/x/orders/1", "a-b/y/orders/2", "orders/a", "orders/z", "users/u1/orders/o1", "users/u1/orders/o2",
            "users/u2/orders/o1",
        ]
        #expect(try await group("orders") == all)
        #expect(try await group("orders", after: "orders/z") == Array(all[4...]))
        #expect(try await group("orders", after: "a/x/orders/1", limit: 2) == ["a-b/y/orders/2", "orders/a"])
        #expect(try await group("orders", after: "users/u2/orders/o1").isEmpty)
        #expect(try await group("orders", after: "orders/a", limit: 1) == ["orders/z"])
        #expect(try await group("orders", after: "orders/a/items/i1") == Array(all[3...]))
        #expect(try await group("orders", after: "a-b/y/orders/2", limit: 3) == Array(all[2..<5]))
        #expect(try await group("users") == ["users/u1", "users/u10", "users/u2"])
        #expect(try await group("nothing").isEmpty)
    }

    static func rejectsMalformedPaths(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        for path in ["users", "", "users/", "/users/u1", "users//u1", "a/b/c"] {
            await #expect(throws: DocumentsError.self) { _ = try await engine.commit([put(path)], commitTime: 1) }
        }
        await #expect(throws: DocumentsError.self) { _ = try await engine.documents(at: ["users"]) }
        await #expect(throws: DocumentsError.self) {
            _ = try await engine.documents(inCollection: "users/u1", after: nil, limit: nil)
        }
        await #expect(throws: DocumentsError.self) {
            _ = try await engine.documents(inCollectionGroup: "a/b", after: nil, limit: nil)
        }
        #expect(try await engine.lastSequence() == 0)
    }

    // MARK: Backfill and metadata

    static func addIndexEntriesBackfillsWithoutNewVersions(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit([put("u/1", entries: [entry("a", [1])]), put("u/2")], commitTime: 1)
        try await engine.addIndexEntries([
            IndexAddition(path: "u/1", entries: [entry("new", [5]), entry("a", [1])]),
            IndexAddition(path: "u/2", entries: [entry("new", [4])]),
            IndexAddition(path: "u/gone", entries: [entry("new", [1])]),
        ])
        #expect(try await engine.scan(IndexScan(index: "new")).map(\.path) == ["u/2", "u/1"])
        #expect(try await engine.scan(IndexScan(index: "a")).map(\.path) == ["u/1"])
        #expect(try await engine.lastSequence() == 1)
        #expect(try await engine.document(at: "u/1")?.version == 1)
        #expect(try await engine.changes(after: 1, limit: 10).isEmpty)
        // The backfilled entries belong to the document: an update replaces them too.
        _ = try await engine.commit([put("u/1", entries: [entry("a", [1])])], commitTime: 2)
        #expect(try await engine.scan(IndexScan(index: "new")).map(\.path) == ["u/2"])
    }

    static func removeIndexDropsEveryEntry(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit(
            [put("u/1", entries: [entry("a", [1]), entry("b", [1])]), put("u/2", entries: [entry("a", [2])])],
            commitTime: 1
        )
        try await engine.removeIndex("a")
        try await engine.removeIndex("never-declared")
        #expect(try await engine.scan(IndexScan(index: "a")).isEmpty)
        #expect(try await engine.scan(IndexScan(index: "b")).count == 1)
        // Declared again and backfilled, then the document is rewritten with the same entries: they stay.
        try await engine.addIndexEntries([IndexAddition(path: "u/1", entries: [entry("a", [1])])])
        _ = try await engine.commit([put("u/1", entries: [entry("a", [1]), entry("b", [1])])], commitTime: 2)
        _ = try await engine.commit([put("u/2", entries: [entry("a", [2])])], commitTime: 3)
        #expect(try await engine.scan(IndexScan(index: "a")).map(\.path) == ["u/1", "u/2"])
    }

    static func metadataRoundTrips(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        #expect(try await engine.metadata(forKey: "indexes") == nil)
        try await engine.setMetadata([1, 2, 3], forKey: "indexes")
        try await engine.setMetadata([], forKey: "empty")
        #expect(try await engine.metadata(forKey: "indexes") == [1, 2, 3])
        #expect(try await engine.metadata(forKey: "empty") == [])
        try await engine.setMetadata([9], forKey: "indexes")
        #expect(try await engine.metadata(forKey: "indexes") == [9])
        try await engine.setMetadata(nil, forKey: "indexes")
        #expect(try await engine.metadata(forKey: "indexes") == nil)
        #expect(try await engine.lastSequence() == 0)
    }

    // MARK: Persistence and concurrency

    static func reopeningKeepsEverything(_ factory: DocumentEngineFactory) async throws {
        let handle = try await factory.make()
        guard let reopen = handle.reopen else { return }  // nothing persists: nothing to check
        var engine: (any DocumentEngine)? = handle.engine
        _ = try await engine?.commit(
            [
                put("users/u1", "a", entries: [entry("i", [1])]),
                put("users/u1/orders/o1", "b", entries: [entry("i", [2])]),
            ],
            commitTime: 7
        )
        _ = try await engine?.commit([delete("users/u1/orders/o1")], commitTime: 8)
        try await engine?.setMetadata([4, 2], forKey: "k")
        let before = try await engine?.changes(after: 0, limit: 100)
        engine = nil

        let reopened = try await reopen()
        #expect(try await reopened.lastSequence() == 2)
        #expect(try await reopened.changes(after: 0, limit: 100) == before)
        #expect(
            try await reopened.document(at: "users/u1")
                == StoredDocument(path: "users/u1", body: body("a"), version: 1, createTime: 7, updateTime: 7)
        )
        #expect(try await reopened.scan(IndexScan(index: "i")) == [IndexHit(key: [1], path: "users/u1")])
        #expect(try await reopened.documents(inCollectionGroup: "orders", after: nil, limit: nil).isEmpty)
        #expect(try await reopened.metadata(forKey: "k") == [4, 2])
        #expect(try await reopened.commit([put("users/u2")], commitTime: 9).sequence == 3)
    }

    static func concurrentCommitsAllLandWithDistinctSequences(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        let tasks = 20
        let commitsPerTask = 5
        let sequences = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for t in 0..<tasks {
                group.addTask {
                    var mine: [Int64] = []
                    for c in 0..<commitsPerTask {
                        let result = try await engine.commit(
                            [put("t\(t)/c\(c)", entries: [entry("n", [UInt8(t), UInt8(c)])])],
                            commitTime: Int64(c)
                        )
                        mine.append(result.sequence)
                    }
                    return mine
                }
            }
            var all: [Int64] = []
            for try await mine in group {
                #expect(mine == mine.sorted())
                all += mine
            }
            return all
        }
        let total = tasks * commitsPerTask
        #expect(Set(sequences) == Set(1...Int64(total)))
        #expect(try await engine.lastSequence() == Int64(total))
        #expect(try await engine.scan(IndexScan(index: "n")).count == total)
        let changes = try await engine.changes(after: 0, limit: total + 10)
        #expect(changes.map(\.sequence) == Array(1...Int64(total)))
    }
}
