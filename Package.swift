// swift-tools-version: 6.1
import PackageDescription

// MARK: - Shared dependencies

let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")
let yams: Target.Dependency = .product(name: "Yams", package: "Yams")
let serviceLifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let unixSignals: Target.Dependency = .product(name: "UnixSignals", package: "swift-service-lifecycle")
let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let asyncHTTPClient: Target.Dependency = .product(name: "AsyncHTTPClient", package: "async-http-client")
let metrics: Target.Dependency = .product(name: "CoreMetrics", package: "swift-metrics")
let tracing: Target.Dependency = .product(name: "Tracing", package: "swift-distributed-tracing")
let compressNIO: Target.Dependency = .product(name: "CompressNIO", package: "compress-nio")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let postgresNIO: Target.Dependency = .product(name: "PostgresNIO", package: "postgres-nio")
let nioSSL: Target.Dependency = .product(name: "NIOSSL", package: "swift-nio-ssl")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let grpcCore: Target.Dependency = .product(name: "GRPCCore", package: "grpc-swift-2")
let grpcProtobuf: Target.Dependency = .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf")
let grpcPosix: Target.Dependency = .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport")
let swiftProtobuf: Target.Dependency = .product(name: "SwiftProtobuf", package: "swift-protobuf")
let jwtKit: Target.Dependency = .product(name: "JWTKit", package: "jwt-kit")
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioHTTP1: Target.Dependency = .product(name: "NIOHTTP1", package: "swift-nio")

