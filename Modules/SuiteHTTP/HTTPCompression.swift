import CZlib

/// gzip and deflate for HTTP bodies, through zlib (in every Apple SDK; Debian's zlib1g-dev): what `suite serve`
/// answers and reads, what Sync sends and Analytics uploads.
///
/// ```swift
/// let body = try HTTPCompression.gzip(Array(json.utf8))                       // Content-Encoding: gzip
/// let json = try HTTPCompression.gunzip(received, maximumBytes: 1 << 20)    // a zip bomb is .tooLarge
/// ```
///
/// Decoding takes a `maximumBytes` and stops as soon as the output would pass it, so a small body that inflates to
/// gigabytes costs no more than `maximumBytes` of memory.
public enum HTTPCompression {
    /// `bytes` gzip'd (RFC 1952) at zlib's default level.
    ///
    /// - Throws: ``HTTPCompressionError`` `.failed` when zlib fails (out of memory).
    public static func gzip(_ bytes: some Collection<UInt8>) throws(HTTPCompressionError) -> [UInt8] {
        try compress(bytes, windowBits: gzipWindowBits, name: "gzip")
    }

    /// `bytes` decoded from gzip (RFC 1952; several members one after another are read as one body).
    ///
    /// - Throws: ``HTTPCompressionError`` `.corrupt` when `bytes` is not a whole gzip stream, `.tooLarge` when the
    ///   decoded body would be over `maximumBytes`, `.failed` when zlib fails.
    public static func gunzip(_ bytes: some Collection<UInt8>, maximumBytes: Int = .max)
        throws(HTTPCompressionError) -> [UInt8]
    {
        try decompress(bytes, windowBits: gzipWindowBits, name: "gzip", maximumBytes: maximumBytes)
    }

    /// `bytes` in HTTP's "deflate" coding: the zlib format (RFC 1950), at zlib's default level.
    ///
    /// - Throws: ``HTTPCompressionError`` `.failed` when zlib fails (out of memory).
    public static func deflate(_ bytes: some Collection<UInt8>) throws(HTTPCompressionError) -> [UInt8] {
        try compress(bytes, windowBits: zlibWindowBits, name: "deflate")
    }

    /// `bytes` decoded from HTTP's "deflate": the zlib format, or a raw deflate stream (which some clients send).
    ///
    /// - Throws: ``HTTPCompressionError`` `.corrupt` when `bytes` is not a whole stream, `.tooLarge` when the decoded
    ///   body would be over `maximumBytes`, `.failed` when zlib fails.
    public static func inflate(_ bytes: some Collection<UInt8>, maximumBytes: Int = .max)
        throws(HTTPCompressionError) -> [UInt8]
    {
        // A zlib stream starts with a two-byte header: method 8 (deflate) and a check making it a multiple of 31.
        var header = bytes.makeIterator()
        let isZlib =
            if let first = header.next(), let second = header.next() {
                first & 0x0F == 8 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
            } else {
                false
            }
        return try decompress(
            bytes, windowBits: isZlib ? zlibWindowBits : -zlibWindowBits, name: "deflate", maximumBytes: maximumBytes)
    }

    /// `bytes` encoded in `coding`.
    ///
    /// - Throws: ``HTTPCompressionError`` `.failed` when zlib fails (out of memory).
    public static func encode(_ bytes: some Collection<UInt8>, as coding: HTTPContentCoding)
        throws(HTTPCompressionError) -> [UInt8]
    {
        switch coding {
        case .gzip: try gzip(bytes)
        case .deflate: try deflate(bytes)
        }
    }

    /// `bytes` decoded from `coding`, at most `maximumBytes` of them.
    ///
    /// - Throws: ``HTTPCompressionError`` `.corrupt`, `.tooLarge` or `.failed`, as ``gunzip(_:maximumBytes:)``.
    public static func decode(_ bytes: some Collection<UInt8>, from coding: HTTPContentCoding, maximumBytes: Int = .max)
        throws(HTTPCompressionError) -> [UInt8]
    {
        switch coding {
        case .gzip: try gunzip(bytes, maximumBytes: maximumBytes)
        case .deflate: try inflate(bytes, maximumBytes: maximumBytes)
        }
    }

    // MARK: zlib

    /// zlib's window bits: 15 is the zlib format, +16 gzip's header and trailer, negative a raw deflate stream.
    private static let zlibWindowBits: Int32 = 15
    private static let gzipWindowBits: Int32 = 15 + 16

