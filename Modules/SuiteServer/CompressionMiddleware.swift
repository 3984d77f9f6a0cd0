import Foundation
import Hummingbird
import NIOCore
import SuiteCore
import SuiteHTTP

/// gzip and deflate on the wire, for every route added after it: a request body sent with `Content-Encoding: gzip`
/// or `deflate` reaches the handler decoded (and still within `maximumBodyBytes`, counted decoded), and an answer of
/// `minimumBytes` or more is encoded in the coding `Accept-Encoding` prefers, with `Content-Encoding` and
/// `Vary: Accept-Encoding`.
///
/// What the caller sees when a body cannot be read: 415 for a coding the server does not read, 400 for a body that
/// is not the coding it names, 413 for one over the limit, compressed or decoded.
struct CompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The largest request body, compressed and decoded.
    let maximumBodyBytes: Int
    /// The smallest answer worth compressing: below it the headers outweigh the gain.
    let minimumBytes: Int

    init(maximumBodyBytes: Int, minimumBytes: Int = 1024) {
        self.maximumBodyBytes = maximumBodyBytes
        self.minimumBytes = minimumBytes
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let decoded: Request
        do { decoded = try await decodedBody(of: request) } catch let error as ServerError { return Self.answer(error) }
        let response = try await next(decoded, context)
        return try await encoded(response, for: request)
    }

    // MARK: Requests

    /// `request` with its body decoded and its `Content-Encoding` gone; `request` itself when it names no coding.
    func decodedBody(of request: Request) async throws -> Request {
        // Most requests name no coding: no array of values, no joined string (~1 % of a GET).
        guard request.headers[.contentEncoding] != nil,
            let header = request.headers[values: .contentEncoding].joined(separator: ",").nilIfEmpty
        else { return request }
        var codings: [HTTPContentCoding] = []
        for token in header.split(separator: ",") {
            let name = token.trimmingCharacters(in: .whitespaces).lowercased()
            if name.isEmpty || name == "identity" { continue }
            guard let coding = HTTPContentCoding(token: name) else {
                throw ServerError(
                    .unsupportedMediaType, "the server does not read bodies in the Content-Encoding '\(name)'",
                    hint: "send the body gzip- or deflate-encoded, or without Content-Encoding")
            }
            codings.append(coding)
        }
        guard !codings.isEmpty else { return request }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBodyBytes {
            throw tooLarge()
        }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: maximumBodyBytes) } catch let error
            as HTTPError where error.status == .contentTooLarge
        {
            throw tooLarge()
        } catch is NIOTooManyBytesError {
            throw tooLarge()
        }
        var bytes = [UInt8](buffer.readableBytesView)
        if !bytes.isEmpty {
            // Codings apply in the order listed: the last one is undone first.
            for coding in codings.reversed() {
                do { bytes = try HTTPCompression.decode(bytes, from: coding, maximumBytes: maximumBodyBytes) } catch {
                    if error.code == .tooLarge { throw tooLarge(decoded: true) }
                    throw ServerError(
                        error.code == .corrupt ? .invalidRequest : .internalError,
                        "the body cannot be decoded: \(error.message)", hint: error.hint, underlying: error)
                }
            }
        }
        var head = request.head
        head.headerFields[.contentEncoding] = nil
        head.headerFields[.transferEncoding] = nil
        head.headerFields[.contentLength] = String(bytes.count)
        return Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: bytes)))
    }

    func tooLarge(decoded: Bool = false) -> ServerError {
        ServerError(
            .tooLarge, "the body is over \(maximumBodyBytes) bytes" + (decoded ? " once decoded" : ""),
            hint: "split the writes into several commits")
    }

    /// The error's JSON answer (a thrown error would reach Hummingbird as a bare 500).
    static func answer(_ error: ServerError) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(
            status: .init(code: error.code.status), headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: error.json.jsonString + "\n")))
    }

    // MARK: Answers

    /// `response` encoded for `request`'s `Accept-Encoding`, when it is text of `minimumBytes` or more not encoded yet.
    func encoded(_ response: Response, for request: Request) async throws -> Response {
        guard Self.isCompressible(response), request.method != .head else { return response }
        var response = response
        response.headers.appendVary("Accept-Encoding")
        guard let length = response.body.contentLength, length >= minimumBytes,
            let coding = HTTPContentCoding.preferred(
                acceptEncoding: request.headers[values: .acceptEncoding].joined(separator: ",").nilIfEmpty)
        else { return response }
        let collector = BodyCollector()
        try await response.body.write(collector)
        let body: [UInt8]
        do { body = try HTTPCompression.encode(collector.buffer.readableBytesView, as: coding) } catch {
            // zlib out of memory: the plain body still answers.
            response.body = .init(byteBuffer: collector.buffer)
            return response
        }
        response.headers[.contentEncoding] = coding.rawValue
        // A strong validator names these bytes, which are now others: weak, as nginx makes it.
        if let etag = response.headers[.eTag], !etag.hasPrefix("W/") { response.headers[.eTag] = "W/" + etag }
        response.body = .init(byteBuffer: ByteBuffer(bytes: body))
        return response
    }

    /// Whether `response` is worth compressing: a body of text not already encoded (never twice).
    static func isCompressible(_ response: Response) -> Bool {
        let status = response.status.code
        guard status >= 200, status != 204, status != 304, response.headers[.contentEncoding] == nil,
            let header = response.headers[.contentType]
        else { return false }
        // The server's own answers, most of them: no lowercased copy, no search.
        if header == "application/json" { return true }
        let type = header.lowercased()
        // A stream (server-sent events) is written as it happens: never gathered to be compressed.
        guard !type.hasPrefix("text/event-stream") else { return false }
        // Searched as bytes: Foundation's `contains` goes through NSString, a few percent of a GET.
        let bytes = Array(type.utf8)
        return type.hasPrefix("text/")
            || (["json", "javascript", "xml", "svg"] as [StaticString]).contains { bytes.containsASCII($0) }
    }
}

extension [UInt8] {
    /// Whether `needle` (ASCII) occurs in these bytes.
    fileprivate func containsASCII(_ needle: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard pattern.count <= count else { return false }
        for start in 0...(count - pattern.count) where self[start] == pattern[0] {
            if self[start..<start + pattern.count].elementsEqual(pattern) { return true }
        }
        return false
    }
}

/// The bytes a `ResponseBody` writes, gathered in one buffer.
private final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        self.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

extension HTTPFields {
    /// Adds `name` to `Vary` unless it is there already (or `Vary` is `*`).
    fileprivate mutating func appendVary(_ name: String) {
        guard self[.vary] != nil else {
            self[.vary] = name
            return
        }
        let present = self[values: .vary].flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard !present.contains(name.lowercased()), !present.contains("*") else { return }
        self[values: .vary] += [name]
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
