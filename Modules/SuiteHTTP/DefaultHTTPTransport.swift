/// The transport a library module (Cache, Sync, Analytics) makes when its caller passes none: `URLSessionTransport`
/// from SuiteHTTPURLSession, which the Cache, Sync, Analytics and SuiteHTTP products link into an app.
///
/// The library modules do not import SuiteHTTPURLSession: the `suite` command links them without it (it talks HTTP
/// through AsyncHTTPClient), so it does not load FoundationNetworking on Linux, libcurl and ~30 libraries at every
/// start. The type is found at run time, by its name, in the program's metadata; a program that does not link it
/// (only a target of this package can be built so) gets `UnlinkedHTTPTransport`, whose every request fails with a
/// hint.
@usableFromInline
package enum DefaultHTTPTransport {
    /// `SuiteHTTPURLSession.URLSessionTransport`'s mangled name.
    package static let urlSessionTransportName = "19SuiteHTTPURLSession19URLSessionTransportC"

    /// The linked URLSession transport's type, if the program links it.
    package static let provider: (any DefaultHTTPTransportProvider.Type)? =
        _typeByName(urlSessionTransportName) as? any DefaultHTTPTransportProvider.Type

    /// A new transport of its own for a library module: URLSession's when linked, else `UnlinkedHTTPTransport`.
    @usableFromInline
    package static func make(timeout: Duration = .seconds(30), maximumBodyBytes: Int = 64 << 20) -> any HTTPTransport {
        provider.map { $0.init(timeout: timeout, maximumBodyBytes: maximumBodyBytes) } ?? UnlinkedHTTPTransport()
    }
}

/// A transport a library module can make as its default (`DefaultHTTPTransport`): `URLSessionTransport`.
package protocol DefaultHTTPTransportProvider: HTTPTransport {
    /// A transport with a session of its own.
    init(timeout: Duration, maximumBodyBytes: Int)
}

/// The default transport of a program that links no URLSession transport: every request fails, saying what to link
/// or pass instead.
package struct UnlinkedHTTPTransport: HTTPTransport {
    package init() {}

    package func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        throw HTTPTransportError(
            .invalidRequest, "\(request.method) \(request.url): no HTTP transport was given and none is linked",
            hint: "depend on the SuiteHTTP, Cache, Sync or Analytics product (each links URLSessionTransport), "
                + "or pass a transport (AsyncHTTPClientTransport from SuiteHTTPNIO)")
    }
}
