@_spi(Engine) import Documents
import SuitePluginKit

/// The binary payloads of the `documents` engine kind: how ``DocumentEngineRequest``s and
/// ``DocumentEngineResponse``s cross the C plugin ABI. Hand-written, no Foundation, one pass each way.
///
/// ## Primitives
///
/// | name | bytes |
/// |---|---|
/// | `u8`, `bool` | one byte; a bool is 0 or 1, anything else is refused |
/// | `u32`, `i64` | 4 / 8 bytes, little-endian (`u32` carries counts and lengths) |
/// | `bytes`, `string` | `u32` length, then the raw bytes (UTF-8 for a string) |
/// | `X?` | `u8` 0 (absent) or 1 followed by `X` |
/// | `[X]` | `u32` count, then each `X` |
/// | `entry` | `string` index, `bytes` key |
/// | `document` | `string` path, `bytes` body, `i64` version, `i64` createTime, `i64` updateTime |
/// | `bound` | `bytes` key, `bool` inclusive |
///
/// ## Requests (the operation name travels beside the payload, see ``DocumentEngineOperation``)
///
/// | operation | payload |
/// |---|---|
/// | `commit` | `i64` commitTime, `[mutation]`; mutation = `string` path, precondition, kind |
/// | | precondition = `u8` 0 none · 1 exists + `bool` · 2 version + `i64`; kind = `u8` 0 delete · 1 put + `bytes` body + `[entry]` · 2 check (precondition only; an older plugin refuses the tag) |
/// | `get` | `[string]` paths |
/// | `scan` | `string` index, `bound?` lower, `bound?` upper, `bool` reverse, `i64?` limit |
/// | `list`, `listGroup` | `string` collection path / collection ID, `string?` after, `i64?` limit |
/// | `changes` | `i64` after, `i64` limit |
/// | `lastSequence` | empty |
/// | `addIndexEntries` | `[string path, [entry]]` |
/// | `removeIndex`, `metadata` | `string` index / key |
/// | `setMetadata` | `string` key, `bytes?` value |
/// | `waitChanges` | `i64` after, `i64` timeout (µs) |
/// | `compareAndSetMetadata` | `string` key, `bytes?` expected, `bytes?` new |
/// | `shutdown` | empty |
/// | `scanDocuments` | as `scan` |
/// | `collectionIDs` | `string?` parent |
/// | `changeLogStatus`, `indexNames` | empty |
/// | `verifyIndexes` | `[string]?` index names (absent: every index), `i64` maximumReported |
/// | `rebuildIndexes` | `[string]?` index names (absent: every index) |
/// | `prepareCommit` | `[mutation]`, as `commit` without its time |
/// | `commitPrepared` | `i64` handle (from `prepareCommit`), `i64` commitTime |
///
/// ## Responses: `u8` tag, then the value
///
/// `0` failure: `string` code name (`DocumentsError/Code-swift.struct/description`), `string` message,
/// `string?` hint · `1` commit: `i64` sequence, `[document?]` · `2` documents: `[document?]` · `3` hits:
/// `[bytes key, string path]` · `4` listed: `[document]` · `5` changes: `[i64 sequence, string path, document?]` ·
/// `6` sequence: `i64` · `7` metadata: `bytes?` · `8` done: nothing · `9` flag: `bool` ·
/// `10` scanned: `[bytes key, string path, document?]` · `11` names: `[string]` · `12` changeLog: `i64` records,
/// `i64` horizon, `i64` lastSequence · `13` verification: `i64` indexes, `i64` entries, `i64` differenceCount,
/// `[u8 kind (0 missing, 1 unexpected), string index, bytes key, string path]` · `14` rebuild: `i64` indexes,
/// `i64` entries · `15` prepared: `i64` handle.
///
/// Decoding never trusts its input: truncated messages, bad tags, forged counts and trailing bytes are refused with
/// `DocumentsError/Code-swift.struct/corrupted`, never a trap.
@_spi(Engine) public enum DocumentEngineWire {
    // MARK: - Requests

