import ArgumentParser
import Foundation
import GRDB
import SuiteCore

/// `suite-bench`: Suite's benchmarks. Each measurement prints ours beside a named peer (or limit) from the same run.
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suite-bench",
        abstract: "Run Suite's benchmarks: ours beside a named peer from the same run, as a ratio.",
        discussion: "Groups: \(BenchGroup.all.map(\.name).joined(separator: ", ")). Build with -c release (make bench)."
    )

    @Argument(help: "The groups to run (default: all).")
    var groups: [String] = []

    @Flag(help: "Print a JSON array of {name, ours, peer, peerName, unit, ratio, target} instead of tables.")
    var json = false

    @Option(help: "Scale the amount of work (1 = default; smaller is faster and noisier).")
    var scale: Double = 1

    func validate() throws {
        for group in groups where !BenchGroup.all.contains(where: { $0.name == group }) {
            throw ValidationError(
                "unknown group '\(group)'; groups: \(BenchGroup.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() async throws {
        // `bus` includes the plugin-abi rows and `storage` the storage-tree rows; the subsets run them alone.
        let subsets: Set<String> = ["plugin-abi", "storage-tree"]
        let selected =
            groups.isEmpty
            ? BenchGroup.all.filter { !subsets.contains($0.name) } : BenchGroup.all.filter { groups.contains($0.name) }
        var all: [BenchResult] = []
        for group in selected {
            if !json { FileHandle.standardError.write(Data("running \(group.name)…\n".utf8)) }
            let results = try await group.run(scale)
            all += results
            if !json { print(BenchResult.table(group.name, results)) }
        }
        if json { print(JSONValue.array(all.map(\.json)).prettyJSONString) }
    }
}

/// A named set of measurements.
struct BenchGroup: Sendable {
    let name: String
    let run: @Sendable (Double) async throws -> [BenchResult]

    static let all: [BenchGroup] = [
        BenchGroup(name: "bus", run: { try await BusBenchmarks.run(scale: $0) }),
        BenchGroup(name: "documents", run: { try await DocumentsBenchmarks.run(scale: $0) }),
        BenchGroup(name: "documents-writes", run: { try await DocumentsBenchmarks.run(scale: $0, queries: false) }),
        BenchGroup(name: "documents-import", run: { try await DocumentsBenchmarks.runImport(scale: $0) }),
        BenchGroup(name: "documents-store", run: { try await StoreOverheadBenchmarks.run(scale: $0) }),
        BenchGroup(name: "documents-pending", run: { try await PendingScanBenchmarks.run(scale: $0) }),
        BenchGroup(name: "plugin-abi", run: { try await PluginABIBenchmarks.run(scale: $0) }),
        BenchGroup(name: "cache", run: { try await CacheBenchmarks.run(scale: $0) }),
        BenchGroup(name: "cache-http", run: { try await HTTPCacheBenchmarks.run(scale: $0) }),
        BenchGroup(name: "redis", run: { try await RedisCacheBenchmarks.run(scale: $0) }),
        BenchGroup(name: "analytics", run: { try await AnalyticsBenchmarks.run(scale: $0) }),
        BenchGroup(name: "storage", run: { try await StorageBenchmarks.run(scale: $0) }),
        BenchGroup(name: "storage-tree", run: { try await StorageBenchmarks.run(scale: $0, synthetic: false) }),
        BenchGroup(name: "work", run: { try await WorkBenchmarks.run(scale: $0) }),
        BenchGroup(name: "startup", run: { try await StartupBenchmarks.run(scale: $0) }),
        BenchGroup(name: "sync", run: { try await SyncBenchmarks.run(scale: $0) }),
        BenchGroup(name: "sync-wire", run: { try await SyncWireBenchmarks.run(scale: $0) }),
        BenchGroup(name: "postgres", run: { try await PostgresBenchmarks.run(scale: $0) }),
        BenchGroup(name: "firestore", run: { try await FirestoreBenchmarks.run(scale: $0) }),
        BenchGroup(name: "rules", run: { try await RulesBenchmarks.run(scale: $0) }),
    ]
}

/// One measurement: ours beside a peer, higher is better for both, so `ratio = ours / peer`.
struct BenchResult: Sendable {
    var name: String
    var ours: Double
    var peer: Double
    var peerName: String
    var unit: String
    /// What the issue asks of the ratio, e.g. "≥ 10"; a target with a rate unit, e.g. "≥ 1M/s", applies to `ours`.
    var target: String?

    var ratio: Double { peer > 0 ? ours / peer : 0 }

    var json: JSONValue {
        .object([
            "name": .string(name), "ours": .double(ours.rounded()), "peer": .double(peer.rounded()),
            "peerName": .string(peerName), "unit": .string(unit), "ratio": .double((ratio * 1000).rounded() / 1000),
            "target": target.map(JSONValue.string) ?? .null,
        ])
    }

    static func table(_ group: String, _ results: [BenchResult]) -> String {
        var rows = [["\(group)", "ours", "peer", "ratio", "target", "peer name"]]
        for r in results {
            let met =
                r.target.map { target in r.meets(target) ? "\(target) ok" : "\(target) MISSED" } ?? "-"
            rows.append([
                r.name, format(r.ours, r.unit) + " " + r.unit, format(r.peer, r.unit), String(format: "%.2f×", r.ratio),
                met,
                r.peerName,
            ])
        }
        let widths = (0..<rows[0].count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == 0 || i == row.count - 1
                    ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    /// Whether the ratio meets `target` ("≥ 0.5", "≤ 1"), or `ours` does for an absolute rate ("≥ 1M/s", "≥ 20k/s").
    func meets(_ target: String) -> Bool {
        let digits = target.filter { "0123456789.".contains($0) }
        guard var value = Double(digits) else { return true }
        let absolute = target.hasSuffix("/s")
        if absolute { value *= target.contains("M") ? 1_000_000 : target.contains("k") ? 1_000 : 1 }
        let measured = absolute ? ours : ratio
        return target.contains("≤") ? measured <= value : measured >= value
    }

    static func format(_ value: Double, _ unit: String = "") -> String {
        // Milliseconds in whole numbers: "1050 ms", not "1.1k ms".
        if unit == "ms" { return String(format: "%.0f", value) }
        return switch value {
        case 1_000_000...: String(format: "%.2fM", value / 1_000_000)
        case 1_000...: String(format: "%.1fk", value / 1_000)
        default: String(format: "%.1f", value)
        }
    }
}

/// Measures `body` (which performs `operations` operations) several times and returns the best rate per second.
func bestRate(operations: Int, repeats: Int = 5, _ body: () async throws -> Void) async rethrows -> Double {
    var best = 0.0
    for _ in 0..<repeats {
        let start = ContinuousClock.now
        try await body()
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        best = max(best, Double(operations) / max(seconds, 1e-9))
    }
    return best
}

/// A GRDB pool for a benchmark's raw peer: WAL (a pool's mode), `synchronous = NORMAL` as Suite's stores use, and
/// `schema` created.
func rawPeerPool(path: String, schema: String) async throws -> DatabasePool {
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let pool = try DatabasePool(path: path, configuration: configuration)
    try await pool.write { db in try db.execute(sql: schema) }
    return pool
}
