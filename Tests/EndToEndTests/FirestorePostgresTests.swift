import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import PostgresTestSupport
import SuiteCore
import SuiteTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RealBinary {
    /// Firestore's protocol on two real `suite serve` processes sharing one PostgreSQL database: interactive
    /// transactions serialise across the servers, and a listener on one server sees a commit through the other.
    @Suite("Firestore protocol on two suite serve over one PostgreSQL")
    struct FirestorePostgresTests {
        typealias Client = Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>
        static let database = "projects/demo-pg/databases/(default)"
        static let counter = database + "/documents/counters/shared"
        static let owner: Metadata = ["authorization": "Bearer owner"]

        /// Two servers with the Firestore protocol; their gRPC ports.
        static func twoServers() async throws -> ([RunningSuite], [Int]) {
            let suite = try await PostgresServeTests.runner()
            var processes: [RunningSuite] = []
            var ports: [Int] = []
            for _ in 0..<2 {
                let process = try suite.start([
                    "serve", "--port", "0", "--firestore-port", "0", "--accept-owner-token", "--json",
                ])
                processes.append(process)
                let line = (try? JSONValue(parsing: process.readLine() ?? "")) ?? .null
                let address = line["firestore"]?.stringValue ?? ""
                ports.append(Int(address.split(separator: ":").last ?? "") ?? 0)
            }
            return (processes, ports)
        }

        static func withClient<T: Sendable>(_ port: Int, _ body: @escaping @Sendable (Client) async throws -> T)
            async throws -> T
        {
            try await withGRPCClient(
                transport: .http2NIOPosix(
                    target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
            ) { client in try await body(Client(wrapping: client)) }
        }

        /// One read-modify-write of the counter in a Firestore transaction, retried on ABORTED as clients do;
        /// returns the number of retries.
        static func increment(_ client: Client) async throws -> Int {
            var retried = Data()
            for attempt in 0..<200 {
                var begin = Google_Firestore_V1_BeginTransactionRequest()
                begin.database = database
                if !retried.isEmpty { begin.options.readWrite.retryTransaction = retried }
                let transaction = try await client.beginTransaction(begin, metadata: owner).transaction
                var get = Google_Firestore_V1_BatchGetDocumentsRequest()
                get.database = database
                get.documents = [counter]
                get.transaction = transaction
                let read = try await client.batchGetDocuments(get, metadata: owner) { response in
                    var found: Google_Firestore_V1_Document?
                    for try await message in response.messages {
                        if case .found(let document)? = message.result { found = document }
                    }
                    return found
                }
                let n = read?.fields["n"]?.integerValue ?? 0
                var write = Google_Firestore_V1_Write()
                write.update.name = counter
                var value = Google_Firestore_V1_Value()
                value.integerValue = n + 1
                write.update.fields = ["n": value]
                var commit = Google_Firestore_V1_CommitRequest()
                commit.database = database
                commit.writes = [write]
                commit.transaction = transaction
                do {
                    _ = try await client.commit(commit, metadata: owner)
                    return attempt
                } catch let error as RPCError where error.code == .aborted {
                    retried = transaction
                }
            }
            throw RunnerFailure("200 aborted attempts in a row")
        }

        @Test func twoClientsIncrementingThroughTwoServersEndAtExactlyTwoHundred() async throws {
            let (processes, ports) = try await Self.twoServers()
            defer {
                for process in processes { process.send(SIGTERM) }
                for process in processes { _ = process.wait() }
            }
            #expect(ports.allSatisfy { $0 > 0 } && ports[0] != ports[1])
            let retries = try await withThrowingTaskGroup(of: Int.self) { group in
                for port in ports {
                    group.addTask {
                        try await Self.withClient(port) { client in
                            var retries = 0
                            for _ in 0..<100 { retries += try await Self.increment(client) }
                            return retries
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            let final = try await Self.withClient(ports[1]) { client in
                var get = Google_Firestore_V1_GetDocumentRequest()
                get.name = Self.counter
                return try await client.getDocument(get, metadata: Self.owner)
            }
            #expect(final.fields["n"]?.integerValue == 200, "retries: \(retries)")
        }

        @Test func aListenerOnOneServerSeesACommitThroughTheOther() async throws {
            let (processes, ports) = try await Self.twoServers()
            defer {
                for process in processes { process.send(SIGTERM) }
                for process in processes { _ = process.wait() }
            }
            let name = Self.database + "/documents/rooms/r1"
            let seen = try await Self.withClient(ports[1]) { listener in
                let (requests, feed) = AsyncStream<Google_Firestore_V1_ListenRequest>.makeStream()
                return try await listener.listen(
                    metadata: Self.owner,
                    requestProducer: { writer in for await request in requests { try await writer.write(request) } }
                ) { response in
                    defer { feed.finish() }
                    var add = Google_Firestore_V1_ListenRequest()
                    add.database = Self.database
                    add.addTarget.targetID = 1
                    add.addTarget.documents.documents = [name]
                    feed.yield(add)
                    var committed = false
                    for try await message in response.messages {
                        if case .targetChange(let change)? = message.responseType, change.targetChangeType == .current,
                            !committed
                        {
                            committed = true
                            // The write goes through the other server.
                            try await Self.withClient(ports[0]) { writer in
                                var write = Google_Firestore_V1_Write()
                                write.update.name = name
                                var value = Google_Firestore_V1_Value()
                                value.stringValue = "hello"
                                write.update.fields = ["text": value]
                                var commit = Google_Firestore_V1_CommitRequest()
                                commit.database = Self.database
                                commit.writes = [write]
                                _ = try await writer.commit(commit, metadata: Self.owner)
                            }
                        }
                        if case .documentChange(let change)? = message.responseType {
                            return change.document.fields["text"]?.stringValue
                        }
                    }
                    return nil
                }
            }
            #expect(seen == "hello")
        }
    }
}