    /// Encodes the payload of `request` (its operation name, ``DocumentEngineRequest/operation``, is sent beside it).
    public static func encode(_ request: DocumentEngineRequest) -> [UInt8] {
        var w = WireWriter()
        switch request {
        case .commit(let mutations, let commitTime):
            w.bytes.reserveCapacity(16 + mutations.reduce(0) { $0 + estimatedSize($1) })
            w.i64(commitTime)
            w.mutations(mutations)
        case .prepareCommit(let mutations):
            w.bytes.reserveCapacity(8 + mutations.reduce(0) { $0 + estimatedSize($1) })
            w.mutations(mutations)
        case .commitPrepared(let handle, let commitTime):
            w.i64(handle)
            w.i64(commitTime)
        case .get(let paths):
            w.count(paths.count)
            for path in paths { w.string(path) }
        case .scan(let scan), .scanDocuments(let scan):
            w.string(scan.index)
            w.bound(scan.lower)
            w.bound(scan.upper)
            w.bool(scan.reverse)
            w.optionalInt(scan.limit)
        case .list(let collection, let after, let limit):
            w.string(collection)
            w.optionalString(after)
            w.optionalInt(limit)
        case .listGroup(let collectionID, let after, let limit):
            w.string(collectionID)
            w.optionalString(after)
            w.optionalInt(limit)
        case .changes(let after, let limit):
            w.i64(after)
            w.i64(Int64(limit))
        case .lastSequence, .shutdown, .changeLogStatus, .indexNames:
            break
        case .verifyIndexes(let names, let maximumReported):
            w.optionalStrings(names)
            w.i64(Int64(maximumReported))
        case .rebuildIndexes(let names):
            w.optionalStrings(names)
        case .addIndexEntries(let additions):
            w.count(additions.count)
            for addition in additions {
                w.string(addition.path)
                w.entries(addition.entries)
            }
        case .removeIndex(let index):
            w.string(index)
        case .metadata(let key):
            w.string(key)
        case .setMetadata(let value, let key):
            w.string(key)
            w.optionalBlob(value)
        case .waitForChanges(let after, let timeout):
            w.i64(after)
            w.i64(timeout)
        case .compareAndSetMetadata(let key, let expected, let new):
            w.string(key)
            w.optionalBlob(expected)
            w.optionalBlob(new)
        case .collectionIDs(let parent):
            w.optionalString(parent)
        }
        return w.bytes
    }

    /// Decodes the payload of a request sent as `operation`.
    /// - Throws: `DocumentsError` `.corrupted` when the bytes are not a well-formed request of that operation.
    public static func decodeRequest(_ operation: DocumentEngineOperation, from bytes: [UInt8]) throws
        -> DocumentEngineRequest
    {
        try bytes.withUnsafeBytes { try decodeRequest(operation, from: $0) }
    }

    /// Decodes the payload of a request sent as `operation`, reading `bytes` in place.
    public static func decodeRequest(_ operation: DocumentEngineOperation, from bytes: UnsafeRawBufferPointer) throws
        -> DocumentEngineRequest
    {
        do {
            return try readRequest(operation, from: bytes)
        } catch let error as WireFormatError {
            throw corrupted(error, operation, "request")
        }
    }

