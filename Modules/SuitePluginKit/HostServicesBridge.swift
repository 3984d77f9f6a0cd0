import Logging
import SuiteCore
import SuitePluginABI

/// The C face of one engine's ``PluginHostServices``: a `suite_host_services` whose context is this object. It lives
/// as long as its engine (the ABI lets the plugin keep the pointer until `destroy_engine` returns), and for the life
/// of the process when the engine is abandoned after a timeout.
final class HostServicesBridge: @unchecked Sendable {
    // @unchecked: `table` is written once in init, then only read by the plugin through the C functions below.
    let services: PluginHostServices
    let label: String
    let table: UnsafeMutablePointer<suite_host_services>

    init(services: PluginHostServices, label: String) {
        self.services = services
        self.label = label
        table = .allocate(capacity: 1)
        table.initialize(
            to: suite_host_services(
                struct_size: UInt32(MemoryLayout<suite_host_services>.size), context: nil, log: hostLog,
                publish: hostPublish, log_level: services.logLevel.abiValue))
        table.pointee.context = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        table.deinitialize(count: 1)
        table.deallocate()
    }
}

private let hostLog: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = {
    context, level, message in
    guard let context, let message else { return }
    let bridge = Unmanaged<HostServicesBridge>.fromOpaque(context).takeUnretainedValue()
    bridge.services.log(Logger.Level(abiValue: level), String(cString: message))
}

private let hostPublish:
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int) ->
        Void = { context, name, payload, length in
            guard let context else { return }
            let bridge = Unmanaged<HostServicesBridge>.fromOpaque(context).takeUnretainedValue()
            guard let name, name.pointee != 0 else {
                bridge.services.log(.warning, "\(bridge.label) published an event without a name; dropped")
                return
            }
            let eventName = String(cString: name)
            guard let payload, length > 0 else {
                bridge.services.publish(eventName, .object([:]))
                return
            }
            do {
                let json = try JSONValue(parsing: UnsafeRawBufferPointer(start: payload, count: length))
                bridge.services.publish(eventName, json)
            } catch {
                bridge.services.log(
                    .warning,
                    "\(bridge.label) published '\(eventName)' with a payload that is not JSON (\(error)); dropped")
            }
        }
