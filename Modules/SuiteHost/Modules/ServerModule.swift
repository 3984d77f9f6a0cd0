package import Documents
package import FirestoreProtocol
import Foundation
package import SuiteCore
package import SuiteServer
import Yams

/// `suite serve` as the host sees it: the `server` section.
///
/// ```yaml
/// server:
///   host: 127.0.0.1
///   port: 8080
///   max-body-bytes: 1048576
///   firestore: {port: 8081}             # Firestore's gRPC protocol (host, certificate-file, private-key-file,
///                                       # accept-owner-token, auto-indexes); off unless here or --firestore-port
///   rules:                              # or rules-file: rules.yaml (relative to this file), or
///     - {match: "users/{uid}/**", read: owner, write: owner}   # rules-file: firestore.rules, Firestore's own
///     - {match: "public/**", read: signed-in, write: nobody}    # rules language (also `suite serve --rules FILE`)
///   quotas:                             # per user (uid); over a limit: 429 + Retry-After, RESOURCE_EXHAUSTED
///     per-minute: {reads: 600, writes: 120, deletes: 60}   # documents, as Firestore bills them; a kind left out
///     per-day: {reads: 50000, writes: 20000, deletes: 20000}  # is unlimited; windows are UTC minutes and days
///     admins: exempt                    # or limited
/// ```
package struct ServerModule: SuiteModule {
    /// Creates the description.
    package init() {}

    package var name: String { "Server" }
    package var configurationKey: String { "server" }

    /// The section's settings.
    package struct Settings: Sendable {
        /// Address and port.
        package var configuration: SuiteServer.Configuration
        /// The access rules.
        package var rules: ServerRules
        /// Firestore's protocol, when it is served.
        package var firestore: FirestoreServer.Configuration?
    }

    /// Decodes and checks the `server` section; a `rules-file` is read (relative to the configuration file's folder).
    package func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws -> Settings {
        try settings(section, configurationFile: configuration.file)
    }

    /// Decodes and checks the `server` section; a `rules-file` is read (relative to `configurationFile`'s folder).
    package func settings(_ section: ConfigurationSection, configurationFile: String?) throws -> Settings {
        let object = try section.object()
        try section.checkKeys(
            object, known: ["host", "port", "max-body-bytes", "rules", "rules-file", "firestore", "quotas"])
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
        if let value = object["quotas"] { configuration.quotas = try Self.quotas(value, section: section) }
        var rules = ServerRules.standard
        do {
            if let value = object["rules"] {
                if object["rules-file"] != nil {
                    throw section.error("server", "give rules or rules-file, not both")
                }
                rules = .paths(try AccessRules(json: value))
            } else if let value = object["rules-file"] {
                guard let file = value.stringValue, !file.isEmpty else {
                    throw section.error(
                        "server.rules-file", "must be the path of a rules file",
                        hint: "e.g. rules-file: firestore.rules (Firestore's language) or rules.yaml (path rules)")
                }
                // `validate` has no configuration file to resolve a relative path against: `settings` reads it.
                if configurationFile != nil || file.hasPrefix("/") {
                    rules = try Self.rules(file: file, relativeTo: configurationFile)
                }
            }
        } catch let error as ServerError {
            throw section.error("server.rules", error.message, hint: error.hint)
        }
        let firestore = try object["firestore"].map {
            try Self.firestore($0, section: section, configurationFile: configurationFile)
        }
        return Settings(configuration: configuration, rules: rules, firestore: firestore)
    }

    /// The `server.firestore` section.
    static func firestore(_ value: JSONValue, section: ConfigurationSection, configurationFile: String?) throws
        -> FirestoreServer.Configuration
    {
        guard let object = value.objectValue else {
            throw section.error("server.firestore", "must be a map", hint: "e.g. firestore: {port: 8081}")
        }
        try section.checkKeys(
            object, at: "server.firestore",
            known: [
                "host", "port", "certificate-file", "private-key-file", "accept-owner-token", "auto-indexes", "jwt",
            ])
        var configuration = FirestoreServer.Configuration()
        if let value = object["host"] {
            guard let host = value.stringValue, !host.isEmpty else {
                throw section.error("server.firestore.host", "must be an address", hint: "e.g. 127.0.0.1")
            }
            configuration.host = host
        }
        if let value = object["port"] {
            guard let port = value.intValue, (0...65_535).contains(port) else {
                throw section.error("server.firestore.port", "must be a port number from 0 to 65535")
            }
            configuration.port = Int(port)
        }
        for key in ["certificate-file", "private-key-file"] {
            guard let value = object[key] else { continue }
            guard let file = value.stringValue, !file.isEmpty else {
                throw section.error("server.firestore.\(key)", "must be the path of a PEM file")
            }
            let path = ConfigurationLoader.path(file, relativeToConfiguration: configurationFile)
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw section.error("server.firestore.\(key)", "cannot read \(path)", hint: "check the path")
            }
            if key == "certificate-file" {
                configuration.certificateFile = path
            } else {
                configuration.privateKeyFile = path
            }
        }
        if let value = object["accept-owner-token"] {
            guard let flag = value.boolValue else {
                throw section.error("server.firestore.accept-owner-token", "must be true or false")
            }
            configuration.acceptOwnerToken = flag
        }
        if let value = object["auto-indexes"] {
            guard let flag = value.boolValue else {
                throw section.error("server.firestore.auto-indexes", "must be true or false")
            }
            configuration.autoIndexes = flag
        }
        if let value = object["jwt"] {
            configuration.tokens = try tokens(value, section: section, configurationFile: configurationFile)
        }
        return configuration
    }

    /// The `server.firestore.jwt` section: the issuer, audience and keys of the app's identity provider.
    static func tokens(_ value: JSONValue, section: ConfigurationSection, configurationFile: String?) throws
        -> FirestoreTokens
    {
        let base = "server.firestore.jwt"
        guard let object = value.objectValue else {
            throw section.error(base, "must be a map", hint: "e.g. jwt: {issuer: …, audience: …, keys: [...]}")
        }
        try section.checkKeys(object, at: base, known: ["issuer", "audience", "keys"])
        guard let issuer = object["issuer"]?.stringValue, !issuer.isEmpty else {
            throw section.error("\(base).issuer", "is missing", hint: "e.g. https://securetoken.google.com/PROJECT")
        }
        guard let audience = object["audience"]?.stringValue, !audience.isEmpty else {
            throw section.error("\(base).audience", "is missing", hint: "e.g. the Firebase project id")
        }
        guard let list = object["keys"]?.arrayValue, !list.isEmpty else {
            throw section.error(
                "\(base).keys", "needs at least one key", hint: "e.g. [{algorithm: RS256, public-key-file: key.pem}]")
        }
        var keys: [FirestoreTokens.Key] = []
        for (index, entry) in list.enumerated() {
            let path = "\(base).keys[\(index)]"
            guard let key = entry.objectValue else { throw section.error(path, "must be a map") }
            let sources = ["secret", "secret-file", "public-key-file", "certificate-file"]
            try section.checkKeys(key, at: path, known: ["algorithm", "kid"] + sources)
            let names = FirestoreTokens.Key.Algorithm.allCases.map(\.rawValue)
            guard let name = key["algorithm"]?.stringValue,
                let algorithm = FirestoreTokens.Key.Algorithm(rawValue: name.uppercased())
            else {
                throw section.error(
                    "\(path).algorithm", "must be one of \(names.joined(separator: ", "))",
                    hint: Suggestion.didYouMean(key["algorithm"]?.stringValue ?? "", among: names))
            }
            let given = sources.filter { key[$0] != nil }
            guard given.count == 1, let source = given.first else {
                throw section.error(path, "needs exactly one of \(sources.joined(separator: ", "))")
            }
            if algorithm == .hs256, !source.hasPrefix("secret") {
                throw section.error(path, "HS256 takes a secret or secret-file")
            }
            if algorithm != .hs256, source.hasPrefix("secret") {
                throw section.error(path, "\(name) takes a public-key-file or certificate-file")
            }
            var material: String
            if source == "secret" {
                guard let secret = key[source]?.stringValue, !secret.isEmpty else {
                    throw section.error("\(path).secret", "must be a non-empty string")
                }
                material = secret
            } else {
                guard let file = key[source]?.stringValue else {
                    throw section.error("\(path).\(source)", "must be a file path")
                }
                let resolved = ConfigurationLoader.path(file, relativeToConfiguration: configurationFile)
                guard let text = try? String(contentsOfFile: resolved, encoding: .utf8) else {
                    throw section.error("\(path).\(source)", "cannot read \(resolved)", hint: "check the path")
                }
                material = source == "secret-file" ? text.trimmingCharacters(in: .whitespacesAndNewlines) : text
            }
            keys.append(.init(algorithm: algorithm, kid: key["kid"]?.stringValue, material: material))
        }
        return FirestoreTokens(issuer: issuer, audience: audience, keys: keys)
    }

    /// Rules from a file: Firestore's rules language for a `.rules` file (or one that starts with `rules_version` or
    /// `service`); otherwise YAML or JSON, a list of `{match, read, write}` or `{rules: [...]}`.
    package static func rules(file: String, relativeTo configurationFile: String?) throws -> ServerRules {
        let path = ConfigurationLoader.path(file, relativeToConfiguration: configurationFile)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ServerError(.notFound, "cannot read the rules file \(path)", hint: "check the path")
        }
        let start = text.drop(while: { $0.isWhitespace })
        if path.hasSuffix(".rules") || start.hasPrefix("rules_version") || start.hasPrefix("service") {
            return .firestore(try FirestoreRules(source: text, fileName: path))
        }
        let json: JSONValue
        do {
            json = try Yams.compose(yaml: text).map { try ConfigurationLoader.json(from: $0, file: path) } ?? .array([])
        } catch {
            throw ServerError(.invalidRequest, "the rules file \(path) is not valid YAML or JSON: \(error)")
        }
        return .paths(try AccessRules(json: json))
    }

    /// The allow/deny cases of `suite rules test`, from a YAML or JSON file.
    package static func rulesTestCases(file: String) throws -> RulesTestCases {
        let path = ConfigurationLoader.path(file, relativeToConfiguration: nil)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw SuiteError(.notFound, "cannot read the cases file \(path)", hint: "check the path")
        }
        let json: JSONValue
        do {
            json = try Yams.compose(yaml: text).map { try ConfigurationLoader.json(from: $0, file: path) } ?? .null
        } catch {
            throw SuiteError(.invalidArgument, "the cases file \(path) is not valid YAML or JSON: \(error)")
        }
        return try RulesTestCases(json: json)
    }

    package func status(_ settings: Settings, in context: SuiteContext) async -> ModuleStatus {
        ModuleStatus(
            engine: "documents", location: context.dataFile(nil, default: "server.sqlite"),
            details: [
                .init("listens on", "\(settings.configuration.host):\(settings.configuration.port) (suite serve)"),
                .init("rules", settings.rules.summary),
                .init(
                    "firestore protocol",
                    settings.firestore.map {
                        "\($0.host):\($0.port) (gRPC\($0.certificateFile == nil ? "" : ", TLS"))"
                    } ?? "off (suite serve --firestore-port PORT)"),
            ])
    }
}

extension SuiteContext {
    /// Opens the store of a Firestore database other than `(default)`: a SQLite file of its own under the data
    /// directory (`firestore/ID.sqlite`), created when `create` is true.
    package func firestoreDatabase(_ id: String, create: Bool) async throws -> DocumentStore? {
        let path = dataFile(nil, default: "firestore/\(id).sqlite")
        guard create || FileManager.default.fileExists(atPath: path) else { return nil }
        try ensureDataDirectory()
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let engine = try SQLiteDocumentEngine(path: path, logger: logger)
        return DocumentStore(engine: engine, bus: nil, clock: clock, logger: logger)
    }

    /// The server's accounts, opened once per context and closed when it shuts down.
    package func serverAccounts() async throws -> ServerAccounts {
        try await resources.open("server-accounts") { [self] in
            try ensureDataDirectory()
            let accounts = try ServerAccounts(path: dataFile(nil, default: "server.sqlite"))
            return (accounts, { try accounts.close() })
        }
    }
}
