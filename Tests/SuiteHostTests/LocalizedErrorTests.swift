import Analytics
import Cache
import Documents
import FirestoreProtocol
import Foundation
import StorageAccounting
import SuiteCore
import SuiteHTTP
import SuitePluginKit
import SuiteServer
import Sync
import Testing
import WorkTracking

/// Every public error an app can catch is a `LocalizedError` whose description is its message and whose recovery
/// suggestion is its hint, and stays `Sendable` (the protocol requires it).
@Suite struct LocalizedErrorTests {
    /// One error of each public type, with the message `m` and the hint `h`.
    static let errors: [any SuiteDescribedError] = [
        SuiteError(.invalidArgument, "m", hint: "h"),
        DocumentsError(.invalidPath, "m", hint: "h"),
        CacheError(.invalidInput, "m", hint: "h"),
        SyncError(.offline, "m", hint: "h"),
        AnalyticsError(.delivery, "m", hint: "h"),
        StorageError(.invalidInput, "m", hint: "h"),
        WorkError(.invalidTransition, "m", hint: "h"),
        ServerError(.invalidRequest, "m", hint: "h"),
        PluginError(.notFound, "m", hint: "h"),
        HTTPTransportError(.unreachable, "m", hint: "h"),
    ]

    @Test("errorDescription, localizedDescription and recoverySuggestion are the message and the hint")
    func everyErrorIsLocalized() {
        for error in Self.errors {
            let localized: any LocalizedError = error
            #expect(localized.errorDescription == "m", "\(type(of: error))")
            #expect(localized.recoverySuggestion == "h", "\(type(of: error))")
            #expect((error as any Error).localizedDescription == "m", "\(type(of: error))")
        }
        let plugin = PluginOperationError.invalid("bad request")
        #expect(plugin.errorDescription == "bad request" && plugin.recoverySuggestion == nil)
        #expect(FirestoreTokenError.self is any LocalizedError.Type)
    }

    /// The declarations of public error types in Modules/, read from the sources: a new one that is not a
    /// `SuiteDescribedError` (and so not a `LocalizedError`) fails here.
    @Test("every public error type declared in Modules/ is a SuiteDescribedError")
    func everyPublicErrorTypeConforms() throws {
        let modules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Modules")
        let files = try #require(FileManager.default.enumerator(at: modules, includingPropertiesForKeys: nil))
        var found: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in text.split(separator: "\n")
            where line.hasPrefix("public struct") || line.hasPrefix("public enum")
                || line.hasPrefix("public final class")
            {
                let name = line.split(separator: " ").dropFirst(line.hasPrefix("public final") ? 3 : 2).first ?? ""
                guard name.hasSuffix("Error:") || name.hasSuffix("Error") else { continue }
                found.append(String(name))
                #expect(line.contains(": SuiteDescribedError"), "\(file.lastPathComponent): \(line)")
            }
        }
        #expect(found.count >= 12, "\(found)")
    }
}
