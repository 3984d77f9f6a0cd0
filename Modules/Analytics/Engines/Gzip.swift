import CZlib

/// gzip (RFC 1952) through zlib, which every Apple SDK and Linux have: the upload bodies of ``HTTPAnalyticsEngine``.
enum Gzip {
    /// `bytes` gzip'd at zlib's default level.
    ///
    /// - Throws: ``AnalyticsError`` `.delivery` when zlib fails (out of memory).
    static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
        let initialized = deflateInit2_(
            &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        guard initialized == Z_OK else { throw failure("deflateInit2", initialized) }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 32)
        var input = bytes
        let result = input.withUnsafeMutableBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = UInt32(output.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { throw failure("deflate", result) }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    private static func failure(_ call: String, _ status: Int32) -> AnalyticsError {
        AnalyticsError(
            .delivery, "zlib's \(call) failed with status \(status)", hint: "the device may be out of memory")
    }
}
