// A newcomer's program on the Sync product alone: the README's first example against a real `suite serve` (its URL and
// a user token as arguments), checking its own results. Tools/consumer-check.sh builds it, runs it and then asks the
// server for the document.
import Documents
import Foundation
import SuiteCore
import Sync

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("SyncConsumer: \(message())\n".utf8))
    exit(1)
}

check(CommandLine.arguments.count == 4, "usage: SyncConsumer DIRECTORY BASE-URL TOKEN")
let directory = CommandLine.arguments[1]
let baseURL = CommandLine.arguments[2]
let token = CommandLine.arguments[3]

// MARK: - The README's example

let bus = EventBus()
let replica = DocumentStore(engine: try SQLiteDocumentEngine(path: directory + "/replica.sqlite"), bus: bus)
let transport = try HTTPSyncTransport(baseURL: baseURL, token: token)
let sync = try await SyncClient(store: replica, transport: transport)
try await replica.document("users/ana").setData(["points": .increment(1)], merge: true)  // recorded in the outbox
let local = try await replica.document("users/ana").getDocument()  // +1 at once, offline or not
let pendingBefore = try await sync.pendingPaths()
let (pushed, _) = try await sync.sync()  // push, then pull; offline: SyncError(.offline), nothing lost

// MARK: - Checks

check(try local.get("points", as: Int.self) == 1, "the replica reads \(local) before syncing, expected points 1")
check(local.metadata.hasPendingWrites, "the local write is not marked as pending")
check(pendingBefore == ["users/ana"], "pending before sync: \(pendingBefore)")
check(pushed == 1, "sync() pushed \(pushed) mutations, expected 1")
check(try await sync.pendingPaths().isEmpty, "writes still pending after sync()")
let synced = try await replica.document("users/ana").getDocument()
check(try synced.get("points", as: Int.self) == 1, "after sync the replica reads \(synced)")
check(!synced.metadata.hasPendingWrites, "users/ana still has pending writes after sync()")
// Firestore's isFromCache: the first read came before the server confirmed anything; after a pull it has.
check(local.metadata.isFromCache, "the read before any sync is not marked isFromCache")
check(!synced.metadata.isFromCache && !replica.isFromCache, "after sync() the replica still says isFromCache")
try await transport.shutdown()
await replica.close()
print("SyncConsumer: ok (users/ana written locally, pushed 1)")