    private static func readRequest(_ operation: DocumentEngineOperation, from bytes: UnsafeRawBufferPointer) throws
        -> DocumentEngineRequest
    {
        var r = WireReader(bytes)
        let request: DocumentEngineRequest
        switch operation {
        case .commit:
            let commitTime = try r.i64()
            request = .commit(try r.mutations(), commitTime: commitTime)
        case .prepareCommit:
            request = .prepareCommit(try r.mutations())
        case .commitPrepared:
            let handle = try r.i64()
            request = .commitPrepared(handle: handle, commitTime: try r.i64())
        case .get:
            let n = try r.count(minimumSize: 4)
            var paths: [String] = []
            paths.reserveCapacity(n)
            for _ in 0..<n { paths.append(try r.string()) }
            request = .get(paths)
        case .scan, .scanDocuments:
            let index = try r.string()
            let lower = try r.bound()
            let upper = try r.bound()
            let reverse = try r.bool()
            let scan = IndexScan(index: index, lower: lower, upper: upper, reverse: reverse, limit: try r.optionalInt())
            request = operation == .scan ? .scan(scan) : .scanDocuments(scan)
        case .list:
            let collection = try r.string()
            let after = try r.optionalString()
            request = .list(collection: collection, after: after, limit: try r.optionalInt())
        case .listGroup:
            let collectionID = try r.string()
            let after = try r.optionalString()
            request = .listGroup(collectionID: collectionID, after: after, limit: try r.optionalInt())
        case .changes:
            let after = try r.i64()
            request = .changes(after: after, limit: Int(truncatingIfNeeded: try r.i64()))
        case .lastSequence:
            request = .lastSequence
        case .addIndexEntries:
            let n = try r.count(minimumSize: 8)
            var additions: [IndexAddition] = []
            additions.reserveCapacity(n)
            for _ in 0..<n {
                let path = try r.string()
                additions.append(IndexAddition(path: path, entries: try r.entries()))
            }
            request = .addIndexEntries(additions)
        case .removeIndex:
            request = .removeIndex(try r.string())
        case .metadata:
            request = .metadata(key: try r.string())
        case .setMetadata:
            let key = try r.string()
            request = .setMetadata(try r.optionalBlob(), key: key)
        case .waitChanges:
            let after = try r.i64()
            request = .waitForChanges(after: after, timeoutMicroseconds: try r.i64())
        case .compareAndSetMetadata:
            let key = try r.string()
            let expected = try r.optionalBlob()
            request = .compareAndSetMetadata(key: key, expected: expected, new: try r.optionalBlob())
        case .shutdown:
            request = .shutdown
        case .collectionIDs:
            request = .collectionIDs(parent: try r.optionalString())
        case .changeLogStatus:
            request = .changeLogStatus
        case .indexNames:
            request = .indexNames
        case .verifyIndexes:
            let names = try r.optionalStrings()
            request = .verifyIndexes(names: names, maximumReported: Int(truncatingIfNeeded: try r.i64()))
        case .rebuildIndexes:
            request = .rebuildIndexes(names: try r.optionalStrings())
        }
        try r.finish()
        return request
    }

    // MARK: - Responses

    private enum Tag: UInt8 {
        case failure = 0, commit, documents, hits, listed, changes, sequence, metadata, done, flag, scanned, names
        case changeLog, verification, rebuild, prepared
    }

