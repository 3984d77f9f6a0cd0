import Logging
package import SuitePluginABI

/// An engine living in a plugin, called at the byte level, every call with a deadline (``callTimeout``). Destroyed
/// when the handle is released — unless one of its calls timed out: the plugin may still be running that call and
/// using the engine, so it is then never destroyed (it leaks, with its host services, for the life of the process).
public final class PluginEngineHandle: @unchecked Sendable {
    // @unchecked: the engine pointer is owned by this object; the ABI lets the host call from any thread.
    private let functions: PluginFunctions
    private let engine: UnsafeMutableRawPointer
    private let slot: UInt64
    private let services: HostServicesBridge?
    private let logger: Logger
    /// The plugin providing the engine (kept alive with it).
    public let plugin: LoadedPlugin
    /// The engine's kind, e.g. `observer`.
    public let kind: String
    /// The engine's name.
    public let name: String
    /// How long a call may take before it fails with ``PluginError/Code-swift.struct/timedOut``.
    public let callTimeout: Duration

    /// The host's default deadline for a call: 30 seconds (the configuration's `plugin-timeout`).
    public static let defaultCallTimeout: Duration = .seconds(30)

    init(
        plugin: LoadedPlugin, functions: PluginFunctions, engine: UnsafeMutableRawPointer, kind: String, name: String,
        callTimeout: Duration, services: HostServicesBridge?, logger: Logger
    ) throws {
        self.plugin = plugin
        self.functions = functions
        self.engine = engine
        self.kind = kind
        self.name = name
        self.callTimeout = callTimeout
        self.services = services
        self.logger = logger
        do {
            slot = try pluginCalls.register(label: Self.label(plugin: plugin, name: name), logger: logger)
        } catch {
            functions.destroy(engine)
            throw error
        }
    }

    deinit {
        if pluginCalls.unregister(slot) {
            functions.destroy(engine)
        } else {
            // A call timed out and may still run inside the plugin: destroying the engine could crash it. Leak it,
            // and keep its host services alive for it.
            if let services { _ = Unmanaged.passRetained(services) }
            logger.warning(
                "\(Self.label(plugin: plugin, name: name)) is not destroyed: a call to it timed out and may still be running"
            )
        }
    }

    /// Whether a call to this engine ever timed out (the engine is then abandoned: never destroyed, see above).
    public var isAbandoned: Bool { pluginCalls.wasAbandoned(slot) }

    static func label(plugin: LoadedPlugin, name: String) -> String {
        "plugin \(plugin.name) (\(plugin.path)) engine '\(name)'"
    }

    /// Runs `operation` with `request` and returns the response. A non-OK status throws ``PluginError`` (code
    /// `callFailed`) carrying the plugin's message; no completion within ``callTimeout`` throws code `timedOut`.
    public func call(_ operation: String, request: [UInt8] = []) async throws -> [UInt8] {
        let (status, response) = try await reply(operation, request: request)
        guard status == 0 else {
            let message =
                response.withUnsafeBytes { PluginFailure(jsonBytes: $0) }.map { "\($0.code): \($0.message)" }
                ?? String(decoding: response, as: UTF8.self)
            throw PluginError(
                .callFailed,
                "\(plugin.name) engine '\(name)' failed '\(operation)' (status \(status)): \(message)",
                path: plugin.path)
        }
        return response
    }

    /// Runs `operation` and returns the status and response as the plugin gave them; throws only on timeout.
    package func reply(_ operation: String, request: [UInt8]) async throws -> (status: Int32, response: [UInt8]) {
        let outcome = await withUnsafeContinuation { continuation in
            let id = pluginCalls.begin(
                slot: slot, operation: operation, timeout: callTimeout, continuation: continuation)
            request.withUnsafeBufferPointer { buffer in
                functions.call(
                    engine, operation, buffer.baseAddress, buffer.count, UnsafeMutableRawPointer(bitPattern: UInt(id)),
                    pluginCallCompletion)
            }
        }
        switch outcome {
        case .completed(let status, let response):
            return (status, response)
        case .timedOut:
            throw PluginError(
                .timedOut,
                "\(Self.label(plugin: plugin, name: name)) did not complete '\(operation)' within "
                    + "\(Self.format(callTimeout)); the engine is abandoned (never destroyed) because the call may "
                    + "still be running inside the plugin",
                hint: "raise `plugin-timeout` in the configuration if '\(operation)' is legitimately slow, "
                    + "otherwise report it to the plugin's author",
                path: plugin.path)
        }
    }

    /// The raw engine, for the benchmark that measures the ABI without the deadline machinery.
    package var rawEngine: (engine: UnsafeMutableRawPointer, call: PluginFunctions.Call) { (engine, functions.call) }

    static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if seconds >= 1 && seconds == seconds.rounded() { return "\(Int(seconds)) s" }
        return "\(Int((seconds * 1000).rounded())) ms"
    }
}

/// The function pointers of a descriptor, read once at load time (within `struct_size`).
package struct PluginFunctions: @unchecked Sendable {
    // @unchecked: C function pointers into a never-unloaded image.
    package typealias Call =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int, UnsafeMutableRawPointer?,
            suite_completion?
        ) -> Void
    typealias Create =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<CChar>?, Int
        ) -> Int32
    typealias CreateWithHost =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int,
            UnsafePointer<suite_host_services>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
            UnsafeMutablePointer<CChar>?, Int
        ) -> Int32
    typealias Destroy = @convention(c) (UnsafeMutableRawPointer?) -> Void

    let context: UnsafeMutableRawPointer?
    let create: Create
    let createWithHost: CreateWithHost?
    package let call: Call
    let destroy: Destroy
}
