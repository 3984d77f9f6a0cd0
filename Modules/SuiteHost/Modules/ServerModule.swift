import Foundation
public import SuiteCore
public import SuiteServer
import Yams

/// `suite serve` as the host sees it: the `server` section.
///
/// ```yaml
/// server:
///   host: 127.0.0.1
///   port: 8080
///   max-body-bytes: 1048576
///   rules:                              # or rules-file: rules.yaml (relative to this file)
///     - {match: "users/{uid}/**", read: owner, write: owner}
///     - {match: "public/**", read: signed-in, write: nobody}
/// ```
public struct ServerModule: SuiteModule {
    /// Creates the description.
    public init() {}

    public var name: String { "Server" }
    public var configurationKey: String { "server" }

    /// The section's settings.
    public struct Settings: Sendable {
        /// Address and port.
        public var configuration: SuiteServer.Configuration
        /// The access rules.
        public var rules: AccessRules
    }

    public func validate(_ section: ConfigurationSection) throws { _ = try settings(section, configurationFile: nil) }

    /// Decodes and checks the `server` section; a `rules-file` is read (relative to `configurationFile`'s folder).
    public func settings(_ section: ConfigurationSection, configurationFile: String?) throws -> Settings {
        let object = try section.object()
        try section.checkKeys(object, known: ["host", "port", "max-body-bytes", "rules", "rules-file"])
        var configuration = SuiteServer.Configuration()
        if let value = object["host"] {
            guard let host = value.stringValue, !host.isEmpty else {
                throw section.error("server.host", "must be an address", hint: "e.g. 127.0.0.1 or 0.0.0.0")
            }
            configuration.host = host
        }
        if let value = object["port"] {
            guard let port = value.intValue, (0...65_535).contains(port) else {
                throw section.error("server.port", "must be a port number from 0 to 65535")
            }
            configuration.port = Int(port)
        }
        if let value = object["max-body-bytes"] {
            guard let bytes = value.intValue, bytes >= 1_024 else {
                throw section.error("server.max-body-bytes", "must be a number of bytes, at least 1024")
            }
            configuration.maximumBodyBytes = Int(bytes)
        }
        var rules = AccessRules.standard
        do {
            if let value = object["rules"] {
                if object["rules-file"] != nil {
                    throw section.error("server", "give rules or rules-file, not both")
                }
                rules = try AccessRules(json: value)
            } else if let file = object["rules-file"]?.stringValue, configurationFile != nil || file.hasPrefix("/") {
                rules = try Self.rules(file: file, relativeTo: configurationFile)
            }
        } catch let error as ServerError {
            throw section.error("server.rules", error.message, hint: error.hint)
        }
        return Settings(configuration: configuration, rules: rules)
    }

    /// Rules from a YAML or JSON file: a list of `{match, read, write}` or `{rules: [...]}`.
    public static func rules(file: String, relativeTo configurationFile: String?) throws -> AccessRules {
        let path = ConfigurationLoader.path(file, relativeToConfiguration: configurationFile)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ServerError(.notFound, "cannot read the rules file \(path)", hint: "check the path")
        }
        let json: JSONValue
        do {
            json = try Yams.compose(yaml: text).map { try ConfigurationLoader.json(from: $0, file: path) } ?? .array([])
        } catch {
            throw ServerError(.invalidRequest, "the rules file \(path) is not valid YAML or JSON: \(error)")
        }
        return try AccessRules(json: json)
    }

    public func status(in context: SuiteContext) async -> ModuleStatus {
        guard
            let settings = try? settings(
                context.configuration.section(configurationKey), configurationFile: context.configuration.file)
        else {
            return ModuleStatus(engine: "?", health: "invalid configuration", isHealthy: false)
        }
        return ModuleStatus(
            engine: "documents", location: context.dataFile(nil, default: "server.sqlite"),
            details: [
                .init("listens on", "\(settings.configuration.host):\(settings.configuration.port) (suite serve)"),
                .init("rules", "\(settings.rules.rules.count)"),
            ])
    }
}

extension SuiteContext {
    /// The server's accounts, opened once per context and closed when it shuts down.
    public func serverAccounts() async throws -> ServerAccounts {
        try await resources.open("server-accounts") { [self] in
            try ensureDataDirectory()
            let accounts = try ServerAccounts(path: dataFile(nil, default: "server.sqlite"))
            return (accounts, { try accounts.close() })
        }
    }
}
