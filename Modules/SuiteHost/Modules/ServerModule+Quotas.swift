import SuiteCore
import SuiteServer

extension ServerModule {
    /// The `server.quotas` section: per-user limits per minute and per UTC day, and whether admins are exempt.
    ///
    /// ```yaml
    /// quotas:
    ///   per-minute: {reads: 600, writes: 120, deletes: 60}
    ///   per-day: {reads: 50000, writes: 20000, deletes: 20000}
    ///   admins: exempt        # or limited
    /// ```
    static func quotas(_ value: JSONValue, section: ConfigurationSection) throws -> QuotaLimits {
        let base = "server.quotas"
        guard let object = value.objectValue else {
            throw section.error(base, "must be a map", hint: "e.g. quotas: {per-minute: {reads: 600, writes: 120}}")
        }
        try section.checkKeys(object, at: base, known: ["per-minute", "per-day", "admins"])
        var limits = QuotaLimits()
        if let value = object["per-minute"] {
            limits.perMinute = try allowance(value, at: "\(base).per-minute", section)
        }
        if let value = object["per-day"] { limits.perDay = try allowance(value, at: "\(base).per-day", section) }
        if let value = object["admins"] {
            guard let text = value.stringValue, ["exempt", "limited"].contains(text) else {
                throw section.error(
                    "\(base).admins", "must be exempt or limited",
                    hint: Suggestion.didYouMean(value.stringValue ?? "", among: ["exempt", "limited"]))
            }
            limits.adminsExempt = text == "exempt"
        }
        return limits
    }

    /// A `{reads, writes, deletes}` map of whole numbers of documents, each at least 1; an omitted kind is unlimited.
    private static func allowance(_ value: JSONValue, at path: String, _ section: ConfigurationSection) throws
        -> QuotaLimits.Allowance
    {
        guard let object = value.objectValue else {
            throw section.error(path, "must be a map", hint: "e.g. {reads: 600, writes: 120, deletes: 60}")
        }
        try section.checkKeys(object, at: path, known: ["reads", "writes", "deletes"])
        func limit(_ key: String) throws -> Int? {
            guard let value = object[key] else { return nil }
            guard let number = value.intValue, number >= 1, number <= Int64(Int32.max) else {
                throw section.error(
                    "\(path).\(key)",
                    "must be a whole number of documents from 1 to \(Int32.max), not \(value.jsonString)",
                    hint: "omit \(key) for no limit")
            }
            return Int(number)
        }
        return QuotaLimits.Allowance(
            reads: try limit("reads"), writes: try limit("writes"), deletes: try limit("deletes"))
    }
}
