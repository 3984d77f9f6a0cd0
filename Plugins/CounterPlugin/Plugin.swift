import CounterKind
import Logging
import SuiteCore
import SuitePluginKit
import Synchronization

/// The CounterPlugin test plugin: one engine of the test-only `counter` kind, `counter/counter`, in about 30 lines.
///
/// Option `start` (an integer, default 0) is the initial total; any other option is refused. Each `add` logs the new
/// total at `info` (and the amount at `debug`, through a swift-log `Logger` on the host's handler) and publishes
/// `counter.changed` `{"total": t}` through the host's services.
let counterPlugin = PluginExport(
    name: "CounterPlugin", version: "1.0.0",
    engines: [
        .engine(CounterKind.self, "counter") { options, host in
            let unknown = (options.objectValue ?? [:]).keys.filter { $0 != "start" }.sorted()
            guard unknown.isEmpty else {
                throw PluginFailure(
                    code: "invalidOption", "unknown counter option '\(unknown[0])'", hint: "use 'start'")
            }
            let total = Mutex(Int(options["start"]?.intValue ?? 0))
            let logger = {
                var logger = Logger(label: "counter", factory: host.logHandler)
                logger[metadataKey: "engine"] = "counter"
                return logger
            }()
            return PluginRequestHandler<CounterKind>()
                .on(CounterKind.Add.self) { add in
                    guard add.amount >= 0 else {
                        throw PluginFailure(
                            code: "negativeAmount", "cannot add \(add.amount)", hint: "add a positive amount")
                    }
                    let now = total.withLock { total in
                        total += add.amount
                        return total
                    }
                    logger.debug("adding \(add.amount)")
                    host.log(.info, "counter is at \(now)")
                    host.publish("counter.changed", ["total": .int(Int64(now))])
                    return .init(total: now)
                }
                .on(CounterKind.Total.self) { _ in .init(total: total.withLock { $0 }) }
                .on(CounterKind.Echo.self) { $0 }
        }
    ])

/// The plugin's entry symbol (see suite_plugin.h).
@_cdecl("suite_plugin_v1")
public func suitePluginV1() -> UnsafeRawPointer {
    counterPlugin.descriptor
}
