@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import SuiteCore
import SuiteTestSupport
import Testing

/// The bulk importer prepares its next chunk while the previous one writes; through a plugin that is the
/// `prepareCommit` and `commitPrepared` operations, the prepared commit kept in the plugin.
@Suite("Commits prepared in a plugin")
struct PluginPreparedCommitTests {
    static func puts(_ range: Range<Int>, in collection: String = "items") -> [DocumentMutation] {
        range.map { i in
            DocumentMutation(
                path: "\(collection)/d\(i)",
                kind: .put(
                    body: ValueCodec.encode(["n": .int(Int64(i))]),
                    indexEntries: [
                        IndexEntry(index: "\(collection)|n", key: [UInt8(i % 256)])
                    ]))
        }
    }

    @Test("a commit prepared in the plugin writes what the plain commit would, entries included")
    func preparedCommitWrites() async throws {
        let engine = try PluginFixture.engine(
            "plugin-sqlite", options: ["path": .string(try PluginFixture.newDatabasePath())])
        let prepared = try await engine.prepareCommit(Self.puts(0..<3))
        #expect(prepared.engineWork != nil, "the plugin kept the prepared commit")
        let result = try await engine.commit(prepared, commitTime: 5)
        #expect(result.documents.map { $0?.path } == ["items/d0", "items/d1", "items/d2"])
        #expect(result.documents.allSatisfy { $0?.version == result.sequence && $0?.createTime == 5 })
        let stored = try await engine.documents(at: ["items/d1"])
        #expect(stored.first??.body == ValueCodec.encode(["n": 1]))
        let hits = try await engine.scan(IndexScan(index: "items|n"))
        #expect(hits.map(\.path) == ["items/d0", "items/d1", "items/d2"])
    }

    @Test("a handle the plugin no longer holds is committed from the mutations, once each")
    func forgottenHandleFallsBack() async throws {
        let engine = try PluginFixture.engine(
            "plugin-sqlite", options: ["path": .string(try PluginFixture.newDatabasePath())])
        var prepared: [PreparedCommit] = []
        // More than the plugin keeps: the first ones are forgotten there.
        for chunk in 0..<6 { prepared.append(try await engine.prepareCommit(Self.puts(chunk * 10..<chunk * 10 + 10))) }
        var sequences: [Int64] = []
        for commit in prepared { sequences.append(try await engine.commit(commit, commitTime: 1).sequence) }
        #expect(sequences == Array(1...6), "one commit each, in order")
        let all = try await engine.documents(inCollection: "items", after: nil, limit: nil)
        #expect(all.count == 60)
        #expect(try await engine.lastSequence() == 6)
    }

    @Test("another engine refuses a prepared commit and writes nothing")
    func otherEngineRefuses() async throws {
        let path = try PluginFixture.newDatabasePath()
        let first = try PluginFixture.engine("plugin-sqlite", options: ["path": .string(path)])
        let second = try PluginFixture.engine("plugin-sqlite", options: ["path": .string(path)])
        let prepared = try await first.prepareCommit(Self.puts(0..<2))
        let error = await captureError { _ = try await second.commit(prepared, commitTime: 1) }
        #expect(error?.code == .wrongEngine)
        #expect(try await second.documents(at: ["items/d0"]) == [nil])
        _ = try await first.commit(prepared, commitTime: 1)
        #expect(try await second.documents(at: ["items/d0"]).first??.path == "items/d0")
    }

    @Test("a plugin that predates prepareCommit gets the plain mutations back, committed the usual way")
    func olderPluginPreparesNothing() async throws {
        let engine = try PluginDocumentEngineTests.eventLogAsDocumentsEngine()
        let prepared = try await engine.prepareCommit(Self.puts(0..<2))
        #expect(prepared.engineWork == nil)
        #expect(prepared.mutations.count == 2)
    }

    @Test("a bulk import through a plugin engine commits every chunk, prepared while the previous one writes")
    func importThroughPlugin() async throws {
        let engine = try PluginFixture.engine(
            "plugin-sqlite", options: ["path": .string(try PluginFixture.newDatabasePath())])
        let store = DocumentStore(engine: engine)
        let documents: [(id: String?, data: DocumentData)] = (0..<12_000).map { ("d\($0)", ["n": .int(Int64($0))]) }
        let imported = try await store.importDocuments(into: store.collection("items"), documents, chunkSize: 5_000)
        #expect(imported == 12_000)
        #expect(try await engine.lastSequence() == 3, "three chunks, three commits")
        let found = try await store.collection("items").whereField("n", isEqualTo: 11_999).getDocuments()
        #expect(found.documents.map(\.documentID) == ["d11999"])
        await store.close()
    }
}
