/// The simplest least-recently-used cache, for randomised tests to compare the stores with.
struct LRUModel {
    let byteLimit: Int
    let countLimit: Int
    /// Keys, least recently used first.
    private(set) var order: [String] = []
    private(set) var costs: [String: Int] = [:]

    var bytes: Int { costs.values.reduce(0, +) }

    mutating func get(_ key: String) -> Bool {
        guard let index = order.firstIndex(of: key) else { return false }
        order.append(order.remove(at: index))
        return true
    }

    /// Stores; the keys evicted, least recently used first.
    mutating func store(_ key: String, cost: Int) -> [String] {
        remove(key)
        order.append(key)
        costs[key] = cost
        var evicted: [String] = []
        while bytes > byteLimit || order.count > countLimit {
            let victim = order.removeFirst()
            costs[victim] = nil
            evicted.append(victim)
        }
        return evicted
    }

    @discardableResult
    mutating func remove(_ key: String) -> Bool {
        guard let index = order.firstIndex(of: key) else { return false }
        order.remove(at: index)
        costs[key] = nil
        return true
    }
}

/// A small seedable generator (SplitMix64), so a failing randomised test can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
