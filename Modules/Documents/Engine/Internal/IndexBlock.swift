/// One decoded block: its bytes and where each entry's key and path lie in them.
struct IndexBlock {
    struct Entry {
        var keyStart: Int32
        var keyCount: Int32
        var pathStart: Int32
        var pathCount: Int32
        var isPut: Bool
    }
    var index: Int64
    var bytes: BlockBytes
    var entries: [Entry]

    /// Decodes block data: per entry a kind byte (1 put, 0 tombstone); the key as the length it shares with the
    /// previous entry's key (varint), the length of the rest (varint) and the rest; the path the same way. Full keys
    /// and paths are rebuilt side by side in the block's bytes.
    ///
    /// It stays one function: both passes share the `part` reader and its cursor, and the second pass is the
    /// innermost loop of every index scan, which a split would make pass that state around.
    init(index: Int64, data: UnsafeRawBufferPointer) throws {
        self.index = index
        // Pass 1: check the structure and size the rebuilt bytes. Pass 2: copy each shared prefix from the previous
        // entry's rebuilt bytes (an earlier, distinct region) and the rest from the data.
        var total = 0
        var count = 0
        var offset = 0
        var previousKey = 0
        var previousPath = 0
        func part(_ previous: inout Int, _ what: String) throws -> (shared: Int, rest: Int, restStart: Int) {
            guard let shared = IndexOpCodec.varint(data, &offset), shared <= UInt64(previous),
                let rest = IndexOpCodec.varint(data, &offset), rest <= UInt64(data.count - offset)
            else { throw IndexOpCodec.corrupted("block \(what)") }
            let restStart = offset
            offset += Int(rest)
            previous = Int(shared) + Int(rest)
            return (Int(shared), Int(rest), restStart)
        }
        while offset < data.count {
            offset += 1
            _ = try part(&previousKey, "key")
            _ = try part(&previousPath, "path")
            total += previousKey + previousPath
            count += 1
        }
        let storage = BlockBytes(capacity: total)
        let out = storage.base
        let source = data.baseAddress ?? UnsafeRawPointer(out)  // only read when some bytes are copied
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        offset = 0
        previousKey = 0
        previousPath = 0
        var written = 0
        var last = Entry(keyStart: 0, keyCount: 0, pathStart: 0, pathCount: 0, isPut: false)
        while offset < data.count {
            let isPut = data[offset] == 1
            offset += 1
            let key = try part(&previousKey, "key")
            let keyStart = written
            if key.shared > 0 { (out + written).copyMemory(from: out + Int(last.keyStart), byteCount: key.shared) }
            written += key.shared
            if key.rest > 0 { (out + written).copyMemory(from: source + key.restStart, byteCount: key.rest) }
            written += key.rest
            let path = try part(&previousPath, "path")
            let pathStart = written
            if path.shared > 0 {
                (out + written).copyMemory(from: out + Int(last.pathStart), byteCount: path.shared)
            }
            written += path.shared
            if path.rest > 0 {
                (out + written).copyMemory(from: source + path.restStart, byteCount: path.rest)
            }
            written += path.rest
            last = Entry(
                keyStart: Int32(keyStart), keyCount: Int32(key.shared + key.rest), pathStart: Int32(pathStart),
                pathCount: Int32(path.shared + path.rest), isPut: isPut)
            entries.append(last)
        }
        bytes = storage
        self.entries = entries
    }

    init(index: Int64, data: [UInt8]) throws {
        try self = data.withUnsafeBytes { try IndexBlock(index: index, data: $0) }
    }
}
