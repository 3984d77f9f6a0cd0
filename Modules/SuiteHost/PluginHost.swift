import Foundation
package import SuiteCore
package import SuitePluginKit

/// The outcome of loading one configured plugin.
package struct PluginLoadResult: Sendable {
    /// The reference as configured (a name or a path).
    package var reference: String
    /// The loaded plugin, when loading worked.
    package var plugin: LoadedPlugin?
    /// Why it failed, otherwise.
    package var error: PluginError?
}

/// The plugins a `suite` process loaded, and the engines they provide.
package struct PluginHost: Sendable {
    /// Every configured plugin, loaded or not, in configuration order.
    package let results: [PluginLoadResult]
    /// Where plugin names were looked up, in order.
    package let searchDirectories: [String]

    /// Loads every plugin named in `configuration`, recording failures instead of stopping at the first.
    package init(configuration: SuiteConfiguration, environmentPluginPath: [String], executableDirectory: String?) {
        // Beside the executable (a build folder), then ../lib/suite (an installed `make install PREFIX=…`).
        let installed = executableDirectory.map {
            [$0, (($0 as NSString).deletingLastPathComponent as NSString).appendingPathComponent("lib/suite")]
        }
        let directories = configuration.pluginPath + environmentPluginPath + (installed ?? [])
        let loader = PluginLoader(searchDirectories: directories)
        self.searchDirectories = directories
        self.results = configuration.plugins.map { reference in
            do {
                return PluginLoadResult(reference: reference, plugin: try loader.load(reference), error: nil)
            } catch let error as PluginError {
                return PluginLoadResult(reference: reference, plugin: nil, error: error)
            } catch {
                return PluginLoadResult(
                    reference: reference, plugin: nil,
                    error: PluginError(.loadFailed, "cannot load plugin \(reference): \(error)"))
            }
        }
    }

    /// The plugins that loaded.
    package var loaded: [LoadedPlugin] { results.compactMap(\.plugin) }

    /// The load failures.
    package var failures: [PluginError] { results.compactMap(\.error) }

    /// Throws the first load failure, if any.
    package func requireAllLoaded() throws {
        if let failure = failures.first { throw failure }
    }

    /// The loaded plugin providing engine `name` of `kind`, if any.
    package func provider(kind: String, name: String) -> LoadedPlugin? {
        loaded.first { $0.engines.contains(PluginEngineInfo(kind: kind, name: name)) }
    }

    /// The names of the engines of `kind` that loaded plugins provide.
    package func engines(of kind: String) -> [String] {
        loaded.flatMap(\.engines).filter { $0.kind == kind }.map(\.name)
    }

    /// The directory holding the running executable, searched last for plugin names.
    package static var executableDirectory: String? {
        guard let path = Bundle.main.executablePath ?? CommandLine.arguments.first else { return nil }
        let resolved = (path as NSString).resolvingSymlinksInPath
        return (resolved as NSString).deletingLastPathComponent
    }
}
