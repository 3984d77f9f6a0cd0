import Foundation
public import SuiteCore

/// Why a plugin could not be found, loaded or used. The message always names the file (or the engine) and the reason.
public struct PluginError: SuiteDescribedError {
    /// A stable, extensible error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// No file at the given path, or no `libX.so` for a name in any search directory.
        public static let notFound = Code("notFound")
        /// `dlopen` refused the file (not a shared object, wrong architecture, missing dependency).
        public static let loadFailed = Code("loadFailed")
        /// The file loaded but does not export `suite_plugin_v1`: it is not a Suite plugin.
        public static let missingEntrySymbol = Code("missingEntrySymbol")
        /// The plugin speaks another ABI version.
        public static let abiMismatch = Code("abiMismatch")
        /// The plugin's descriptor is malformed (null fields, too small).
        public static let invalidDescriptor = Code("invalidDescriptor")
        /// The plugin refused to create an engine; the message carries the plugin's own reason.
        public static let engineCreationFailed = Code("engineCreationFailed")
        /// No loaded plugin (and no built-in) provides the engine named in the configuration.
        public static let engineNotFound = Code("engineNotFound")
        /// An operation on a plugin engine failed.
        public static let callFailed = Code("callFailed")
        /// A plugin engine did not complete an operation within the call timeout (`plugin-timeout`); the message
        /// names the plugin file, the engine, the operation and the timeout.
        public static let timedOut = Code("timedOut")
        /// An argument the host passed is out of range (e.g. a call timeout that is not positive).
        public static let invalidArgument = Code("invalidArgument")

        public var description: String { name }
    }

    public var code: Code
    public var message: String
    public var hint: String?
    /// The plugin file concerned, when there is one.
    public var path: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, hint: String? = nil, path: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.path = path
    }
}
