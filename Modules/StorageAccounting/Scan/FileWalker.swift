import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(Darwin)
    /// What `fdopendir` returns: `DIR` is a complete struct in Apple's `<dirent.h>`.
    private typealias DirectoryStream = UnsafeMutablePointer<DIR>
#else
    /// What `fdopendir` returns: `DIR` is an opaque struct in Glibc's and Musl's `<dirent.h>`.
    private typealias DirectoryStream = OpaquePointer
#endif

/// Something a walk could not read, reported rather than fatal (an unreadable directory, a vanished file).
public struct StorageWarning: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The path, relative to the root.
    public var path: StoragePath
    /// What went wrong (`Permission denied`, …).
    public var message: String

    /// Creates a warning.
    package init(path: StoragePath, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path.bytes.isEmpty ? "." : path.description): \(message)" }
}

/// What `lstat` says about one entry.
struct FileStat: Sendable {
    enum Kind: Sendable { case regular, directory, symlink, other }
    var kind: Kind
    var size: Int64
    /// `st_blocks × 512`.
    var allocated: Int64
    var device: UInt64
    var inode: UInt64
    var linkCount: Int
    /// Modification time, nanoseconds since 1970.
    var modified: Int64
    /// Creation (birth) time, nanoseconds since 1970, where `stat` has one (Apple's `st_birthtimespec`, when the file
    /// system records it); `nil` on Linux, whose `stat` has none.
    var created: Int64?

    init(_ st: stat) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        size = Int64(st.st_size)
        allocated = Int64(st.st_blocks) * 512
        // `dev_t` is a signed 32-bit integer on Apple platforms, an unsigned 64-bit one on Linux.
        device = UInt64(truncatingIfNeeded: st.st_dev)
        inode = UInt64(st.st_ino)
        linkCount = Int(st.st_nlink)
        #if canImport(Darwin)
            modified = Self.nanoseconds(st.st_mtimespec)
            // File systems without a birth time report the epoch.
            created = st.st_birthtimespec.tv_sec > 0 ? Self.nanoseconds(st.st_birthtimespec) : nil
        #else
            modified = Self.nanoseconds(st.st_mtim)
            created = nil
        #endif
    }

    private static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

/// A POSIX walk of a directory tree: `openat` + `readdir` + `fstatat(AT_SYMLINK_NOFOLLOW)` through the C library, not
/// Foundation's enumerators (which stat through URLs and allocate per entry).
///
/// - Symbolic links are never followed (they are reported as `.symlink` entries), so a link loop cannot loop; a
///   directory reached twice through bind mounts (same device and inode as an ancestor) is skipped with a warning.
/// - Names are bytes: a name that is not UTF-8 is kept exactly.
/// - Directories that cannot be opened are collected in ``warnings``, and the walk goes on.
/// - Every directory is opened relative to its parent's descriptor with `O_NOFOLLOW`, so no path longer than
///   `PATH_MAX` is ever built for the kernel, and a directory swapped for a link during the walk is not entered.
final class FileWalker {
    /// What could not be read.
    var warnings: [StorageWarning] = []
    /// Directories opened.
    var directoriesOpened = 0

