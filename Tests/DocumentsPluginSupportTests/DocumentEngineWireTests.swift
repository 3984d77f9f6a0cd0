@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import SuiteTestSupport
import Testing

/// Samples of every request, with the awkward values: empty and non-ASCII strings, empty bodies and keys, extreme
/// integers, every precondition and bound shape.
let sampleRequests: [DocumentEngineRequest] = [
    .commit([], commitTime: 0),
    .commit(
        [
            DocumentMutation(
                path: "users/u1",
                kind: .put(body: [1, 2, 3, 0, 255], indexEntries: [IndexEntry(index: "users|n", key: [0, 1])])
            ),
            DocumentMutation(
                path: "users/ü/orders/o🎉", kind: .put(body: [], indexEntries: []), precondition: .exists(false)),
            DocumentMutation(path: "users/u2", kind: .delete, precondition: .exists(true)),
            DocumentMutation(
                path: "users/u3",
                kind: .put(
                    body: Array(repeating: 7, count: 3000),
                    indexEntries: [
                        IndexEntry(index: "a", key: []), IndexEntry(index: "", key: [9]),
                    ]), precondition: .version(Int64.max)),
            DocumentMutation(path: "users/u4", kind: .delete, precondition: .version(Int64.min)),
            DocumentMutation(path: "users/u5", kind: .check, precondition: .version(7)),
            DocumentMutation(path: "users/u6", kind: .check, precondition: .exists(false)),
        ],
        commitTime: -42),
    .get([]),
    .get(["users/u1", "", "users/ü"]),
    .scan(IndexScan(index: "users|points")),
    .scan(
        IndexScan(
            index: "i", lower: IndexBound(key: [], inclusive: true),
            upper: IndexBound(key: [255, 0], inclusive: false),
            reverse: true, limit: 0)),
    .scan(IndexScan(index: "i", lower: nil, upper: IndexBound(key: [1], inclusive: true), limit: Int.max)),
    .list(collection: "users", after: nil, limit: nil),
    .list(collection: "users/u1/orders", after: "users/u1/orders/o1", limit: 20),
    .listGroup(collectionID: "orders", after: nil, limit: 1),
    .listGroup(collectionID: "orders", after: "a/b/orders/c", limit: nil),
    .changes(after: 0, limit: 100),
    .changes(after: Int64.max, limit: -1),
    .lastSequence,
    .addIndexEntries([]),
    .addIndexEntries([
        IndexAddition(path: "users/u1", entries: [IndexEntry(index: "x", key: [1])]),
        IndexAddition(path: "users/u2", entries: []),
        IndexAddition(path: "users/u3", entries: [IndexEntry(index: "x", key: [2]), IndexEntry(index: "y", key: [])]),
        IndexAddition(path: "c/\u{E9}", entries: [IndexEntry(index: "x", key: [3])]),
        IndexAddition(path: "c/e\u{301}", entries: [IndexEntry(index: "x", key: [4])]),
    ]),
    .removeIndex("users|points"),
    .metadata(key: "indexes"),
    .setMetadata([1, 2, 3], key: "k"),
    .setMetadata([], key: "empty"),
    .setMetadata(nil, key: "gone"),
    .waitForChanges(after: 41, timeoutMicroseconds: 100_000),
    .compareAndSetMetadata(key: "costs", expected: nil, new: [1]),
    .compareAndSetMetadata(key: "costs", expected: [1], new: nil),
    .shutdown,
    .scanDocuments(IndexScan(index: "users|points", lower: IndexBound(key: [1], inclusive: false), limit: 20)),
    .collectionIDs(parent: nil),
    .collectionIDs(parent: "users/ana"),
    .changeLogStatus,
    .indexNames,
    .verifyIndexes(names: nil, maximumReported: 1_000),
    .verifyIndexes(names: ["users|points", "", "ü|composite|a:asc"], maximumReported: 0),
    .rebuildIndexes(names: nil),
    .rebuildIndexes(names: []),
    .prepareCommit([]),
    .prepareCommit([
        DocumentMutation(
            path: "users/ü", kind: .put(body: [0, 255], indexEntries: [IndexEntry(index: "users|n", key: [])]),
            precondition: .version(-1)),
        DocumentMutation(path: "users/u2", kind: .delete),
    ]),
    .commitPrepared(handle: 1, commitTime: 1_700_000_000_000_000),
    .commitPrepared(handle: Int64.min, commitTime: Int64.max),
]

