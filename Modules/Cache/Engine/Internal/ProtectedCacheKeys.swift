import Crypto
import Foundation

/// The two keys a ``ProtectedCacheStore`` derives (HKDF-SHA256) from its provider's key: one naming entries and tags
/// (HMAC-SHA256), one sealing them (AES-256-GCM).
struct ProtectedCacheKeys: @unchecked Sendable {
    // @unchecked: `SymmetricKey` (immutable once made) is not marked `Sendable` by swift-crypto 3.
    private let naming: SymmetricKey
    private let sealing: SymmetricKey

    init(_ key: SymmetricKey) {
        naming = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key, info: Array("suite.cache.protected.naming".utf8), outputByteCount: 32)
        sealing = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key, info: Array("suite.cache.protected.sealing".utf8), outputByteCount: 32)
    }

    /// The hex HMAC of `text`.
    func name(_ text: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: naming)
        return code.reduce(into: "") { hex, byte in
            hex += String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }
    }

    /// `plain` sealed (nonce, ciphertext, tag), bound to `context`.
    func seal(_ plain: [UInt8], authenticating context: String) throws -> [UInt8] {
        do {
            let box = try AES.GCM.seal(plain, using: sealing, authenticating: Array(context.utf8))
            guard let combined = box.combined else {
                throw CacheError(.storage, "AES-GCM produced no combined box", hint: "report this as a Suite bug")
            }
            return Array(combined)
        } catch let error as CacheError {
            throw error
        } catch {
            throw CacheError(
                .storage, "cannot encrypt a protected cache entry: \(error)", hint: "report this as a Suite bug",
                underlying: error)
        }
    }

    /// The plaintext of `sealed`, or `nil` when it does not authenticate under `context`.
    func open(_ sealed: [UInt8], authenticating context: String) -> [UInt8]? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let plain = try? AES.GCM.open(box, using: sealing, authenticating: Array(context.utf8))
        else { return nil }
        return Array(plain)
    }
}
