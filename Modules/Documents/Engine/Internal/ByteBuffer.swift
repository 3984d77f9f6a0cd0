/// A growable byte buffer at a raw address, for the run writer's hot appends (no copy-on-write checks).
final class ByteBuffer {
    private(set) var base: UnsafeMutableRawPointer
    private var capacity: Int
    var count = 0

    init(capacity: Int = 256) {
        self.capacity = max(16, capacity)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    func reserve(_ needed: Int) {
        if needed <= capacity { return }
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
        bigger.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = bigger
        capacity = grown
    }

    @inline(__always)
    func appendByte(_ byte: UInt8) {
        reserve(count + 1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(count + bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            appendByte(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        appendByte(UInt8(value))
    }
}
