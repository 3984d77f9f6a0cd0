import Analytics
import AnalyticsPluginSupport
import Foundation
import SuiteCore
import SuitePluginKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The AnalyticsPrometheus plugin: the `analytics` engine `prometheus`, which keeps a count per event name (and per
/// value of chosen parameters) in a file for node_exporter's textfile collector, so Prometheus scrapes Suite's
/// analytics with the host's other metrics:
///
/// ```
/// # HELP suite_analytics_events_total Analytics events delivered, by event (scaled back by sampling).
/// # TYPE suite_analytics_events_total counter
/// suite_analytics_events_total{event="login_failed",reason="wrong_password"} 3
/// ```
///
/// Options: `path` (the `.prom` file, required; written atomically: a temporary file, fsync, rename), `labels` (the
/// parameters that become labels, default none; keep their values few). Counts live in the file itself, so they
/// survive restarts and add up across processes that take turns. A record already counted (same id, within the last
/// 100,000 ids) is not counted again.
let prometheusPlugin = PluginExport(
    name: "AnalyticsPrometheus", version: "1.0.0",
    engines: [
        .analytics("prometheus") { options, _ in try PrometheusTextfileEngine(options: options) }
    ])

/// The plugin's entry symbol (see suite_plugin.h).
@_cdecl("suite_plugin_v1")
public func suitePluginV1() -> UnsafeRawPointer {
    prometheusPlugin.descriptor
}

final class PrometheusTextfileEngine: AnalyticsEngine {
    let path: String
    let labels: [String]
    private let state = Mutex<(counts: [String: Double], seen: Set<UUID>, order: [UUID])>(([:], [], []))
    private let writing = Mutex(())

    init(options: JSONValue) throws {
        let map = options.objectValue ?? [:]
        if let unknown = map.keys.filter({ !["path", "labels"].contains($0) }).sorted().first {
            throw PluginFailure(
                code: "invalidConfiguration", "unknown prometheus option '\(unknown)'", hint: "use path and labels")
        }
        guard let path = map["path"]?.stringValue, !path.isEmpty else {
            throw PluginFailure(
                code: "invalidConfiguration", "the prometheus engine needs a path",
                hint: "e.g. options: {path: /var/lib/node_exporter/textfile/suite.prom}")
        }
        let labels = map["labels"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard labels.count == map["labels"]?.arrayValue?.count ?? 0,
            labels.allSatisfy({ Self.isLabelName($0) && $0 != "event" })
        else {
            throw PluginFailure(
                code: "invalidConfiguration", "labels must be a list of parameter names ([a-zA-Z_][a-zA-Z0-9_]*)",
                hint: "e.g. labels: [reason]")
        }
        self.path = path
        self.labels = labels
        let existing = try Self.read(path)
        state.withLock { $0.counts = existing }
    }

    func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport {
        state.withLock { state in
            for record in batch where state.seen.insert(record.id).inserted {
                state.order.append(record.id)
                var series = #"event="\#(Self.escape(record.name))""#
                for label in labels { series += #",\#(label)="\#(Self.escape(record.parameters[label] ?? ""))""# }
                state.counts[series, default: 0] += 1 / max(record.sampleRate, 1e-9)
            }
            if state.order.count > 100_000 {
                for id in state.order.prefix(state.order.count - 100_000) { state.seen.remove(id) }
                state.order.removeFirst(state.order.count - 100_000)
            }
        }
        // One write at a time, each of the counts as they are when it starts: concurrent deliveries neither share
        // the temporary file nor let an older snapshot replace a newer one.
        try writing.withLock { _ in try Self.writeAtomically(state.withLock { Self.render($0.counts) }, to: path) }
        return .delivered
    }

    static let metric = "suite_analytics_events_total"

    static func render(_ counts: [String: Double]) -> String {
        var text = "# HELP \(metric) Analytics events delivered, by event (scaled back by sampling).\n"
        text += "# TYPE \(metric) counter\n"
        for (series, count) in counts.sorted(by: { $0.key < $1.key }) {
            text += "\(metric){\(series)} \(count == count.rounded() ? "\(Int64(count))" : "\(count)")\n"
        }
        return text
    }

    /// The counts in an existing file (none when it does not exist).
    static func read(_ path: String) throws -> [String: Double] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        var counts: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix(metric + "{") {
            guard let close = line.lastIndex(of: "}"),
                let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces))
            else {
                throw PluginFailure(
                    code: "storage", "\(path) has a line that is not a \(metric) sample: \(line.prefix(80))",
                    hint: "point path at a file of its own")
            }
            counts[String(line[line.index(line.startIndex, offsetBy: metric.count + 1)..<close])] = value
        }
        return counts
    }

    static func writeAtomically(_ text: String, to path: String) throws {
        let temporary = path + ".tmp.\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw PluginFailure(
                code: "storage", "cannot write \(temporary): \(String(cString: strerror(errno)))",
                hint: "check that the folder exists and is writable")
        }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                close(descriptor)
                throw PluginFailure(code: "storage", "cannot write \(temporary): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(temporary, path) == 0 else {
            throw PluginFailure(code: "storage", "cannot replace \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func isLabelName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first == "_" || CharacterSet.letters.contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || CharacterSet.alphanumerics.contains($0)) }
    }

    /// A label value as the exposition format writes it: backslash, quote and newline escaped.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
