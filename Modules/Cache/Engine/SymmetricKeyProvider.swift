public import Crypto

/// A ``CacheKeyProvider`` handing out a key given to it.
///
/// ```swift
/// let provider = SymmetricKeyProvider(SymmetricKey(size: .bits256))
/// ```
public struct SymmetricKeyProvider: CacheKeyProvider {
    // The key's bytes: `SymmetricKey` is not `Sendable` in swift-crypto 3.
    private let bytes: [UInt8]

    /// A provider of `key` (which must be 256 bits; ``key()`` refuses any other size).
    public init(_ key: SymmetricKey) {
        bytes = key.withUnsafeBytes { Array($0) }
    }

    public func key() throws -> SymmetricKey {
        guard bytes.count == 32 else {
            throw CacheError(
                .key, "the protected cache's key has \(bytes.count * 8) bits, not 256",
                hint: "pass SymmetricKeyProvider(SymmetricKey(size: .bits256))")
        }
        return SymmetricKey(data: bytes)
    }
}