let package = Package(
    name: "Suite",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "SuiteCore", targets: ["SuiteCore"]),
        .library(name: "SuitePluginKit", targets: ["SuitePluginKit"]),
        .library(name: "Documents", targets: ["Documents"]),
        .library(name: "DocumentsPluginSupport", targets: ["DocumentsPluginSupport"]),
        // The URLSession pieces sit in modules of their own (FoundationNetworking on Linux: libcurl and ~30 libraries
        // loaded at every start), so that `suite`, which talks HTTP through AsyncHTTPClient, does not link them. The
        // products an app depends on include them: their library default transport is URLSession.
        .library(name: "SuiteHTTP", targets: ["SuiteHTTP", "SuiteHTTPURLSession"]),
        .library(name: "SuiteHTTPNIO", targets: ["SuiteHTTPNIO"]),
        .library(name: "Cache", targets: ["Cache", "CacheURLSession", "SuiteHTTPURLSession"]),
        .library(name: "CachePluginSupport", targets: ["CachePluginSupport"]),
        .library(name: "Analytics", targets: ["Analytics", "SuiteHTTPURLSession"]),
        .library(name: "AnalyticsPluginSupport", targets: ["AnalyticsPluginSupport"]),
        .library(name: "AnalyticsTestSupport", targets: ["AnalyticsTestSupport"]),
        .library(name: "StorageAccounting", targets: ["StorageAccounting"]),
        .library(name: "WorkTracking", targets: ["WorkTracking"]),
        .library(name: "SuiteServer", targets: ["SuiteServer"]),
        .library(name: "FirestoreProtocol", targets: ["FirestoreProtocol"]),
        .library(name: "Sync", targets: ["Sync", "SuiteHTTPURLSession"]),
        .executable(name: "suite", targets: ["suite"]),
        .executable(name: "suite-bench", targets: ["Benchmarks"]),
        .executable(name: "documents-crash-writer", targets: ["CrashWriter"]),
        .executable(name: "suite-faults-replica", targets: ["FaultsReplica"]),
        .executable(name: "analytics-receiver", targets: ["AnalyticsReceiver"]),
        // Runtime plugins that `suite` loads with dlopen (not SwiftPM build plugins).
        .library(name: "EventLog", type: .dynamic, targets: ["EventLog"]),
        .library(name: "CTally", type: .dynamic, targets: ["CTally"]),
        .library(name: "BadABI", type: .dynamic, targets: ["BadABI"]),
        .library(name: "MemoryDocuments", type: .dynamic, targets: ["MemoryDocuments"]),
        .library(name: "Misbehaving", type: .dynamic, targets: ["Misbehaving"]),
        .library(name: "CounterPlugin", type: .dynamic, targets: ["CounterPlugin"]),
        .library(name: "RedisCache", type: .dynamic, targets: ["RedisCache"]),
        .library(name: "AnalyticsPrometheus", type: .dynamic, targets: ["AnalyticsPrometheus"]),
        .library(name: "PostgresDocuments", type: .dynamic, targets: ["PostgresDocuments"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // 4.x for jwt-kit 5 (the Firestore protocol's JWTs); every other package here accepts 3 to 5.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // `make docs`: the DocC catalogs (Modules/<M>/<M>.docc) through `swift package generate-documentation`.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: - Modules
        // Each module's README.md is documentation, not a resource.
        .target(name: "SuiteCore", dependencies: [logging], path: "Modules/SuiteCore", exclude: ["README.md"]),
        .target(name: "SuitePluginABI", path: "Modules/SuitePluginABI"),
        .target(
            name: "SuitePluginKit",
            dependencies: ["SuiteCore", "SuitePluginABI", logging],
            path: "Modules/SuitePluginKit",
            exclude: ["README.md"]
        ),
        .target(
            name: "Documents", dependencies: ["SuiteCore", grdb, logging], path: "Modules/Documents",
            exclude: ["README.md"]),
        // HTTP for the library modules: the transport role, its library default (found at run time), gzip/deflate.
        .target(
            name: "SuiteHTTP", dependencies: ["SuiteCore", "CZlib"], path: "Modules/SuiteHTTP", exclude: ["README.md"]),
        // The URLSession transport (no SwiftNIO in an app's build): the library default wherever it is linked.
        .target(
            name: "SuiteHTTPURLSession", dependencies: ["SuiteHTTP", "SuiteCore"], path: "Modules/SuiteHTTPURLSession",
            exclude: ["README.md"]),
        // The AsyncHTTPClient transport, for servers and `suite`: a product of its own so that apps never build NIO.
        .target(
            name: "SuiteHTTPNIO", dependencies: ["SuiteHTTP", "SuiteCore", asyncHTTPClient, nioCore, nioHTTP1],
            path: "Modules/SuiteHTTPNIO", exclude: ["README.md"]),
        // zlib (in every Apple SDK; Debian's zlib1g-dev), under SuiteHTTP's HTTPCompression.
        .systemLibrary(name: "CZlib", path: "Modules/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "Cache", dependencies: ["SuiteCore", "SuiteHTTP", grdb, logging, crypto], path: "Modules/Cache",
            exclude: ["README.md"]),
        // CachedHTTPClient in URLSession's shapes (URLRequest in, HTTPURLResponse out).
        .target(
            name: "CacheURLSession", dependencies: ["Cache"], path: "Modules/CacheURLSession", exclude: ["README.md"]),
        .target(
            name: "Analytics",
            dependencies: ["SuiteCore", "SuiteHTTP", grdb, logging, crypto, metrics, tracing],
            path: "Modules/Analytics",
            exclude: ["README.md"]),
        .target(
            name: "DocumentsPluginSupport",
            dependencies: ["Documents", "SuitePluginKit", "SuiteCore", logging],
            path: "Modules/DocumentsPluginSupport",
            exclude: ["README.md"]
        ),
        .target(
            name: "CachePluginSupport",
            dependencies: ["Cache", "SuitePluginKit", "SuiteCore", logging],
            path: "Modules/CachePluginSupport",
            exclude: ["README.md"]
        ),
        .target(
            name: "StorageAccounting", dependencies: ["SuiteCore", grdb, logging], path: "Modules/StorageAccounting",
            exclude: ["README.md"]),
        .target(
            name: "WorkTracking", dependencies: ["Documents", "SuiteCore"], path: "Modules/WorkTracking",
            exclude: ["README.md"]),
        .target(
            name: "Sync", dependencies: ["Documents", "SuiteCore", "SuiteHTTP", logging], path: "Modules/Sync",
            exclude: ["README.md"]),
        .target(
            name: "SuiteServer",
            dependencies: [
                "Documents", "Sync", "SuiteCore", "SuiteHTTP", hummingbird, grdb, crypto, logging, serviceLifecycle,
            ],
            path: "Modules/SuiteServer", exclude: ["README.md"],
            // The web console's files, compiled into the module: nothing to install or find at run time.
            resources: [.embedInCode("Console")]),
        // Firestore's gRPC protocol in front of the server's Documents stores (its .proto files are the protocol's
        // facts, written here; Generated/ is protoc's output, committed: `make protos` regenerates it).
        .target(
            name: "FirestoreProtocol",
            dependencies: [
                "Documents", "SuiteServer", "SuiteCore", grpcCore, grpcProtobuf, grpcPosix, swiftProtobuf, logging,
                serviceLifecycle, jwtKit,
            ],
            path: "Modules/FirestoreProtocol", exclude: ["README.md", "Protos"]),
        // The in-memory engine for the tests of code that logs analytics.
        .target(
            name: "AnalyticsTestSupport", dependencies: ["Analytics"], path: "Modules/AnalyticsTestSupport",
            exclude: ["README.md"]),
        .target(
            name: "AnalyticsPluginSupport",
            dependencies: ["Analytics", "SuitePluginKit", "SuiteCore"],
            path: "Modules/AnalyticsPluginSupport",
            exclude: ["README.md"]
        ),
        .target(
            name: "SuiteHost",
            dependencies: [
                "SuiteCore", "SuitePluginKit", "Documents", "DocumentsPluginSupport", "Cache", "CachePluginSupport",
                "Analytics", "AnalyticsPluginSupport", "StorageAccounting", "WorkTracking", "SuiteServer", "Sync",
                "FirestoreProtocol", "SuiteHTTP", "SuiteHTTPNIO", yams, logging, serviceLifecycle, unixSignals,
            ],
            path: "Modules/SuiteHost"
        ),
        .executableTarget(
            name: "suite",
            dependencies: ["SuiteHost", argumentParser, logging],
            path: "Modules/suite"
        ),

        // MARK: - Plugins
        .target(name: "EventLog", dependencies: ["SuitePluginKit"], path: "Plugins/EventLog"),
        .target(name: "CTally", dependencies: ["SuitePluginABI"], path: "Plugins/CTally"),
        .target(name: "BadABI", dependencies: ["SuitePluginABI"], path: "Plugins/BadABI"),
        .target(
            name: "MemoryDocuments",
            dependencies: ["Documents", "DocumentsPluginSupport", "SuitePluginKit", "SuiteCore", logging],
            path: "Plugins/MemoryDocuments"
        ),
        // The `cache` engine `redis`, in C on hiredis (Debian libhiredis-dev; Tools/install-deps.sh installs it).
        .target(
            name: "RedisCache", dependencies: ["SuitePluginABI"], path: "Plugins/RedisCache", exclude: ["README.md"],
            cSettings: [.unsafeFlags(["-Wall", "-Wextra"])], linkerSettings: [.linkedLibrary("hiredis")]),
        // The `analytics` engine `prometheus`: counts for node_exporter's textfile collector.
        .target(
            name: "AnalyticsPrometheus",
            dependencies: ["Analytics", "AnalyticsPluginSupport", "SuitePluginKit", "SuiteCore"],
            path: "Plugins/AnalyticsPrometheus"),
        // The `documents` engine `postgres`: Documents on a PostgreSQL server, through postgres-nio.
        .target(
            name: "PostgresDocuments",
            dependencies: [
                "Documents", "DocumentsPluginSupport", "SuitePluginKit", "SuiteCore", postgresNIO, nioSSL, nioPosix,
                logging,
            ],
            path: "Plugins/PostgresDocuments", exclude: ["README.md"]),
        // Test plugins: one breaking the completion rules (C), one serving the test-only `counter` kind (Swift).
        .target(name: "Misbehaving", dependencies: ["SuitePluginABI"], path: "Plugins/Misbehaving"),
        .target(
            name: "CounterPlugin", dependencies: ["CounterKind", "SuitePluginKit", "SuiteCore", logging],
            path: "Plugins/CounterPlugin"),

        // MARK: - Tests
        // posix_spawn for the tests' child processes (Foundation's Process.run() can crash on Linux: see TestProcess).
        .target(name: "CTestSpawn", path: "Tests/CTestSpawn"),
        .target(name: "SuiteTestSupport", dependencies: ["CTestSpawn", logging], path: "Tests/SuiteTestSupport"),
        // A throwaway redis-server on a free loopback port, for the RedisCache tests and benchmark.
        .target(name: "RedisTestSupport", dependencies: ["SuiteTestSupport"], path: "Tests/RedisTestSupport"),
        // A throwaway PostgreSQL cluster (initdb in a temporary directory, as an unprivileged user), for the
        // PostgresDocuments tests and benchmark.
        .target(name: "PostgresTestSupport", dependencies: ["SuiteTestSupport"], path: "Tests/PostgresTestSupport"),
        // A test-only engine kind, declared as any module would declare its own.
        .target(name: "CounterKind", dependencies: ["SuitePluginKit"], path: "Tests/CounterKind"),
        .testTarget(
            name: "SuiteCoreTests", dependencies: ["SuiteCore", "SuiteTestSupport"], path: "Tests/SuiteCoreTests"),
        .testTarget(
            name: "SuitePluginKitTests",
            dependencies: [
                "SuitePluginKit", "SuiteCore", "SuiteTestSupport", "CounterKind", logging,
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Tests/SuitePluginKitTests"
        ),
        .testTarget(
            name: "SuiteHostTests",
            dependencies: [
                "SuiteHost", "SuiteCore", "SuitePluginKit", "SuiteTestSupport", "Documents", "Cache", "Sync",
                "Analytics",
                "StorageAccounting", "WorkTracking", "SuiteServer", "SuiteHTTP", "FirestoreProtocol", serviceLifecycle,
                logging,
            ],
            path: "Tests/SuiteHostTests"
        ),
        .testTarget(
            name: "DocumentsTests",
            dependencies: ["Documents", "DocumentEngineContract", "SuiteCore", "SuiteTestSupport", grdb, logging],
            path: "Tests/DocumentsTests"),
        .testTarget(
            name: "DocumentsPluginSupportTests",
            dependencies: [
                "DocumentsPluginSupport", "Documents", "DocumentEngineContract", "SuitePluginKit", "SuiteCore",
                "SuiteTestSupport",
            ],
            path: "Tests/DocumentsPluginSupportTests"
        ),
        .testTarget(
            name: "PostgresDocumentsTests",
            dependencies: [
                "DocumentsPluginSupport", "Documents", "DocumentEngineContract", "SuitePluginKit", "SuiteCore",
                "SuiteTestSupport", "PostgresTestSupport", postgresNIO,
            ],
            path: "Tests/PostgresDocumentsTests", exclude: ["QUERY-FUZZ-FINDINGS.md"]
        ),
        .testTarget(
            name: "FirestoreProtocolTests",
            dependencies: [
                "FirestoreProtocol", "Documents", "SuiteServer", "SuiteTestSupport", grpcCore, grpcProtobuf, grpcPosix,
                swiftProtobuf, jwtKit, crypto, .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/FirestoreProtocolTests"),
        // The two built-in HTTP transports, for tests that run one contract over both; and that contract.
        .target(
            name: "TransportTestSupport", dependencies: ["SuiteHTTP", "SuiteHTTPURLSession", "SuiteHTTPNIO"],
            path: "Tests/TransportTestSupport"
        ),
        .testTarget(
            name: "SuiteHTTPTests",
            dependencies: [
                "SuiteCore", "SuiteHTTP", "SuiteHTTPURLSession", "SuiteHTTPNIO", "SuiteTestSupport",
                "TransportTestSupport",
                asyncHTTPClient,
            ],
            path: "Tests/SuiteHTTPTests"),
        // The contract every CacheStore passes, as a library so a plugin engine's tests run it too.
        .target(name: "CacheStoreContract", dependencies: ["Cache"], path: "Tests/CacheStoreContract"),
        .target(name: "DocumentEngineContract", dependencies: ["Documents"], path: "Tests/DocumentEngineContract"),
        .target(name: "AnalyticsEngineContract", dependencies: ["Analytics"], path: "Tests/AnalyticsEngineContract"),
        .testTarget(
            name: "CacheTests",
            dependencies: [
                "Cache", "CacheURLSession", "CacheStoreContract", "SuiteCore", "SuiteHTTP", "SuiteTestSupport",
                "TransportTestSupport",
                grdb,
                logging, crypto,
            ],
            path: "Tests/CacheTests"),
        .testTarget(
            name: "CachePluginSupportTests",
            dependencies: [
                "CachePluginSupport", "Cache", "CacheStoreContract", "SuitePluginKit", "SuiteCore", "SuiteTestSupport",
                "RedisTestSupport",
            ],
            path: "Tests/CachePluginSupportTests"
        ),
        .testTarget(
            name: "AnalyticsTests",
            dependencies: [
                "Analytics", "AnalyticsEngineContract", "AnalyticsPluginSupport", "AnalyticsTestSupport", "SuiteCore",
                "SuitePluginKit", "SuiteTestSupport", "SuiteHTTP", "TransportTestSupport", grdb,
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            path: "Tests/AnalyticsTests"),
        // SuiteServer in process on loopback, called with raw HTTP (AsyncHTTPClient, no decompression of its own).
        .testTarget(
            name: "SuiteServerTests",
            dependencies: [
                "SuiteServer", "SuiteHost", "Documents", "Sync", "SuiteCore", "SuiteHTTP", "SuiteHTTPURLSession",
                "SuiteHTTPNIO", "SuiteTestSupport", "TransportTestSupport", asyncHTTPClient, nioCore, nioHTTP1,
                hummingbird,
            ],
            path: "Tests/SuiteServerTests", exclude: ["RulesCases"]),
        .testTarget(
            name: "StorageAccountingTests", dependencies: ["StorageAccounting", "SuiteCore", "SuiteTestSupport", grdb],
            path: "Tests/StorageAccountingTests"),
        .testTarget(
            name: "SyncTests", dependencies: ["Sync", "Documents", "SuiteCore", "SuiteTestSupport", "WorkTracking"],
            path: "Tests/SyncTests"),
        .testTarget(
            name: "WorkTrackingTests", dependencies: ["WorkTracking", "Documents", "SuiteCore", "SuiteTestSupport"],
            path: "Tests/WorkTrackingTests"),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "SuiteCore", "SuiteTestSupport", "RedisTestSupport", "PostgresTestSupport", "Sync", "Documents",
                "SuiteHTTP", "TransportTestSupport", "FirestoreProtocol", grpcCore, grpcPosix, swiftProtobuf,
            ],
            path: "Tests/EndToEndTests"),
        // Every README's Swift snippets, compiled as written: one file per README (`<Folder>Readme.swift`), and a test
        // that each README block appears in its file. Plugin-side and server snippets need their modules here too.
        .testTarget(
            name: "ReadmeSnippetTests",
            dependencies: [
                "SuiteCore", "SuitePluginKit", "Documents", "DocumentsPluginSupport", "Cache", "CachePluginSupport",
                "Analytics", "AnalyticsPluginSupport", "StorageAccounting", "WorkTracking", "Sync", "SuiteServer",
                "FirestoreProtocol", "SuiteHTTP", "SuiteHTTPURLSession", "SuiteHTTPNIO", "CacheURLSession",
                "AnalyticsTestSupport", logging, metrics, tracing,
            ],
            path: "Tests/ReadmeSnippetTests"),

        // MARK: - Tools
        // A child process for the kill -9 durability test.
        .executableTarget(name: "CrashWriter", dependencies: ["Documents"], path: "Tools/CrashWriter"),
        // One offline-first replica for the fault harness (Tools/faults/replicas.py), run in its own network namespace.
        .executableTarget(
            name: "FaultsReplica", dependencies: ["Documents", "Sync", "SuiteCore", "SuiteHTTPURLSession"],
            path: "Tools/FaultsReplica"),
        // The loopback receiver the analytics tests and benchmark upload to, run as a process of its own.
        .executableTarget(
            name: "AnalyticsReceiver", dependencies: [hummingbird, compressNIO, logging],
            path: "Tools/AnalyticsReceiver"),
        // A second process for the analytics tests of consent, identity and sessions kept across launches.
        .executableTarget(name: "AnalyticsStateProbe", dependencies: ["Analytics"], path: "Tools/AnalyticsStateProbe"),
        // libFuzzer harnesses for every parser that reads outside input, in one executable (`make fuzz` builds it with
        // address sanitizer and coverage; Tools/fuzz/README.md).
        .executableTarget(
            name: "SuiteFuzz",
            dependencies: [
                "SuiteCore", "Documents", "SuiteHost", "SuiteServer", "Sync", "SuitePluginKit",
                "DocumentsPluginSupport",
                "Cache", "CachePluginSupport", "StorageAccounting", "FirestoreProtocol", "SuiteHTTP", swiftProtobuf,
                logging,
            ],
            path: "Tools/fuzz/Harnesses"),
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                "SuiteCore", "SuitePluginKit", "SuitePluginABI", "CounterKind", "Documents", "EventLog", "Cache",
                "CachePluginSupport", "RedisTestSupport", "SuiteTestSupport", "Analytics", grdb, argumentParser,
                "StorageAccounting", "WorkTracking", "Sync", "SuiteHTTP", "SuiteHTTPNIO", asyncHTTPClient, compressNIO,
                logging,
                "DocumentsPluginSupport", "PostgresTestSupport", postgresNIO, "FirestoreProtocol", "SuiteServer",
                grpcCore,
                grpcPosix, grpcProtobuf, swiftProtobuf,
            ],
            path: "Tools/Benchmarks"
        ),
    ]
)

// MARK: - Settings applied to every Swift target

for target in package.targets
where !["SuitePluginABI", "CZlib", "CTally", "BadABI", "Misbehaving", "RedisCache"].contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ])
    target.swiftSettings = settings
}
