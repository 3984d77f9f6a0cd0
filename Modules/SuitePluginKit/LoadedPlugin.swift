public import Logging
public import SuiteCore
import SuitePluginABI

/// A plugin loaded into this process: what its descriptor says, and a way to create its engines.
public final class LoadedPlugin: @unchecked Sendable {
    // @unchecked: immutable after init; the function pointers point into the plugin's never-unloaded image.
    private let functions: PluginFunctions

    /// The file it was loaded from.
    public let path: String
    /// The plugin's own name.
    public let name: String
    /// The plugin's version.
    public let version: String
    /// The ABI version it reports (always ``LoadedPlugin/supportedABIVersion`` once loaded).
    public let abiVersion: UInt32
    /// The size of its descriptor (`struct_size`): ``descriptorSizeV1_0`` for a plugin built against ABI 1.0.
    public let descriptorSize: Int
    /// The engines it provides.
    public let engines: [PluginEngineInfo]

    /// The ABI version this build of Suite speaks.
    public static let supportedABIVersion = UInt32(SUITE_PLUGIN_ABI_VERSION)
    /// The `struct_size` of a version 1.0 descriptor (no host services): the smallest one accepted.
    public static let descriptorSizeV1_0 = Int(suite_plugin_descriptor_size_v1_0())
    /// The `struct_size` of a descriptor as this build of Suite knows it (1.1: with `create_engine_v1_1`).
    public static let descriptorSizeV1_1 = MemoryLayout<suite_plugin_descriptor>.size

    /// Whether the plugin takes host services (logging, publishing) when it creates an engine (ABI 1.1).
    public var acceptsHostServices: Bool { functions.createWithHost != nil }

    init(path: String, descriptor: UnsafePointer<suite_plugin_descriptor>) throws {
        self.path = path
        // Read the version first: nothing else in the struct is meaningful under another ABI. Fields are read one by
        // one, never the whole struct: a 1.0 descriptor is shorter than this build's suite_plugin_descriptor.
        let version = descriptor.pointee.abi_version
        guard version == SUITE_PLUGIN_ABI_VERSION else {
            throw PluginError(
                .abiMismatch,
                "plugin \(path) uses plugin ABI version \(version), but this suite speaks version "
                    + "\(SUITE_PLUGIN_ABI_VERSION)",
                hint: "rebuild the plugin against this Suite's suite_plugin.h", path: path)
        }
        let size = Int(descriptor.pointee.struct_size)
        guard size >= Self.descriptorSizeV1_0 else {
            throw PluginError(
                .invalidDescriptor,
                "plugin \(path) has a descriptor of \(size) bytes, expected at least \(Self.descriptorSizeV1_0)",
                path: path)
        }
        guard let name = descriptor.pointee.name, let pluginVersion = descriptor.pointee.version,
            let create = descriptor.pointee.create_engine, let call = descriptor.pointee.call,
            let destroy = descriptor.pointee.destroy_engine,
            descriptor.pointee.engine_count == 0 || descriptor.pointee.engines != nil
        else {
            throw PluginError(
                .invalidDescriptor, "plugin \(path) has a descriptor with missing fields", path: path)
        }
        var createWithHost: PluginFunctions.CreateWithHost?
        if size >= Self.descriptorSizeV1_1 {
            createWithHost = UnsafeRawPointer(descriptor).load(
                fromByteOffset: Self.descriptorSizeV1_0, as: PluginFunctions.CreateWithHost?.self)
        }
        var engines: [PluginEngineInfo] = []
        for i in 0..<descriptor.pointee.engine_count {
            let info = descriptor.pointee.engines[i]
            guard let kind = info.kind, let engineName = info.name else {
                throw PluginError(
                    .invalidDescriptor, "plugin \(path) lists an engine without a kind or name", path: path)
            }
            engines.append(PluginEngineInfo(kind: String(cString: kind), name: String(cString: engineName)))
        }
        self.functions = PluginFunctions(
            context: descriptor.pointee.context, create: create, createWithHost: createWithHost, call: call,
            destroy: destroy)
        self.name = String(cString: name)
        self.version = String(cString: pluginVersion)
        self.abiVersion = version
        self.descriptorSize = size
        self.engines = engines
    }

