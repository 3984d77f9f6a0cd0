import Foundation
import GRDB

/// The manager's state kept between launches, in the queue file's `state` table: one row per key, its value a string
/// (`consent`: the raw ``AnalyticsConsent``; `identity`, `session`: JSON objects).
struct AnalyticsStoredState: Sendable, Equatable {
    var consent: AnalyticsConsent = .undetermined
    var identity: AnalyticsIdentity?
    var session: AnalyticsSession?

    /// The rows' keys.
    enum Key: String, Sendable {
        case consent, identity, session
    }

    /// A row to write (`value` nil: delete it).
    struct Change: Sendable {
        var key: Key
        var value: String?
    }

    static func change(_ consent: AnalyticsConsent) -> Change {
        Change(key: .consent, value: consent.rawValue)
    }

    static func change(_ identity: AnalyticsIdentity) throws -> Change {
        Change(key: .identity, value: String(decoding: try encoder.encode(identity), as: UTF8.self))
    }

    static func change(_ session: AnalyticsSession?) throws -> Change {
        Change(key: .session, value: try session.map { String(decoding: try encoder.encode($0), as: UTF8.self) })
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}

extension AnalyticsQueue {
    /// The stored state; a value that does not decode reads as absent (a new identity or session is made).
    ///
    /// Synchronous: the manager reads it once, in its `init`.
    func loadState() throws(AnalyticsError) -> AnalyticsStoredState {
        let rows: [String: String]
        do {
            rows = try pool.read { db in
                let pairs = try Row.fetchAll(db, sql: "SELECT key, value FROM state").map { row -> (String, String) in
                    (row["key"], row["value"])
                }
                return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
            }
        } catch {
            throw AnalyticsError(
                .storage, "cannot read the analytics state in \(path)",
                hint: "check the queue file is readable and not another program's database", underlying: error)
        }
        let decoder = AnalyticsStoredState.decoder
        var state = AnalyticsStoredState()
        state.consent = rows["consent"].flatMap(AnalyticsConsent.init(rawValue:)) ?? .undetermined
        state.identity = rows["identity"].flatMap { try? decoder.decode(AnalyticsIdentity.self, from: Data($0.utf8)) }
        state.session = rows["session"].flatMap { try? decoder.decode(AnalyticsSession.self, from: Data($0.utf8)) }
        return state
    }

    /// Writes `changes` in one transaction, on disk when it returns.
    func saveState(_ changes: [AnalyticsStoredState.Change]) async throws {
        guard !changes.isEmpty else { return }
        try await write("save the analytics state") { db in try Self.apply(changes, in: db) }
    }

    /// Writes `changes` in `db`'s transaction.
    static func apply(_ changes: [AnalyticsStoredState.Change], in db: Database) throws {
        for change in changes {
            if let value = change.value {
                try db.execute(
                    sql:
                        "INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: [change.key.rawValue, value])
            } else {
                try db.execute(sql: "DELETE FROM state WHERE key = ?", arguments: [change.key.rawValue])
            }
        }
    }
}
