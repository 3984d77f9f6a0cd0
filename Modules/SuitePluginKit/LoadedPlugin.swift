public import SuiteCore
import SuitePluginABI

/// A plugin loaded into this process: what its descriptor says, and a way to create its engines.
public final class LoadedPlugin: @unchecked Sendable {
    // @unchecked: `descriptor` points into the plugin's never-unloaded image and is only read.
    private let descriptor: UnsafePointer<suite_plugin_descriptor>

    /// The file it was loaded from.
    public let path: String
    /// The plugin's own name.
    public let name: String
    /// The plugin's version.
    public let version: String
    /// The ABI version it reports (always ``LoadedPlugin/supportedABIVersion`` once loaded).
    public let abiVersion: UInt32
    /// The engines it provides.
    public let engines: [PluginEngineInfo]

    /// The ABI version this build of Suite speaks.
    public static let supportedABIVersion = UInt32(SUITE_PLUGIN_ABI_VERSION)

    init(path: String, descriptor: UnsafePointer<suite_plugin_descriptor>) throws {
        self.path = path
        self.descriptor = descriptor
        // Read the version first: nothing else in the struct is meaningful under another ABI.
        let version = descriptor.pointee.abi_version
        guard version == SUITE_PLUGIN_ABI_VERSION else {
            throw PluginError(
                .abiMismatch,
                "plugin \(path) uses plugin ABI version \(version), but this suite speaks version "
                    + "\(SUITE_PLUGIN_ABI_VERSION)",
                hint: "rebuild the plugin against this Suite's suite_plugin.h", path: path)
        }
        let d = descriptor.pointee
        guard d.struct_size >= UInt32(MemoryLayout<suite_plugin_descriptor>.size) else {
            throw PluginError(
                .invalidDescriptor,
                "plugin \(path) has a descriptor of \(d.struct_size) bytes, expected "
                    + "\(MemoryLayout<suite_plugin_descriptor>.size)", path: path)
        }
        guard let name = d.name, let pluginVersion = d.version, d.create_engine != nil, d.call != nil,
            d.destroy_engine != nil, d.engine_count == 0 || d.engines != nil
        else {
            throw PluginError(
                .invalidDescriptor, "plugin \(path) has a descriptor with missing fields", path: path)
        }
        var engines: [PluginEngineInfo] = []
        for i in 0..<d.engine_count {
            let info = d.engines[i]
            guard let kind = info.kind, let engineName = info.name else {
                throw PluginError(
                    .invalidDescriptor, "plugin \(path) lists an engine without a kind or name", path: path)
            }
            engines.append(PluginEngineInfo(kind: String(cString: kind), name: String(cString: engineName)))
        }
        self.name = String(cString: name)
        self.version = String(cString: pluginVersion)
        self.abiVersion = version
        self.engines = engines
    }

    /// Creates engine `name` of `kind` with JSON `options`; the plugin's own error message is kept in the error.
    public func makeEngine(kind: String, name: String, options: JSONValue) throws -> PluginEngineHandle {
        guard engines.contains(PluginEngineInfo(kind: kind, name: name)) else {
            throw PluginError(
                .engineNotFound, "plugin \(self.name) (\(path)) has no \(kind) engine named '\(name)'",
                hint: "it provides: " + engines.map(\.description).joined(separator: ", "), path: path)
        }
        let optionBytes = Array(options.jsonString.utf8)
        var handle: UnsafeMutableRawPointer?
        var message = [CChar](repeating: 0, count: 1024)
        let status = optionBytes.withUnsafeBufferPointer { options in
            message.withUnsafeMutableBufferPointer { error in
                descriptor.pointee.create_engine(
                    descriptor.pointee.context, kind, name, options.baseAddress, options.count, &handle,
                    error.baseAddress, error.count)
            }
        }
        guard status == 0, let handle else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw PluginError(
                .engineCreationFailed,
                "plugin \(self.name) (\(path)) could not create \(kind) engine '\(name)': "
                    + (reason.isEmpty ? "status \(status)" : reason),
                hint: "check the engine's options in the configuration", path: path)
        }
        return PluginEngineHandle(plugin: self, descriptor: descriptor, handle: handle, name: name)
    }
}
