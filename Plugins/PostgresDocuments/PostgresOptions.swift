import Documents
import Foundation
import SuiteCore

/// The `postgres` engine's options, from the configuration's `documents.options`:
///
/// | option | meaning |
/// |---|---|
/// | `url` (required) | `postgres://user:password@host:port/database`, or `postgresql://…`; `?sslmode=disable` (default), `prefer` or `require`; `host` may be a Unix socket directory (`postgres://user@/db?host=/run/postgresql`) |
/// | `pool-size` | connections at most (default 8) |
/// | `schema` | the PostgreSQL schema holding Suite's tables (default `suite`), created if missing |
/// | `json` | `true` also stores every body decoded as JSONB in `documents.data`, for SQL tools (default `false`) |
/// | `connect-timeout` | seconds to wait for the server at start (default 10) |
/// | `change-log-days` | days the change log keeps its records (default 7, fractions allowed; 0: only the minimum) |
/// | `change-log-minimum` | records the change log keeps however old (default 100,000; at least 1) |
struct PostgresOptions: Sendable {
    var host: String
    var port: Int
    /// A Unix socket directory, when the URL names one (`?host=/dir`).
    var socketDirectory: String?
    var username: String
    var password: String?
    var database: String
    var sslMode: SSLMode
    var poolSize: Int
    var schema: String
    var json: Bool
    var connectTimeout: Duration
    /// How long the change log keeps its records (as the `sqlite` engine's options of the same names).
    var retention: ChangeLogRetention

    enum SSLMode: String, Sendable {
        case disable, prefer, require
    }

    /// Where the server is, for messages: `host:port/database`, never the password.
    var displayName: String {
        "\(socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } ?? "\(host):\(port)")/\(database)"
    }

    static let known: Set<String> = [
        "url", "pool-size", "schema", "json", "connect-timeout", "change-log-days", "change-log-minimum",
    ]

    init(_ options: JSONValue) throws {
        guard case .object(let fields) = options else {
            throw Self.invalid("the postgres engine's options must be a mapping")
        }
        if let unknown = fields.keys.sorted().first(where: { !Self.known.contains($0) }) {
            throw Self.invalid(
                "unknown option '\(unknown)' for the postgres engine",
                hint: Suggestion.didYouMean(unknown, among: Self.known.sorted(), what: "options"))
        }
        guard let url = fields["url"]?.stringValue, !url.isEmpty else {
            throw Self.invalid("the postgres engine needs a 'url' option")
        }
        guard let components = URLComponents(string: url),
            ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "")
        else {
            throw Self.invalid("'url' is not a postgres:// URL")
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        username = components.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        password = components.password.flatMap { $0.removingPercentEncoding }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 } ?? username
        let mode = query["sslmode"] ?? "disable"
        guard let sslMode = SSLMode(rawValue: mode) else {
            throw Self.invalid("unknown sslmode '\(mode)' in 'url'", hint: "use disable, prefer or require")
        }
        self.sslMode = sslMode
        poolSize = try Self.integer(fields["pool-size"], name: "pool-size", default: 8, range: 1...200)
        schema = fields["schema"]?.stringValue ?? "suite"
        guard Self.isIdentifier(schema) else {
            throw Self.invalid(
                "'schema' must be a plain SQL identifier (lower-case letters, digits, _; at most 40 characters)",
                hint: "e.g. schema: suite")
        }
        switch fields["json"] {
        case nil: json = false
        case .bool(let value)?: json = value
        default: throw Self.invalid("'json' must be true or false")
        }
        connectTimeout = .seconds(
            try Self.integer(fields["connect-timeout"], name: "connect-timeout", default: 10, range: 1...600))
        retention = .standard
        if let value = fields["change-log-days"] {
            guard let days = value.numberValue, days >= 0, days <= 36_500 else {
                throw Self.invalid(
                    "'change-log-days' must be a number of days from 0 to 36500", hint: "e.g. change-log-days: 7")
            }
            retention.maximumAge = .seconds(days * 86_400)
        }
        retention.minimumCount = try Self.integer(
            fields["change-log-minimum"], name: "change-log-minimum", default: retention.minimumCount,
            range: 1...Int(Int32.max))
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) || first == 95,
            name.utf8.count <= 40
        else { return false }
        return name.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == 95
        }
    }

    private static func integer(_ value: JSONValue?, name: String, default: Int, range: ClosedRange<Int>) throws -> Int
    {
        guard let value else { return `default` }
        guard let number = value.numberValue, number == number.rounded(), range.contains(Int(exactly: number) ?? -1)
        else {
            throw invalid("'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    private static func invalid(_ message: String, hint: String? = nil) -> DocumentsError {
        DocumentsError(
            .invalidValue, message,
            hint: hint ?? "documents: {engine: postgres, options: {url: 'postgres://user:password@127.0.0.1:5432/db'}}")
    }
}
