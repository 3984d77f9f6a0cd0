/// A part of a root committed in one transaction: a directory with everything below it, or only the entries directly
/// in a directory (for directories shallower than the unit depth). Engine API: a ``StorageScanIndex`` tags the rows
/// a unit produced with its ``key``.
@_spi(Engine) public struct ScanUnit: Hashable, Sendable, Comparable {
    /// The directory, relative to the root.
    @_spi(Engine) public var directory: [UInt8]
    /// Whether the unit takes the whole subtree, or only the directory's own non-directory entries.
    @_spi(Engine) public var recursive: Bool

    /// The key stored in `items.unit`: the directory's bytes, plus a NUL (which no name contains) for a shallow unit.
    @_spi(Engine) public var key: [UInt8] { recursive ? directory : directory + [0] }

    /// The unit of `directory`, whole (`recursive`) or its own entries only.
    @_spi(Engine) public init(directory: [UInt8], recursive: Bool) {
        self.directory = directory
        self.recursive = recursive
    }

    /// The unit whose ``key`` is `key`.
    @_spi(Engine) public init(key: [UInt8]) {
        if key.last == 0 {
            self.init(directory: Array(key.dropLast()), recursive: false)
        } else {
            self.init(directory: key, recursive: true)
        }
    }

    /// `chats/c1/` or `chats (files)`, `. (files)` for the root's own files.
    @_spi(Engine) public var displayName: String {
        let name = directory.isEmpty ? "." : StoragePath(bytes: directory).description
        return recursive ? name + "/" : name + " (files)"
    }

    @_spi(Engine) public static func < (lhs: ScanUnit, rhs: ScanUnit) -> Bool {
        lhs.key.lexicographicallyPrecedes(rhs.key)
    }

    /// The units of a root down to `depth`: every directory above `depth` as a shallow unit, every directory at
    /// `depth` as a whole subtree.
    static func plan(rootFD: Int32, depth: Int, walker: FileWalker) -> [ScanUnit] {
        var units: [ScanUnit] = []
        var level: [[UInt8]] = [[]]
        for _ in 0..<depth {
            var next: [[UInt8]] = []
            for directory in level {
                units.append(ScanUnit(directory: directory, recursive: false))
                for child in walker.list(rootFD: rootFD, directory: directory).directories {
                    next.append(directory.isEmpty ? child : directory + [UInt8(ascii: "/")] + child)
                }
            }
            level = next
        }
        units += level.map { ScanUnit(directory: $0, recursive: true) }
        return units.sorted()
    }
}
