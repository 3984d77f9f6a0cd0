public import Logging

/// A log handler that hands every message to `onMessage`, for a test to await a log line (a library saying it reached
/// a state, e.g. "another connection holds the write lock") instead of sleeping.
public struct SignallingLogHandler: LogHandler {
    let onMessage: @Sendable (String) -> Void
    public var logLevel: Logger.Level = .debug
    public var metadata: Logger.Metadata = [:]

    /// A handler calling `onMessage` with each message, at `debug` and above.
    public init(onMessage: @escaping @Sendable (String) -> Void) {
        self.onMessage = onMessage
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) { onMessage("\(event.message)") }
}
