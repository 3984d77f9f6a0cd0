import DocumentEngineContract
import Documents
import Foundation
import SuiteCore
import Testing

/// Helpers shared by the store tests.
enum StoreTesting {
    static func store(
        _ factory: DocumentEngineFactory, bus: EventBus? = nil, clock: any WallClock = ManualWallClock(),
        pollMilliseconds: Int = 20
    ) async throws -> DocumentStore {
        var options = DocumentStore.Options()
        options.listenerPollInterval = .milliseconds(pollMilliseconds)
        options.indexRefreshInterval = .milliseconds(20)
        let engine = try await factory.make().engine
        return DocumentStore(engine: engine, bus: bus, clock: clock, options: options)
    }

    /// Ten users with varied fields.
    static func seedUsers(_ store: DocumentStore) async throws {
        let users = try store.collection("users")
        let rows: [(String, [String: FieldValue])] = [
            ("u01", ["name": "Ada", "city": "Paris", "points": 10, "tags": ["coffee", "tea"], "age": 36]),
            ("u02", ["name": "Bob", "city": "Lyon", "points": 25, "tags": ["tea"], "age": 41]),
            ("u03", ["name": "Cy", "city": "Paris", "points": 5, "tags": [], "age": 22]),
            ("u04", ["name": "Dee", "city": "Nice", "points": 40, "tags": ["coffee"], "age": 29]),
            ("u05", ["name": "Eve", "city": "Paris", "points": 25.5, "tags": ["juice"], "age": 33]),
            ("u06", ["name": "Fay", "city": "Lyon", "points": "many", "age": 50]),
            ("u07", ["name": "Gus", "points": 0, "age": 19, "address": ["city": "Paris", "zip": "75001"]]),
            ("u08", ["name": "Hal", "city": "Nice", "points": nil, "age": 61]),
            ("u09", ["name": "Ivy", "city": "Paris", "points": 100, "tags": ["coffee", "juice"], "age": 27]),
            ("u10", ["name": "Jo", "city": "Lyon", "points": 15, "age": 45]),
        ]
        let batch = store.batch()
        for (id, data) in rows { batch.setData(data, forDocument: try users.document(id)) }
        try await batch.commit()
    }

    static func ids(_ snapshot: QuerySnapshot) -> [String] { snapshot.documents.map(\.documentID) }

    static func code(of error: any Error) -> DocumentsError.Code? { (error as? DocumentsError)?.code }

    /// Runs `body` and returns the DocumentsError it throws (nil if none or another type).
    static func documentsError(_ body: () async throws -> Void) async -> DocumentsError? {
        do {
            try await body()
            return nil
        } catch let error as DocumentsError {
            return error
        } catch {
            return nil
        }
    }
}

/// Collects items from an async sequence with a timeout.
actor Collected<Element: Sendable> {
    var items: [Element] = []
    func append(_ item: Element) { items.append(item) }

    /// Waits until `count` items arrived (or about 5 s passed).
    func waitFor(_ count: Int) async -> [Element] {
        await waitUntil { $0.count >= count }
    }

    /// Waits until the items meet `condition` (or about 5 s passed).
    func waitUntil(_ condition: ([Element]) -> Bool) async -> [Element] {
        for _ in 0..<500 {
            if condition(items) { return items }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return items
    }
}
