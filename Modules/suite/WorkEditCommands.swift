import ArgumentParser
import Foundation
import SuiteHost

extension WorkCommand {
    struct Edit: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Correct a day's times and breaks (validated; recorded in its history; `undo` takes it back).",
            discussion: """
                Times are HH:MM on the edited date or ISO 8601 (an end past midnight needs its date). --break \
                replaces all breaks: suite work edit 2026-11-24 --start 08:00 --end 17:00 --break 12:00-12:30
                """)
        @Argument(help: ArgumentHelp("The day.", valueName: "yyyy-MM-dd")) var date: String
        @Option(help: ArgumentHelp("The actual start.", valueName: "time")) var start: String?
        @Option(help: ArgumentHelp("The actual end.", valueName: "time")) var end: String?
        @Option(name: .customLong("break"), help: ArgumentHelp("A break, START-END (repeatable).", valueName: "t-t"))
        var breaks: [String] = []
        @Flag(help: "Remove every break.") var clearBreaks = false
        @Option(help: ArgumentHelp("A note.", valueName: "text")) var note: String?
        @Option(
            name: .customLong("tag"), help: ArgumentHelp("A tag, replacing the day's (repeatable).", valueName: "tag"))
        var tags: [String] = []
        @OptionGroup var user: UserOption
        @OptionGroup var globals: GlobalOptions

        func validate() throws {
            if clearBreaks, !breaks.isEmpty { throw ValidationError("give --break or --clear-breaks, not both") }
        }

        func run(_ context: SuiteContext) async throws {
            let uid = try user.resolve(context)
            let tracker = try await context.workTracker()
            let day = try WorkDate(date)
            let recorded = try await tracker.day(user: uid, date: day)
            let userZone = try await tracker.settings(user: uid).zone
            let zone = recorded?.zone ?? userZone
            func time(_ text: String) throws -> Date { try WorkTime.parse(text, on: day, in: zone) }
            var intervals: [WorkInterval]?
            if clearBreaks { intervals = [] }
            if !breaks.isEmpty {
                intervals = try breaks.map { text in
                    // The separator is the `-` between two times: the last one not inside an ISO date or offset.
                    guard let cut = WorkCommand.intervalSeparator(text) else {
                        throw WorkError(
                            .invalidInput, "'\(text)' is not a break", hint: "write START-END, e.g. 12:00-12:30")
                    }
                    return WorkInterval(
                        start: try time(String(text[..<cut])), end: try time(String(text[text.index(after: cut)...])))
                }
            }
            let edited = try await tracker.edit(
                user: uid, date: day,
                WorkEdit(
                    start: try start.map(time), end: try end.map(time), breaks: intervals, note: note,
                    tags: tags.isEmpty ? nil : tags))
            if globals.json {
                try WorkCommand.printJSON(edited)
                return
            }
            Output.print(
                "\(uid) \(day): \(edited.history.last?.note ?? "edited"); worked \(WorkTime.duration(edited.workedSeconds)), "
                    + "breaks \(WorkTime.duration(edited.breakSeconds)) (undo: suite work undo)")
        }
    }

    struct Undo: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "undo", abstract: "Take back the last transition or edit.")
        @OptionGroup var user: UserOption
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let uid = try user.resolve(context)
            let result = try await context.workTracker().undo(user: uid)
            if globals.json {
                try WorkCommand.printJSON(UndoJSON(date: result.date, undone: result.action, day: result.day))
                return
            }
            let state = result.day.map { "now \($0.status)" } ?? "removed (the change had created it)"
            Output.print("\(uid) \(result.date): took back \(result.action); the day is \(state)")
        }
    }

    struct UndoJSON: Encodable {
        var date: WorkDate
        var undone: String
        var day: WorkDay?
    }

    struct Log: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "log", abstract: "Every change recorded since a date (30 days).")
        @Option(help: ArgumentHelp("The first date.", valueName: "yyyy-MM-dd")) var since: String?
        @OptionGroup var user: UserOption
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let uid = try user.resolve(context)
            let tracker = try await context.workTracker()
            let entries = try await tracker.log(user: uid, since: try since.map { try WorkDate($0) })
            if globals.json {
                try WorkCommand.printJSON(entries.map { LogJSON(date: $0.date, entry: $0.entry) })
                return
            }
            guard !entries.isEmpty else {
                Output.print("no changes recorded")
                return
            }
            let zone = try await tracker.settings(user: uid).zone
            var table = TextTable(["DAY", "ACTION", "FROM", "TO", "AT", "SOURCE", "NOTE"])
            for (date, entry) in entries {
                table.append([
                    date.description, entry.action, entry.from?.rawValue ?? "-", entry.to.rawValue,
                    WorkTime.format(entry.at, in: zone, withDate: true), entry.source, entry.note ?? "",
                ])
            }
            Output.print(table.render())
        }
    }

    struct LogJSON: Encodable {
        var date: WorkDate
        var entry: WorkHistoryEntry
    }

    struct Export: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write days as CSV, JSON or Timewarrior's export format (stdout, or --output FILE).")
        @Option(help: ArgumentHelp("csv, json or timewarrior.", valueName: "format")) var format = "csv"
        @Option(help: ArgumentHelp("The first date (default: a year ago).", valueName: "yyyy-MM-dd")) var from: String?
        @Option(help: ArgumentHelp("The last date (default: today).", valueName: "yyyy-MM-dd")) var to: String?
        @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "file")) var output: String?
        @OptionGroup var user: UserOption
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            guard let kind = WorkExportFormat(rawValue: format) else {
                throw WorkError(
                    .invalidInput, "--format must be csv, json or timewarrior, not '\(format)'",
                    hint: Suggestion.didYouMean(
                        format, among: WorkExportFormat.allCases.map(\.rawValue), what: "formats"))
            }
            let uid = try user.resolve(context)
            let tracker = try await context.workTracker()
            let today = WorkDate(context.clock.now, in: try await tracker.settings(user: uid).zone)
            let data = try await tracker.export(
                user: uid, from: try from.map { try WorkDate($0) } ?? today.adding(days: -366),
                through: try to.map { try WorkDate($0) } ?? today, format: kind)
            guard let output else {
                FileHandle.standardOutput.write(data)
                if kind != .csv { Output.print("") }
                return
            }
            do { try data.write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
                throw WorkError(.invalidInput, "cannot write \(output): \(error.localizedDescription)")
            }
            Output.print("wrote \(output)")
        }
    }

    struct Import: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Read Timewarrior's `timew export`, Watson's frames file, or Suite's JSON export.",
            discussion: """
                Intervals become days (a day is the date an interval starts on, in your zone); intervals tagged \
                `break` (Watson: project `break`) are breaks; gaps between intervals are untracked unless \
                --gaps-as-breaks. Example: timew export > tw.json && suite work import --format timewarrior tw.json
                """)
        @Option(help: ArgumentHelp("timewarrior, watson or json.", valueName: "format")) var format: String
        @Argument(help: ArgumentHelp("The file ('-' for stdin).", valueName: "file")) var file: String
        @Flag(help: "Count the gaps between intervals as breaks.") var gapsAsBreaks = false
        @Flag(help: "Overwrite days already recorded.") var replace = false
        @OptionGroup var user: UserOption
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            guard let kind = WorkImportFormat(rawValue: format) else {
                throw WorkError(
                    .invalidInput, "--format must be timewarrior, watson or json, not '\(format)'",
                    hint: Suggestion.didYouMean(
                        format, among: WorkImportFormat.allCases.map(\.rawValue), what: "formats"))
            }
            let data: Data
            if file == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let contents = FileManager.default.contents(atPath: file) else {
                    throw WorkError(.notFound, "cannot read \(file)", hint: "check the path")
                }
                data = contents
            }
            let uid = try user.resolve(context)
            let days = try await context.workTracker().importDays(
                data, format: kind, user: uid, gapsAsBreaks: gapsAsBreaks, replace: replace)
            if globals.json {
                try WorkCommand.printJSON(ImportJSON(imported: days.count, days: days.map(\.workDate)))
                return
            }
            let worked = days.reduce(0) { $0 + $1.workedSeconds }
            Output.print("\(uid): imported \(days.count) days, \(WorkTime.duration(worked)) worked")
        }
    }

    struct ImportJSON: Encodable {
        var imported: Int
        var days: [WorkDate]
    }

    struct Settings: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            abstract: "Show or change the user's settings: time zone, first weekday, planned hours.",
            discussion: "Example: suite work settings --time-zone Europe/Berlin --first-weekday monday --planned fri=6")
        @Option(help: ArgumentHelp("An IANA zone.", valueName: "zone")) var timeZone: String?
        @Option(help: ArgumentHelp("monday, sunday, …", valueName: "day")) var firstWeekday: String?
        @Option(
            name: .customLong("planned"), help: ArgumentHelp("DAY=HOURS (repeatable), e.g. fri=6.", valueName: "d=h"))
        var planned: [String] = []
        @OptionGroup var user: UserOption
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let uid = try user.resolve(context)
            let tracker = try await context.workTracker()
            var settings = try await tracker.settings(user: uid)
            if timeZone != nil || firstWeekday != nil || !planned.isEmpty {
                var hours = settings.plannedHours
                for item in planned {
                    let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2, let day = WorkSettings.weekday(named: parts[0]),
                        let value = Double(parts[1])
                    else {
                        throw WorkError(.invalidInput, "'\(item)' is not DAY=HOURS", hint: "e.g. --planned fri=6")
                    }
                    hours[day - 1] = value
                }
                var weekday = settings.firstWeekday
                if let firstWeekday {
                    guard let day = WorkSettings.weekday(named: firstWeekday) else {
                        throw WorkError(
                            .invalidInput, "'\(firstWeekday)' is not a weekday",
                            hint: Suggestion.didYouMean(
                                firstWeekday, among: WorkSettings.weekdayNames, what: "weekdays"))
                    }
                    weekday = day
                }
                settings = try WorkSettings(
                    timeZone: timeZone ?? settings.timeZone, firstWeekday: weekday, plannedHours: hours)
                try await tracker.updateSettings(settings, user: uid)
            }
            if globals.json {
                try WorkCommand.printJSON(settings)
                return
            }
            Output.print(
                "\(uid): time zone \(settings.timeZone), weeks start on \(WorkSettings.weekdayNames[settings.firstWeekday - 1])"
            )
            let planned = zip(WorkSettings.weekdayNames, settings.plannedHours).map {
                "\($0.prefix(3)) \(String(format: "%g", $1))h"
            }
            Output.print("planned: " + planned.joined(separator: ", "))
        }
    }
}
