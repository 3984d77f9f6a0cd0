import Foundation

/// Which engine a module (or an observer) uses, and that engine's options.
///
/// In a configuration file: `documents: {engine: sqlite, options: {path: docs.sqlite}}`.
public struct EngineSelection: Sendable, Hashable, Codable {
    /// The engine's registered name (`sqlite`, `memory`, or one a plugin provides).
    public var engine: String
    /// The engine's options, passed to its factory as a JSON object.
    public var options: JSONValue

    /// Selects `engine` with `options`.
    public init(engine: String, options: JSONValue = .object([:])) {
        self.engine = engine
        self.options = options
    }
}

/// Where a configuration value came from, shown by `suite config show`.
public enum ConfigurationSource: Sendable, Hashable, CustomStringConvertible {
    /// Suite's built-in default.
    case defaultValue
    /// A configuration file.
    case file(String)
    /// An environment variable.
    case environment(String)
    /// A command-line flag.
    case flag(String)

    public var description: String {
        switch self {
        case .defaultValue: "default"
        case .file(let path): "file \(path)"
        case .environment(let name): "env \(name)"
        case .flag(let name): "flag \(name)"
        }
    }
}

/// Suite's resolved configuration: file, then environment, then flags, each overriding the one before.
///
/// The keys every process shares are properties; each module's own section (`documents:`, `observers:`, …) is kept
/// in ``sections`` as written and decoded by the module that owns it.
public struct SuiteConfiguration: Sendable, Hashable {
    /// Keys of the host itself; every other top-level key belongs to a module.
    public static let hostKeys = ["data-dir", "plugin-path", "plugins", "log-level", "plugin-timeout"]

    /// The directory holding every embedded store (`$XDG_DATA_HOME/suite` by default).
    public var dataDirectory: String
    /// Directories searched for plugins named without a path.
    public var pluginPath: [String]
    /// Plugins to load, by name (`EventLog` → `libEventLog.so`) or by path.
    public var plugins: [String]
    /// The log level (`trace` … `critical`).
    public var logLevel: String
    /// How long the host waits for one call into a plugin before failing it (`plugin-timeout`, seconds; 30 by
    /// default).
    public var pluginTimeout: Double
    /// Each module's section, by its top-level key; a module absent here runs on its defaults.
    public var sections: [String: ConfigurationSection]
    /// The configuration file read, if any.
    public var file: String?
    /// Where each key's value came from.
    public var sources: [String: ConfigurationSource]

    /// A configuration with every default, data under `dataDirectory`.
    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        self.pluginPath = []
        self.plugins = []
        self.logLevel = "warning"
        self.pluginTimeout = 30
        self.sections = [:]
        self.file = nil
        self.sources = Dictionary(uniqueKeysWithValues: Self.hostKeys.map { ($0, .defaultValue) })
    }

    /// The section of `key`, or an empty one (every default) when the configuration has none.
    public func section(_ key: String) -> ConfigurationSection {
        sections[key] ?? ConfigurationSection(key: key, value: .null, source: .defaultValue)
    }
}

/// One module's part of the configuration, with what is needed to report an error in it: the file, the line of each
/// key and a did-you-mean.
///
/// ```swift
/// let object = try section.object()                          // the section must be a map
/// try section.checkKeys(object, known: ["engine", "options"])   // unknown key → error with line and suggestion
/// let path = try section.string("path", in: object)
/// ```
public struct ConfigurationSection: Sendable, Hashable {
    /// The section's top-level key, e.g. `documents`.
    public var key: String
    /// The value as written (`null` when absent). Path options are already absolute (see ``isPathOption(_:)``).
    public var value: JSONValue
    /// Where it came from.
    public var source: ConfigurationSource
    /// The file it was read from, if any.
    public var file: String?
    /// The line of each key inside the section, by dotted key path (`documents.options.path`), when known.
    public var lines: [String: Int]

    /// Creates a section.
    public init(
        key: String, value: JSONValue, source: ConfigurationSource, file: String? = nil, lines: [String: Int] = [:]
    ) {
        self.key = key
        self.value = value
        self.source = source
        self.file = file
        self.lines = lines
    }

    /// Whether the section was given at all (else every default applies).
    public var isPresent: Bool {
        if case .null = value { return false }
        return true
    }

    /// `key 'documents.options.path' in /etc/suite.yaml (line 4)`: how errors name a key.
    public func describe(_ path: String) -> String {
        var text = "key '\(path)'"
        switch source {
        case .file(let file):
            text += " in \(file)"
            if let line = lines[path] ?? lines[key] { text += " (line \(line))" }
        case .environment(let name): text += " (from \(name))"
        case .flag(let name): text += " (from \(name))"
        case .defaultValue: break
        }
        return text
    }

    /// An `invalidConfiguration` error about key `path` of this section.
    public func error(_ path: String, _ problem: String, hint: String? = nil) -> SuiteError {
        SuiteError(.invalidConfiguration, "\(describe(path)) \(problem)", hint: hint)
    }

    /// The section as a map; `null` (absent) is an empty map.
    public func object() throws -> [String: JSONValue] {
        switch value {
        case .null: return [:]
        case .object(let object): return object
        default: throw error(key, "must be a map, not \(value.typeDescription)")
        }
    }

    /// Fails on the first member of `object` (at key path `path`, the section itself by default) not in `known`,
    /// suggesting the closest known one.
    public func checkKeys(_ object: [String: JSONValue], at path: String? = nil, known: [String]) throws {
        let base = path ?? key
        for member in object.keys.sorted() where !known.contains(member) {
            throw SuiteError(
                .invalidConfiguration, "unknown \(describe("\(base).\(member)"))",
                hint: Suggestion.didYouMean(member, among: known, what: "keys"))
        }
    }

    /// Whether an option key names a file or directory, and so is resolved against the configuration file's folder:
    /// `path`, `file`, `dir`, `directory`, or a key ending in `-path`, `-file`, `-dir` or `-directory`.
    public static func isPathOption(_ key: String) -> Bool {
        let lower = key.lowercased()
        if ["path", "file", "dir", "directory"].contains(lower) { return true }
        return ["-path", "-file", "-dir", "-directory", "_path", "_file", "_dir"].contains { lower.hasSuffix($0) }
    }
}

/// "Did you mean …?" for misspelled keys and values.
public enum Suggestion {
    /// The known word closest to `word` (case-insensitive edit distance, at most a third of its length), if any.
    public static func closest(to word: String, among known: [String]) -> String? {
        let target = Array(word.lowercased().replacingOccurrences(of: "_", with: "-"))
        var best: (String, Int)?
        for candidate in known {
            let distance = editDistance(target, Array(candidate.lowercased()))
            if distance <= max(1, target.count / 3), distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        return best?.0
    }

    /// A hint: `did you mean 'engine'? Known keys: engine, options`, or just the list when nothing is close.
    public static func didYouMean(_ word: String, among known: [String], what: String = "values") -> String {
        let list = "known \(what): " + known.joined(separator: ", ")
        guard let match = closest(to: word, among: known) else { return list }
        return "did you mean '\(match)'? K" + list.dropFirst()
    }

    /// Edits (insert, delete, substitute, or swap two neighbours: `dcos` is one edit from `docs`) from `a` to `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, row) = (previous, row, beforePrevious)
        }
        return previous[b.count]
    }
}
