// A newcomer's program on the Documents product alone: the README's first example, on a SQLite file in the directory
// given as the first argument, checking its own results. Tools/consumer-check.sh builds and runs it.
import Documents
import Foundation
import SuiteCore

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("DocumentsConsumer: \(message())\n".utf8))
    exit(1)
}

check(CommandLine.arguments.count == 2, "usage: DocumentsConsumer DIRECTORY")
let path = CommandLine.arguments[1] + "/documents.sqlite"

// MARK: - The README's example

let bus = EventBus()  // optional: commits and costs are published on it
let store = DocumentStore(engine: try SQLiteDocumentEngine(path: path), bus: bus)
let user = try store.document("users/u1")
let written = try await user.setData(["name": "Ana", "points": 25])  // the result: data, version, updateTime

// Redeem a reward: reads first, then writes; retried if the user document moves meanwhile.
try await store.runTransaction { tx in
    let points = try await tx.getDocument(user).get("points", as: Int.self) ?? 0
    guard points >= 10 else { throw DocumentsError(.invalidValue, "not enough points") }
    try tx.updateData(["points": .increment(-10)], forDocument: user)
    tx.setData(
        ["user": .value(.reference("users/u1")), "delta": -10],
        forDocument: try store.collection("pointTransactions").document())
}

let rich = try await store.collection("users").whereField("points", isGreaterThanOrEqualTo: 10).getDocuments()
// The README loops over the listener for ever (an app keeps it); a program that ends takes its first snapshot.
var firstChanges = -1
for try await snapshot in try store.collection("users").query.snapshots() {
    print(snapshot.documentChanges)
    firstChanges = snapshot.documentChanges.count
    break
}

// MARK: - Checks

check(try written.get("points", as: Int.self) == 25, "setData returned \(written)")
check(try await user.getDocument().get("points", as: Int.self) == 15, "the transaction did not take 10 points")
let transactions = try await store.collection("pointTransactions").getDocuments()
check(transactions.count == 1, "\(transactions.count) point transactions, expected 1")
check(rich.count == 1, "the query found \(rich.count) users with 15 points, expected 1")
check(firstChanges == 1, "the listener's first snapshot had \(firstChanges) changes, expected 1")
await store.close()

// The file keeps it: a second store on the same path reads what the first wrote.
let reopened = DocumentStore(engine: try SQLiteDocumentEngine(path: path))
check(
    try await reopened.document("users/u1").getDocument().get("name", as: String.self) == "Ana",
    "the reopened file lost users/u1")
await reopened.close()
print("DocumentsConsumer: ok (users/u1 at 15 points, 1 point transaction, \(path))")