private let document1 = StoredDocument(
    path: "users/u1", body: [10, 20, 30], version: 3, createTime: 1_700_000_000_000_000, updateTime: Int64.max)
private let document2 = StoredDocument(path: "users/ü/o/🎉", body: [], version: Int64.min, createTime: -1, updateTime: 0)

/// Samples of every response shape, each with the operation it answers.
let sampleResponses: [(DocumentEngineOperation, DocumentEngineResponse)] = [
    (.commit, .commit(CommitResult(sequence: 7, documents: [document1, nil, document2]))),
    (.commit, .commit(CommitResult(sequence: 0, documents: []))),
    (.get, .documents([nil, document1, nil])),
    (.get, .documents([])),
    (.scan, .hits([IndexHit(key: [], path: "a/b"), IndexHit(key: [0, 255], path: "users/ü")])),
    (.list, .listed([document1, document2])),
    (.listGroup, .listed([])),
    (
        .changes,
        .changes([
            ChangeRecord(sequence: 1, path: "users/u1", document: document1),
            ChangeRecord(sequence: 1, path: "users/gone", document: nil),
        ])
    ),
    (.lastSequence, .sequence(123_456_789_012)),
    (.metadata, .metadata(nil)),
    (.metadata, .metadata([])),
    (.metadata, .metadata([4, 2])),
    (.addIndexEntries, .done),
    (.removeIndex, .done),
    (.setMetadata, .done),
    (.waitChanges, .done),
    (.shutdown, .done),
    (.compareAndSetMetadata, .flag(true)),
    (.compareAndSetMetadata, .flag(false)),
    (.collectionIDs, .names(["orders", "orders-x", "ünïcode"])),
    (.collectionIDs, .names([])),
    (.indexNames, .names(["users|points"])),
    (.changeLogStatus, .changeLog(ChangeLogStatus(records: 12, horizon: 0, lastSequence: Int64.max))),
    (.changeLogStatus, .changeLog(ChangeLogStatus(records: 0, horizon: 41, lastSequence: 42))),
    (
        .verifyIndexes,
        .verification(
            IndexVerification(
                indexes: 3, entries: 60, differenceCount: 7,
                differences: [
                    IndexDifference(kind: .missing, index: "users|points", key: [0, 255], path: "users/ü"),
                    IndexDifference(kind: .unexpected, index: "", key: [], path: "a/b"),
                ]))
    ),
    (.verifyIndexes, .verification(IndexVerification(indexes: 0, entries: 0, differenceCount: 0, differences: []))),
    (.rebuildIndexes, .rebuild(IndexRebuild(indexes: 2, entries: 40))),
    (.prepareCommit, .prepared(42)),
    (.prepareCommit, .failure(DocumentsError(.unsupported, "this documents engine plugin does not prepare commits"))),
    (.commitPrepared, .commit(CommitResult(sequence: 8, documents: [document1]))),
    (
        .commitPrepared,
        .failure(DocumentsError(.wrongEngine, "this documents engine plugin holds no prepared commit 3"))
    ),
    (.rebuildIndexes, .failure(DocumentsError(.unsupported, "this documents engine cannot rebuild its indexes"))),
    (
        .scanDocuments,
        .scanned(
            ScannedDocuments(
                hits: [IndexHit(key: [1], path: "users/u1"), IndexHit(key: [2], path: "users/gone")],
                documents: [document1, nil]))
    ),
    (.commit, .failure(DocumentsError(.preconditionFailed, "users/u1 is at version 3, not 2", hint: "re-read it"))),
    (.scan, .failure(DocumentsError(.storage, "disk full"))),
]

/// Responses are not `Equatable` (a failure carries an error); compare through a description of their content.
func summary(_ response: DocumentEngineResponse) -> String {
    switch response {
    case .failure(let error): "failure(\(error.code), \(error.message), \(error.hint ?? "-"))"
    default: "\(response)"
    }
}

