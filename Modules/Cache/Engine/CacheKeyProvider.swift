public import Crypto

/// Supplies the key of a ``ProtectedCacheStore``: 256 bits, the same every time the cache opens.
///
/// Built-in providers: ``FileKeyProvider`` (a key file created on first use, readable by its owner only) and
/// ``SymmetricKeyProvider`` (a key the app already holds, e.g. from the platform's keychain).
public protocol CacheKeyProvider: Sendable {
    /// The key. Throws ``CacheError`` `.key` when it is missing, unreadable, unsafe or not 32 bytes.
    func key() throws -> SymmetricKey
}
