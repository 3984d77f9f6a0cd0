import SuiteServer

/// Runs `server` in a task on loopback and answers its port once it listens (a signal, not a sleep); if the server
/// ends before it listens, its error.
func runOnLoopback(_ server: SuiteServer) async throws -> (port: Int, task: Task<Void, any Error>) {
    let (ports, sink) = AsyncStream<Int>.makeStream()
    let task = Task {
        defer { sink.finish() }
        try await server.run { port in sink.yield(port) }
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else {
        try await task.value
        throw CancellationError()
    }
    return (port, task)
}
