package import Foundation

/// The app, device and library facts added to every record's ``AnalyticsRecord/context``, gathered once when the
/// manager starts (never read again while it runs).
///
/// ```swift
/// var configuration = AnalyticsConfiguration()
/// configuration.automaticContext = AnalyticsAutomaticContext(appVersion: "2.4.1", osName: "iOS")  // for a test
/// configuration.collectsAutomaticContext = false                                                  // or none at all
/// ```
///
/// Keys, each present only when known: `app_id`, `app_version`, `app_build`, `os_name`, `os_version`, `locale`,
/// `library_name`, `library_version`. The configured ``AnalyticsConfiguration/context`` wins on a key both set.
public struct AnalyticsAutomaticContext: Sendable, Hashable, Codable {
    /// The bundle identifier (`CFBundleIdentifier`).
    public var appID: String?
    /// The marketing version (`CFBundleShortVersionString`), such as `2.4.1`.
    public var appVersion: String?
    /// The build number (`CFBundleVersion`).
    public var appBuild: String?
    /// The operating system: `iOS`, `macOS`, `tvOS`, `watchOS`, `visionOS`, `Linux`, …
    public var osName: String?
    /// The operating system's version, `major.minor.patch`.
    public var osVersion: String?
    /// The locale identifier, such as `en_US`.
    public var locale: String?
    /// This library's name.
    public var libraryName: String?
    /// This library's version.
    public var libraryVersion: String?

    /// The name of this library in ``libraryName``.
    public static let currentLibraryName = "suite-analytics"
    /// The version of this library in ``libraryVersion``.
    public static let currentLibraryVersion = "1.0.0"

    /// Creates a context from explicit values (tests, or an app that knows better).
    public init(
        appID: String? = nil, appVersion: String? = nil, appBuild: String? = nil, osName: String? = nil,
        osVersion: String? = nil, locale: String? = nil, libraryName: String? = Self.currentLibraryName,
        libraryVersion: String? = Self.currentLibraryVersion
    ) {
        self.appID = appID
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.osName = osName
        self.osVersion = osVersion
        self.locale = locale
        self.libraryName = libraryName
        self.libraryVersion = libraryVersion
    }

    /// Reads the context now: app facts from `bundle`'s Info.plist (absent for a command-line tool), the operating
    /// system from `processInfo`, the locale from `locale`. ``AnalyticsManager`` calls it once, in its `init`.
    package static func gather(
        bundle: Bundle = .main, processInfo: ProcessInfo = .processInfo, locale: Locale = .current
    ) -> AnalyticsAutomaticContext {
        let info = bundle.infoDictionary ?? [:]
        let version = processInfo.operatingSystemVersion
        return AnalyticsAutomaticContext(
            appID: bundle.bundleIdentifier, appVersion: info["CFBundleShortVersionString"] as? String,
            appBuild: info["CFBundleVersion"] as? String, osName: operatingSystemName,
            osVersion: "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
            locale: locale.identifier)
    }

    /// The context as record context keys, leaving out what is unknown.
    package var values: [String: String] {
        let pairs: [(String, String?)] = [
            ("app_id", appID), ("app_version", appVersion), ("app_build", appBuild), ("os_name", osName),
            ("os_version", osVersion), ("locale", locale), ("library_name", libraryName),
            ("library_version", libraryVersion),
        ]
        var values: [String: String] = [:]
        for (key, value) in pairs {
            if let value, !value.isEmpty { values[key] = value }
        }
        return values
    }

    private static var operatingSystemName: String {
        #if os(iOS)
            "iOS"
        #elseif os(macOS)
            "macOS"
        #elseif os(tvOS)
            "tvOS"
        #elseif os(watchOS)
            "watchOS"
        #elseif os(visionOS)
            "visionOS"
        #elseif os(Linux)
            "Linux"
        #elseif os(Windows)
            "Windows"
        #else
            "unknown"
        #endif
    }
}
