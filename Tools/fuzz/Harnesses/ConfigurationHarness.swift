import Foundation
import SuiteCore
import SuiteHost

/// The configuration loader on an arbitrary file: the first byte picks `suite.json` (odd) or `suite.yaml` (even), the
/// rest is the file. Every module of `suite` validates its section, as `suite` does at start-up.
enum ConfigurationHarness {
    static let directory: String = {
        let path = NSTemporaryDirectory() + "suite-fuzz-config-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static let modules: [any SuiteModule] = [
        DocumentsModule(), CacheModule(), AnalyticsModule(), StorageModule(), SyncModule(), WorkModule(),
        ServerModule(), ObserversModule(),
    ]

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let file = directory + (first & 1 == 1 ? "/suite.json" : "/suite.yaml")
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes.dropFirst())) else {
            FuzzInput.fail("cannot write \(file)")
        }
        let loader = ConfigurationLoader(
            modules: modules, environment: ["HOME": directory], currentDirectory: directory)
        // Loading decodes every module's section (engines' options included), as each command does.
        _ = try? loader.loadSettings(.init(configFile: file))
    }
}
