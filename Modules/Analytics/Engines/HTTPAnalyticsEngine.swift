import Foundation
public import SuiteHTTP

/// The batch uploader: POSTs records as gzip'd JSON to a collector, and says per record what happened.
///
/// ```swift
/// let engine = HTTPAnalyticsEngine(
///     url: "https://collect.example.com/v1/batch", headers: ["Authorization": "Bearer …"], batchSize: 100)
/// let manager = try AnalyticsManager(engine: engine, queue: queue)
/// ```
///
/// The body is `{"sent_at": "…", "batch": [record, …]}`, each record a JSON object with sorted keys and the time in
/// RFC 3339 with microseconds (its `id` is the idempotency key: the receiver deduplicates by it), sent with
/// `Content-Encoding: gzip` unless ``Options/gzip`` is off. What a response means:
///
/// | response | the records of that request |
/// |---|---|
/// | 2xx | delivered; a JSON body `{"rejected": [{"id": …, "reason": …}]}` names records refused one by one |
/// | 400, 413, 422 | split in halves and sent again, so one bad record is isolated and only it is rejected |
/// | 408, 429, 5xx, network error, timeout | retried later by the queue, with exponential backoff and jitter |
/// | any other 4xx | rejected with the status as the reason (counted, kept as failed, never resent) |
///
/// A request carries at most ``Options/batchSize`` records; a larger batch from the manager is sent in several.
///
/// Requests go through an `HTTPTransport`: a `URLSessionTransport` of its own by default (no SwiftNIO in an app),
/// or the one given (servers and `suite` pass `AsyncHTTPClientTransport` from the `SuiteHTTPNIO` product).
public final class HTTPAnalyticsEngine: AnalyticsEngine {
    /// How the engine uploads.
    public struct Options: Sendable {
        /// The collector's URL.
        public var url: String
        /// Extra request headers, such as an API key.
        public var headers: [String: String]
        /// The most records in one request.
        public var batchSize: Int
        /// Whether bodies are gzip'd (`Content-Encoding: gzip`).
        public var gzip: Bool
        /// How long one request may take, whole.
        public var timeout: Duration

        /// Creates options; `batchSize` 100, gzip on, 30 s per request.
        public init(
            url: String, headers: [String: String] = [:], batchSize: Int = 100, gzip: Bool = true,
            timeout: Duration = .seconds(30)
        ) {
            self.url = url
            self.headers = headers
            self.batchSize = batchSize
            self.gzip = gzip
            self.timeout = timeout
        }
    }

    /// The options in use.
    public let options: Options
    /// How requests reach the collector.
    public let transport: any HTTPTransport

    /// An engine uploading through `transport` (a `URLSessionTransport` of its own when `nil`); call
    /// ``shutdown()`` when done.
    ///
    /// - Throws: ``AnalyticsError`` `.invalidConfiguration` for a URL that is not http(s) or a batch size below 1.
    public init(options: Options, transport: (any HTTPTransport)? = nil) throws(AnalyticsError) {
        try Self.validate(options)
        self.options = options
        self.transport = transport ?? DefaultHTTPTransport.make(timeout: options.timeout)
    }

    /// Releases the transport's connections; calling it again does nothing.
    public func shutdown() async throws {
        try await transport.shutdown()
    }

    /// Checks `options`: an http(s) URL with a host, a batch size of at least 1, a positive timeout.
    ///
    /// - Throws: ``AnalyticsError`` `.invalidConfiguration` naming the option, with a hint.
    package static func validate(_ options: Options) throws(AnalyticsError) {
        guard let url = URL(string: options.url), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil
        else {
            throw AnalyticsError(
                .invalidConfiguration, "the http analytics engine's url '\(options.url)' is not an http(s) URL",
                hint: "set url to the collector's address, e.g. https://collect.example.com/v1/batch")
        }
        guard options.batchSize >= 1 else {
            throw AnalyticsError(
                .invalidConfiguration, "the http analytics engine's batch-size is \(options.batchSize)",
                hint: "use a batch size of at least 1 (100 is usual)")
        }
        guard options.timeout > .zero else {
            throw AnalyticsError(.invalidConfiguration, "the http analytics engine's timeout must be positive")
        }
    }

