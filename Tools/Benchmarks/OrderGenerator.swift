import Documents
import Foundation
import GRDB
import SuiteTestSupport

/// Deterministic order-shaped documents: six top-level fields (customer, status, total, createdAt, three line items,
/// a shipping address), about 720 bytes encoded.
enum OrderGenerator {
    static let statuses = ["pending", "paid", "packed", "shipped", "delivered"]
    static let products = [
        "Ceramic pour-over coffee dripper, white", "Stainless steel milk frothing pitcher 600 ml",
        "Organic single-origin whole bean coffee, Ethiopia Yirgacheffe 1 kg", "Reusable unbleached paper filters x100",
        "Burr grinder with 40 grind settings and timer", "Insulated travel mug, matte black, 350 ml",
        "Glass carafe with cork collar and leather tie", "Digital kitchen scale with built-in brew timer",
    ]
    static let categories = ["coffee & tea", "brewing equipment", "kitchen accessories", "gifts and bundles"]
    static let cities = ["Lyon", "Porto", "Leipzig", "Bologna", "Utrecht", "Gothenburg", "Ghent", "Kraków"]
    static let streets = ["Rue de la République", "Rua das Flores", "Karl-Liebknecht-Straße", "Via dell'Indipendenza"]
    static let names = ["Ada Lovelace", "Grace Hopper", "Katherine Johnson", "Margaret Hamilton", "Radia Perlman"]

    static func ids(count: Int, seed: UInt64) -> [String] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in AutoID.generate(using: &generator) }
    }

    static func customer(_ n: Int) -> String { "customer-" + String(n + 10_000_000) }

    static func order(_ i: Int, customer: Int) -> DocumentData {
        var random = SplitMix64(seed: UInt64(i) &* 0x9E37_79B9 &+ 17)
        func pick<T>(_ list: [T]) -> T { list[Int(random.next() % UInt64(list.count))] }
        var total = 0.0
        var items: [DocumentValue] = []
        for _ in 0..<3 {
            let quantity = Int64(1 + random.next() % 4)
            let price = Double(500 + random.next() % 20_000) / 100
            total += Double(quantity) * price
            items.append(
                .map([
                    "sku": .string("SKU-" + String(100_000 + random.next() % 900_000)),
                    "name": .string(pick(products)),
                    "quantity": .int(quantity),
                    "unitPrice": .double(price),
                    "category": .string(pick(categories)),
                ]))
        }
        return [
            "customer": .string(Self.customer(customer)),
            "status": .string(pick(statuses)),
            "total": .double((total * 100).rounded() / 100),
            "createdAt": .timestamp(Timestamp(microseconds: 1_767_225_600_000_000 + Int64(i) * 60_000_000)),
            "items": .array(items),
            "shipping": .map([
                "name": .string(pick(names)),
                "street": .string(String(1 + random.next() % 200) + " " + pick(streets)),
                "city": .string(pick(cities)),
                "postalCode": .string(String(10_000 + random.next() % 90_000)),
                "country": .string("EU"),
                "email": .string("customer\(customer)@example.org"),
                "phone": .string("+33 6 " + String(10_000_000 + random.next() % 89_999_999)),
                "instructions": .string(
                    "If nobody answers, leave the parcel with the neighbour at number " + String(random.next() % 99)),
            ]),
        ]
    }
}

/// Files in the benchmark's temporary directory.
final class TempFiles: Sendable {
    let directory: String
    private let counter = Counter()
    init(directory: String) { self.directory = directory }

    func next(_ name: String) -> String { directory + "/\(name)-\(counter.increment()).sqlite" }

    /// Removes a database and its WAL and shared-memory files.
    func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() -> Int {
            lock.lock()
            defer { lock.unlock() }
            value += 1
            return value
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
