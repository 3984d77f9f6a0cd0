import Analytics
import Foundation
import StorageAccounting
import SuiteCore
package import SuiteServer
import WorkTracking

/// The routes `suite serve` adds for the console's usage, storage, analytics, work and system pages (docs/api.md,
/// "The console's routes"). Each answers from the module the context opens, as the matching `suite` command does.
extension SuiteContext {
    /// Every console route of the host's modules.
    package func consoleRoutes() -> [ServerRoute] {
        [
            ServerRoute(.get, "/v1/usage") { [self] request in try await mapped { try await usage(request) } },
            ServerRoute(.get, "/v1/storage") { [self] request in
                try request.requireAdmin()
                let groups = try request.integer("groups", default: 10, in: 0...1_000)
                return try await mapped { try Self.json(try await storageIndex().report(topGroups: groups)) }
            },
            ServerRoute(.get, "/v1/storage/groups/:group") { [self] request in
                try request.requireAdmin()
                let largest = try request.integer("largest", default: 20, in: 0...1_000)
                let id = request.parameters["group"] ?? ""
                return try await mapped {
                    let index = try await storageIndex()
                    guard let detail = try await index.group(id, largest: largest) else {
                        let known = try await index.groups(.all, sort: .size, limit: 200).map(\.groupId)
                        throw ServerError(
                            .notFound, "no group '\(id)' in the storage index",
                            hint: known.isEmpty
                                ? "the index is empty: run `suite storage scan DIR`"
                                : Suggestion.didYouMean(id, among: known, what: "groups"))
                    }
                    return try Self.json(detail)
                }
            },
            ServerRoute(.post, "/v1/storage/cleanup") { [self] request in
                try request.requireAdmin()
                return try await mapped { try await cleanup(request.body) }
            },
            ServerRoute(.get, "/v1/analytics") { [self] request in
                try request.requireAdmin()
                let days = try request.integer("days", default: 30, in: 1...366)
                return try await mapped {
                    let events = try requireAnalyticsEvents()
                    let since = clock.now.addingTimeInterval(-Double(days) * 86_400)
                    let status = try await analyticsQueue().status(at: clock.now)
                    return .object([
                        "perDay": try Self.json(try await events.countsByDay(since: since)),
                        "perName": try Self.json(try await events.countsByEvent(since: since)),
                        "queue": try Self.json(status),
                    ])
                }
            },
            ServerRoute(.get, "/v1/work/team/:month") { [self] request in
                try request.requireAdmin()
                return try await mapped {
                    let month = try WorkMonth(request.parameters["month"] ?? "")
                    let rows = try await workTracker().team(month: month)
                    return .object(["month": .string(month.description), "users": try Self.json(rows)])
                }
            },
            ServerRoute(.get, "/v1/work/:uid/month/:month") { [self] request in
                let uid = request.parameters["uid"] ?? ""
                try await request.requireRead("workInfo/\(uid)")
                return try await mapped {
                    let month = try WorkMonth(request.parameters["month"] ?? "")
                    return try Self.json(try await workTracker().month(user: uid, month))
                }
            },
            ServerRoute(.get, "/v1/work/:uid/week/:date") { [self] request in
                let uid = request.parameters["uid"] ?? ""
                try await request.requireRead("workInfo/\(uid)")
                return try await mapped {
                    let date = try WorkDate(request.parameters["date"] ?? "")
                    return try Self.json(try await workTracker().week(user: uid, containing: date))
                }
            },
            ServerRoute(.get, "/v1/system") { [self] request in
                try request.requireAdmin()
                return await StatusReport(context: self).json
            },
        ]
    }

    /// `GET /v1/usage?days=N`: document reads, writes and deletes per collection and per UTC day, with the prices.
    private func usage(_ request: ServerRequest) async throws -> JSONValue {
        try request.requireAdmin()
        let count = try request.integer("days", default: 30, in: 1...366)
        let events = try requireAnalyticsEvents()
        let settings = try settings(of: AnalyticsModule.self)
        let today = Int(clock.now.timeIntervalSince1970 / 86_400)
        let days = (today - count + 1...today).map { Self.day(Date(timeIntervalSince1970: Double($0) * 86_400)) }
        let since = Date(timeIntervalSince1970: Double(today - count + 1) * 86_400)
        let lines = try await events.documentCostsByDay(since: since)
        var collections: [String: [AnalyticsCollectionCost]] = [:]
        for line in lines { collections[line.collection, default: []].append(line) }
        func counts(_ lines: [AnalyticsCollectionCost]) -> [String: JSONValue] {
            [
                "reads": .double(lines.map(\.reads).reduce(0, +)),
                "writes": .double(lines.map(\.writes).reduce(0, +)),
                "deletes": .double(lines.map(\.deletes).reduce(0, +)),
            ]
        }
        let rows = collections.sorted { $0.key < $1.key }.map { name, lines -> JSONValue in
            var object = counts(lines)
            object["collection"] = .string(name)
            object["perDay"] = .array(
                lines.map { line in
                    var day = counts([line])
                    day["day"] = .string(line.day ?? "")
                    return .object(day)
                })
            return .object(object)
        }
        return .object([
            "days": .array(days.map(JSONValue.string)),
            "collections": .array(rows),
            "total": .object(counts(lines)),
            "prices": .object([
                "read": .double(settings.prices.read), "write": .double(settings.prices.write),
                "delete": .double(settings.prices.delete), "per": .int(100_000),
            ]),
        ])
    }

