import Documents
import Foundation
import SuiteCore
import SuiteTestSupport
import Synchronization
import Testing

/// docs/events.md is the contract of the bus: every event a module publishes is listed there with its payload fields.
@Suite("Event catalog")
struct EventCatalogTests {
    /// The catalog: event name → documented payload fields.
    static func catalog() throws -> [String: Set<String>] { try EventCatalog.load() }

    /// Every `BusEvent` name a module declares in its source: `var name: String { "module.event" }`.
    static func declaredNames() throws -> [String: String] {
        let modules = TestSupport.repositoryRoot.appendingPathComponent("Modules")
        var names: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(at: modules, includingPropertiesForKeys: nil)
        let pattern = try Regex(#"var name: String \{ "([A-Za-z0-9_.-]+)" \}"#)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            guard text.contains(": BusEvent") else { continue }
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for match in line.matches(of: pattern) {
                    if let name = match.output[1].substring { names[String(name)] = url.lastPathComponent }
                }
            }
        }
        return names
    }

    @Test("every event name declared in a module's source is listed in docs/events.md")
    func declaredEventsAreListed() throws {
        let catalog = try Self.catalog()
        let declared = try Self.declaredNames()
        #expect(declared.keys.contains("documents.changed"))  // the scan finds what modules declare
        for (name, file) in declared.sorted(by: { $0.key < $1.key }) {
            #expect(catalog[name] != nil, "\(file) publishes '\(name)', which docs/events.md does not list")
        }
    }

    @Test("what Documents publishes, with its envelope, matches docs/events.md field for field")
    func publishedEventsMatchTheCatalog() async throws {
        let catalog = try Self.catalog()
        let bus = EventBus()
        let seen = Mutex<[(EventEnvelope, String)]>([])
        let token = bus.subscribeAll { event, envelope in
            let payload = (try? ObservedEvent(event, envelope: envelope).payloadJSON) ?? "null"
            seen.withLock { $0.append((envelope, payload)) }
        }
        let store = DocumentStore(engine: InMemoryDocumentEngine(), bus: bus)
        let user = try store.document("users/u1")
        _ = try await user.setData(["points": 10])
        _ = try await user.updateData(["points": .increment(5)])
        _ = try await user.getDocument()
        _ = try await store.collection("users").query.whereField("points", isGreaterThan: .int(1)).getDocuments()
        try await store.batch().setData(["n": 1], forDocument: try store.document("users/u2")).commit()
        _ = try await store.document("users/u2").delete()
        await store.close()
        token.cancel()

        let events = seen.withLock { $0 }
        #expect(Set(events.map(\.0.name)) == ["documents.changed", "documents.cost"])
        for (envelope, payload) in events {
            let fields = Set(try JSONValue(parsing: payload).objectValue?.keys.map { $0 } ?? [])
            #expect(catalog[envelope.name] == fields, "\(envelope.name) carries \(fields.sorted())")
            #expect(envelope.source == "documents")
        }
        // One publisher, numbered from 1 without gaps.
        #expect(events.map(\.0.sequence) == Array(1...UInt64(events.count)))
    }
}
