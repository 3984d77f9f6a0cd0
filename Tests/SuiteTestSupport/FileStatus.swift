#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `lstat(2)` of a path, for tests that compare with what the file system says. Kept in a file of its own: where
/// Foundation is imported too, a Linux build can place `stat`'s members in another clang module
/// (MemberImportVisibility) and refuse them.
public struct FileStatus: Sendable {
    /// Whether it is a regular file.
    public var isRegularFile: Bool
    /// The device and inode, which identify the file across hard links.
    public var device: UInt64
    public var inode: UInt64
    /// 512-byte blocks allocated.
    public var blocks: Int64
    /// The logical size in bytes.
    public var size: Int64

    /// The status of `path` (not following a last symbolic link), nil when it cannot be read.
    public init?(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        isRegularFile = info.st_mode & S_IFMT == S_IFREG
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        blocks = Int64(info.st_blocks)
        size = Int64(info.st_size)
    }
}
