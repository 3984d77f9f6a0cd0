// AnalyticsStateProbe QUEUE COMMAND… — an app's second launch, for the analytics tests: opens an AnalyticsManager on
// the queue file QUEUE (engine: none), carries out each COMMAND in order, shuts the manager down (so everything is on
// disk) and prints what the manager holds, one `key=value` per line:
//
//     consent=denied
//     collecting=false
//     anonymous=<uuid>
//     user=<id, or ->
//     session=<uuid, or ->
//     persisted=<records written to the queue>
//
// Commands: `opt-out`, `opt-in`, `identify USER`, `reset`, `log NAME`, `status` (nothing). Exits 1 with `error: …` on
// stderr when the queue cannot be opened or a command fails, 2 for bad arguments.
import Analytics
import Foundation

@main
struct AnalyticsStateProbe {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard !arguments.isEmpty else { fail("usage: AnalyticsStateProbe QUEUE COMMAND…", status: 2) }
        let path = arguments.removeFirst()
        do {
            var configuration = AnalyticsConfiguration()
            configuration.automaticContext = AnalyticsAutomaticContext()
            let manager = try AnalyticsManager(
                engine: NoOpAnalyticsEngine(), queue: try AnalyticsQueue(path: path), configuration: configuration)
            while !arguments.isEmpty {
                let command = arguments.removeFirst()
                switch command {
                case "opt-out": try await manager.optOut()
                case "opt-in": try await manager.optIn()
                case "reset": manager.reset()
                case "status": break
                case "identify" where !arguments.isEmpty:
                    try manager.identify(userID: arguments.removeFirst())
                case "log" where !arguments.isEmpty:
                    manager.log(NamedAnalyticsEvent(arguments.removeFirst()))
                default: fail("unknown command '\(command)'", status: 2)
                }
            }
            try await manager.shutdown()
            let lines = [
                "consent=\(manager.consent.rawValue)", "collecting=\(manager.isCollecting)",
                "anonymous=\(manager.identity.anonymousID.uuidString.lowercased())",
                "user=\(manager.identity.userID ?? "-")",
                "session=\(manager.sessionID?.uuidString.lowercased() ?? "-")",
                "persisted=\(manager.statistics.persisted)",
            ]
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        } catch {
            fail("error: \(error)", status: 1)
        }
    }

    static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(status)
    }
}
