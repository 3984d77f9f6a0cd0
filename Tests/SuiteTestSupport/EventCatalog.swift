import Foundation

/// docs/events.md read as a catalog: event name → the payload fields it documents.
public enum EventCatalog {
    /// The catalog. A heading names one event, or several sharing one payload (`## cache.hit, cache.miss`); each
    /// table row that starts with a backticked name is a field.
    public static func load() throws -> [String: Set<String>] {
        let url = TestSupport.repositoryRoot.appendingPathComponent("docs/events.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        var events: [String: Set<String>] = [:]
        var current: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                current = line.dropFirst(3).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                for name in current { events[name] = [] }
            } else if line.hasPrefix("| `") {
                let field = line.dropFirst(3).prefix { $0 != "`" }
                for name in current { events[name]?.insert(String(field)) }
            }
        }
        return events
    }
}
