// documents-crash-writer DATABASE [--index-heavy] [--commits N] — commits to a Documents SQLite file in a loop,
// printing `ACK <sequence> <n> <count>` after each acknowledged commit, until killed (or for 60 s at most, or after N
// commits). The crash tests in DocumentsTests kill it with SIGKILL at a random moment and check that every
// acknowledged commit survived, whole.
//
// Every document has one entry in index `n`. With `--index-heavy`, each one-document commit also brings 4,096 entries
// in index `m` (the pending operations pass the flush threshold after 32 of them, and a background flush runs), and
// every 40th commit brings 8,200 documents (a run of its own, with everything pending): runs pile up and merge in the
// background. The kill can then land inside a background flush or merge as well.
//
// documents-crash-writer DATABASE --write-skew a|b PAIRS — the write-skew check of transactions across processes: for
// each pair i < PAIRS, one transaction reads `skew/i-a` and `skew/i-b` and, when both are on, turns its own one (a or
// b) off. Two such processes run at once; the invariant "at least one of a pair stays on" holds only if transactions
// are serializable across processes. Prints `DONE <transactions>`.
//
// documents-crash-writer DATABASE --reads N — reads `users/u1` N times through a store that flushes its cost counters
// after every read (they must add up exactly across processes). Prints `DONE <reads>`.
//
// documents-crash-writer DATABASE --open — opens the file (as any process does: migrations, removal of abandoned
// partial runs), reads one document and exits; the pid-namespace test runs it beside a writer.
@_spi(Engine) import Documents
import Foundation

if CommandLine.arguments.count == 4, CommandLine.arguments[2] == "--reads", let reads = Int(CommandLine.arguments[3]) {
    do {
        var options = DocumentStore.Options()
        options.costFlushInterval = .zero
        let store = DocumentStore(engine: try SQLiteDocumentEngine(path: CommandLine.arguments[1]), options: options)
        let user = try store.document("users/u1")
        for _ in 0..<reads { _ = try await user.getDocument() }
        await store.close()
        FileHandle.standardOutput.write(Data("DONE \(reads)\n".utf8))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("documents-crash-writer: \(error)\n".utf8))
        exit(1)
    }
}
if CommandLine.arguments.count == 5, CommandLine.arguments[2] == "--write-skew",
    ["a", "b"].contains(CommandLine.arguments[3]), let pairs = Int(CommandLine.arguments[4])
{
    do {
        try await writeSkew(database: CommandLine.arguments[1], role: CommandLine.arguments[3], pairs: pairs)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("documents-crash-writer: \(error)\n".utf8))
        exit(1)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: documents-crash-writer DATABASE [--index-heavy] [--commits N] | DATABASE --open\n"
var heavy = false
var open = false
var maximumCommits = Int.max
var rest = arguments.dropFirst()
while let option = rest.popFirst() {
    switch option {
    case "--index-heavy": heavy = true
    case "--open": open = true
    case "--commits":
        guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
            FileHandle.standardError.write(Data(usage.utf8))
            exit(64)
        }
        maximumCommits = value
    default:
        FileHandle.standardError.write(Data(usage.utf8))
        exit(64)
    }
}
guard let path = arguments.first, !path.hasPrefix("--") else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
do {
    let engine = try SQLiteDocumentEngine(path: path)
    if open {
        _ = try await engine.document(at: "crash/d1-0")
        try engine.close()
        exit(0)
    }
    let deadline = Date().addingTimeInterval(60)
    var n = 0
    while Date() < deadline, n < maximumCommits {
        n += 1
        // Alternate one-document commits with bigger ones, so the kill can land inside a long transaction.
        let count = heavy ? (n % 40 == 0 ? 8_200 : 1) : (n % 5 == 0 ? 200 : 1)
        let mutations = (0..<count).map { i in
            var entries = [IndexEntry(index: "n", key: [UInt8(n & 0xFF), UInt8(i & 0xFF), UInt8(i >> 8 & 0xFF)])]
            if heavy && count == 1 {
                for j in 0..<4096 {
                    entries.append(
                        IndexEntry(
                            index: "m", key: [UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), UInt8(j >> 8), UInt8(j & 0xFF)]))
                }
            }
            return DocumentMutation(
                path: "crash/d\(n)-\(i)",
                kind: .put(body: ValueCodec.encode(["n": .int(Int64(n))]), indexEntries: entries))
        }
        let result = try await engine.commit(mutations, commitTime: Int64(n))
        FileHandle.standardOutput.write(Data("ACK \(result.sequence) \(n) \(count)\n".utf8))
    }
    await engine.shutdown()
} catch {
    FileHandle.standardError.write(Data("documents-crash-writer: \(error)\n".utf8))
    exit(1)
}

func writeSkew(database: String, role: String, pairs: Int) async throws {
    let store = DocumentStore(engine: try SQLiteDocumentEngine(path: database))
    for i in 0..<pairs {
        let a = try store.document("skew/\(i)-a")
        let b = try store.document("skew/\(i)-b")
        try await store.runTransaction(maxAttempts: 50) { tx in
            let both = [try await tx.getDocument(a), try await tx.getDocument(b)]
            // Widen the window between the reads and the commit, where the other process's commit can land.
            try await Task.sleep(for: .microseconds(Int.random(in: 0..<2_000)))
            if both.allSatisfy({ $0.get("on") == .bool(true) }) {
                tx.setData(["on": .value(.bool(false))], forDocument: role == "a" ? a : b)
            }
        }
    }
    await store.close()
    FileHandle.standardOutput.write(Data("DONE \(pairs)\n".utf8))
}
