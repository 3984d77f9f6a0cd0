@_spi(Engine) import Documents
import Foundation
import SuiteTestSupport
import Testing

/// Runs the real `documents-crash-writer` (Tools/CrashWriter) with `arguments`; returns its exit status and output.
func runCrashWriter(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    let process = TestProcess()
    process.executableURL = TestSupport.binDirectory.appendingPathComponent("documents-crash-writer")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    return try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { process in
            let data = output.fileHandleForReading.readDataToEndOfFile()
            continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
        }
        do {
            try process.run()
        } catch {
            continuation.resume(throwing: error)
        }
    }
}

@Suite("Documents across processes")
struct CrossProcessTests {
    /// Write skew: two processes run, for each of 300 pairs, a transaction that reads both documents of the pair and
    /// turns its own one off when both are on. Serializable transactions keep at least one of every pair on; with
    /// the reads re-checked apart from the commit, 3–11 pairs in 300 ended with both off.
    @Test("transactions of two processes are serializable: no write skew in 300 pairs")
    func noWriteSkewAcrossProcesses() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let pairs = 300
        do {
            let store = DocumentStore(engine: try SQLiteDocumentEngine(path: path))
            for i in 0..<pairs {
                let batch = store.batch()
                for side in ["a", "b"] {
                    batch.setData(["on": .value(.bool(true))], forDocument: try store.document("skew/\(i)-\(side)"))
                }
                try await batch.commit()
            }
            await store.close()
        }
        async let a = runCrashWriter([path, "--write-skew", "a", "\(pairs)"])
        async let b = runCrashWriter([path, "--write-skew", "b", "\(pairs)"])
        let results = try await [a, b]
        for result in results { #expect(result.status == 0, "\(result.output)") }

        let engine = try SQLiteDocumentEngine(path: path)
        let documents = try await engine.documents(inCollection: "skew", after: nil, limit: nil)
        var on: [String: Bool] = [:]
        for document in documents {
            on[document.path] = try ValueCodec.decode(document.body)["on"] == .bool(true)
        }
        #expect(on.count == pairs * 2)
        let broken = (0..<pairs).filter { on["skew/\($0)-a"] == false && on["skew/\($0)-b"] == false }
        #expect(broken.isEmpty, "both documents turned off in \(broken.count) of \(pairs) pairs: \(broken.prefix(10))")
        // Each pair was decided: exactly one side is off.
        let decided = (0..<pairs).filter { on["skew/\($0)-a"] != on["skew/\($0)-b"] }
        #expect(decided.count == pairs)
        try engine.close()
    }

    /// Cost counters: 20 processes each read 100 times, flushing their counters after every read.
    @Test("cost counters of 20 processes add up exactly")
    func costCountersAddUpAcrossProcesses() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        do {
            let store = DocumentStore(engine: try SQLiteDocumentEngine(path: path))
            try await store.document("users/u1").setData(["points": 1])
            try await store.resetCosts()
            await store.close()
        }
        let results = try await withThrowingTaskGroup(of: (status: Int32, output: String).self) { group in
            for _ in 0..<20 { group.addTask { try await runCrashWriter([path, "--reads", "100"]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result.status == 0, "\(result.output)") }
        let store = DocumentStore(engine: try SQLiteDocumentEngine(path: path))
        let costs = try await store.costs()
        #expect(costs.total.reads == 2_000)
        #expect(costs.byKind["get"]?.reads == 2_000)
        await store.close()
    }
}
