import Logging
public import SuiteCore
import SuitePluginABI

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One engine a Swift plugin exports: its kind, its name and how to make one from the configured options and the
/// host's services.
public struct ExportedEngine: Sendable {
    /// The engine kind and name.
    public var info: PluginEngineInfo
    /// Makes an engine from its JSON options and the host's services; a thrown error's description is shown to the
    /// user.
    public var factory: @Sendable (JSONValue, PluginHostServices) throws -> any PluginOperationHandler

    /// Makes an engine from its JSON options alone (as ``factory`` with no host services).
    public var make: @Sendable (JSONValue) throws -> any PluginOperationHandler {
        { [factory] options in try factory(options, .discarding) }
    }

    /// An engine of any kind, served at the byte level.
    public init(kind: String, name: String, make: @escaping @Sendable (JSONValue) throws -> any PluginOperationHandler)
    {
        self.info = PluginEngineInfo(kind: kind, name: name)
        self.factory = { options, _ in try make(options) }
    }

    /// An engine of any kind, served at the byte level, made with the host's services.
    public init(
        kind: String, name: String,
        make: @escaping @Sendable (JSONValue, PluginHostServices) throws -> any PluginOperationHandler
    ) {
        self.info = PluginEngineInfo(kind: kind, name: name)
        self.factory = make
    }

    /// An engine of kind `Kind`, serving its typed requests.
    ///
    /// ```swift
    /// .engine(CounterKind.self, "counter") { options, host in
    ///     PluginRequestHandler<CounterKind>().on(Add.self) { add in Add.Response(total: add.amount) }
    /// }
    /// ```
    public static func engine<Kind: PluginEngineKind>(
        _ kind: Kind.Type, _ name: String,
        make: @escaping @Sendable (JSONValue, PluginHostServices) throws -> PluginRequestHandler<Kind>
    ) -> ExportedEngine {
        ExportedEngine(kind: Kind.name, name: name) { options, host in try make(options, host) }
    }

    /// An observer engine: an ordinary `ObserverEngine` made from the configured options.
    public static func observer(
        _ name: String, make: @escaping @Sendable (JSONValue) throws -> any ObserverEngine
    ) -> ExportedEngine {
        observer(name) { options, _ in try make(options) }
    }

    /// An observer engine made from the configured options and the host's services (to log, or to publish events).
    public static func observer(
        _ name: String, make: @escaping @Sendable (JSONValue, PluginHostServices) throws -> any ObserverEngine
    ) -> ExportedEngine {
        engine(ObserverEngineKind.self, name) { options, host in
            PluginRequestHandler(observer: try make(options, host))
        }
    }
}

/// Everything a Swift plugin needs to cross the C ABI: build one with the plugin's engines and return its
/// ``descriptor`` from the entry symbol.
///
/// ```swift
/// import SuitePluginKit
///
/// let plugin = PluginExport(name: "EventLog", version: "1.0.0", engines: [
///     .observer("eventlog") { options in try EventLogObserver(options: options) }
/// ])
///
/// @_cdecl("suite_plugin_v1")
/// public func suitePluginV1() -> UnsafeRawPointer { plugin.descriptor }
/// ```
///
/// Keep the `PluginExport` in a global `let` so that it lives as long as the process (the host never unloads plugins).
public final class PluginExport: @unchecked Sendable {
    // Immutable after init; the C strings and arrays below are allocated once and never freed (the plugin is
    // never unloaded), which is what the ABI's ownership rules require.
    private let engines: [ExportedEngine]
    private let descriptorPointer: UnsafeMutablePointer<suite_plugin_descriptor>

    /// Prepares the descriptor of a plugin named `name` at `version` that provides `engines`.
    public init(name: String, version: String, engines: [ExportedEngine]) {
        self.engines = engines
        let infos = UnsafeMutablePointer<suite_engine_info>.allocate(capacity: max(1, engines.count))
        for (i, engine) in engines.enumerated() {
            infos[i] = suite_engine_info(kind: strdup(engine.info.kind), name: strdup(engine.info.name))
        }
        descriptorPointer = UnsafeMutablePointer<suite_plugin_descriptor>.allocate(capacity: 1)
        descriptorPointer.initialize(
            to: suite_plugin_descriptor(
                abi_version: SUITE_PLUGIN_ABI_VERSION,
                struct_size: UInt32(MemoryLayout<suite_plugin_descriptor>.size),
                name: strdup(name),
                version: strdup(version),
                engine_count: engines.count,
                engines: UnsafePointer(infos),
                context: nil,
                create_engine: exportCreateEngine,
                call: exportCall,
                destroy_engine: exportDestroyEngine,
                create_engine_v1_1: exportCreateEngineWithHost
            ))
        descriptorPointer.pointee.context = Unmanaged.passUnretained(self).toOpaque()
    }

    /// The descriptor to return from `suite_plugin_v1`.
    public var descriptor: UnsafeRawPointer { UnsafeRawPointer(descriptorPointer) }

    fileprivate func engine(kind: String, name: String) -> ExportedEngine? {
        engines.first { $0.info.kind == kind && $0.info.name == name }
    }
}

// MARK: - The C entry points shared by every Swift plugin

/// An engine instance handed to the host as an opaque pointer.
private final class ExportedEngineBox: Sendable {
    let handler: any PluginOperationHandler
    init(handler: any PluginOperationHandler) { self.handler = handler }
}

