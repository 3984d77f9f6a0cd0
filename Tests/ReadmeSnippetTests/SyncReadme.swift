// swift-format-ignore-file
// Modules/Sync/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line). Compiled, not
// called: it needs a running `suite serve` (SyncTests and EndToEndTests run the same calls).
import Documents
import SuiteCore
import Sync

func syncReadme() async throws {
    let replica = DocumentStore(engine: try SQLiteDocumentEngine(path: "replica.sqlite"), bus: EventBus())
    let transport = try HTTPSyncTransport(baseURL: "http://127.0.0.1:8080", token: "suite_…")
    let sync = try await SyncClient(store: replica, transport: transport)
    try await replica.document("users/ana").setData(["points": .increment(1)], merge: true)  // recorded in the outbox
    let ana = try await replica.document("users/ana").getDocument()  // +1 at once, offline or not
    try await sync.sync()  // push, then pull; offline: SyncError(.offline), nothing lost
    try await transport.shutdown()
    _ = ana
}

func syncReadmeIsFromCache(replica: DocumentStore, sync: SyncClient) async throws {
    let confirmed = try await replica.document("users/ana").getDocument().metadata.isFromCache == false
    try await sync.pull()  // from now on replica.isFromCache == false, until an offline failure
    _ = confirmed
}
