import ArgumentParser
import Foundation
import SuiteHost

/// `suite work …`: work days — prepare → working ⇄ break → ended — with weeks, months and reports.
struct WorkCommand: AsyncParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "work",
        abstract: "Track work days (start, break, resume, end) and report weeks and months against planned time.",
        discussion: """
            A day belongs to the date it started on in its recorded time zone; work past midnight stays on that \
            day (--split-at-midnight in reports moves it). Breaks never count as work. TIME is HH:MM (today, in \
            your zone) or ISO 8601 with or without an offset. Days are documents at \
            workInfo/{uid}/workHistory/{yyyy-MM-dd} in the Documents store.
            """,
        subcommands: [
            Transition.Start.self, Transition.Break.self, Transition.Resume.self, Transition.End.self,
            Transition.Reopen.self, Status.self, Today.self, Week.self, Month.self, Range.self, Team.self, Edit.self,
            Undo.self, Log.self, Export.self, Import.self, Settings.self,
        ])

    /// `--user` shared by every subcommand.
    struct UserOption: ParsableArguments {
        @Option(help: ArgumentHelp("The user (default: work.user in the configuration, else $USER).", valueName: "uid"))
        var user: String?

        func resolve(_ context: SuiteContext) throws -> String {
            if let user { return user }
            return try context.settings(of: WorkModule.self).user
        }
    }

    enum Transition {
        struct Start: TransitionCommand {
            static let action = WorkAction.start
            static let configuration = CommandConfiguration(
                commandName: "start", abstract: "Start the day (prepare → working).")
            @OptionGroup var options: TransitionOptions
            @OptionGroup var globals: GlobalOptions
        }
        struct Break: TransitionCommand {
            static let action = WorkAction.pause
            static let configuration = CommandConfiguration(
                commandName: "break", abstract: "Take a break (working → break).")
            @OptionGroup var options: TransitionOptions
            @OptionGroup var globals: GlobalOptions
        }
        struct Resume: TransitionCommand {
            static let action = WorkAction.resume
            static let configuration = CommandConfiguration(
                commandName: "resume", abstract: "Back to work (break → working).")
            @OptionGroup var options: TransitionOptions
            @OptionGroup var globals: GlobalOptions
        }
        struct End: TransitionCommand {
            static let action = WorkAction.end
            static let configuration = CommandConfiguration(
                commandName: "end", abstract: "End the day (working or break → ended).")
            @OptionGroup var options: TransitionOptions
            @OptionGroup var globals: GlobalOptions
        }
        struct Reopen: TransitionCommand {
            static let action = WorkAction.reopen
            static let configuration = CommandConfiguration(
                commandName: "reopen",
                abstract: "Reopen an ended day (ended → working); the time since its end becomes a break.")
            @OptionGroup var options: TransitionOptions
            @OptionGroup var globals: GlobalOptions
        }
    }

    struct TransitionOptions: ParsableArguments {
        @Option(help: ArgumentHelp("When it happened (default: now).", valueName: "time")) var at: String?
        @Option(help: ArgumentHelp("The day, when not the open day or today.", valueName: "yyyy-MM-dd"))
        var date: String?
        @Option(help: ArgumentHelp("A note for the day.", valueName: "text")) var note: String?
        @OptionGroup var user: UserOption
    }

    struct Status: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Where the day stands: status, worked and breaks.")
        @OptionGroup var user: UserOption
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let uid = try user.resolve(context)
            let tracker = try await context.workTracker()
            let day = try await tracker.current(user: uid)
            if globals.json {
                try WorkCommand.printJSON(day.map { StatusJSON(uid: uid, day: $0, now: context.clock.now) })
                return
            }
            guard let day else {
                Output.print("\(uid): nothing recorded today — start with `suite work start`")
                return
            }
            let zone = day.zone
            let now = context.clock.now
            var line = "\(uid) \(day.workDate): \(day.status)"
            if let start = day.actualStart {
                line += " since \(WorkTime.format(day.history.last?.at ?? start, in: zone))"
            }
            line += ", worked \(WorkTime.duration(Int(day.worked(at: now)))), breaks "
            line += WorkTime.duration(Int(day.breakTime(at: now)))
            line += ", planned \(WorkTime.duration(day.plannedSeconds))"
            Output.print(line)
            let next = WorkAction.allowed(from: day.status).map(\.rawValue).joined(separator: ", ")
            if !next.isEmpty { Output.print("next: \(next)") }
        }
    }

    struct StatusJSON: Encodable {
        var uid: String
        var day: WorkDay
        var workedSeconds: Int
        var breakSeconds: Int
        init(uid: String, day: WorkDay, now: Date) {
            self.uid = uid
            self.day = day
            workedSeconds = Int(day.worked(at: now))
            breakSeconds = Int(day.breakTime(at: now))
        }
    }

    struct ReportOptions: ParsableArguments {
        @Flag(help: "Count work past midnight on the date it was done, not the date the day started.")
        var splitAtMidnight = false
        @OptionGroup var user: UserOption
    }

    struct Today: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "today", abstract: "Today's day (or --date's) as a report.")
        @Option(help: ArgumentHelp("The date.", valueName: "yyyy-MM-dd")) var date: String?
        @OptionGroup var options: ReportOptions
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let uid = try options.user.resolve(context)
            let tracker = try await context.workTracker()
            let settings = try await tracker.settings(user: uid)
            let day = try date.map { try WorkDate($0) } ?? WorkDate(context.clock.now, in: settings.zone)
            let report = try await tracker.report(
                user: uid, from: day, through: day, splitAtMidnight: options.splitAtMidnight)
            try WorkCommand.show(report, json: globals.json, title: "\(uid) \(day)")
        }
    }

    struct Week: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "week",
            abstract: "The week containing today (or --date), from the user's first weekday, with a bar per day.")
        @Option(help: ArgumentHelp("A date in the week.", valueName: "yyyy-MM-dd")) var date: String?
        @OptionGroup var options: ReportOptions
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let uid = try options.user.resolve(context)
            let tracker = try await context.workTracker()
            let report = try await tracker.week(
                user: uid, containing: try date.map { try WorkDate($0) }, splitAtMidnight: options.splitAtMidnight)
            try WorkCommand.show(report, json: globals.json, title: "\(uid) week \(report.from) – \(report.through)")
        }
    }

    struct Month: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "month",
            abstract: "A month (this one, or --month), as a table with bars or as a calendar.")
        @Option(help: ArgumentHelp("The month.", valueName: "yyyy-MM")) var month: String?
        @Flag(help: "Show the month as a calendar.") var calendar = false
        @OptionGroup var options: ReportOptions
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let uid = try options.user.resolve(context)
            let tracker = try await context.workTracker()
            let report = try await tracker.month(
                user: uid, try month.map { try WorkMonth($0) }, splitAtMidnight: options.splitAtMidnight)
            if calendar, !globals.json {
                let settings = try await tracker.settings(user: uid)
                Output.print(WorkCommand.calendar(report, firstWeekday: settings.firstWeekday))
                Output.print(WorkCommand.totalsLine(report))
                return
            }
            try WorkCommand.show(report, json: globals.json, title: "\(uid) \(report.from.workMonth)")
        }
    }

    struct Range: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "range", abstract: "Any range of dates, e.g. a year.")
        @Option(help: ArgumentHelp("The first date.", valueName: "yyyy-MM-dd")) var from: String
        @Option(help: ArgumentHelp("The last date.", valueName: "yyyy-MM-dd")) var to: String
        @OptionGroup var options: ReportOptions
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let uid = try options.user.resolve(context)
            let tracker = try await context.workTracker()
            let report = try await tracker.report(
                user: uid, from: try WorkDate(from), through: try WorkDate(to), splitAtMidnight: options.splitAtMidnight
            )
            try WorkCommand.show(report, json: globals.json, title: "\(uid) \(report.from) – \(report.through)")
        }
    }

    struct Team: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "team", abstract: "Every user's totals for a month, side by side.")
        @Option(help: ArgumentHelp("The month (default: this one).", valueName: "yyyy-MM")) var month: String?
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let tracker = try await context.workTracker()
            let month =
                try month.map { try WorkMonth($0) } ?? WorkDate(context.clock.now, in: tracker.defaults.zone).workMonth
            let rows = try await tracker.team(month: month)
            if globals.json {
                try WorkCommand.printJSON(TeamJSON(month: month, users: rows))
                return
            }
            guard !rows.isEmpty else {
                Output.print("nobody recorded work in \(month)")
                return
            }
            let widest = rows.map(\.workedSeconds).max() ?? 0
            var table = TextTable(
                ["USER", "WORKED", "BREAKS", "PLANNED", "OVERTIME", "DAYS", ""],
                alignments: [.left, .right, .right, .right, .right, .right])
            for row in rows {
                table.append([
                    row.uid, WorkTime.duration(row.workedSeconds), WorkTime.duration(row.breakSeconds),
                    WorkTime.duration(row.plannedSeconds), WorkCommand.signed(row.overtimeSeconds), "\(row.daysWorked)",
                    WorkCommand.bar(row.workedSeconds, of: widest),
                ])
            }
            Output.print("team \(month)")
            Output.print(table.render())
        }
    }

    struct TeamJSON: Encodable {
        var month: WorkMonth
        var users: [WorkTeamRow]
    }
}

/// A transition subcommand: parse `--at` in the user's zone, perform, print the day.
protocol TransitionCommand: SuiteSubcommand {
    static var action: WorkAction { get }
    var options: WorkCommand.TransitionOptions { get }
}

extension TransitionCommand {
    func run(_ context: SuiteContext) async throws {
        let uid = try options.user.resolve(context)
        let tracker = try await context.workTracker()
        let settings = try await tracker.settings(user: uid)
        let date = try options.date.map { try WorkDate($0) }
        let today = WorkDate(context.clock.now, in: settings.zone)
        let at = try options.at.map { try WorkTime.parse($0, on: date ?? today, in: settings.zone) }
        let day = try await tracker.perform(Self.action, user: uid, at: at, date: date, note: options.note)
        if globals.json {
            try WorkCommand.printJSON(day)
            return
        }
        let time = WorkTime.format(day.history.last?.at ?? context.clock.now, in: day.zone)
        Output.print(
            "\(uid) \(day.workDate): \(day.history.last?.from?.rawValue ?? "prepare") → \(day.status) at \(time); "
                + "worked \(WorkTime.duration(day.workedSeconds)), breaks \(WorkTime.duration(day.breakSeconds))")
    }
}
