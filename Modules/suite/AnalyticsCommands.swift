import ArgumentParser
import Foundation
import SuiteHost

/// `suite analytics …`: log events, deliver the queue, and read what the SQLite engine stored.
struct AnalyticsCommand: AsyncParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "analytics",
        abstract: "Log events, flush and inspect the delivery queue, and report what was recorded.",
        discussion: """
            Events go into a persisted queue (analytics-queue.sqlite) and leave it only once every configured engine \
            has taken them. The sqlite engine (the default) keeps them for `report`, `cost` and `tail`. Other \
            modules' events (document reads and writes, cache hits, …) are recorded as they happen, as the \
            `analytics.record` setting says.
            """,
        subcommands: [Log.self, Flush.self, Queue.self, Report.self, Cost.self, Tail.self])

    struct Log: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "log",
            abstract: "Log one event, e.g. `suite analytics log login_failed reason=wrong_password`.",
            discussion: """
                The event is checked at once (name: letters, digits and _, starting with a letter, at most 40; at \
                most 25 parameters; values at most 100 characters), written to the queue, then delivered.
                """)

        @Argument(help: "The event name.") var name: String
        @Argument(help: ArgumentHelp("Parameters.", valueName: "key=value")) var parameters: [String] = []
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            var values: [String: String] = [:]
            for item in parameters {
                guard let equals = item.firstIndex(of: "="), equals != item.startIndex else {
                    throw SuiteError(
                        .invalidArgument, "'\(item)' is not a parameter",
                        hint: "write parameters as key=value, e.g. reason=wrong_password")
                }
                let key = String(item[..<equals])
                guard values[key] == nil else {
                    throw SuiteError(.invalidArgument, "parameter '\(key)' is given twice")
                }
                values[key] = String(item[item.index(after: equals)...])
            }
            let manager = try await context.analytics()
            if let rejection = manager.configuration.limits.rejection(name: name, parameters: values) {
                throw SuiteError(
                    .invalidArgument, "the event is not valid: \(rejection)",
                    hint: "event names are letters, digits and _, starting with a letter, at most 40 characters")
            }
            manager.log(NamedAnalyticsEvent(name, parameters: values))
            try await manager.persist()
            if globals.json {
                Output.json(.object(["logged": .string(name), "parameters": .int(Int64(values.count))]))
            } else {
                Output.print("logged \(name) (queued; delivered when this command ends)")
            }
            Output.flush()
        }
    }

    struct Flush: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "flush",
            abstract: "Deliver every due event in the queue now, and say what happened.")
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let manager = try await context.analytics()
            try await manager.flush()
            let statistics = manager.statistics
            let queue = try await manager.queueStatus()
            if globals.json {
                Output.json(
                    .object([
                        "delivered": .int(Int64(statistics.delivered)),
                        "rejected": .int(Int64(statistics.engineRejected)),
                        "failedAttempts": .int(Int64(statistics.deliveryFailures)),
                        "pending": .int(Int64(queue.pending)), "failed": .int(Int64(queue.failed)),
                    ]))
                return
            }
            Output.print(
                "delivered \(statistics.delivered), rejected \(statistics.engineRejected), "
                    + "failed attempts \(statistics.deliveryFailures); "
                    + "\(queue.pending) still queued, \(queue.failed) failed")
            if queue.pending > 0 {
                Output.print("queued events are retried with backoff: see `suite analytics queue`")
            }
        }
    }

    struct Queue: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "queue",
            abstract: "The delivery queue: pending, in flight, retrying, and failed events with their reasons.")
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let status = try await context.analyticsQueue().status(at: context.clock.now)
            if globals.json {
                Output.json(
                    .object([
                        "pending": .int(Int64(status.pending)), "inFlight": .int(Int64(status.inFlight)),
                        "retrying": .int(Int64(status.retrying)), "failed": .int(Int64(status.failed)),
                        "failureReasons": .array(
                            status.failureReasons.map {
                                .object(["reason": .string($0.reason), "count": .int(Int64($0.count))])
                            }),
                    ]))
                return
            }
            var table = TextTable(["STATE", "EVENTS"], alignments: [.left, .right])
            table.append(["pending", "\(status.pending)"])
            table.append(["in flight", "\(status.inFlight)"])
            table.append(["retrying", "\(status.retrying)"])
            table.append(["failed", "\(status.failed)"])
            Output.print(table.render())
            if !status.failureReasons.isEmpty {
                var reasons = TextTable(["FAILED", "REASON"], alignments: [.right, .left])
                for reason in status.failureReasons { reasons.append(["\(reason.count)", reason.reason]) }
                Output.print("")
                Output.print(reasons.render())
            }
        }
    }

    struct Report: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Counts from the sqlite engine, by event, day or parameter, as a bar chart.",
            discussion: "Example: suite analytics report --by param --param reason --since 7d")

        @Option(help: ArgumentHelp("event, day or param.", valueName: "grouping")) var by: String = "event"
        @Option(help: ArgumentHelp("With --by param: only this parameter.", valueName: "key")) var param: String?
        @Option(help: ArgumentHelp("Only this event.", valueName: "name")) var event: String?
        @Option(help: ArgumentHelp("From this day (2026-11-01), time (RFC 3339) or age (7d, 24h).", valueName: "when"))
        var since: String?
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let since = try since.map { try AnalyticsCommand.parseSince($0, now: context.clock.now) }
            let events = try AnalyticsCommand.requireEvents(context)
            let counts: [AnalyticsCount]
            switch by {
            case "event":
                counts = try await events.countsByEvent(since: since).filter { event == nil || $0.key == event }
            case "day": counts = try await events.countsByDay(since: since)
            case "param": counts = try await events.countsByParameter(param, event: event, since: since)
            default:
                throw SuiteError(
                    .invalidArgument, "--by must be event, day or param, not '\(by)'",
                    hint: Suggestion.didYouMean(by, among: ["event", "day", "param"], what: "groupings"))
            }
            if globals.json {
                Output.json(
                    .array(
                        counts.map {
                            .object([
                                "key": .string($0.key), "count": .int(Int64($0.count)),
                                "estimated": .double($0.estimated),
                            ])
                        }))
                return
            }
            guard !counts.isEmpty else {
                Output.print("no events recorded\(since == nil ? "" : " since then")")
                return
            }
            let largest = counts.map(\.estimated).max() ?? 1
            var table = TextTable([by.uppercased(), "COUNT", "ESTIMATED", ""], alignments: [.left, .right, .right])
            for count in counts {
                let width = Int((count.estimated / max(largest, 1) * 30).rounded())
                table.append([
                    count.key, "\(count.count)", JSONValue.format((count.estimated * 10).rounded() / 10),
                    String(repeating: "█", count: max(width, count.count > 0 ? 1 : 0)),
                ])
            }
            Output.print(table.render())
        }
    }

    struct Cost: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "cost",
            abstract: "Document reads, writes and deletes per collection, and what they would cost.",
            discussion: """
                From the documents.cost events recorded on the bus. Prices are per 100,000 operations \
                (analytics.prices; Firestore's list prices by default: read 0.06, write 0.18, delete 0.02).
                """)

        @Option(help: ArgumentHelp("From this day, time or age (7d, 24h).", valueName: "when")) var since: String?
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let since = try since.map { try AnalyticsCommand.parseSince($0, now: context.clock.now) }
            let settings = try context.settings(of: AnalyticsModule.self)
            let costs = try await AnalyticsCommand.requireEvents(context).documentCosts(since: since)
            let prices = settings.prices
            func price(_ cost: AnalyticsCollectionCost) -> Double {
                (cost.reads * prices.read + cost.writes * prices.write + cost.deletes * prices.delete) / 100_000
            }
            if globals.json {
                Output.json(
                    .object([
                        "collections": .array(
                            costs.map {
                                .object([
                                    "collection": .string($0.collection), "reads": .double($0.reads),
                                    "writes": .double($0.writes), "deletes": .double($0.deletes),
                                    "cost": .double(price($0)),
                                ])
                            }),
                        "total": .double(costs.map(price).reduce(0, +)),
                    ]))
                return
            }
            guard !costs.isEmpty else {
                Output.print(
                    "no document operations recorded: they are recorded while `analytics.record` includes "
                        + "documents.cost (the default)")
                return
            }
            var table = TextTable(
                ["COLLECTION", "READS", "WRITES", "DELETES", "COST"],
                alignments: [.left, .right, .right, .right, .right])
            for cost in costs {
                table.append([
                    cost.collection.isEmpty ? "(none)" : cost.collection, Self.count(cost.reads),
                    Self.count(cost.writes), Self.count(cost.deletes), String(format: "%.6f", price(cost)),
                ])
            }
            let total = costs.reduce((0.0, 0.0, 0.0)) { ($0.0 + $1.reads, $0.1 + $1.writes, $0.2 + $1.deletes) }
            table.append([
                "total", Self.count(total.0), Self.count(total.1), Self.count(total.2),
                String(format: "%.6f", costs.map(price).reduce(0, +)),
            ])
            Output.print(table.render())
        }

        static func count(_ value: Double) -> String {
            value == value.rounded() ? "\(Int64(value))" : String(format: "%.1f", value)
        }
    }

    struct Tail: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "tail",
            abstract: "The latest recorded events, one line each; --follow keeps printing new ones.")

        @Option(name: [.customShort("n"), .long], help: "How many of the latest events to show first.") var lines: Int =
            10
        @Flag(name: .shortAndLong, help: "Keep printing events as they are recorded (until Ctrl-C).") var follow =
            false
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { follow }

        func run(_ context: SuiteContext) async throws {
            guard lines >= 0 else { throw SuiteError(.invalidArgument, "--lines must be ≥ 0, not \(lines)") }
            let events = try AnalyticsCommand.requireEvents(context)
            var last: AnalyticsRecord?
            var seen = Set<UUID>()
            func show(_ records: [AnalyticsRecord]) throws {
                for record in records where seen.insert(record.id).inserted {
                    if globals.json {
                        Output.print(try record.jsonLine())
                    } else {
                        let parameters = record.parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                        Output.print(
                            ([
                                RFC3339.format(microseconds: Int64(record.timestamp.timeIntervalSince1970 * 1_000_000)),
                                record.name,
                            ] + parameters).joined(separator: " "))
                    }
                    last = record
                }
            }
            try show(try await events.latestRecords(limit: lines))
            Output.flush()
            while follow && !Task.isCancelled {
                try await Task.sleep(for: .milliseconds(500))
                // A second of overlap: records are ordered by their logging time, which can precede their storing.
                try show(
                    try await events.latestRecords(
                        limit: 1_000, after: last.map { $0.timestamp.addingTimeInterval(-1) }))
                Output.flush()
            }
        }
    }

    /// The configured sqlite engine, or an error saying how to configure one.
    static func requireEvents(_ context: SuiteContext) throws -> SQLiteAnalyticsEngine {
        guard let events = try context.analyticsEvents() else {
            throw SuiteError(
                .unsupported, "no sqlite analytics engine is configured, so nothing is kept to report on",
                hint: "add {engine: sqlite} to analytics.engines in the configuration")
        }
        return events
    }

    /// `2026-11-01`, an RFC 3339 time, or an age such as `7d`, `24h`, `30m` before `now`.
    static func parseSince(_ text: String, now: Date) throws -> Date {
        if let unit = text.last, let amount = Double(text.dropLast()), amount >= 0,
            let seconds = ["d": 86_400.0, "h": 3_600, "m": 60, "s": 1][unit]
        {
            return now.addingTimeInterval(-amount * seconds)
        }
        let day = text.split(separator: "-").compactMap { Int($0) }
        if day.count == 3, text.count == 10,
            let date = Calendar(identifier: .gregorian).date(
                from: DateComponents(
                    timeZone: TimeZone(identifier: "UTC"), year: day[0], month: day[1], day: day[2]))
        {
            return date
        }
        if let micros = RFC3339.parse(text) { return Date(timeIntervalSince1970: Double(micros) / 1e6) }
        throw SuiteError(
            .invalidArgument, "--since '\(text)' is not a day, a time or an age",
            hint: "use 2026-11-01, 2026-11-01T09:00:00Z, or an age such as 7d, 24h, 30m")
    }
}
