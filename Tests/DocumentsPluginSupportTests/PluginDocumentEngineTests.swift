@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import Foundation
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Testing

@Suite("Documents engines through the plugin ABI")
struct PluginDocumentEngineTests {
    @Test("MemoryDocuments loads and lists its two documents engines")
    func pluginDescribesEngines() throws {
        let plugin = try PluginFixture.plugin()
        #expect(plugin.name == "MemoryDocuments")
        #expect(
            plugin.engines == [
                PluginEngineInfo(kind: EngineKind.documents, name: "plugin-memory"),
                PluginEngineInfo(kind: EngineKind.documents, name: "plugin-sqlite"),
            ])
    }

    @Test("the same requests give the same responses in-process and through the plugin")
    func sameAsInProcess() async throws {
        let local = InMemoryDocumentEngine()
        let remote = try PluginFixture.engine("plugin-memory")
        // Twice: the second pass meets the documents, entries and metadata the first one left.
        for request in sampleRequests + sampleRequests {
            let expected = await request.run(on: local)
            let actual = await request.run(on: remote)
            #expect(summary(actual) == summary(expected), "\(request.operation)")
        }
    }

    @Test("a precondition failure crosses the boundary as the same DocumentsError")
    func preconditionFailureKeepsCode() async throws {
        let engine = try PluginFixture.engine("plugin-memory")
        let put = DocumentMutation(
            path: "users/u1", kind: .put(body: [1], indexEntries: []), precondition: .exists(false))
        _ = try await engine.commit([put], commitTime: 1)
        let local = InMemoryDocumentEngine()
        _ = try await local.commit([put], commitTime: 1)

        let remoteError = await captureError { _ = try await engine.commit([put], commitTime: 2) }
        let localError = await captureError { _ = try await local.commit([put], commitTime: 2) }
        #expect(remoteError?.code == .preconditionFailed)
        #expect(remoteError?.message == localError?.message)
        #expect(remoteError?.hint == localError?.hint)
    }

    @Test("an engine's validation error keeps its code, message and hint")
    func validationErrorKeepsEverything() async throws {
        let engine = try PluginFixture.engine("plugin-memory")
        let bad = DocumentMutation(path: "users", kind: .delete)
        let remoteError = await captureError { _ = try await engine.commit([bad], commitTime: 1) }
        let localError = await captureError { _ = try await InMemoryDocumentEngine().commit([bad], commitTime: 1) }
        let remote = try #require(remoteError)
        let local = try #require(localError)
        #expect(remote.code == local.code)
        #expect(remote.message == local.message)
        #expect(remote.hint == local.hint)
    }

    @Test("concurrent point reads and commits through one plugin engine all answer correctly")
    func concurrentCalls() async throws {
        let engine = try PluginFixture.engine("plugin-memory")
        let count = 200
        _ = try await engine.commit(
            (0..<count).map {
                DocumentMutation(path: "c/d\($0)", kind: .put(body: [UInt8($0 % 256)], indexEntries: []))
            },
            commitTime: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<count {
                group.addTask {
                    let document = try await engine.document(at: "c/d\(i)")
                    #expect(document?.body == [UInt8(i % 256)])
                }
                group.addTask {
                    _ = try await engine.commit(
                        [DocumentMutation(path: "w/d\(i)", kind: .put(body: [], indexEntries: []))], commitTime: 2)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await engine.lastSequence() == Int64(count + 1))
        #expect(try await engine.documents(inCollection: "w", after: nil, limit: nil).count == count)
    }

    @Test("the sqlite engine keeps its data in the file named by its options")
    func sqliteEngineUsesItsFile() async throws {
        let path = try PluginFixture.newDatabasePath()
        let options = JSONValue.object(["path": .string(path), "durability": .string("normal")])
        do {
            let engine = try PluginFixture.engine("plugin-sqlite", options: options)
            _ = try await engine.commit(
                [DocumentMutation(path: "a/b", kind: .put(body: [42], indexEntries: []))], commitTime: 5)
        }
        // The same file, opened in-process, holds what the plugin wrote.
        let local = try SQLiteDocumentEngine(path: path)
        #expect(try await local.document(at: "a/b")?.body == [42])
    }

    @Test("bad engine options are refused with the plugin's reason")
    func badOptionsAreRefused() throws {
        let plugin = try PluginFixture.plugin()
        for options: JSONValue in [
            .object([:]), .object(["path": .string("/tmp/x.sqlite"), "durability": .string("sometimes")]),
        ] {
            #expect {
                _ = try PluginDocumentEngine(plugin: plugin, name: "plugin-sqlite", options: options)
            } throws: { error in
                guard let error = error as? PluginError else { return false }
                return error.code == .engineCreationFailed
                    && (error.message.contains("'path'") || error.message.contains("sometimes"))
            }
        }
        #expect(throws: PluginError.self) { _ = try PluginDocumentEngine(plugin: plugin, name: "postgres") }
    }

    @Test("an unknown operation answers UNSUPPORTED and a malformed request INVALID, at the byte level")
    func rawCallStatuses() async throws {
        let plugin = try PluginFixture.plugin()
        let handle = try plugin.makeEngine(kind: EngineKind.documents, name: "plugin-memory", options: .object([:]))
        await #expect {
            _ = try await handle.call("compact")
        } throws: { error in
            (error as? PluginError)?.message.contains("status 2") == true
        }
        await #expect {
            _ = try await handle.call("get", request: [255, 255, 255, 255])
        } throws: { error in
            guard let error = error as? PluginError else { return false }
            return error.message.contains("status 3") && error.message.contains("malformed")
        }
        // A well-formed request still works on the same engine afterwards.
        let bytes = try await handle.call("lastSequence")
        #expect(bytes == DocumentEngineWire.encode(DocumentEngineResponse.sequence(0)))
    }

    /// EventLog's observer engine taken as a documents engine: a plugin that knows none of the documents operations.
    static func eventLogAsDocumentsEngine() throws -> PluginDocumentEngine {
        let plugin = try PluginLoader.load(path: TestSupport.plugin("EventLog"))
        let directory = try TestSupport.makeTemporaryDirectory()
        let handle = try plugin.makeEngine(
            kind: EngineKind.observer, name: "eventlog",
            options: .object(["path": .string(directory.appendingPathComponent("events.jsonl").path)]))
        return PluginDocumentEngine(handle: handle)
    }

    @Test("a plugin engine that is not a documents engine fails as a storage error carrying the plugin error")
    func wrongKindIsAStorageError() async throws {
        let engine = try Self.eventLogAsDocumentsEngine()
        let error = await captureError { _ = try await engine.lastSequence() }
        #expect(error?.code == .storage)
        #expect(error?.underlying is PluginError)
    }

    @Test(
        "verify and rebuild cross the ABI for every selection; the change log's status too",
        arguments: ["plugin-memory", "plugin-sqlite"])
    func indexChecksAndChangeLog(_ name: String) async throws {
        let options: JSONValue =
            name == "plugin-sqlite" ? .object(["path": .string(try PluginFixture.newDatabasePath())]) : .object([:])
        let engine = try PluginFixture.engine(name, options: options)
        let mutations = (0..<20).map { i in
            DocumentMutation(
                path: "c/d\(i)",
                kind: .put(
                    body: [1],
                    indexEntries: [IndexEntry(index: "a", key: [UInt8(i % 3)]), IndexEntry(index: "b", key: [1])]))
        }
        _ = try await engine.commit(mutations, commitTime: 1)
        #expect(
            try await engine.verifyIndexes()
                == IndexVerification(indexes: 2, entries: 40, differenceCount: 0, differences: []))
        #expect(try await engine.verifyIndexes(.named(["a", "zz"])).entries == 20)
        #expect(try await engine.verifyIndexes(IndexSelection { $0 != "a" }).entries == 20)
        #expect(try await engine.rebuildIndexes(IndexSelection { $0 == "b" }) == IndexRebuild(indexes: 1, entries: 20))
        #expect(try await engine.scan(IndexScan(index: "b")).count == 20)
        let status = try await engine.changeLogStatus()
        #expect(status?.lastSequence == 1 && status?.horizon == 0)
    }

    @Test("a plugin that predates verify, rebuild and changeLogStatus answers unsupported and nil, not a failure")
    func olderPluginsAnswerUnsupported() async throws {
        // EventLog knows none of the documents operations, as a documents plugin built before these would not.
        let engine = try Self.eventLogAsDocumentsEngine()
        for selection in [IndexSelection.all, .named(["a"]), IndexSelection { _ in true }] {
            let verify = await captureError { _ = try await engine.verifyIndexes(selection) }
            #expect(verify?.code == .unsupported, "\(String(describing: verify))")
            let rebuild = await captureError { _ = try await engine.rebuildIndexes(selection) }
            #expect(rebuild?.code == .unsupported)
            #expect(rebuild?.message.contains("cannot rebuild its indexes") == true)
        }
        #expect(try await engine.changeLogStatus() == nil)
    }

    @Test("the operation handler refuses unknown operations and malformed requests with their statuses")
    func handlerStatuses() async throws {
        let handler = DocumentOperationHandler(engine: InMemoryDocumentEngine())
        await #expect {
            _ = try await handler.handle(operation: "nope", request: [])
        } throws: { error in
            (error as? PluginOperationError)?.status == 2
        }
        await #expect {
            _ = try await handler.handle(operation: "metadata", request: [1])
        } throws: { error in
            (error as? PluginOperationError)?.status == 3
        }
        let response = try await handler.handle(
            operation: "metadata", request: DocumentEngineWire.encode(.metadata(key: "missing")))
        #expect(response == DocumentEngineWire.encode(DocumentEngineResponse.metadata(nil)))
    }
}

/// The ``DocumentsError`` `work` throws, or `nil` (recording an issue) when it throws something else or nothing.
func captureError(_ work: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async
    -> DocumentsError?
{
    do {
        try await work()
        Issue.record("expected a DocumentsError", sourceLocation: sourceLocation)
    } catch let error as DocumentsError {
        return error
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