/// A C pointer the host gave us, carried into a task (the host guarantees it stays valid until completion).
private struct CompletionTarget: @unchecked Sendable {
    let context: UnsafeMutableRawPointer?
    let completion: suite_completion

    func complete(status: Int32, bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            completion(context, status, buffer.baseAddress, buffer.count)
        }
    }
}

private func writeError(_ message: String, to buffer: UnsafeMutablePointer<CChar>?, capacity: Int) {
    guard let buffer, capacity > 0 else { return }
    let bytes = Array(message.utf8.prefix(capacity - 1))
    for (i, byte) in bytes.enumerated() { buffer[i] = CChar(bitPattern: byte) }
    buffer[bytes.count] = 0
}

private let exportCreateEngine:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int,
        UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<CChar>?, Int
    ) -> Int32 = { context, kind, name, options, optionsLength, outEngine, errorBuffer, errorCapacity in
        createEngine(
            context, kind, name, options, optionsLength, services: .discarding, outEngine, errorBuffer, errorCapacity)
    }

private let exportCreateEngineWithHost:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int,
        UnsafePointer<suite_host_services>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
        UnsafeMutablePointer<CChar>?, Int
    ) -> Int32 = { context, kind, name, options, optionsLength, host, outEngine, errorBuffer, errorCapacity in
        createEngine(
            context, kind, name, options, optionsLength,
            services: host.map(PluginHostServices.init(calling:)) ?? .discarding,
            outEngine, errorBuffer, errorCapacity)
    }

private func createEngine(
    _ context: UnsafeMutableRawPointer?, _ kind: UnsafePointer<CChar>?, _ name: UnsafePointer<CChar>?,
    _ options: UnsafePointer<UInt8>?, _ optionsLength: Int, services: PluginHostServices,
    _ outEngine: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ errorBuffer: UnsafeMutablePointer<CChar>?,
    _ errorCapacity: Int
) -> Int32 {
    guard let context, let kind, let name, let outEngine else {
        writeError("create_engine called with a null argument", to: errorBuffer, capacity: errorCapacity)
        return 3
    }
    let export = Unmanaged<PluginExport>.fromOpaque(context).takeUnretainedValue()
    let kindString = String(cString: kind)
    let nameString = String(cString: name)
    guard let exported = export.engine(kind: kindString, name: nameString) else {
        writeError(
            "this plugin has no \(kindString) engine named '\(nameString)'", to: errorBuffer, capacity: errorCapacity)
        return 2
    }
    do {
        var json = JSONValue.object([:])
        if let options, optionsLength > 0 {
            json = try JSONValue(parsing: UnsafeRawBufferPointer(start: options, count: optionsLength))
        }
        let handler = try exported.factory(json, services)
        outEngine.pointee = Unmanaged.passRetained(ExportedEngineBox(handler: handler)).toOpaque()
        return 0
    } catch {
        writeError("\(error)", to: errorBuffer, capacity: errorCapacity)
        return 1
    }
}

/// The host's `suite_host_services`, which stays valid until the engine is destroyed (see suite_plugin.h).
private struct HostServicesTable: @unchecked Sendable {
    let table: UnsafePointer<suite_host_services>
}

extension PluginHostServices {
    /// The services of a host, called through its C table (each function only when its `struct_size` covers it).
    fileprivate init(calling table: UnsafePointer<suite_host_services>) {
        let host = HostServicesTable(table: table)
        let size = Int(table.pointee.struct_size)
        let hasLog = size >= MemoryLayout<suite_host_services>.offset(of: \.publish) ?? Int.max
        let hasPublish = size >= MemoryLayout<suite_host_services>.offset(of: \.log_level) ?? Int.max
        let hasLevel = size >= MemoryLayout<suite_host_services>.size
        self.init(
            log: { level, message in
                guard hasLog, let log = host.table.pointee.log else { return }
                log(host.table.pointee.context, level.abiValue, message)
            },
            publish: { name, payload in
                guard hasPublish, let publish = host.table.pointee.publish else { return }
                let bytes = Array(payload.jsonString.utf8)
                bytes.withUnsafeBufferPointer { publish(host.table.pointee.context, name, $0.baseAddress, $0.count) }
            }, logLevel: hasLevel ? Logger.Level(abiValue: table.pointee.log_level) : .trace)
    }
}

private let exportCall:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int, UnsafeMutableRawPointer?,
        suite_completion?
    ) -> Void = { engine, operation, request, requestLength, completionContext, completion in
        guard let completion else { return }
        let target = CompletionTarget(context: completionContext, completion: completion)
        guard let engine, let operation else {
            target.complete(status: 3, bytes: Array("call with a null engine or operation".utf8))
            return
        }
        let box = Unmanaged<ExportedEngineBox>.fromOpaque(engine).takeUnretainedValue()
        let operationName = String(cString: operation)
        let bytes = request.map { Array(UnsafeBufferPointer(start: $0, count: requestLength)) } ?? []
        Task.immediate {
            do {
                let response = try await box.handler.handle(operation: operationName, request: bytes)
                target.complete(status: 0, bytes: response)
            } catch let error as PluginOperationError {
                target.complete(status: error.status, bytes: Array(error.message.utf8))
            } catch {
                target.complete(status: 1, bytes: Array("\(error)".utf8))
            }
        }
    }

private let exportDestroyEngine: @convention(c) (UnsafeMutableRawPointer?) -> Void = { engine in
    guard let engine else { return }
    Unmanaged<ExportedEngineBox>.fromOpaque(engine).release()
}