    /// Uploads `batch` in requests of at most ``Options/batchSize`` records.
    public func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport {
        var report = DeliveryReport()
        var start = 0
        while start < batch.count {
            let end = min(start + options.batchSize, batch.count)
            await upload(batch[start..<end], into: &report)
            start = end
        }
        return report
    }

    /// Sends `records` in one request; on a 400-class refusal of the whole request, halves it until the refused
    /// records are alone.
    private func upload(_ records: ArraySlice<AnalyticsRecord>, into report: inout DeliveryReport) async {
        let outcome: Outcome
        do { outcome = try await send(records) } catch {
            for record in records { report.retry[record.id] = "\(error)" }
            return
        }
        switch outcome {
        case .delivered(let rejected):
            let ids = Set(records.map(\.id))
            for (id, reason) in rejected where ids.contains(id) { report.rejected[id] = reason }
        case .retry(let reason):
            for record in records { report.retry[record.id] = reason }
        case .reject(let reason):
            for record in records { report.rejected[record.id] = reason }
        case .split(let reason):
            guard records.count > 1 else {
                report.rejected[records[records.startIndex].id] = reason
                return
            }
            let middle = records.startIndex + records.count / 2
            await upload(records[records.startIndex..<middle], into: &report)
            await upload(records[middle..<records.endIndex], into: &report)
        }
    }

    enum Outcome {
        case delivered(rejected: [UUID: String])
        case retry(String)
        case reject(String)
        case split(String)
    }

    private func send(_ records: ArraySlice<AnalyticsRecord>) async throws -> Outcome {
        var headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("User-Agent", "suite-analytics")]
        for (name, value) in options.headers.sorted(by: { $0.key < $1.key }) {
            headers.removeAll { $0.name == name.lowercased() }
            headers.append(HTTPHeader(name, value))
        }
        var body = try Self.body(records)
        if options.gzip {
            do { body = try HTTPCompression.gzip(body) } catch {
                throw AnalyticsError(.delivery, error.message, hint: error.hint, underlying: error)
            }
            headers.append(HTTPHeader("Content-Encoding", "gzip"))
        }
        let response = try await transport.send(
            HTTPTransportRequest(
                method: "POST", url: options.url, headers: headers, body: body, timeout: options.timeout))
        let status = response.status
        let text = String(decoding: response.body.prefix(1 << 20), as: UTF8.self)
        let reason = "HTTP \(status)" + (text.isEmpty ? "" : ": " + String(text.prefix(200)))
        switch status {
        case 200..<300: return .delivered(rejected: Self.rejections(in: text))
        case 408, 429, 500...: return .retry(reason)
        case 400, 413, 422: return .split(reason)
        default: return .reject(reason)
        }
    }

    /// The JSON body of one request.
    package static func body(_ records: ArraySlice<AnalyticsRecord>) throws -> [UInt8] {
        var bytes = Array(#"{"sent_at":""#.utf8)
        bytes += Array(RFC3339Bridge.format(Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())).utf8)
        bytes += Array(#"","batch":["#.utf8)
        for (index, record) in records.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += Array(try record.jsonLine().utf8)
        }
        bytes += Array("]}".utf8)
        return bytes
    }

    /// The per-record rejections a 2xx body names: `{"rejected": [{"id": "…", "reason": "…"}]}`; none otherwise.
    static func rejections(in text: String) -> [UUID: String] {
        struct Body: Decodable {
            struct Rejection: Decodable {
                var id: String
                var reason: String?
            }
            var rejected: [Rejection]?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(text.utf8)) else { return [:] }
        var result: [UUID: String] = [:]
        for item in body.rejected ?? [] {
            if let id = UUID(uuidString: item.id) { result[id] = item.reason ?? "rejected by the receiver" }
        }
        return result
    }
}
