import Hummingbird
import Testing

@testable import SuiteServer

/// Which answers the middleware leaves alone, whatever the client accepts.
@Suite("CompressionMiddleware")
struct CompressionMiddlewareTests {
    static func response(_ status: HTTPResponse.Status = .ok, type: String?, encoding: String? = nil) -> Response {
        var headers = HTTPFields()
        if let type { headers[.contentType] = type }
        if let encoding { headers[.contentEncoding] = encoding }
        return Response(status: status, headers: headers)
    }

    @Test("JSON and text are compressible; an encoded body, a stream, a 204/304 or an untyped body are not")
    func compressibleAnswers() {
        #expect(CompressionMiddleware<BasicRequestContext>.isCompressible(Self.response(type: "application/json")))
        #expect(
            CompressionMiddleware<BasicRequestContext>.isCompressible(Self.response(type: "text/html; charset=utf-8")))
        #expect(CompressionMiddleware<BasicRequestContext>.isCompressible(Self.response(type: "text/javascript")))
        for type in ["application/javascript", "image/svg+xml", "application/xml", "APPLICATION/PROBLEM+JSON"] {
            #expect(CompressionMiddleware<BasicRequestContext>.isCompressible(Self.response(type: type)), "\(type)")
        }
        #expect(!CompressionMiddleware<BasicRequestContext>.isCompressible(Self.response(type: "application/jso")))
        #expect(
            !CompressionMiddleware<BasicRequestContext>.isCompressible(
                Self.response(type: "application/json", encoding: "gzip")),
            "never twice")
        #expect(!CompressionMiddleware<BasicRequestContext>.isCompressible(Self.response(type: "text/event-stream")))
        #expect(!CompressionMiddleware<BasicRequestContext>.isCompressible(Self.response(type: "image/png")))
        #expect(!CompressionMiddleware<BasicRequestContext>.isCompressible(Self.response(type: nil)))
        #expect(
            !CompressionMiddleware<BasicRequestContext>.isCompressible(
                Self.response(.noContent, type: "application/json")))
        #expect(
            !CompressionMiddleware<BasicRequestContext>.isCompressible(
                Self.response(.notModified, type: "application/json")))
    }
}

/// The document path a `/v1/docs/**` route reads from its catch-all part.
@Suite("SuiteServer.catchAllPath")
struct CatchAllPathTests {
    @Test("the same path as getCatchAll().joined(separator: \"/\"), empty components dropped")
    func sameAsJoinedComponents() {
        for raw in [
            "users/ana", "users", "a/b/c/d", "/users/ana", "users/ana/", "users//ana", "//", "/", "", "a%2Fb/c",
        ] {
            var parameters = Parameters()
            parameters.setCatchAll(Substring(raw))
            #expect(SuiteServer.catchAllPath(parameters) == parameters.getCatchAll().joined(separator: "/"), "\(raw)")
        }
        #expect(SuiteServer.catchAllPath(Parameters()) == "")
    }
}