    /// Encodes `response`.
    public static func encode(_ response: DocumentEngineResponse) -> [UInt8] {
        var w = WireWriter()
        switch response {
        case .failure(let error):
            w.u8(Tag.failure.rawValue)
            w.failure(DocumentsEngineKind.failure(for: error))
        case .commit(let result):
            w.bytes.reserveCapacity(16 + result.documents.reduce(0) { $0 + estimatedSize($1) })
            w.u8(Tag.commit.rawValue)
            w.i64(result.sequence)
            w.count(result.documents.count)
            for document in result.documents { w.optionalDocument(document) }
        case .documents(let documents):
            w.bytes.reserveCapacity(8 + documents.reduce(0) { $0 + estimatedSize($1) })
            w.u8(Tag.documents.rawValue)
            w.count(documents.count)
            for document in documents { w.optionalDocument(document) }
        case .hits(let hits):
            w.bytes.reserveCapacity(8 + hits.reduce(0) { $0 + 8 + $1.key.count + $1.path.utf8.count })
            w.u8(Tag.hits.rawValue)
            w.count(hits.count)
            for hit in hits {
                w.blob(hit.key)
                w.string(hit.path)
            }
        case .listed(let documents):
            w.bytes.reserveCapacity(8 + documents.reduce(0) { $0 + estimatedSize($1) })
            w.u8(Tag.listed.rawValue)
            w.count(documents.count)
            for document in documents { w.document(document) }
        case .changes(let changes):
            w.bytes.reserveCapacity(8 + changes.reduce(0) { $0 + 16 + $1.path.utf8.count + estimatedSize($1.document) })
            w.u8(Tag.changes.rawValue)
            w.count(changes.count)
            for change in changes {
                w.i64(change.sequence)
                w.string(change.path)
                w.optionalDocument(change.document)
            }
        case .sequence(let sequence):
            w.u8(Tag.sequence.rawValue)
            w.i64(sequence)
        case .metadata(let value):
            w.u8(Tag.metadata.rawValue)
            w.optionalBlob(value)
        case .done:
            w.u8(Tag.done.rawValue)
        case .flag(let value):
            w.u8(Tag.flag.rawValue)
            w.bool(value)
        case .names(let names):
            w.u8(Tag.names.rawValue)
            w.count(names.count)
            for name in names { w.string(name) }
        case .changeLog(let status):
            w.u8(Tag.changeLog.rawValue)
            w.i64(Int64(status.records))
            w.i64(status.horizon)
            w.i64(status.lastSequence)
        case .verification(let report):
            w.u8(Tag.verification.rawValue)
            w.verification(report)
        case .rebuild(let report):
            w.u8(Tag.rebuild.rawValue)
            w.i64(Int64(report.indexes))
            w.i64(Int64(report.entries))
        case .prepared(let handle):
            w.u8(Tag.prepared.rawValue)
            w.i64(handle)
        case .scanned(let scanned):
            w.bytes.reserveCapacity(
                8
                    + zip(scanned.hits, scanned.documents).reduce(0) {
                        $0 + 8 + $1.0.key.count + $1.0.path.utf8.count + estimatedSize($1.1)
                    })
            w.u8(Tag.scanned.rawValue)
            w.count(min(scanned.hits.count, scanned.documents.count))
            for (hit, document) in zip(scanned.hits, scanned.documents) {
                w.blob(hit.key)
                w.string(hit.path)
                w.optionalDocument(document)
            }
        }
        return w.bytes
    }

    /// Decodes a response, checking that it has the shape `operation` returns (or is a failure).
    /// - Throws: `DocumentsError` `.corrupted` when the bytes are malformed or do not answer `operation`.
    public static func decodeResponse(_ operation: DocumentEngineOperation, from bytes: [UInt8]) throws
        -> DocumentEngineResponse
    {
        try bytes.withUnsafeBytes { try decodeResponse(operation, from: $0) }
    }

    /// Decodes a response in place; see ``decodeResponse(_:from:)-(_,[UInt8])``.
    public static func decodeResponse(_ operation: DocumentEngineOperation, from bytes: UnsafeRawBufferPointer) throws
        -> DocumentEngineResponse
    {
        do {
            return try readResponse(operation, from: bytes)
        } catch let error as WireFormatError {
            throw corrupted(error, operation, "response")
        }
    }

