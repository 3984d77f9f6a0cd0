/// A sorted set kept as a list of sorted chunks (the shape of Python's `sortedcontainers`): binary search over the
/// chunks' last elements, then within a chunk. Insertion and removal move at most one chunk's elements, so building a
/// large set in random order stays O(n log n) instead of the O(n²) of one sorted array.
struct SortedList<Element: Comparable> {
    /// A position between elements: chunk index and offset in that chunk.
    struct Position {
        var chunk: Int
        var offset: Int
    }

    private var chunks: [[Element]] = []
    private(set) var count = 0

    private static var maximumChunkSize: Int { 512 }

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The first chunk whose last element is not less than `element` (or greater than it, when `strict`).
    private func chunkIndex(of element: Element, strict: Bool) -> Int {
        var low = 0
        var high = chunks.count
        while low < high {
            let mid = (low + high) >> 1
            let chunk = chunks[mid]
            let last = chunk[chunk.count - 1]
            let goRight = strict ? !(element < last) : last < element
            if goRight { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private static func offset(in chunk: [Element], of element: Element, strict: Bool) -> Int {
        var low = 0
        var high = chunk.count
        while low < high {
            let mid = (low + high) >> 1
            let goRight = strict ? !(element < chunk[mid]) : chunk[mid] < element
            if goRight { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The position of the first element not less than `element` (`strict: false`) or greater than it (`true`).
    func position(of element: Element, strict: Bool) -> Position {
        let c = chunkIndex(of: element, strict: strict)
        if c == chunks.count { return endPosition }
        return Position(chunk: c, offset: Self.offset(in: chunks[c], of: element, strict: strict))
    }

    var startPosition: Position { Position(chunk: 0, offset: 0) }
    var endPosition: Position { Position(chunk: chunks.count, offset: 0) }

    /// Inserts `element`; returns `false` when an equal element is already there.
    @discardableResult
    mutating func insert(_ element: Element) -> Bool {
        if chunks.isEmpty {
            chunks.append([element])
            count = 1
            return true
        }
        var c = chunkIndex(of: element, strict: false)
        if c == chunks.count { c -= 1 }
        let i = Self.offset(in: chunks[c], of: element, strict: false)
        if i < chunks[c].count, chunks[c][i] == element { return false }
        chunks[c].insert(element, at: i)
        count += 1
        if chunks[c].count > 2 * Self.maximumChunkSize {
            let upper = Array(chunks[c][Self.maximumChunkSize...])
            chunks[c].removeLast(chunks[c].count - Self.maximumChunkSize)
            chunks.insert(upper, at: c + 1)
        }
        return true
    }

    /// Removes the element equal to `element`; returns `false` when there is none.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        let c = chunkIndex(of: element, strict: false)
        if c == chunks.count { return false }
        let i = Self.offset(in: chunks[c], of: element, strict: false)
        guard i < chunks[c].count, chunks[c][i] == element else { return false }
        chunks[c].remove(at: i)
        count -= 1
        if chunks[c].isEmpty { chunks.remove(at: c) }
        return true
    }

    /// Calls `body` on each element from `start` on, in order, until it returns `false`.
    func forEach(from start: Position, _ body: (Element) throws -> Bool) rethrows {
        var c = start.chunk
        var i = start.offset
        while c < chunks.count {
            let chunk = chunks[c]
            while i < chunk.count {
                if try !body(chunk[i]) { return }
                i += 1
            }
            c += 1
            i = 0
        }
    }

    /// Calls `body` on each element before `end`, in reverse order, until it returns `false`.
    func forEachReversed(before end: Position, _ body: (Element) throws -> Bool) rethrows {
        var c = end.chunk
        var i = end.offset
        while true {
            if i == 0 {
                if c == 0 { return }
                c -= 1
                i = chunks[c].count
                continue
            }
            i -= 1
            if try !body(chunks[c][i]) { return }
        }
    }
}
