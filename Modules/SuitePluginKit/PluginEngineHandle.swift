import SuitePluginABI

/// An engine living in a plugin, called at the byte level. Destroyed when the handle is released.
public final class PluginEngineHandle: @unchecked Sendable {
    // @unchecked: the engine pointer is owned by this object; the ABI lets the host call from any thread.
    private let descriptor: UnsafePointer<suite_plugin_descriptor>
    private let handle: UnsafeMutableRawPointer
    /// The plugin providing the engine (kept alive with it).
    public let plugin: LoadedPlugin
    /// The engine's name.
    public let name: String

    init(
        plugin: LoadedPlugin, descriptor: UnsafePointer<suite_plugin_descriptor>, handle: UnsafeMutableRawPointer,
        name: String
    ) {
        self.plugin = plugin
        self.descriptor = descriptor
        self.handle = handle
        self.name = name
    }

    deinit {
        descriptor.pointee.destroy_engine(handle)
    }

    /// Runs `operation` with `request` and returns the response. A non-OK status throws ``PluginError`` carrying the
    /// plugin's message.
    public func call(_ operation: String, request: [UInt8] = []) async throws -> [UInt8] {
        let (status, response): (Int32, [UInt8]) = await withCheckedContinuation { continuation in
            let box = Unmanaged.passRetained(CallBox(continuation)).toOpaque()
            request.withUnsafeBufferPointer { buffer in
                descriptor.pointee.call(handle, operation, buffer.baseAddress, buffer.count, box, hostCompletion)
            }
        }
        guard status == 0 else {
            let message = String(decoding: response, as: UTF8.self)
            throw PluginError(
                .callFailed,
                "\(plugin.name) engine '\(name)' failed '\(operation)' (status \(status)): \(message)",
                path: plugin.path)
        }
        return response
    }
}

/// The continuation of one pending call, passed through the ABI as the completion context.
private final class CallBox {
    let continuation: CheckedContinuation<(Int32, [UInt8]), Never>
    init(_ continuation: CheckedContinuation<(Int32, [UInt8]), Never>) { self.continuation = continuation }
}

private let hostCompletion: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<UInt8>?, Int) -> Void = {
    context, status, response, length in
    guard let context else { return }
    let box = Unmanaged<CallBox>.fromOpaque(context).takeRetainedValue()
    let bytes = response.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
    box.continuation.resume(returning: (status, bytes))
}
