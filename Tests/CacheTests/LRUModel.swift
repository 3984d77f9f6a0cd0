import SuiteTestSupport

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

/// The randomised tests' generator.
typealias SeededGenerator = SplitMix64
