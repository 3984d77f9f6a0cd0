import Documents
import Foundation
import SuiteCore
import SuiteServer

#if DEBUG
    @testable import SuiteServer
#endif

/// The JSON API's request bodies, parsed and run as the server runs them against an in-memory store: the first byte
/// picks the route (commit, query, sync push, or a single document's set / update / delete), the second the caller
/// (an admin, or the user `ana` under the standard rules); the rest is the body.
enum ServerBodiesHarness {
    static let server: SuiteServer? = {
        let directory = NSTemporaryDirectory() + "suite-fuzz-server-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard let accounts = try? ServerAccounts(path: directory + "/server.sqlite") else { return nil }
        return SuiteServer(store: DocumentStore(engine: InMemoryDocumentEngine()), accounts: accounts)
    }()

    static func run(_ bytes: UnsafeRawBufferPointer) {
        #if DEBUG
            guard bytes.count >= 2, let server else { return }
            let route = bytes[0] % 6
            let account = ServerAccounts.Account(uid: "ana", isAdmin: bytes[1] & 1 == 1)
            guard let body = try? JSONValue(parsing: UnsafeRawBufferPointer(rebasing: bytes.dropFirst(2))) else {
                return
            }
            Blocking.run {
                switch route {
                case 0: _ = try? await server.commit(account, body)
                case 1: _ = try? await server.query(account, body)
                case 2: _ = try? await server.push(account, body)
                case 3: _ = try? await server.write(account, "users/ana/notes/n", op: "set", body: body)
                case 4: _ = try? await server.write(account, "users/ana/notes/n", op: "update", body: body)
                default: _ = try? await server.write(account, "users/ana/notes/n", op: "delete", body: body)
                }
            }
        #endif
    }
}
