import ArgumentParser
import Foundation
import SuiteHost

/// `suite serve`: the Documents API over HTTP on the embedded default (or the configured engine).
struct ServeCommand: SuiteSubcommand {

    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the documents over HTTP (JSON API, bearer tokens, rules) until SIGINT or SIGTERM.",
        discussion: """
            The API is in docs/api.md and at /openapi.json; /healthz and /metrics (Prometheus) need no token. Add \
            users with `suite users add UID` (prints a token once). A user reads and writes users/{uid}/** and \
            workInfo/{uid}/** unless server.rules say otherwise. SIGINT/SIGTERM finish the requests in flight, then \
            close the store. With --firestore-port (or server.firestore in the configuration) it also speaks \
            Firestore's own gRPC protocol, so Google's and Firebase's client libraries work unchanged: \
            FIRESTORE_EMULATOR_HOST=127.0.0.1:PORT.
            """)

    @Option(help: ArgumentHelp("The address to bind (default 127.0.0.1).", valueName: "address")) var host: String?
    @Option(help: ArgumentHelp("The port (default 8080; 0 picks a free one).", valueName: "port")) var port: Int?
    @Option(
        help: ArgumentHelp(
            "Issue a fresh token for this user (created if missing) and print it with a curl line to try.",
            valueName: "uid"))
    var devUser: String?
    @Option(
        help: ArgumentHelp(
            "Also serve Firestore's gRPC protocol on this port (0 picks a free one), for Google's and Firebase's "
                + "client libraries.", valueName: "port"))
    var firestorePort: Int?
    @Option(
        help: ArgumentHelp(
            "The rules: a firestore.rules file in Firestore's own language, or a YAML list of path rules "
                + "(instead of server.rules or server.rules-file).", valueName: "file"))
    var rules: String?
    @Flag(
        help: ArgumentHelp(
            "Accept the token 'owner' that Google's clients send to an emulator as an admin (loopback only)."))
    var acceptOwnerToken = false
    @Flag(
        help: ArgumentHelp(
            "Declare the composite indexes Firestore-protocol queries need as they first run, as Google's emulator "
                + "needs none (otherwise such a query fails with the command that adds the index, as Firestore does)."))
    var autoIndexes = false
    @OptionGroup var globals: GlobalOptions
    var runsServices: Bool { true }
    var cancelsOnShutdown: Bool { false }

    func validate() throws {
        if let port, !(0...65_535).contains(port) {
            throw ValidationError("--port must be from 0 to 65535, not \(port)")
        }
        if let firestorePort, !(0...65_535).contains(firestorePort) {
            throw ValidationError("--firestore-port must be from 0 to 65535, not \(firestorePort)")
        }
    }

    func run(_ context: SuiteContext) async throws {
        var settings = try context.settings(of: ServerModule.self)
        if let rules {
            do {
                settings.rules = try ServerModule.rules(file: rules, relativeTo: nil)
            } catch let error as ServerError {
                throw SuiteError(.invalidArgument, error.message, hint: error.hint)
            }
        }
        if let host { settings.configuration.host = host }
        if let port { settings.configuration.port = port }
        if let firestorePort {
            settings.firestore = settings.firestore ?? FirestoreServer.Configuration()
            settings.firestore?.port = firestorePort
        }
        if acceptOwnerToken {
            guard settings.firestore != nil else {
                throw SuiteError(
                    .invalidArgument, "--accept-owner-token needs the Firestore protocol",
                    hint: "add --firestore-port PORT (or server.firestore in the configuration)")
            }
            settings.firestore?.acceptOwnerToken = true
        }
        if autoIndexes {
            guard settings.firestore != nil else {
                throw SuiteError(
                    .invalidArgument, "--auto-indexes needs the Firestore protocol",
                    hint: "add --firestore-port PORT (or server.firestore in the configuration)")
            }
            settings.firestore?.autoIndexes = true
        }
        let accounts = try await context.serverAccounts()
        let store = try await context.documentStore()
        let token: String? =
            if let devUser { try await accounts.add(devUser, newTokenIfExists: true) } else { nil }
        // The operator's one-time console link, for the admin user `admin` (created as an admin when missing).
        let signIn = try await accounts.issueSignIn(for: "admin", createAdmin: true)
        let server = SuiteServer(
            store: store, accounts: accounts, rules: settings.rules, configuration: settings.configuration,
            routes: context.consoleRoutes(), logger: context.logger)
        let firestore = try settings.firestore.map { configuration in
            try FirestoreServer(
                store: store, accounts: accounts, rules: settings.rules, metrics: server.metrics,
                configuration: configuration,
                openDatabase: { id, create in try await context.firestoreDatabase(id, create: create) },
                quotas: server.quotas, logger: context.logger)
        }
        let host = settings.configuration.host
        let firestoreSettings = settings.firestore
        let json = globals.json
        try await withThrowingTaskGroup(of: Void.self) { group in
            // The Firestore protocol first: a failure to start it (a port in use, a key that does not parse) ends
            // the command before the HTTP server exists.
            var firestorePort: Int?
            if let firestore {
                let (ready, readySink) = AsyncStream<Int>.makeStream()
                group.addTask {
                    defer { readySink.finish() }
                    try await firestore.run { port in readySink.yield(port) }
                }
                var iterator = ready.makeAsyncIterator()
                firestorePort = await iterator.next()
                if firestorePort == nil {
                    try await group.next()
                    return
                }
            }
            let grpcHost = firestoreSettings.map { $0.host == "0.0.0.0" ? "127.0.0.1" : $0.host }
            let firestoreAddress = firestorePort.flatMap { port in grpcHost.map { "\($0):\(port)" } }
            let tls = firestoreSettings?.certificateFile != nil
            group.addTask {
                try await server.run { http in
                    Self.banner(
                        url: "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(http)", port: http,
                        firestore: firestoreAddress, tls: tls, signIn: signIn,
                        user: devUser.flatMap { user in
                            token.map { (user, $0) }
                        }, json: json)
                }
            }
            // One door failing (its port in use) stops the other.
            do {
                // Not waitForAll(): it waits for every child before rethrowing.
                while try await group.next() != nil {}
            } catch {
                group.cancelAll()
                throw error
            }
        }
        if !json { Output.print("suite serve: stopped") }
    }

    /// What `suite serve` prints once it listens: the URL, the Firestore protocol's address, the console link, a
    /// developer's token with a line to try; or one JSON object with `--json`.
    static func banner(
        url: String, port: Int, firestore: String?, tls: Bool, signIn: String, user: (String, String)?, json: Bool
    ) {
        if json {
            var object: [String: JSONValue] = [
                "url": .string(url), "port": .int(Int64(port)), "console": .string("\(url)/console#token=\(signIn)"),
            ]
            if let (uid, token) = user {
                object["user"] = .string(uid)
                object["token"] = .string(token)
            }
            if let firestore { object["firestore"] = .string(firestore) }
            Output.print(JSONValue.object(object).jsonString)
        } else {
            Output.print("suite serve: listening on \(url) (API: \(url)/openapi.json; stop with Ctrl-C)")
            if let firestore {
                Output.print(
                    "firestore: gRPC on \(firestore)\(tls ? " (TLS)" : "") — FIRESTORE_EMULATOR_HOST=\(firestore) "
                        + "points Google's clients here")
            }
            Output.print(
                "console: \(url)/console#token=\(signIn) (signs in as admin once, within 10 minutes; "
                    + "`suite users signin UID` makes another)")
            if let (uid, token) = user {
                Output.print("token for \(uid): \(token)")
                Output.print(
                    "try: curl -s -X PUT -H 'Authorization: Bearer \(token)' -d '{\"data\":{\"points\":10}}' "
                        + "\(url)/v1/docs/users/\(uid)")
            }
        }
        Output.flush()
    }
}

