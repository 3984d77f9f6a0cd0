/// A block's bytes at a fixed address for the block's life, so cursors keep plain pointers to their current entry.
final class BlockBytes {
    let base: UnsafeMutableRawPointer
    let count: Int

    init(copying source: UnsafeRawBufferPointer) {
        count = source.count
        base = UnsafeMutableRawPointer.allocate(byteCount: max(1, source.count), alignment: 8)
        if let from = source.baseAddress, source.count > 0 { base.copyMemory(from: from, byteCount: source.count) }
    }

    /// Uninitialized bytes, for the caller to fill.
    init(capacity: Int) {
        count = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: max(1, capacity), alignment: 8)
    }

    deinit { base.deallocate() }

    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
}
