import SuiteCore

/// SuiteCore's RFC 3339 formatter, named once for the engines.
enum RFC3339Bridge {
    static func format(_ microseconds: Int64) -> String { RFC3339.format(microseconds: microseconds) }
}
