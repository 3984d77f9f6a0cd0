import SuiteHTTP
import Testing

/// gzip and deflate as HTTP bodies use them: round trips, other tools' bytes, damaged and oversized input, and the
/// `Accept-Encoding` negotiation.
@Suite("HTTPCompression")
struct HTTPCompressionTests {
    static let json = Array(String(repeating: #"{"path":"users/ana/notes/n","data":{"points":42}},"#, count: 500).utf8)
    /// `printf 'hello\n' | gzip -n`
    static let helloGzip: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xe7, 0x02, 0x00,
        0x20, 0x30, 0x3a, 0x36, 0x06, 0x00, 0x00, 0x00,
    ]
    /// Python's `zlib.compress(b'hello\n')` (the zlib format) and the same as a raw deflate stream.
    static let helloZlib: [UInt8] = [120, 156, 203, 72, 205, 201, 201, 231, 2, 0, 8, 75, 2, 31]
    static let helloRaw: [UInt8] = [203, 72, 205, 201, 201, 231, 2, 0]

    @Test("gzip round-trips, and writes gzip's magic bytes")
    func gzipRoundTrips() throws {
        let compressed = try HTTPCompression.gzip(Self.json)
        #expect(compressed.prefix(2) == [0x1f, 0x8b])
        #expect(compressed.count < Self.json.count / 10)
        #expect(try HTTPCompression.gunzip(compressed) == Self.json)
        #expect(try HTTPCompression.gunzip(try HTTPCompression.gzip([])) == [])
    }

    @Test("deflate round-trips in the zlib format")
    func deflateRoundTrips() throws {
        let compressed = try HTTPCompression.deflate(Self.json)
        #expect(compressed.first == 0x78)
        #expect(try HTTPCompression.inflate(compressed) == Self.json)
        for coding in HTTPContentCoding.allCases {
            let encoded = try HTTPCompression.encode(Self.json, as: coding)
            #expect(try HTTPCompression.decode(encoded, from: coding) == Self.json)
        }
    }

    @Test("other tools' bytes decode: gzip(1), zlib, a raw deflate stream, concatenated gzip members")
    func otherToolsBytesDecode() throws {
        let hello = Array("hello\n".utf8)
        #expect(try HTTPCompression.gunzip(Self.helloGzip) == hello)
        #expect(try HTTPCompression.inflate(Self.helloZlib) == hello)
        #expect(try HTTPCompression.inflate(Self.helloRaw) == hello)
        #expect(try HTTPCompression.gunzip(Self.helloGzip + Self.helloGzip) == hello + hello)
    }

    @Test("any collection of bytes is accepted, contiguous or not")
    func anyCollectionIsAccepted() throws {
        let lazy = Self.json.lazy.map { $0 }
        #expect(try HTTPCompression.gunzip(try HTTPCompression.gzip(lazy)[...]) == Self.json)
    }

    @Test("damaged, truncated, empty or foreign bytes are .corrupt, with a message and a hint")
    func damagedBytesAreCorrupt() throws {
        let compressed = try HTTPCompression.gzip(Self.json)
        var damaged = compressed
        damaged[compressed.count / 2] ^= 0xFF
        let cases: [(String, [UInt8])] = [
            ("damaged", damaged), ("truncated", Array(compressed.prefix(compressed.count / 2))), ("empty", []),
            ("plain JSON", Array(#"{"a":1}"#.utf8)), ("trailing bytes", Self.helloGzip + [1, 2, 3]),
        ]
        for (name, bytes) in cases {
            do {
                _ = try HTTPCompression.gunzip(bytes)
                Issue.record("the \(name) bytes decoded")
            } catch {
                #expect(error.code == .corrupt, "\(name): \(error)")
                #expect(error.hint != nil)
            }
        }
        #expect(throws: HTTPCompressionError.self) { try HTTPCompression.inflate([0xFF, 0xFF, 0xFF, 0xFF]) }
    }

    @Test("a body that decodes past maximumBytes is .tooLarge: a 64 MB zip bomb stops at the limit")
    func zipBombsAreTooLarge() throws {
        let bomb = try HTTPCompression.gzip([UInt8](repeating: 0, count: 64 << 20))
        #expect(bomb.count < 100_000)
        do {
            _ = try HTTPCompression.gunzip(bomb, maximumBytes: 1 << 20)
            Issue.record("the bomb decoded")
        } catch {
            #expect(error.code == .tooLarge)
        }
        let exact = try HTTPCompression.gzip(Self.json)
        #expect(try HTTPCompression.gunzip(exact, maximumBytes: Self.json.count) == Self.json)
        #expect(throws: HTTPCompressionError.self) {
            try HTTPCompression.gunzip(exact, maximumBytes: Self.json.count - 1)
        }
    }

    @Test(
        "Accept-Encoding: q-values, identity, * and unknown codings",
        arguments: [
            (nil, nil), ("", nil), ("gzip", .gzip), ("GZIP", .gzip), ("x-gzip", .gzip), ("deflate", .deflate),
            ("gzip, deflate", .gzip), ("deflate, gzip", .gzip), ("deflate;q=1, gzip;q=0.5", .deflate),
            ("gzip;q=0", nil), ("gzip;q=0, deflate", .deflate), ("gzip ; q=0.000, deflate;q=0", nil),
            ("identity", nil), ("identity;q=0", nil), ("*", .gzip), ("*;q=0", nil), ("*, gzip;q=0", .deflate),
            ("br", nil), ("br, *;q=0.1", .gzip), ("gzip;q=abc", nil), (" gzip ;q=0.8 , deflate;q=0.9", .deflate),
        ] as [(String?, HTTPContentCoding?)])
    func acceptEncodingIsNegotiated(_ header: String?, _ expected: HTTPContentCoding?) {
        #expect(HTTPContentCoding.preferred(acceptEncoding: header) == expected)
    }

    @Test("Content-Encoding tokens name their coding; others are nil")
    func contentEncodingTokens() {
        #expect(HTTPContentCoding(token: " GZip ") == .gzip)
        #expect(HTTPContentCoding(token: "x-gzip") == .gzip)
        #expect(HTTPContentCoding(token: "deflate") == .deflate)
        #expect(HTTPContentCoding(token: "identity") == nil)
        #expect(HTTPContentCoding(token: "br") == nil)
    }
}
