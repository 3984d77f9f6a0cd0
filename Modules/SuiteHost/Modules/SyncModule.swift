import Documents
import Foundation
import Logging
package import ServiceLifecycle
package import SuiteCore
import SuiteHTTPNIO
package import Sync
import Synchronization

/// Sync as the host sees it: the `sync` section. With a remote, the Documents store every command opens is an
/// offline-first replica of that server: it pulls when it opens, records every commit in its outbox, and pushes when
/// the command ends (offline, the writes wait for the next command that reaches the server).
///
/// ```yaml
/// sync:
///   remote: http://127.0.0.1:8080
///   token-file: token.txt        # relative to this file; or --token / SUITE_TOKEN
///   interval: 30                 # seconds between syncs while a long command runs (docs watch, sync watch)
/// ```
package struct SyncModule: SuiteModule {
    /// Creates the description.
    package init() {}

    package var name: String { "Sync" }
    package var configurationKey: String { "sync" }

    /// The section's settings.
    package struct Settings: Sendable {
        /// The server; nil when this store is not a replica.
        package var remote: String?
        /// The bearer token given in the section or `SUITE_TOKEN`.
        var givenToken: String?
        /// The token file, absolute, when the token comes from one.
        var tokenFile: String?
        /// Seconds between background syncs.
        package var interval: Double

        /// The bearer token: given, or read from `token-file` now.
        /// - Throws: when there is a remote and no token, or the file cannot be read.
        package func token(section: ConfigurationSection) throws -> String? {
            if let givenToken { return givenToken }
            guard let tokenFile else {
                guard remote != nil else { return nil }
                throw section.error(
                    "sync", "a remote needs a token",
                    hint: "give --token, SUITE_TOKEN or sync.token-file (the server's `suite users add UID` prints one)"
                )
            }
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw section.error("sync.token-file", "cannot read \(tokenFile)", hint: "check the path")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Decodes and checks the section; the token comes from `token`, `SUITE_TOKEN` or `token-file` (read when the
    /// replica opens, so `suite status` works without it).
    package func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws -> Settings {
        let object = try section.object()
        try section.checkKeys(object, known: ["remote", "token", "token-file", "interval"])
        var settings = Settings(remote: nil, givenToken: nil, tokenFile: nil, interval: 30)
        let environment = ProcessInfo.processInfo.environment
        if let value = object["remote"] ?? environment["SUITE_REMOTE"].map(JSONValue.string) {
            guard let text = value.stringValue, let url = URL(string: text),
                ["http", "https"].contains(url.scheme ?? ""),
                url.host != nil
            else {
                throw section.error("sync.remote", "must be an http(s) URL", hint: "e.g. http://127.0.0.1:8080")
            }
            settings.remote = text
        }
        if let value = object["interval"] {
            guard let seconds = value.numberValue, seconds >= 1 else {
                throw section.error("sync.interval", "must be at least 1 second")
            }
            settings.interval = seconds
        }
        if let token = object["token"]?.stringValue ?? environment["SUITE_TOKEN"] {
            settings.givenToken = token
        } else if let file = object["token-file"]?.stringValue {
            settings.tokenFile = ConfigurationLoader.path(file, relativeToConfiguration: configuration.file)
        }
        return settings
    }

    package func status(_ settings: Settings, in context: SuiteContext) async -> ModuleStatus {
        guard let remote = settings.remote else {
            return ModuleStatus(engine: "-", location: "-", health: "ok (no remote: the store is not a replica)")
        }
        return ModuleStatus(engine: "http", location: remote)
    }

    /// While a long command runs, syncs every `interval` seconds (backing off, with jitter, while offline).
    package func services(_ settings: Settings, in context: SuiteContext) throws -> [any Service] {
        guard settings.remote != nil else { return [] }
        return [SyncService(context: context, interval: settings.interval)]
    }
}

/// Syncs the replica the command opened, every interval, until the command ends.
struct SyncService: Service {
    let context: SuiteContext
    let interval: Double

    func run() async throws {
        let interval = interval
        let context = context
        try? await cancelWhenGracefulShutdown {
            var delay = interval
            while !Task.isCancelled {
                try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
                guard let client = context.replica.client else { continue }
                do {
                    try await client.sync()
                    delay = interval
                } catch {
                    // Exponential backoff with jitter, up to ten intervals.
                    delay = min(delay * 2, interval * 10) * Double.random(in: 0.8...1.2)
                }
            }
        }
    }
}

/// The replica a context's Documents store became, once it is open.
package final class ReplicaSlot: Sendable {
    private let stored = Mutex<SyncClient?>(nil)
    /// The client, when the store is a replica and open.
    package var client: SyncClient? { stored.withLock { $0 } }
    func set(_ client: SyncClient?) { stored.withLock { $0 = client } }
}

extension SuiteContext {
    /// Makes `store` a replica when a remote is configured: pulls (offline: goes on, with a warning) and returns what
    /// to do at close — push what is pending, then detach.
    func attachReplica(_ store: DocumentStore) async throws -> (@Sendable () async -> Void)? {
        let settings = try settings(of: SyncModule.self)
        guard let remote = settings.remote,
            let token = try settings.token(section: configuration.section(SyncModule().configurationKey))
        else { return nil }
        // A refused connection is offline now, not after the connect timeout's retries.
        let transport = try HTTPSyncTransport(
            baseURL: remote, token: token,
            http: AsyncHTTPClientTransport(
                timeout: .seconds(40), connectTimeout: .seconds(3), retryRefusedConnections: false))
        let client = try await SyncClient(store: store, transport: transport)
        replica.set(client)
        do { try await client.sync() } catch let error as SyncError where error.code == .offline {
            // Said once, when the command ends (with what waits in the outbox).
            logger.debug("sync at open: \(error.message)")
        } catch { warnOffline(client, remote, error) }
        let logger = logger
        return { [self] in
            do { try await client.sync() } catch { warnOffline(client, remote, error) }
            client.detach()
            replica.set(nil)
            do { try await transport.shutdown() } catch { logger.debug("closing the sync transport: \(error)") }
        }
    }

    private func warnOffline(_ client: SyncClient, _ remote: String, _ error: any Error) {
        let message = (error as? any SuiteDescribedError)?.message ?? "\(error)"
        let pending = client.status.pending
        FileHandle.standardError.write(
            Data(
                "sync: \(message)\(pending > 0 ? "; \(pending) changes wait in the outbox for \(remote)" : "")\n".utf8))
    }

    /// The replica of the configured remote (opening the Documents store), or nil when there is no remote.
    package func syncClient() async throws -> SyncClient? {
        _ = try await documentStore()
        return replica.client
    }
}