/// `suite users …`: the accounts of `suite serve`.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Add, list and revoke the users of `suite serve` (bearer tokens, stored hashed).",
        subcommands: [Add.self, List.self, Token.self, SignIn.self, Revoke.self])

    struct Add: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a user and print its token (shown once).")
        @Argument(help: "The user id (letters, digits, '-', '_', '.').") var uid: String
        @Flag(help: "The user may read and write everything.") var admin = false
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let token = try await context.serverAccounts().add(uid, admin: admin)
            if globals.json {
                Output.print(JSONValue.object(["uid": .string(uid), "token": .string(token)]).jsonString)
            } else {
                Output.print("added \(uid)\(admin ? " (admin)" : ""); its token (shown once): \(token)")
            }
        }
    }

    struct Token: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "token", abstract: "Issue another token for a user (the others keep working).")
        @Argument(help: "The user id.") var uid: String
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let token = try await context.serverAccounts().issueToken(for: uid)
            if globals.json {
                Output.print(JSONValue.object(["uid": .string(uid), "token": .string(token)]).jsonString)
            } else {
                Output.print("new token for \(uid) (shown once): \(token)")
            }
        }
    }

    struct SignIn: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "signin",
            abstract: "Print a one-time link that signs a user in to the web console (valid 10 minutes).")
        @Argument(help: "The user id.") var uid: String
        @Option(help: ArgumentHelp("The server's address, as the link should show it.", valueName: "url"))
        var url = "http://127.0.0.1:8080"
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            guard let base = URL(string: url), base.scheme == "http" || base.scheme == "https", base.host != nil
            else {
                throw SuiteError(
                    .invalidArgument, "--url must be the server's http(s) address, not '\(url)'",
                    hint: "e.g. --url http://127.0.0.1:8080")
            }
            let token = try await context.serverAccounts().issueSignIn(for: uid)
            let link = url.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/console#token=" + token
            if globals.json {
                Output.print(JSONValue.object(["uid": .string(uid), "link": .string(link)]).jsonString)
            } else {
                Output.print("sign in \(uid) (once, within 10 minutes): \(link)")
            }
        }
    }

    struct List: SuiteSubcommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every user.")
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let users = try await context.serverAccounts().list()
            if globals.json {
                Output.json(
                    .array(
                        users.map {
                            .object([
                                "uid": .string($0.uid), "admin": .bool($0.isAdmin), "tokens": .int(Int64($0.tokens)),
                                "created": .string(ISO8601DateFormatter().string(from: $0.created)),
                            ])
                        }))
                return
            }
            guard !users.isEmpty else {
                Output.print("no users yet: add one with `suite users add UID`")
                return
            }
            var table = TextTable(["USER", "ADMIN", "TOKENS", "CREATED"])
            for user in users {
                table.append([
                    user.uid, user.isAdmin ? "yes" : "", "\(user.tokens)",
                    ISO8601DateFormatter().string(from: user.created),
                ])
            }
            Output.print(table.render())
        }
    }

    struct Revoke: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Remove a user and all its tokens (its documents stay).")
        @Argument(help: "The user id.") var uid: String
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            try await context.serverAccounts().revoke(uid)
            if globals.json {
                Output.print(JSONValue.object(["revoked": .string(uid)]).jsonString)
            } else {
                Output.print("revoked \(uid)")
            }
        }
    }
}
