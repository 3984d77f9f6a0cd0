import Foundation
package import SuiteCore
package import WorkTracking

/// The Work tracking module as the host sees it: the `work` section (the default user and their default settings).
/// Days are documents of the Documents module, so its engine is the Documents engine.
///
/// ```yaml
/// work:
///   user: ana                       # who `suite work` acts for without --user ($USER by default)
///   time-zone: Europe/Berlin        # the zone new days are recorded in (the machine's by default)
///   first-weekday: monday
///   planned-hours: {monday: 8, tuesday: 8, wednesday: 8, thursday: 8, friday: 6}
/// ```
package struct WorkModule: SuiteModule {
    /// Creates the description.
    package init() {}

    package var name: String { "Work" }
    package var configurationKey: String { "work" }

    /// The section's settings.
    package struct Settings: Sendable {
        /// The user of commands without `--user`.
        package var user: String
        /// The configured zone; nil for the machine's.
        var timeZone: String?
        var firstWeekday: Int
        var plannedHours: [Double]

        /// Settings of users who have none stored. The machine's zone is looked up only here: loading ICU's zone data
        /// costs every command a millisecond, and most never need it.
        package var defaults: WorkSettings {
            get throws {
                try WorkSettings(
                    timeZone: timeZone ?? TimeZone.current.identifier, firstWeekday: firstWeekday,
                    plannedHours: plannedHours)
            }
        }
    }

    /// Decodes and checks the `work` section.
    package func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws -> Settings {
        let object = try section.object()
        try section.checkKeys(object, known: ["user", "time-zone", "first-weekday", "planned-hours"])
        var user = ProcessInfo.processInfo.environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "me"
        if let value = object["user"] {
            guard let text = value.stringValue, !text.isEmpty, !text.contains("/") else {
                throw section.error("work.user", "must be a user id (one path segment)", hint: "e.g. user: ana")
            }
            user = text
        }
        var zone: String?
        if let value = object["time-zone"] {
            guard let text = value.stringValue, TimeZone(identifier: text) != nil else {
                throw section.error(
                    "work.time-zone", "must be an IANA time zone", hint: "e.g. Europe/Berlin, America/New_York, UTC")
            }
            zone = text
        }
        var firstWeekday = 2
        if let value = object["first-weekday"] {
            guard let text = value.stringValue, let day = WorkSettings.weekday(named: text) else {
                throw section.error("work.first-weekday", "must be a weekday name", hint: "e.g. monday or sunday")
            }
            firstWeekday = day
        }
        var hours: [Double] = [0, 8, 8, 8, 8, 8, 0]
        if let value = object["planned-hours"] {
            let hint = "e.g. planned-hours: {monday: 8, friday: 6} (days left out keep 8 on weekdays, 0 on weekends)"
            guard let map = value.objectValue else {
                throw section.error("work.planned-hours", "must be a map of weekday to hours", hint: hint)
            }
            for (name, amount) in map {
                guard let day = WorkSettings.weekday(named: name) else {
                    throw section.error(
                        "work.planned-hours.\(name)", "is not a weekday",
                        hint: Suggestion.didYouMean(name, among: WorkSettings.weekdayNames, what: "weekdays"))
                }
                guard let number = amount.numberValue, (0...24).contains(number) else {
                    throw section.error("work.planned-hours.\(name)", "must be a number of hours from 0 to 24")
                }
                hours[day - 1] = number
            }
        }
        return Settings(user: user, timeZone: zone, firstWeekday: firstWeekday, plannedHours: hours)
    }

    package func status(_ settings: Settings, in context: SuiteContext) async -> ModuleStatus {
        ModuleStatus(
            engine: "documents", location: "workInfo/{uid}/workHistory",
            details: [
                .init("user", settings.user), .init("time zone", settings.timeZone ?? TimeZone.current.identifier),
                .init("first weekday", WorkSettings.weekdayNames[settings.firstWeekday - 1]),
            ])
    }
}

extension SuiteContext {
    /// The work tracker on the configured Documents store, made once per context; its history records `cli`.
    package func workTracker() async throws -> WorkTracker {
        let store = try await documentStore()
        return try await resources.open("work") { [self] in
            let settings = try settings(of: WorkModule.self)
            return (WorkTracker(store: store, defaults: try settings.defaults, source: "cli"), {})
        }
    }
}