    /// `POST /v1/storage/cleanup`: the dry run, or with `"confirm": true` the deletion.
    private func cleanup(_ body: JSONValue?) async throws -> JSONValue {
        let known = ["group", "category", "olderThan", "confirm"]
        guard let object = body?.objectValue else {
            throw ServerError(
                .invalidRequest, "the body must be a JSON object", hint: "e.g. {\"category\": \"video\"}")
        }
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw ServerError(
                .invalidRequest, "unknown key '\(unknown)'",
                hint: Suggestion.didYouMean(unknown, among: known, what: "keys"))
        }
        func text(_ key: String) throws -> String? {
            guard let value = object[key], value != .null else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw ServerError(.invalidRequest, "\(key) must be a non-empty string")
            }
            return text
        }
        var categories: [StorageCategory] = []
        if let name = try text("category") {
            guard let category = StorageCategory(rawValue: name) else {
                let names = StorageCategory.allCases.map(\.rawValue)
                throw ServerError(
                    .invalidRequest, "'\(name)' is not a category",
                    hint: Suggestion.didYouMean(name, among: names, what: "categories"))
            }
            categories = [category]
        }
        var before: Date?
        if let day = try text("olderThan") {
            guard let date = try? WorkDate(day) else {
                throw ServerError(.invalidRequest, "olderThan must be a day (yyyy-MM-dd), not '\(day)'")
            }
            before = Date(timeIntervalSince1970: Double(date.daysSinceEpoch) * 86_400)
        }
        let filter = StorageFilter(
            groups: try text("group").map { [$0] } ?? [], categories: categories,
            modifiedBefore: before)
        guard !filter.isEmpty else {
            throw ServerError(
                .invalidRequest, "say what to clean", hint: "name a group, a category or olderThan")
        }
        var confirm = false
        if let value = object["confirm"], value != .null {
            guard let flag = value.boolValue else {
                throw ServerError(
                    .invalidRequest, "confirm must be true or false", hint: "false (or none) is a dry run")
            }
            confirm = flag
        }
        let cleaner = try await storageCleaner()
        guard confirm else {
            guard case .object(var plan) = try Self.json(try await cleaner.plan(filter, listing: 20)) else {
                return .null
            }
            plan["dryRun"] = .bool(true)
            return .object(plan)
        }
        guard case .object(var result) = try Self.json(try await cleaner.execute(filter)) else { return .null }
        result["dryRun"] = .bool(false)
        return .object(result)
    }

    private func requireAnalyticsEvents() throws -> SQLiteAnalyticsEngine {
        guard let events = try analyticsEvents() else {
            throw ServerError(
                .unavailable, "no sqlite analytics engine is configured, so nothing was recorded",
                hint: "add {engine: sqlite} to analytics.engines")
        }
        return events
    }

    /// Runs `body`, turning the modules' errors into the API's (400, 404, 503) with their message and hint.
    private func mapped(_ body: () async throws -> JSONValue) async throws -> JSONValue {
        do { return try await body() } catch let error as ServerError { throw error } catch let error
            as StorageError
        {
            let code: ServerError.Code =
                switch error.code {
                case .invalidInput, .unsafePath: .invalidRequest
                case .notFound: .notFound
                default: .unavailable
                }
            throw ServerError(code, error.message, hint: error.hint, underlying: error)
        } catch let error as WorkError {
            let code: ServerError.Code =
                switch error.code {
                case .invalidInput, .invalidFormat: .invalidRequest
                case .notFound: .notFound
                default: .unavailable
                }
            throw ServerError(code, error.message, hint: error.hint, underlying: error)
        } catch let error as AnalyticsError {
            throw ServerError(.unavailable, error.message, hint: error.hint, underlying: error)
        }
    }

    /// Any `Encodable` answer as JSON (dates as ISO 8601).
    static func json(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try JSONValue(parsing: try encoder.encode(value))
    }

    /// A UTC day as `yyyy-MM-dd`.
    static func day(_ date: Date) -> String {
        WorkDate(date, in: TimeZone(identifier: "UTC") ?? .current).description
    }
}
