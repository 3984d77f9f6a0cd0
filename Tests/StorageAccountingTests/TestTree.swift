import Foundation
import SuiteTestSupport
import Testing

@testable import StorageAccounting

#if canImport(Glibc)
    import Glibc
#endif

/// Builds files for the tests with raw system calls (names may be any bytes).
struct TestTree {
    let root: String

    init(_ label: String = "storage") throws {
        root = try TestSupport.makeTemporaryDirectory(label).path
    }

    func full(_ relative: [UInt8]) -> [UInt8] { Array(root.utf8) + [UInt8(ascii: "/")] + relative }

    static func cString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        (bytes + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
    }

    /// Creates the directories of `relative` (mkdir -p).
    func directory(_ relative: String) throws { try directory(Array(relative.utf8)) }

    func directory(_ relative: [UInt8]) throws {
        var path: [UInt8] = Array(root.utf8)
        for component in relative.split(separator: UInt8(ascii: "/")) {
            path += [UInt8(ascii: "/")] + component
            let result = Self.cString(path) { mkdir($0, 0o755) }
            if result != 0 && errno != EEXIST { throw Failure("mkdir \(String(decoding: path, as: UTF8.self))") }
        }
    }

    /// Writes `size` bytes (starting with `prefix`) to `relative`, creating its directories.
    @discardableResult
    func file(_ relative: String, size: Int = 100, prefix: [UInt8] = []) throws -> String {
        try file(Array(relative.utf8), size: size, prefix: prefix)
        return root + "/" + relative
    }

    func file(_ relative: [UInt8], size: Int = 100, prefix: [UInt8] = []) throws {
        if let slash = relative.lastIndex(of: UInt8(ascii: "/")) { try directory(Array(relative[..<slash])) }
        let fd = Self.cString(full(relative)) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        guard fd >= 0 else { throw Failure("open \(StoragePath(bytes: relative)): \(errno)") }
        defer { close(fd) }
        var bytes = prefix + [UInt8](repeating: 0x61, count: max(0, size - prefix.count))
        bytes = Array(bytes.prefix(size))
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == size else { throw Failure("write") }
    }

    /// A sparse file of `size` bytes with one 4 KiB block written at the start.
    func sparse(_ relative: String, size: Int) throws {
        try file(relative, size: 4096)
        let fd = Self.cString(full(Array(relative.utf8))) { open($0, O_WRONLY) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else { throw Failure("ftruncate") }
    }

    func link(_ existing: String, _ new: String) throws {
        if let slash = new.lastIndex(of: "/") { try directory(String(new[..<slash])) }
        guard Glibc.link(root + "/" + existing, root + "/" + new) == 0 else { throw Failure("link \(errno)") }
    }

    func symlink(target: String, at relative: String) throws {
        if let slash = relative.lastIndex(of: "/") { try directory(String(relative[..<slash])) }
        guard Glibc.symlink(target, root + "/" + relative) == 0 else { throw Failure("symlink \(errno)") }
    }

    func exists(_ relative: String) -> Bool {
        var st = stat()
        return lstat(root + "/" + relative, &st) == 0
    }

    func remove(_ relative: String) { unlink(root + "/" + relative) }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// Sums over a tree by `lstat`, independently of the module: what the index must agree with.
struct ExpectedSums {
    var files = 0
    var logical: Int64 = 0
    var allocated: Int64 = 0
    /// Directories' and symbolic links' own bytes (du counts them, the index does not).
    var otherAllocated: Int64 = 0
    var otherLogical: Int64 = 0

    init(root: String) {
        var seen: Set<[UInt64]> = []
        func visit(_ path: [UInt8]) {
            var st = stat()
            guard TestTree.cString(path, { lstat($0, &st) }) == 0 else { return }
            let identity = [UInt64(st.st_dev), UInt64(st.st_ino)]
            let kind = st.st_mode & S_IFMT
            if seen.insert(identity).inserted {
                if kind == S_IFREG {
                    files += 1
                    logical += Int64(st.st_size)
                    allocated += Int64(st.st_blocks) * 512
                } else {
                    otherLogical += Int64(st.st_size)
                    otherAllocated += Int64(st.st_blocks) * 512
                }
            } else if kind == S_IFREG {
                files += 1
            }
            guard kind == S_IFDIR, let dir = TestTree.cString(path, { opendir($0) }) else { return }
            var names: [[UInt8]] = []
            while let entry = readdir(dir) {
                var name = entry.pointee.d_name
                let bytes = withUnsafeBytes(of: &name) { Array($0.prefix { $0 != 0 }) }
                if bytes != [46] && bytes != [46, 46] { names.append(bytes) }
            }
            closedir(dir)
            for name in names { visit(path + [UInt8(ascii: "/")] + name) }
        }
        visit(Array(root.utf8))
    }
}

/// Runs a command and returns its standard output.
func run(_ executable: String, _ arguments: [String]) throws -> String {
    let process = TestProcess()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// A fresh index in a temporary file.
func makeIndex() throws -> SQLiteStorageIndex {
    try SQLiteStorageIndex(path: TestSupport.temporaryFile("storage.sqlite"))
}
