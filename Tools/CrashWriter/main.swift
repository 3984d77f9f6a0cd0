// documents-crash-writer DATABASE — commits to a Documents SQLite file in a loop, printing `ACK <sequence> <n> <count>`
// after each acknowledged commit, until killed (or for 60 s at most). The crash test in DocumentsTests kills it with
// SIGKILL at a random moment and checks that every acknowledged commit survived, whole.
import Documents
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: documents-crash-writer DATABASE\n".utf8))
    exit(64)
}
do {
    let engine = try SQLiteDocumentEngine(path: arguments[1])
    let deadline = Date().addingTimeInterval(60)
    var n = 0
    while Date() < deadline {
        n += 1
        // Alternate one-document commits with bigger ones, so the kill can land inside a long transaction.
        let count = n % 5 == 0 ? 200 : 1
        let mutations = (0..<count).map { i in
            DocumentMutation(
                path: "crash/d\(n)-\(i)",
                kind: .put(
                    body: ValueCodec.encode(["n": .int(Int64(n))]),
                    indexEntries: [IndexEntry(index: "n", key: [UInt8(n & 0xFF), UInt8(i & 0xFF)])]))
        }
        let result = try await engine.commit(mutations, commitTime: Int64(n))
        FileHandle.standardOutput.write(Data("ACK \(result.sequence) \(n) \(count)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("documents-crash-writer: \(error)\n".utf8))
    exit(1)
}