    private static func readResponse(_ operation: DocumentEngineOperation, from bytes: UnsafeRawBufferPointer) throws
        -> DocumentEngineResponse
    {
        var r = WireReader(bytes)
        let raw = try r.u8()
        guard let tag = Tag(rawValue: raw) else { throw r.malformed("unknown response tag \(raw)") }
        guard tag == .failure || tag == expectedTag(operation) else {
            throw r.malformed("a \(tag) response does not answer '\(operation.rawValue)'")
        }
        let response: DocumentEngineResponse
        switch tag {
        case .failure:
            response = .failure(DocumentsEngineKind.documentsError(for: try r.failure()))
        case .commit:
            let sequence = try r.i64()
            response = .commit(CommitResult(sequence: sequence, documents: try optionalDocuments(&r)))
        case .documents:
            response = .documents(try optionalDocuments(&r))
        case .hits:
            let n = try r.count(minimumSize: 8)
            var hits: [IndexHit] = []
            hits.reserveCapacity(n)
            for _ in 0..<n {
                let key = try r.blob()
                hits.append(IndexHit(key: key, path: try r.string()))
            }
            response = .hits(hits)
        case .listed:
            let n = try r.count(minimumSize: WireSize.document)
            var documents: [StoredDocument] = []
            documents.reserveCapacity(n)
            for _ in 0..<n { documents.append(try r.document()) }
            response = .listed(documents)
        case .changes:
            let n = try r.count(minimumSize: 8 + 4 + WireSize.optional)
            var changes: [ChangeRecord] = []
            changes.reserveCapacity(n)
            for _ in 0..<n {
                let sequence = try r.i64()
                let path = try r.string()
                changes.append(ChangeRecord(sequence: sequence, path: path, document: try r.optionalDocument()))
            }
            response = .changes(changes)
        case .sequence:
            response = .sequence(try r.i64())
        case .metadata:
            response = .metadata(try r.optionalBlob())
        case .done:
            response = .done
        case .flag:
            response = .flag(try r.bool())
        case .scanned:
            let n = try r.count(minimumSize: 8 + WireSize.optional)
            var hits: [IndexHit] = []
            var documents: [StoredDocument?] = []
            hits.reserveCapacity(n)
            documents.reserveCapacity(n)
            for _ in 0..<n {
                let key = try r.blob()
                hits.append(IndexHit(key: key, path: try r.string()))
                documents.append(try r.optionalDocument())
            }
            response = .scanned(ScannedDocuments(hits: hits, documents: documents))
        case .names:
            let n = try r.count(minimumSize: 4)
            var names: [String] = []
            names.reserveCapacity(n)
            for _ in 0..<n { names.append(try r.string()) }
            response = .names(names)
        case .changeLog:
            let records = try r.i64()
            let horizon = try r.i64()
            response = .changeLog(
                ChangeLogStatus(records: Int(truncatingIfNeeded: records), horizon: horizon, lastSequence: try r.i64()))
        case .verification:
            response = .verification(try r.verification())
        case .rebuild:
            let indexes = try r.i64()
            response = .rebuild(
                IndexRebuild(indexes: Int(truncatingIfNeeded: indexes), entries: Int(truncatingIfNeeded: try r.i64())))
        case .prepared:
            response = .prepared(try r.i64())
        }
        try r.finish()
        return response
    }

    private static func corrupted(
        _ error: WireFormatError, _ operation: DocumentEngineOperation, _ direction: StaticString
    ) -> DocumentsError {
        DocumentsError(
            .corrupted, "malformed documents-engine \(operation.rawValue) \(direction): \(error)",
            hint: "the plugin and the host must be built from the same Suite version")
    }

    private static func expectedTag(_ operation: DocumentEngineOperation) -> Tag {
        switch operation {
        case .commit, .commitPrepared: .commit
        case .prepareCommit: .prepared
        case .get: .documents
        case .scan: .hits
        case .list, .listGroup: .listed
        case .changes: .changes
        case .lastSequence: .sequence
        case .metadata: .metadata
        case .addIndexEntries, .removeIndex, .setMetadata, .waitChanges, .shutdown: .done
        case .compareAndSetMetadata: .flag
        case .scanDocuments: .scanned
        case .collectionIDs, .indexNames: .names
        case .changeLogStatus: .changeLog
        case .verifyIndexes: .verification
        case .rebuildIndexes: .rebuild
        }
    }

    private static func optionalDocuments(_ r: inout WireReader) throws -> [StoredDocument?] {
        let n = try r.count(minimumSize: WireSize.optional)
        var documents: [StoredDocument?] = []
        documents.reserveCapacity(n)
        for _ in 0..<n { documents.append(try r.optionalDocument()) }
        return documents
    }

    private static func estimatedSize(_ document: StoredDocument?) -> Int {
        guard let document else { return 1 }
        return 1 + WireSize.document + document.path.utf8.count + document.body.count
    }

    private static func estimatedSize(_ mutation: DocumentMutation) -> Int {
        var size = 16 + mutation.path.utf8.count
        if case .put(let body, let entries) = mutation.kind {
            size += 8 + body.count
            for entry in entries { size += 8 + entry.index.utf8.count + entry.key.count }
        }
        return size
    }
}
