import InMemoryLogging
import Logging
import SuiteCore
import SuitePluginKit
import Synchronization

/// What a plugin did through its host services, and what the host logged about it.
final class Recorder: Sendable {
    private let state = Mutex<(logs: [(Logger.Level, String)], events: [(String, JSONValue)])>(([], []))
    let handler: InMemoryLogHandler = {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        return handler
    }()

    /// Host services recording every log line and event.
    var services: PluginHostServices { services(logLevel: .trace) }

    /// Host services recording every log line at `logLevel` and above, and every event.
    func services(logLevel: Logger.Level) -> PluginHostServices {
        PluginHostServices(
            log: { level, message in
                guard level >= logLevel else { return }
                self.state.withLock { $0.logs.append((level, message)) }
            },
            publish: { name, payload in self.state.withLock { $0.events.append((name, payload)) } }, logLevel: logLevel)
    }

    /// A logger recording into ``handler``.
    var logger: Logger {
        let handler = handler
        return Logger(label: "test.plugins", factory: { _ in handler })
    }

    var logs: [(Logger.Level, String)] { state.withLock { $0.logs } }
    var events: [(String, JSONValue)] { state.withLock { $0.events } }
    var hostWarnings: [String] { handler.entries.filter { $0.level == .warning }.map { "\($0.message)" } }
}

/// A counter shared between tasks.
final class Tally: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
