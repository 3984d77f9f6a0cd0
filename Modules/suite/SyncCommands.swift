import ArgumentParser
import Foundation
import SuiteHost

/// `suite sync …`: the local store as a replica of `suite serve`.
struct SyncCommand: AsyncParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync the local store with a `suite serve` (--remote URL --token T, or the sync section).",
        discussion: """
            With a remote, every command's Documents store is a replica: it pulls when it opens, records each write \
            in an outbox, and pushes when the command ends; offline, writes wait in the outbox. Example: \
            suite --remote http://127.0.0.1:8080 --token T docs update users/ana --increment points=1
            """,
        subcommands: [Now.self, Status.self, Watch.self])

    static func requireClient(_ context: SuiteContext) async throws -> SyncClient {
        guard let client = try await context.syncClient() else {
            throw SuiteError(
                .invalidArgument, "no remote to sync with",
                hint: "give --remote URL --token T, or set sync.remote and sync.token-file in the configuration")
        }
        return client
    }

    struct Now: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "now", abstract: "Push the outbox and pull the server's changes now.")
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let client = try await SyncCommand.requireClient(context)
            let (pushed, pulled) = try await client.sync()
            let status = client.status
            if globals.json {
                Output.json(
                    .object([
                        "pushed": .int(Int64(pushed)), "pulled": .int(Int64(pulled)),
                        "pending": .int(Int64(status.pending)), "checkpoint": .int(status.checkpoint),
                    ]))
            } else {
                Output.print(
                    "pushed \(pushed) mutations, pulled \(pulled) changes; \(status.pending) pending; "
                        + "at server sequence \(status.checkpoint)")
            }
        }
    }

    struct Status: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Pending writes, the last sync, the server and the last error.")
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let client = try await SyncCommand.requireClient(context)
            let status = client.status
            let server = (client.transport as? HTTPSyncTransport)?.baseURL ?? "-"
            if globals.json {
                Output.json(
                    .object([
                        "server": .string(server), "client": .string(client.clientID),
                        "pending": .int(Int64(status.pending)), "checkpoint": .int(status.checkpoint),
                        "lastSync": status.lastSync.map { .string(ISO8601DateFormatter().string(from: $0)) } ?? .null,
                        "lastError": status.lastError.map(JSONValue.string) ?? .null, "offline": .bool(status.offline),
                    ]))
                return
            }
            Output.print("server      \(server) (replica \(client.clientID))")
            Output.print("pending     \(status.pending) mutations in the outbox")
            Output.print("checkpoint  server sequence \(status.checkpoint)")
            Output.print("last sync   \(status.lastSync.map { ISO8601DateFormatter().string(from: $0) } ?? "never")")
            if let error = status.lastError { Output.print("last error  \(error)") }
        }
    }

    struct Watch: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "watch", abstract: "Keep syncing; print each change pulled, one line each, until Ctrl-C.")
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let client = try await SyncCommand.requireClient(context)
            let json = globals.json
            try await client.follow(
                onPull: { pulled, checkpoint in
                    Output.print(
                        json
                            ? JSONValue.object(["pulled": .int(Int64(pulled)), "checkpoint": .int(checkpoint)])
                                .jsonString
                            : "pulled \(pulled) changes (server sequence \(checkpoint))")
                    Output.flush()
                },
                onOffline: { error, _ in
                    FileHandle.standardError.write(Data("sync: \(error.message); retrying\n".utf8))
                })
        }
    }
}