    /// Opens the directory at the absolute `path` (following links in it: the root is trusted), read-only.
    static func openRoot(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw StorageError(
                code == ENOENT ? .notFound : .io,
                "cannot open the directory \(path): \(String(cString: strerror(code)))",
                hint: "pass an existing directory you can read")
        }
        return fd
    }

    /// Opens the directory `relative` below `rootFD` one component at a time with `O_NOFOLLOW`: a component that is a
    /// symbolic link (or `..`, `.`, empty) fails. Returns the descriptor or the `errno`.
    static func openBelow(_ rootFD: Int32, _ relative: [UInt8]) -> Result<Int32, StorageError> {
        // A new open file description (not `dup`, whose copies share one directory offset).
        var current = openat(rootFD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { return .failure(posixError("open", [], errno)) }
        guard !relative.isEmpty else { return .success(current) }
        for component in relative.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.isEmpty || component.elementsEqual([UInt8(ascii: ".")])
                || component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")])
            {
                close(current)
                return .failure(
                    StorageError(
                        .unsafePath, "the path '\(StoragePath(bytes: relative))' has an empty, '.' or '..' component"))
            }
            let next = withCString(component) { openat(current, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            let code = errno
            close(current)
            guard next >= 0 else {
                if code == ELOOP || code == ENOTDIR {
                    return .failure(
                        StorageError(
                            .unsafePath,
                            "'\(StoragePath(bytes: relative))' goes through '\(StoragePath(bytes: Array(component)))', "
                                + "which is not a directory (a symbolic link is never followed)"))
                }
                return .failure(posixError("open", relative, code))
            }
            current = next
        }
        return .success(current)
    }

    static func posixError(_ call: String, _ path: [UInt8], _ code: Int32) -> StorageError {
        StorageError(
            code == ENOENT ? .notFound : .io,
            "\(call) '\(StoragePath(bytes: path))': \(String(cString: strerror(code)))")
    }

    /// Calls `body` with `bytes` as a NUL-terminated C string.
    static func withCString<T>(_ bytes: some Collection<UInt8>, _ body: (UnsafePointer<CChar>) -> T) -> T {
        var buffer = Array(bytes)
        buffer.append(0)
        return buffer.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) { body($0.baseAddress ?? UnsafePointer(bitPattern: 1)!) }
        }
    }

    /// `lstat` of `relative` below `rootFD`, without following a link anywhere on the way; `nil` with the errno.
    static func statBelow(_ rootFD: Int32, _ relative: [UInt8]) -> Result<FileStat, StorageError> {
        let slash = relative.lastIndex(of: UInt8(ascii: "/"))
        let parent = slash.map { Array(relative[..<$0]) } ?? []
        let name = slash.map { Array(relative[($0 + 1)...]) } ?? relative
        if name.isEmpty { return openBelow(rootFD, relative).flatMap { fd in fstatFD(fd, relative) } }
        switch openBelow(rootFD, parent) {
        case .failure(let error): return .failure(error)
        case .success(let fd):
            defer { close(fd) }
            var st = stat()
            let result = withCString(name) { fstatat(fd, $0, &st, AT_SYMLINK_NOFOLLOW) }
            return result == 0 ? .success(FileStat(st)) : .failure(posixError("lstat", relative, errno))
        }
    }

    private static func fstatFD(_ fd: Int32, _ relative: [UInt8]) -> Result<FileStat, StorageError> {
        defer { close(fd) }
        var st = stat()
        return fstat(fd, &st) == 0 ? .success(FileStat(st)) : .failure(posixError("stat", relative, errno))
    }

    private struct Frame {
        var directory: DirectoryStream
        /// The descriptor `directory` reads (what `dirfd` would answer; it is not a function in every `<dirent.h>`).
        var descriptor: Int32
        var path: [UInt8]
        var identity: [UInt64]
    }

    /// Walks the directory `start` (relative to `rootFD`). `onDirectory` sees `start` and, when `recursive`, every
    /// directory below it; `onEntry` sees every other entry (files, links, devices) — below `start` only when
    /// `recursive`. Paths are relative to the root. `shouldStop` is asked every 256 entries; a stop throws
    /// `CancellationError`.
    func walk(
        rootFD: Int32, start: [UInt8], recursive: Bool, shouldStop: () -> Bool = { false },
        onDirectory: ([UInt8], FileStat) throws -> Void, onEntry: ([UInt8], FileStat) throws -> Void
    ) throws {
        let fd: Int32
        switch Self.openBelow(rootFD, start) {
        case .success(let opened): fd = opened
        case .failure(let error):
            warnings.append(StorageWarning(path: StoragePath(bytes: start), message: error.message))
            return
        }
        var st = stat()
        guard fstat(fd, &st) == 0, let directory = fdopendir(fd) else {
            warnings.append(StorageWarning(path: StoragePath(bytes: start), message: String(cString: strerror(errno))))
            close(fd)
            return
        }
        directoriesOpened += 1
        let startStat = FileStat(st)
        try onDirectory(start, startStat)
        var stack = [
            Frame(directory: directory, descriptor: fd, path: start, identity: [startStat.device, startStat.inode])
        ]
        defer { for frame in stack { closedir(frame.directory) } }
        var counter = 0
        while let frame = stack.last {
            counter += 1
            if counter & 255 == 0, shouldStop() { throw CancellationError() }
            errno = 0
            guard let entry = readdir(frame.directory) else {
                if errno != 0 {
                    warnings.append(
                        StorageWarning(path: StoragePath(bytes: frame.path), message: String(cString: strerror(errno))))
                }
                closedir(frame.directory)
                stack.removeLast()
                continue
            }
            let dirFD = frame.descriptor
            // `d_name` is a tuple of 256 `CChar` on Linux, 1024 on Apple platforms.
            try withUnsafeMutablePointer(to: &entry.pointee.d_name) { tuple in
                try tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    name in
                    let length = strlen(name)
                    if length == 0 || (name[0] == 46 && (length == 1 || (length == 2 && name[1] == 46))) { return }
                    var path = frame.path
                    if !path.isEmpty { path.append(UInt8(ascii: "/")) }
                    name.withMemoryRebound(to: UInt8.self, capacity: length) {
                        path.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
                    }
                    var child = stat()
                    guard fstatat(dirFD, name, &child, AT_SYMLINK_NOFOLLOW) == 0 else {
                        warnings.append(
                            StorageWarning(path: StoragePath(bytes: path), message: String(cString: strerror(errno))))
                        return
                    }
                    let info = FileStat(child)
                    guard info.kind == .directory else {
                        try onEntry(path, info)
                        return
                    }
                    guard recursive else { return }
                    let identity = [info.device, info.inode]
                    if stack.contains(where: { $0.identity == identity }) {
                        warnings.append(
                            StorageWarning(path: StoragePath(bytes: path), message: "directory loop (bind mount?)"))
                        return
                    }
                    let childFD = openat(dirFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    guard childFD >= 0, let childDirectory = fdopendir(childFD) else {
                        let code = errno
                        if childFD >= 0 { close(childFD) }
                        warnings.append(
                            StorageWarning(path: StoragePath(bytes: path), message: String(cString: strerror(code))))
                        try onDirectory(path, info)
                        return
                    }
                    directoriesOpened += 1
                    try onDirectory(path, info)
                    stack.append(Frame(directory: childDirectory, descriptor: childFD, path: path, identity: identity))
                }
            }
        }
    }

    /// The subdirectories and other entries directly in `directory` (relative to `rootFD`), names sorted, using
    /// `d_type` when the file system fills it in.
    func list(rootFD: Int32, directory: [UInt8]) -> (directories: [[UInt8]], hasOtherEntries: Bool) {
        guard case .success(let fd) = Self.openBelow(rootFD, directory), let stream = fdopendir(fd) else {
            warnings.append(
                StorageWarning(path: StoragePath(bytes: directory), message: String(cString: strerror(errno))))
            return ([], false)
        }
        defer { closedir(stream) }
        var directories: [[UInt8]] = []
        var others = false
        while let entry = readdir(stream) {
            let type = entry.pointee.d_type
            withUnsafeMutablePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) { name in
                    let length = strlen(name)
                    if length == 0 || (name[0] == 46 && (length == 1 || (length == 2 && name[1] == 46))) { return }
                    var isDirectory = type == UInt8(DT_DIR)
                    if type == UInt8(DT_UNKNOWN) {
                        var st = stat()
                        isDirectory =
                            fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
                            && st.st_mode & S_IFMT == S_IFDIR
                    }
                    if isDirectory {
                        name.withMemoryRebound(to: UInt8.self, capacity: length) {
                            directories.append(Array(UnsafeBufferPointer(start: $0, count: length)))
                        }
                    } else {
                        others = true
                    }
                }
            }
        }
        return (directories.sorted { $0.lexicographicallyPrecedes($1) }, others)
    }
}
