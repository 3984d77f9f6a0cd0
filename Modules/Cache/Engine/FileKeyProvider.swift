public import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``CacheKeyProvider`` keeping the key in a file: 32 random bytes, created with mode 0600 when the file is missing.
///
/// An existing file is used only when it is a regular file of exactly 32 bytes that neither its group nor others can
/// read or write; anything else is refused with ``CacheError`` `.key` rather than weakening the cache's protection.
///
/// ```swift
/// let provider = FileKeyProvider(path: dataDirectory + "/cache.key")
/// ```
public struct FileKeyProvider: CacheKeyProvider {
    /// The key file.
    public let path: String

    /// A provider of the key in the file at `path` (created on the first ``key()`` when missing).
    public init(path: String) {
        self.path = path
    }

    public func key() throws -> SymmetricKey {
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else { throw failure("cannot read the cache key file \(path)") }
            if let created = try create() { return created }
            // Another process created it meanwhile: read theirs.
            guard stat(path, &info) == 0 else { throw failure("cannot read the cache key file \(path)") }
        }
        return try read(info)
    }

    /// Creates the file with a new key; `nil` when it appeared meanwhile.
    private func create() throws -> SymmetricKey? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return nil }
            throw failure("cannot create the cache key file \(path)")
        }
        let key = SymmetricKey(size: .bits256)
        let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == 32, synced else {
            let error = failure("cannot write the cache key file \(path)")
            unlink(path)
            throw error
        }
        return key
    }

    private func read(_ info: stat) throws -> SymmetricKey {
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CacheError(
                .key, "the cache key file \(path) is not a regular file",
                hint: "point FileKeyProvider(path:) at a file, or remove what is there to have a key created")
        }
        guard info.st_mode & 0o077 == 0 else {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw CacheError(
                .key, "the cache key file \(path) is readable or writable by others (mode \(mode))",
                hint: "run `chmod 600 \(path)` (and consider the key leaked: delete the file and the protected cache)")
        }
        guard info.st_size == 32 else {
            throw CacheError(
                .key, "the cache key file \(path) has \(info.st_size) bytes, not 32",
                hint: "restore the original key file, or delete it and the protected cache to start with a new key")
        }
        guard let data = FileManager.default.contents(atPath: path), data.count == 32 else {
            throw failure("cannot read the cache key file \(path)")
        }
        return SymmetricKey(data: data)
    }

    private func failure(_ message: String) -> CacheError {
        CacheError(
            .key, "\(message): \(String(cString: strerror(errno)))",
            hint: "check that the directory exists and that this user may read and write it")
    }
}
