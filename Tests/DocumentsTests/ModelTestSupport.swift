import Documents
import SuiteTestSupport

/// The property tests' generator (SuiteTestSupport's SplitMix64).
typealias ModelTestRandom = SplitMix64

/// Random document values biased toward edge cases (shared prefixes, zero bytes, large ints, NaN, ±0).
enum ModelValueGenerator {
    static let strings = [
        "", "a", "ab", "a\u{0}", "a\u{0}b", "\u{0}", "b", "Z", "é", "\u{FF61}", "\u{1F600}", "a/b", "a!",
    ]
    static let ints: [Int64] = [
        0, 1, -1, 2, 42, -42, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1,
        1 << 53, (1 << 53) + 1, (1 << 53) - 1, -(1 << 53) - 1, (1 << 62) + 3, -(1 << 62) - 3,
    ]
    static let doubles: [Double] = [
        0, -0.0, 1, -1, 0.5, -0.5, 1.5, .nan, .infinity, -.infinity, 9_007_199_254_740_992.0,
        9_223_372_036_854_775_808.0, -9_223_372_036_854_775_808.0, 4.611686018427388e18, .leastNonzeroMagnitude,
        -.leastNonzeroMagnitude, .greatestFiniteMagnitude, 2.5,
    ]
    static let references = ["a/b", "a/b/c/d", "a/b!", "a!/b", "b/a", "a/b\u{0}", "a/ab"]

    static func value(_ rng: inout ModelTestRandom, depth: Int = 0) -> DocumentValue {
        let kinds = depth >= 3 ? 9 : 11
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2:
            return Bool.random(using: &rng)
                ? .int(ints.randomElement(using: &rng)!) : .int(Int64.random(in: -1000...1000, using: &rng))
        case 3:
            return Bool.random(using: &rng)
                ? .double(doubles.randomElement(using: &rng)!) : .double(Double.random(in: -1000...1000, using: &rng))
        case 4: return .timestamp(Timestamp(microseconds: Int64.random(in: -5...5, using: &rng) * 1_000_003))
        case 5: return .string(string(&rng))
        case 6:
            return .bytes(
                (0..<Int.random(in: 0...3, using: &rng)).map { _ in [0, 1, 0xFF].randomElement(using: &rng)! })
        case 7: return .reference(references.randomElement(using: &rng)!)
        case 8:
            return .geoPoint(
                GeoPoint(
                    latitude: [-1, 0, 1, .nan].randomElement(using: &rng)!,
                    longitude: [-1, 0, 1].randomElement(using: &rng)!))
        case 9: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in value(&rng, depth: depth + 1) })
        default:
            var map: [String: DocumentValue] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &rng) { map[string(&rng)] = value(&rng, depth: depth + 1) }
            return .map(map)
        }
    }

    static func string(_ rng: inout ModelTestRandom) -> String {
        if Bool.random(using: &rng) { return strings.randomElement(using: &rng)! }
        return strings.randomElement(using: &rng)! + strings.randomElement(using: &rng)!
    }

    static func data(_ rng: inout ModelTestRandom) -> DocumentData {
        var data: DocumentData = [:]
        for _ in 0..<Int.random(in: 0...6, using: &rng) { data[string(&rng)] = value(&rng) }
        return data
    }

    /// A document shaped like an order: six top-level fields, about 720 bytes encoded.
    static func order(_ n: Int = 1) -> DocumentData {
        var items: [DocumentValue] = []
        for i in 0..<4 {
            items.append(
                .map([
                    "sku": .string("SKU-\(100_000 + i * 7 + n)"),
                    "name": .string("Product number \(i) with a longer name"),
                    "quantity": .int(Int64(i + 1)),
                    "unitPrice": .double(9.99 + Double(i)),
                    "tags": .array([.string("kitchen"), .string("sale")]),
                ]))
        }
        return [
            "orderID": .string("ord_\(1_000_000 + n)"),
            "customer": .map([
                "id": .string("cust_\(n % 977)"),
                "name": .string("Ann Example"),
                "email": .string("ann.example@example.com"),
                "address": .map([
                    "street": .string("12 Rue de Rivoli"), "city": .string("Paris"), "zip": .string("75001"),
                    "country": .string("FR"),
                ]),
            ]),
            "items": .array(items),
            "total": .double(123.45),
            "status": .string(["paid", "shipped", "pending"][n % 3]),
            "createdAt": .timestamp(Timestamp(microseconds: 1_763_000_000_000_000 + Int64(n))),
        ]
    }
}
