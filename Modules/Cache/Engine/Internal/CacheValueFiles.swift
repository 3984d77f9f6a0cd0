import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SQLite store's large values: one file per value in `<database>.values/`, named by a random UUID (so a replaced
/// value never overwrites a file a reader may still be reading), written to `<name>.tmp`, synced and renamed.
struct CacheValueFiles: Sendable {
    /// The directory holding the files.
    let directory: String

    func path(_ name: String) -> String { directory + "/" + name }

    func createDirectory() throws {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CacheError(
                .storage, "cannot create the cache's value directory \(directory)",
                hint: "check the permissions of its parent directory", underlying: error)
        }
    }

    /// Writes `bytes` to a new file (temporary name, `fsync`, rename) and returns its name.
    func writeValue(_ bytes: [UInt8]) throws -> String {
        let name = UUID().uuidString.lowercased()
        let temporary = path(name + ".tmp")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        var written = 0
        let ok = bytes.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += result
            }
            return fsync(descriptor) == 0
        }
        let error = failure("write", temporary)
        close(descriptor)
        guard ok else {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path(name)) == 0 else {
            let error = failure("rename", temporary)
            unlink(temporary)
            throw error
        }
        return name
    }

    /// The `size` bytes of file `name`; `nil` when it is missing (its entry was replaced or removed meanwhile) or
    /// shorter than `size`.
    func readValue(_ name: String, size: Int) throws -> [UInt8]? {
        let descriptor = open(path(name), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("open", path(name))
        }
        defer { close(descriptor) }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            while initialized < size {
                let result = read(descriptor, buffer.baseAddress! + initialized, size - initialized)
                if result < 0 && errno == EINTR { continue }
                if result <= 0 {
                    failed = result < 0
                    break
                }
                initialized += result
            }
        }
        if failed { throw failure("read", path(name)) }
        return bytes.count == size ? bytes : nil
    }

    /// Deletes the files named (missing ones are fine).
    func removeValues(_ names: some Sequence<String>) {
        for name in names { unlink(path(name)) }
    }

    /// Deletes every file of the directory not in `referenced` whose last change is older than `grace`; how many.
    func removeOrphans(keeping referenced: Set<String>, olderThan grace: Duration) -> Int {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return 0 }
        let cutoff = Date().addingTimeInterval(-Double(grace.components.seconds))
        var removed = 0
        for name in names where !referenced.contains(name) {
            let modified = (try? manager.attributesOfItem(atPath: path(name)))?[.modificationDate] as? Date
            if grace > .zero, let modified, modified > cutoff { continue }
            if unlink(path(name)) == 0 { removed += 1 }
        }
        return removed
    }

    private func failure(_ operation: String, _ path: String) -> CacheError {
        let reason = String(cString: strerror(errno))
        return CacheError(
            .storage, "cannot \(operation) the cache value file \(path): \(reason)",
            hint: "check the free disk space and the permissions of \(directory)")
    }
}
