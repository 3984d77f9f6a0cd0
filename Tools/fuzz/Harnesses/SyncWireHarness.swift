import Documents
import Foundation
import SuiteCore
import Sync

/// The sync wire format, both directions: a push request (what the server reads) and the three answers (what a
/// replica reads), from JSON and through `Codable` as the transport decodes them. The writes of a push are checked as
/// the server's batch would check them.
enum SyncWireHarness {
    static let store = DocumentStore(engine: InMemoryDocumentEngine())

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let data = Data(bytes)
        let decoder = JSONDecoder()
        _ = try? decoder.decode(SyncPushRequest.self, from: data)
        _ = try? decoder.decode(SyncPushResponse.self, from: data)
        _ = try? decoder.decode(SyncChangesResponse.self, from: data)
        _ = try? decoder.decode(SyncSnapshotResponse.self, from: data)
        guard let json = try? JSONValue(parsing: bytes) else { return }
        if let push = try? SyncPushRequest(json: json) {
            for mutation in push.mutations { _ = try? store.batch(json: .array(mutation.writes)) }
            _ = push.json
        }
        _ = (try? SyncPushResponse(json: json))?.json
        _ = try? SyncChangesResponse(json: json)
        _ = try? SyncSnapshotResponse(json: json)
    }
}