    /// Creates engine `name` of `kind` with JSON `options`; the plugin's own error message is kept in the error.
    ///
    /// - Parameters:
    ///   - kind: the engine kind (`observer`, `documents`, …), as the plugin's descriptor lists it.
    ///   - name: the engine's name within that kind.
    ///   - options: the engine's JSON options from the configuration.
    ///   - services: what the engine may use of the host (logging, publishing); ignored by a plugin built against
    ///     ABI 1.0 (``acceptsHostServices``).
    ///   - callTimeout: the deadline of every call (the configuration's `plugin-timeout`, 30 s by default); must be
    ///     positive.
    ///   - logger: where the handle reports what the plugin does wrong: completions that come twice or after their
    ///     deadline, an engine left undestroyed after a timeout.
    /// - Throws: ``PluginError`` `engineNotFound`, `engineCreationFailed` or `invalidArgument`.
    public func makeEngine(
        kind: String, name: String, options: JSONValue, services: PluginHostServices = .discarding,
        callTimeout: Duration = PluginEngineHandle.defaultCallTimeout,
        logger: Logger = Logger(label: "suite.plugins", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> PluginEngineHandle {
        guard engines.contains(PluginEngineInfo(kind: kind, name: name)) else {
            throw PluginError(
                .engineNotFound, "plugin \(self.name) (\(path)) has no \(kind) engine named '\(name)'",
                hint: "it provides: " + engines.map(\.description).joined(separator: ", "), path: path)
        }
        guard callTimeout > .zero else {
            throw PluginError(
                .invalidArgument, "the call timeout of plugin engines must be positive, not \(callTimeout)",
                hint: "set `plugin-timeout` to a positive number of seconds", path: path)
        }
        let optionBytes = Array(options.jsonString.utf8)
        let bridge = functions.createWithHost.map { _ in
            HostServicesBridge(services: services, label: PluginEngineHandle.label(plugin: self, name: name))
        }
        var handle: UnsafeMutableRawPointer?
        var message = [CChar](repeating: 0, count: 1024)
        let status = optionBytes.withUnsafeBufferPointer { options in
            message.withUnsafeMutableBufferPointer { error in
                if let bridge, let createWithHost = functions.createWithHost {
                    return createWithHost(
                        functions.context, kind, name, options.baseAddress, options.count, bridge.table, &handle,
                        error.baseAddress, error.count)
                }
                return functions.create(
                    functions.context, kind, name, options.baseAddress, options.count, &handle, error.baseAddress,
                    error.count)
            }
        }
        guard status == 0, let handle else {
            var reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // A Swift plugin's error arrives as "message (hint: hint)": its own hint beats the generic one.
            var hint = "check the engine's options in the configuration"
            let bytes = Array(reason.utf8)
            let marker = Array(" (hint: ".utf8)
            if bytes.last == UInt8(ascii: ")"), bytes.count > marker.count,
                let start = (0...(bytes.count - marker.count)).last(where: {
                    bytes[$0..<($0 + marker.count)].elementsEqual(marker)
                })
            {
                hint = String(decoding: bytes[(start + marker.count)..<(bytes.count - 1)], as: UTF8.self)
                reason = String(decoding: bytes[..<start], as: UTF8.self)
            }
            throw PluginError(
                .engineCreationFailed,
                "plugin \(self.name) (\(path)) could not create \(kind) engine '\(name)': "
                    + (reason.isEmpty ? "status \(status)" : reason),
                hint: hint, path: path)
        }
        return try PluginEngineHandle(
            plugin: self, functions: functions, engine: handle, kind: kind, name: name, callTimeout: callTimeout,
            services: bridge, logger: logger)
    }
}