@Suite("Documents wire format")
struct DocumentEngineWireTests {
    @Test("every operation has a sample request, and operation names are the ABI's")
    func operationsAreCovered() {
        #expect(Set(sampleRequests.map(\.operation)) == Set(DocumentEngineOperation.allCases))
        #expect(
            DocumentEngineOperation.allCases.map(\.rawValue) == [
                "commit", "get", "scan", "list", "listGroup", "changes", "lastSequence", "addIndexEntries",
                "removeIndex", "metadata", "setMetadata", "waitChanges", "compareAndSetMetadata", "shutdown",
                "scanDocuments", "collectionIDs", "changeLogStatus", "indexNames", "verifyIndexes", "rebuildIndexes",
                "prepareCommit", "commitPrepared",
            ])
    }

    @Test("every request survives encode then decode unchanged", arguments: sampleRequests)
    func requestRoundTrip(_ request: DocumentEngineRequest) throws {
        let bytes = DocumentEngineWire.encode(request)
        #expect(try DocumentEngineWire.decodeRequest(request.operation, from: bytes) == request)
    }

    @Test("every response shape survives encode then decode unchanged")
    func responseRoundTrip() throws {
        for (operation, response) in sampleResponses {
            let decoded = try DocumentEngineWire.decodeResponse(operation, from: DocumentEngineWire.encode(response))
            #expect(summary(decoded) == summary(response))
        }
    }

    @Test("a failure keeps its code, message and hint; codes are rebuilt from their names")
    func failureKeepsCode() throws {
        let codes: [DocumentsError.Code] = [
            .invalidPath, .invalidField, .invalidValue, .invalidQuery, .missingIndex, .notFound, .preconditionFailed,
            .transactionAborted, .limitExceeded, .corrupted, .storage, .unsupported,
        ]
        for code in codes {
            #expect(DocumentsError.Code(named: code.description) == code)
            let sent = DocumentEngineResponse.failure(DocumentsError(code, "message for \(code)", hint: "hint ü"))
            let received = try DocumentEngineWire.decodeResponse(.commit, from: DocumentEngineWire.encode(sent))
            guard case .failure(let error) = received else {
                Issue.record("expected a failure, got \(received)")
                continue
            }
            #expect(error.code == code)
            #expect(error.message == "message for \(code)")
            #expect(error.hint == "hint ü")
        }
        let unknown = DocumentsError.Code(named: "fromTheFuture")
        #expect(unknown.description == "fromTheFuture")
        #expect(!codes.contains(unknown))
    }

    @Test("the encoding is compact: a 5-byte point read is a handful of bytes over its content")
    func encodingIsCompact() {
        #expect(DocumentEngineWire.encode(.get(["users/u1"])) == [1, 0, 0, 0, 8, 0, 0, 0] + Array("users/u1".utf8))
        #expect(DocumentEngineWire.encode(.lastSequence) == [])
        #expect(DocumentEngineWire.encode(DocumentEngineResponse.sequence(1)) == [6, 1, 0, 0, 0, 0, 0, 0, 0])
        let documentBytes = DocumentEngineWire.encode(DocumentEngineResponse.documents([document1]))
        // tag + count + presence + path + body + three i64
        #expect(documentBytes.count == 1 + 4 + 1 + (4 + 8) + (4 + 3) + 24)
    }

    @Test("a response of the wrong shape for its operation is refused")
    func responseShapeIsChecked() {
        let bytes = DocumentEngineWire.encode(DocumentEngineResponse.sequence(1))
        #expect(throws: DocumentsError.self) { _ = try DocumentEngineWire.decodeResponse(.commit, from: bytes) }
        #expect(throws: DocumentsError.self) { _ = try DocumentEngineWire.decodeResponse(.metadata, from: []) }
        #expect(throws: DocumentsError.self) { _ = try DocumentEngineWire.decodeResponse(.metadata, from: [99]) }
    }

    @Test("every truncation and every extra byte of a valid message is refused as corrupted, never a crash")
    func truncationsAndTrailingBytes() {
        for request in sampleRequests {
            let bytes = DocumentEngineWire.encode(request)
            for end in 0..<bytes.count {
                expectCorrupted {
                    _ = try DocumentEngineWire.decodeRequest(request.operation, from: Array(bytes[..<end]))
                }
            }
            expectCorrupted { _ = try DocumentEngineWire.decodeRequest(request.operation, from: bytes + [0]) }
        }
        for (operation, response) in sampleResponses {
            let bytes = DocumentEngineWire.encode(response)
            for end in 0..<bytes.count {
                expectCorrupted { _ = try DocumentEngineWire.decodeResponse(operation, from: Array(bytes[..<end])) }
            }
            expectCorrupted { _ = try DocumentEngineWire.decodeResponse(operation, from: bytes + [0]) }
        }
    }

    @Test("bad tags and booleans are refused")
    func badTags() {
        // commit: time, one mutation "a/b", precondition tag 9
        var commit: [UInt8] = Array(repeating: 0, count: 8) + [1, 0, 0, 0] + [3, 0, 0, 0] + Array("a/b".utf8)
        expectCorrupted { _ = try DocumentEngineWire.decodeRequest(.commit, from: commit + [9, 0]) }
        expectCorrupted { _ = try DocumentEngineWire.decodeRequest(.commit, from: commit + [1, 2, 0]) }  // exists(2)
        expectCorrupted { _ = try DocumentEngineWire.decodeRequest(.commit, from: commit + [0, 5]) }  // mutation kind 5
        commit += [0, 0]
        #expect(throws: Never.self) { _ = try DocumentEngineWire.decodeRequest(.commit, from: commit) }
        // scan with a presence tag of 2
        expectCorrupted { _ = try DocumentEngineWire.decodeRequest(.scan, from: [1, 0, 0, 0, 65, 2]) }
    }

    @Test("a forged huge count is refused before anything is allocated")
    func forgedCounts() {
        let huge: [UInt8] = [255, 255, 255, 255]
        expectCorrupted { _ = try DocumentEngineWire.decodeRequest(.get, from: huge) }
        expectCorrupted {
            _ = try DocumentEngineWire.decodeRequest(.commit, from: Array(repeating: 0, count: 8) + huge)
        }
        expectCorrupted {
            _ = try DocumentEngineWire.decodeRequest(.addIndexEntries, from: huge + Array(repeating: 0, count: 64))
        }
        expectCorrupted { _ = try DocumentEngineWire.decodeRequest(.metadata, from: huge + [1, 2, 3]) }
        expectCorrupted { _ = try DocumentEngineWire.decodeResponse(.list, from: [4] + huge) }
        expectCorrupted { _ = try DocumentEngineWire.decodeResponse(.changes, from: [5] + huge) }
        expectCorrupted { _ = try DocumentEngineWire.decodeResponse(.get, from: [2] + huge) }
    }

    @Test("random bytes and random mutations of valid messages decode or throw, never trap")
    func fuzz() {
        var random = SplitMix64(seed: 0x5EED)
        for _ in 0..<3_000 {
            let operation = DocumentEngineOperation.allCases.randomElement(using: &random) ?? .commit
            let length = Int.random(in: 0..<64, using: &random)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = try? DocumentEngineWire.decodeRequest(operation, from: bytes)
            _ = try? DocumentEngineWire.decodeResponse(operation, from: bytes)
        }
        for request in sampleRequests {
            let valid = DocumentEngineWire.encode(request)
            guard !valid.isEmpty else { continue }
            for _ in 0..<200 {
                var bytes = valid
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                _ = try? DocumentEngineWire.decodeRequest(request.operation, from: bytes)
            }
        }
        for (operation, response) in sampleResponses {
            let valid = DocumentEngineWire.encode(response)
            for _ in 0..<200 {
                var bytes = valid
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                _ = try? DocumentEngineWire.decodeResponse(operation, from: bytes)
            }
        }
    }
}

func expectCorrupted(_ work: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try work()
        Issue.record("expected a corrupted-message error", sourceLocation: sourceLocation)
    } catch let error as DocumentsError {
        #expect(error.code == .corrupted, sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}
