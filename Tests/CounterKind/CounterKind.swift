public import SuitePluginKit

/// A test-only engine kind, `counter`: the whole declaration of a new kind with JSON payloads. It proves that a kind
/// is a name plus `Codable` request types — the host calls it with `PluginEngine<CounterKind>`, a plugin serves it
/// with `PluginRequestHandler<CounterKind>` (see `Plugins/CounterPlugin`), and SuitePluginKit does the rest.
///
/// Operations: `add` (`{"amount": n}` → `{"total": t}`; a negative amount fails with code `negativeAmount`),
/// `total` (`{}` → `{"total": t}`), `echo` (`{"text": s}` → the same).
public enum CounterKind: PluginEngineKind {
    /// `"counter"`.
    public static let name = "counter"

    /// Adds `amount` to the engine's total and answers the new total.
    public struct Add: PluginOperation, Codable, Hashable {
        /// The kind.
        public typealias Kind = CounterKind
        /// The new total.
        public typealias Response = Total.Response
        /// `"add"`.
        public static let operationName = "add"
        /// What to add; must not be negative.
        public var amount: Int

        /// A request to add `amount`.
        public init(amount: Int) { self.amount = amount }
    }

    /// Answers the engine's total.
    public struct Total: PluginOperation, Codable, Hashable {
        /// The kind.
        public typealias Kind = CounterKind
        /// `"total"`.
        public static let operationName = "total"

        /// The request (it has no fields).
        public init() {}

        /// A total.
        public struct Response: Codable, Sendable, Hashable {
            /// The sum of everything added.
            public var total: Int
            /// A total of `total`.
            public init(total: Int) { self.total = total }
        }
    }

    /// Answers its own request: the cheapest round trip through the ABI with a typed payload.
    public struct Echo: PluginOperation, Codable, Hashable {
        /// The kind.
        public typealias Kind = CounterKind
        /// The request itself.
        public typealias Response = Echo
        /// `"echo"`.
        public static let operationName = "echo"
        /// Any text.
        public var text: String

        /// A request echoing `text`.
        public init(text: String) { self.text = text }
    }
}
