/// Automatically generated document ids, like Firestore's: 20 characters from `[A-Za-z0-9]` (about 119 bits).
package enum AutoID {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// A new random id of 20 characters from `[A-Za-z0-9]`.
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// A new id drawn from `generator` (for deterministic tests).
    package static func generate<G: RandomNumberGenerator>(using generator: inout G) -> String {
        String(unsafeUninitializedCapacity: 20) { buffer in
            for i in 0..<20 {
                // 62 * 4 = 248 < 256: reject the top 8 values to keep the distribution uniform.
                var byte: UInt8
                repeat { byte = UInt8.random(in: 0...255, using: &generator) } while byte >= 248
                buffer[i] = alphabet[Int(byte % 62)]
            }
            return 20
        }
    }
}
