import Foundation
import SuiteCore
import SuitePluginABI

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Finds and loads plugins: `dlopen` with `RTLD_NOW | RTLD_LOCAL` (never `dlclose`), the entry symbol, the ABI check.
///
/// A plugin reference is a path (it contains `/` or ends in `.so`) or a name: name `X` resolves to `libX.so` in each
/// directory of ``searchDirectories`` in order (the configuration's `plugin-path`, then `SUITE_PLUGIN_PATH`, then
/// the directory holding the `suite` executable).
public struct PluginLoader: Sendable {
    /// Where names are looked up, in order.
    public var searchDirectories: [String]

    /// A loader searching `searchDirectories` in order.
    public init(searchDirectories: [String]) {
        self.searchDirectories = searchDirectories
    }

    /// The platform's file name for plugin `name`: `libname.so` (`libname.dylib` on Apple platforms).
    public static func fileName(forPluginNamed name: String) -> String {
        #if canImport(Darwin)
            "lib\(name).dylib"
        #else
            "lib\(name).so"
        #endif
    }

    /// Whether `reference` is a path rather than a name.
    public static func isPath(_ reference: String) -> Bool {
        reference.contains("/") || reference.hasSuffix(".so") || reference.hasSuffix(".dylib")
    }

    /// The file `reference` designates. Throws ``PluginError/Code-swift.struct/notFound`` listing where it looked.
    public func resolve(_ reference: String) throws -> String {
        let fileManager = FileManager.default
        if Self.isPath(reference) {
            let path = (reference as NSString).expandingTildeInPath
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw PluginError(
                    .notFound, "plugin file \(path) does not exist", hint: "check the path in `plugins`", path: path)
            }
            guard !isDirectory.boolValue else {
                throw PluginError(
                    .loadFailed, "plugin \(path) is a directory, not a shared object",
                    hint: "name the .so file inside it", path: path)
            }
            return path
        }
        let file = Self.fileName(forPluginNamed: reference)
        for directory in searchDirectories where !directory.isEmpty {
            let candidate = (directory as NSString).appendingPathComponent(file)
            if fileManager.fileExists(atPath: candidate) { return candidate }
        }
        let searched = searchDirectories.filter { !$0.isEmpty }
        throw PluginError(
            .notFound,
            "no plugin named '\(reference)': \(file) is not in "
                + (searched.isEmpty ? "any search directory" : searched.joined(separator: ", ")),
            hint: "add its directory to `plugin-path` or SUITE_PLUGIN_PATH, or give the plugin's path")
    }

    /// Resolves `reference`, loads the file and checks its descriptor.
    public func load(_ reference: String) throws -> LoadedPlugin {
        try Self.load(path: try resolve(reference))
    }

    /// Loads the plugin file at `path` and checks its descriptor.
    public static func load(path: String) throws -> LoadedPlugin {
        guard FileManager.default.fileExists(atPath: path) else {
            throw PluginError(.notFound, "plugin file \(path) does not exist", path: path)
        }
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw PluginError(
                .loadFailed, "cannot load plugin \(path): not a loadable shared object (\(reason))",
                hint: "a plugin is a .so built for this machine; check the file and its dependencies", path: path)
        }
        // The handle is deliberately never closed: code and strings of a plugin may be referenced at any time.
        guard let symbol = dlsym(handle, SUITE_PLUGIN_ENTRY) else {
            throw PluginError(
                .missingEntrySymbol,
                "\(path) is not a Suite plugin: it does not export the entry symbol \(SUITE_PLUGIN_ENTRY)",
                hint: "a plugin exports `suite_plugin_v1` (see Modules/SuitePluginABI/include/suite_plugin.h)",
                path: path)
        }
        let entry = unsafeBitCast(symbol, to: suite_plugin_entry_fn.self)
        guard let raw = entry() else {
            throw PluginError(.invalidDescriptor, "plugin \(path) returned no descriptor", path: path)
        }
        return try LoadedPlugin(path: path, descriptor: raw)
    }
}
