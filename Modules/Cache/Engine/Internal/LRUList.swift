/// The in-memory store's state: entries in array slots threaded on an intrusive doubly linked list (most recently used
/// at the head), a dictionary from key to slot, and the bytes held. Every operation is O(1) but the scans
/// (``keys(where:)``); freed slots are reused.
struct LRUList {
    struct Node {
        var entry: CacheEntry
        var cost: Int
        var previous: Int
        var next: Int
    }

    private static let none = -1
    private static let vacant = CacheEntry(key: "", value: [])

    private(set) var nodes: [Node] = []
    private var slots: [String: Int] = [:]
    private var free: [Int] = []
    /// The most recently used slot, or -1.
    private var head = LRUList.none
    /// The least recently used slot, or -1.
    private var tail = LRUList.none
    /// The sum of the entries' costs.
    private(set) var bytes = 0

    var count: Int { slots.count }

    /// The entry under `key`, made the most recently used; `nil` (and dropped) when missing or expired at `now`.
    mutating func entry(forKey key: String, now: Int64) -> CacheEntry? {
        guard let slot = slots[key] else { return nil }
        if let expiresAt = nodes[slot].entry.metadata.expiresAt, now >= expiresAt {
            remove(slot: slot)
            return nil
        }
        if slot != head {
            unlink(slot)
            linkAtHead(slot)
        }
        return nodes[slot].entry
    }

    /// Inserts `entry` as the most recently used, replacing any under its key.
    mutating func insert(_ entry: CacheEntry, cost: Int) {
        if let slot = slots[entry.key] { remove(slot: slot) }
        let node = Node(entry: entry, cost: cost, previous: Self.none, next: Self.none)
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        slots[entry.key] = slot
        bytes += cost
        linkAtHead(slot)
    }

    /// Removes the entry under `key`; it, or `nil`.
    @discardableResult
    mutating func remove(key: String) -> CacheEntry? {
        guard let slot = slots[key] else { return nil }
        return remove(slot: slot)
    }

    /// Removes the least recently used entry; it, or `nil` when empty.
    mutating func removeLeastRecentlyUsed() -> CacheEntry? {
        tail == Self.none ? nil : remove(slot: tail)
    }

    /// The keys of the entries `predicate` accepts (a scan of every entry).
    func keys(where predicate: (CacheEntry) -> Bool) -> [String] {
        var keys: [String] = []
        var slot = head
        while slot != Self.none {
            if predicate(nodes[slot].entry) { keys.append(nodes[slot].entry.key) }
            slot = nodes[slot].next
        }
        return keys
    }

    /// Every entry, most recently used first.
    var entries: [CacheEntry] {
        var entries: [CacheEntry] = []
        entries.reserveCapacity(count)
        var slot = head
        while slot != Self.none {
            entries.append(nodes[slot].entry)
            slot = nodes[slot].next
        }
        return entries
    }

    /// Empties the list; how many entries it held.
    mutating func removeAll() -> Int {
        let removed = count
        self = LRUList()
        return removed
    }

    @discardableResult
    private mutating func remove(slot: Int) -> CacheEntry {
        unlink(slot)
        let entry = nodes[slot].entry
        bytes -= nodes[slot].cost
        slots[entry.key] = nil
        nodes[slot].entry = Self.vacant
        nodes[slot].cost = 0
        free.append(slot)
        return entry
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous
        let next = nodes[slot].next
        if previous != Self.none { nodes[previous].next = next } else { head = next }
        if next != Self.none { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = Self.none
        nodes[slot].next = Self.none
    }

    private mutating func linkAtHead(_ slot: Int) {
        nodes[slot].previous = Self.none
        nodes[slot].next = head
        if head != Self.none { nodes[head].previous = slot } else { tail = slot }
        head = slot
    }
}
