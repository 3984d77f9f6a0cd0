public import SuiteHTTP
import SuiteHTTPNIO
import SuiteHTTPURLSession
public import Testing

/// The two built-in transports, for tests that run the same checks over both: URLSession (an app's default) and
/// AsyncHTTPClient (servers and `suite`).
public enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case asyncHTTPClient

    /// A new transport of this kind, which the caller shuts down.
    ///
    /// `connectTimeout` bounds how long an unreachable origin takes to fail (AsyncHTTPClient's connect timeout;
    /// URLSession fails a refused connection at once). `retryRefusedConnections` is AsyncHTTPClient's.
    public func make(
        timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(5), retryRefusedConnections: Bool = true,
        maximumBodyBytes: Int = 64 << 20
    ) -> any HTTPTransport {
        switch self {
        case .urlSession:
            return URLSessionTransport(timeout: timeout, maximumBodyBytes: maximumBodyBytes)
        case .asyncHTTPClient:
            return AsyncHTTPClientTransport(
                timeout: timeout, connectTimeout: connectTimeout, retryRefusedConnections: retryRefusedConnections,
                maximumBodyBytes: maximumBodyBytes)
        }
    }

    public var testDescription: String { rawValue }
}
