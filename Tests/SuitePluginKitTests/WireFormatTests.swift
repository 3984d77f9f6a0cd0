import SuiteCore
import SuitePluginKit
import Testing

@Suite("Wire primitives and the failure envelope")
struct WireFormatTests {
    @Test("every primitive reads back what was written, little-endian and length-prefixed")
    func primitivesRoundTrip() throws {
        var w = WireWriter()
        w.u8(7)
        w.bool(true)
        w.u32(0x0102_0304)
        w.i64(-2)
        w.blob([1, 2])
        w.string("ü")
        w.optionalString(nil)
        w.optionalBlob([])
        w.optionalInt(Int.max)
        #expect(Array(w.bytes[2..<6]) == [4, 3, 2, 1])
        try w.bytes.withUnsafeBytes { bytes in
            var r = WireReader(bytes)
            #expect(try r.u8() == 7)
            #expect(try r.bool())
            #expect(try r.u32() == 0x0102_0304)
            #expect(try r.i64() == -2)
            #expect(try r.blob() == [1, 2])
            #expect(try r.string() == "ü")
            #expect(try r.optionalString() == nil)
            #expect(try r.optionalBlob() == [])
            #expect(try r.optionalInt() == Int.max)
            try r.finish()
        }
    }

    @Test("truncated input, a bad boolean, a forged count and trailing bytes are refused, never a trap")
    func refusals() {
        func refused(_ bytes: [UInt8], _ read: (inout WireReader) throws -> Void) -> Bool {
            bytes.withUnsafeBytes { buffer in
                var r = WireReader(buffer)
                do {
                    try read(&r)
                    try r.finish()
                    return false
                } catch {
                    return error is WireFormatError
                }
            }
        }
        #expect(refused([1, 0, 0]) { _ = try $0.u32() })
        #expect(refused([2]) { _ = try $0.bool() })
        #expect(refused([255, 255, 255, 255, 0]) { _ = try $0.count(minimumSize: 1) })
        #expect(refused([5, 0, 0, 0, 65]) { _ = try $0.string() })
        #expect(refused([0, 9]) { _ = try $0.u8() })
        #expect(!refused([1, 0, 0, 0, 65]) { _ = try $0.string() })
    }

    @Test("the failure envelope survives JSON and binary, with and without a hint")
    func envelopeRoundTrip() throws {
        for failure in [
            PluginFailure(code: "preconditionFailed", "users/u1 is at version 3 ü", hint: "re-read it"),
            PluginFailure(code: "storage", "disk full"),
        ] {
            #expect(failure.jsonBytes.withUnsafeBytes { PluginFailure(jsonBytes: $0) } == failure)
            var w = WireWriter()
            w.failure(failure)
            try w.bytes.withUnsafeBytes { bytes in
                var r = WireReader(bytes)
                #expect(try r.failure() == failure)
                try r.finish()
            }
        }
        #expect(Array("plain message".utf8).withUnsafeBytes { PluginFailure(jsonBytes: $0) } == nil)
        #expect(Array(#"{"message":"no code"}"#.utf8).withUnsafeBytes { PluginFailure(jsonBytes: $0) } == nil)
    }
}
