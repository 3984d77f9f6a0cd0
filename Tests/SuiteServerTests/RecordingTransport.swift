import SuiteHTTP
import Synchronization

/// An `HTTPTransport` over another that keeps every request it sent and response it got, for tests that check
/// headers a client chose.
final class RecordingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let exchanges = Mutex<[(HTTPTransportRequest, HTTPTransportResponse?)]>([])

    init(_ base: any HTTPTransport) { self.base = base }

    /// The requests sent, in order.
    var requests: [HTTPTransportRequest] { exchanges.withLock { $0.map(\.0) } }
    /// The responses received, in order (as the base transport gave them: decoded).
    var responses: [HTTPTransportResponse] { exchanges.withLock { $0.compactMap(\.1) } }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        do {
            let response = try await base.send(request)
            exchanges.withLock { $0.append((request, response)) }
            return response
        } catch {
            exchanges.withLock { $0.append((request, nil)) }
            throw error
        }
    }

    func shutdown() async throws { try await base.shutdown() }
}