    /// Runs `body` over `bytes`' contiguous storage, copying them first only when they have none.
    private static func withContiguous<T>(
        _ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> T
    ) -> T {
        if let result = bytes.withContiguousStorageIfAvailable(body) { return result }
        return Array(bytes).withUnsafeBufferPointer(body)
    }

    private static func compress(_ bytes: some Collection<UInt8>, windowBits: Int32, name: String)
        throws(HTTPCompressionError) -> [UInt8]
    {
        try withContiguous(bytes) { input in compress(input, windowBits: windowBits, name: name) }.get()
    }

    private static func compress(_ input: UnsafeBufferPointer<UInt8>, windowBits: Int32, name: String)
        -> Result<[UInt8], HTTPCompressionError>
    {
        var stream = z_stream()
        let initialized = deflateInit2_(
            &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        guard initialized == Z_OK else { return .failure(failure("\(name): deflateInit2", initialized)) }
        defer { deflateEnd(&stream) }
        // deflateBound is the worst case for one call with Z_FINISH: one pass, no growing.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        let result = output.withUnsafeMutableBufferPointer { output in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            stream.next_out = output.baseAddress
            stream.avail_out = UInt32(output.count)
            return CZlib.deflate(&stream, Z_FINISH)
        }
        guard result == Z_STREAM_END else { return .failure(failure("\(name): deflate", result)) }
        output.removeSubrange(Int(stream.total_out)...)
        return .success(output)
    }

    private static func decompress(
        _ bytes: some Collection<UInt8>, windowBits: Int32, name: String, maximumBytes: Int
    ) throws(HTTPCompressionError) -> [UInt8] {
        try withContiguous(bytes) { input in
            decompress(input, windowBits: windowBits, name: name, maximumBytes: maximumBytes)
        }.get()
    }

    private static func decompress(
        _ input: UnsafeBufferPointer<UInt8>, windowBits: Int32, name: String, maximumBytes: Int
    ) -> Result<[UInt8], HTTPCompressionError> {
        guard !input.isEmpty else {
            return .failure(HTTPCompressionError(.corrupt, "the \(name) body is empty", hint: hint(name)))
        }
        var stream = z_stream()
        let initialized = inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard initialized == Z_OK else { return .failure(failure("\(name): inflateInit2", initialized)) }
        defer { inflateEnd(&stream) }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.avail_in = UInt32(input.count)
        var output: [UInt8] = []
        // A chunk at a time, so that the limit is checked before memory is spent past it.
        var chunk = [UInt8](repeating: 0, count: min(max(input.count * 4, 16 << 10), 256 << 10))
        while true {
            let status = chunk.withUnsafeMutableBufferPointer { chunk in
                stream.next_out = chunk.baseAddress
                stream.avail_out = UInt32(chunk.count)
                return CZlib.inflate(&stream, Z_NO_FLUSH)
            }
            let produced = chunk.count - Int(stream.avail_out)
            guard output.count + produced <= maximumBytes else {
                return .failure(
                    HTTPCompressionError(
                        .tooLarge, "the \(name) body decodes to more than \(maximumBytes) bytes",
                        hint: "send a smaller body, or split it into several requests"))
            }
            output.append(contentsOf: chunk[0..<produced])
            switch status {
            case Z_STREAM_END:
                // gzip allows several members one after another (what `cat a.gz b.gz` makes).
                guard stream.avail_in > 0 else { return .success(output) }
                guard windowBits == gzipWindowBits, inflateReset(&stream) == Z_OK else {
                    return .failure(
                        HTTPCompressionError(
                            .corrupt, "the \(name) body has \(stream.avail_in) bytes after its end", hint: hint(name)))
                }
            case Z_OK:
                continue
            case Z_BUF_ERROR where stream.avail_in == 0:
                return .failure(
                    HTTPCompressionError(.corrupt, "the \(name) body ends before its stream does", hint: hint(name)))
            case Z_MEM_ERROR:
                return .failure(failure("\(name): inflate", status))
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "status \(status)"
                return .failure(
                    HTTPCompressionError(.corrupt, "the body is not valid \(name) data (\(reason))", hint: hint(name)))
            }
        }
    }

    private static func hint(_ name: String) -> String {
        "send the body \(name)-encoded whole, or without Content-Encoding"
    }

    private static func failure(_ call: String, _ status: Int32) -> HTTPCompressionError {
        HTTPCompressionError(
            .failed, "zlib's \(call) failed with status \(status)", hint: "the machine may be out of memory")
    }
}
