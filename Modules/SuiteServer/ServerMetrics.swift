import Synchronization

/// What `/metrics` shows, in Prometheus' text format: requests by route and status, their latencies (a histogram),
/// documents read and written.
public final class ServerMetrics: Sendable {
    struct Key: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    /// A route's latency histogram.
    struct Latencies {
        var buckets = [Int](repeating: 0, count: ServerMetrics.bounds.count)
        var sum = 0.0
        var count = 0
    }

    struct State {
        var requests: [Key: Int] = [:]
        var latencies: [String: Latencies] = [:]
        var documentsRead = 0
        var documentsWritten = 0
        var calls: [CallKey: Int] = [:]
        var quotaRejections: [CallKey: Int] = [:]
    }

    struct CallKey: Hashable {
        var method: String
        var code: String
    }

    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
    private let state = Mutex(State())

    /// Creates empty metrics.
    public init() {}

    package func record(method: String, route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[Key(method: method, route: route, status: status), default: 0] += 1
            // In place: one lookup, no copy of the buckets.
            Self.add(seconds, to: &state.latencies[route, default: Latencies()])
        }
    }

    private static func add(_ seconds: Double, to latencies: inout Latencies) {
        for index in bounds.indices where seconds <= bounds[index] { latencies.buckets[index] += 1 }
        latencies.sum += seconds
        latencies.count += 1
    }

    /// Counts one gRPC call (the Firestore protocol) by method and status code name (`OK`, `NOT_FOUND`, …).
    package func recordCall(method: String, code: String) {
        state.withLock { $0.calls[CallKey(method: method, code: code), default: 0] += 1 }
    }

    /// Counts one request refused by a quota (`kind`: reads, writes or deletes; `window`: minute or day).
    package func recordQuotaRejection(kind: String, window: String) {
        state.withLock { $0.quotaRejections[CallKey(method: kind, code: window), default: 0] += 1 }
    }

    package func documents(read: Int = 0, written: Int = 0) {
        state.withLock {
            $0.documentsRead += read
            $0.documentsWritten += written
        }
    }

    /// The metrics as Prometheus text.
    public func render() -> String {
        let state = state.withLock { $0 }
        var lines = [
            "# HELP suite_http_requests_total HTTP requests answered, by method, route and status.",
            "# TYPE suite_http_requests_total counter",
        ]
        for (key, count) in state.requests.sorted(by: {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }) {
            lines.append(
                "suite_http_requests_total{method=\"\(key.method)\",route=\"\(key.route)\",status=\"\(key.status)\"} \(count)"
            )
        }
        lines.append("# HELP suite_http_request_duration_seconds Time to answer a request, by route.")
        lines.append("# TYPE suite_http_request_duration_seconds histogram")
        for (route, latencies) in state.latencies.sorted(by: { $0.key < $1.key }) {
            for (index, bound) in Self.bounds.enumerated() {
                lines.append(
                    "suite_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(latencies.buckets[index])"
                )
            }
            let count = latencies.count
            lines.append("suite_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(count)")
            lines.append("suite_http_request_duration_seconds_sum{route=\"\(route)\"} \(latencies.sum)")
            lines.append("suite_http_request_duration_seconds_count{route=\"\(route)\"} \(count)")
        }
        lines.append("# HELP suite_documents_read_total Documents read through the API.")
        lines.append("# TYPE suite_documents_read_total counter")
        lines.append("suite_documents_read_total \(state.documentsRead)")
        lines.append(
            "# HELP suite_documents_written_total Documents written (set, updated or deleted) through the API.")
        lines.append("# TYPE suite_documents_written_total counter")
        lines.append("suite_documents_written_total \(state.documentsWritten)")
        lines.append("# HELP suite_grpc_calls_total Firestore protocol calls answered, by method and status code.")
        lines.append("# TYPE suite_grpc_calls_total counter")
        for (key, count) in state.calls.sorted(by: { ($0.key.method, $0.key.code) < ($1.key.method, $1.key.code) }) {
            lines.append("suite_grpc_calls_total{method=\"\(key.method)\",code=\"\(key.code)\"} \(count)")
        }
        lines.append("# HELP suite_quota_rejections_total Requests refused by a per-user quota, by kind and window.")
        lines.append("# TYPE suite_quota_rejections_total counter")
        for (key, count) in state.quotaRejections.sorted(by: {
            ($0.key.method, $0.key.code) < ($1.key.method, $1.key.code)
        }) {
            lines.append("suite_quota_rejections_total{kind=\"\(key.method)\",window=\"\(key.code)\"} \(count)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
