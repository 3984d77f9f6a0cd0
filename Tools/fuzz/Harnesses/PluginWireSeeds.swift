import CachePluginSupport
@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import Foundation
import SuiteCore
import SuitePluginKit

/// `SuiteFuzz write-seeds <folder>`: the plugin-wire harness's seed corpus, encoded by the encoders themselves (so the
/// seeds follow the format when it changes: run it again and commit Tools/fuzz/corpus/plugin-wire).
enum PluginWireSeeds {
    static func write(to folder: String) throws {
        let body = ValueCodec.encode([
            "n": .int(1), "tags": .array([.string("a"), .double(1.5)]), "m": .map(["x": .null]),
        ])
        let stored = StoredDocument(path: "users/ana", body: body, version: 3, createTime: 1, updateTime: 2)
        let requests: [DocumentEngineRequest] = [
            .commit(
                [
                    DocumentMutation(
                        path: "users/ana",
                        kind: .put(body: body, indexEntries: [IndexEntry(index: "n", key: [1, 2, 3])])),
                    DocumentMutation(path: "users/bo", kind: .delete, precondition: .exists(true)),
                ], commitTime: 1_700_000_000),
            .get(["users/ana", "users/bo"]),
            .list(collection: "users", after: "users/ana", limit: 10),
            .changes(after: 2, limit: 100),
            .compareAndSetMetadata(key: "k", expected: [1], new: nil),
            .verifyIndexes(names: ["n"], maximumReported: 5),
        ]
        var seeds: [String: [UInt8]] = [:]
        for request in requests {
            let index = DocumentEngineOperation.allCases.firstIndex(of: request.operation) ?? 0
            seeds["documents-request-\(request.operation.rawValue)"] =
                [0, UInt8(index)] + DocumentEngineWire.encode(request)
        }
        let responses: [(DocumentEngineOperation, DocumentEngineResponse)] = [
            (.commit, .commit(CommitResult(sequence: 4, documents: [stored, nil]))),
            (.get, .documents([stored, nil])),
            (.list, .listed([stored])),
            (.metadata, .metadata([1, 2])),
            (.indexNames, .names(["n", "m"])),
        ]
        for (operation, response) in responses {
            let index = DocumentEngineOperation.allCases.firstIndex(of: operation) ?? 0
            seeds["documents-response-\(operation.rawValue)"] = [1, UInt8(index)] + DocumentEngineWire.encode(response)
        }
        let cacheRequests: [CacheStoreRequest] = [
            .get(key: "GET https://example.com/", now: 5), .removePrefix("GET https://"),
            .summaries(after: "a", limit: 3),
        ]
        for request in cacheRequests {
            let index = CacheStoreOperation.allCases.firstIndex(of: request.operation) ?? 0
            seeds["cache-request-\(request.operation.rawValue)"] = [2, UInt8(index)] + CacheStoreWire.encode(request)
        }
        let event = ObservedEvent(
            name: "documents.changed", payloadJSON: #"{"paths":["users/ana"]}"#, time: Date(timeIntervalSince1970: 5),
            source: "documents", sequence: 7)
        seeds["observer-events"] = [3, 0] + ObserverWire.encode([event, event])
        seeds["observer-request"] = [4, 1] + ObserverWire.encode([event])
        seeds["document-body"] = [5, 0] + body
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, bytes) in seeds {
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
    }
}
