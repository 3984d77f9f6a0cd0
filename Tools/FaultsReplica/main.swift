// suite-faults-replica — one offline-first replica for the fault harness (Tools/faults/replicas.py).
//
//   suite-faults-replica --server URL --token T --store FILE --name NAME --seconds S [--seed N] [--rate OPS]
//       [--counters K] [--timeout SECONDS]
//
// Opens a Documents store on SQLite at FILE as a Sync replica of `suite serve` at URL (HTTPSyncTransport, URLSession),
// then for S seconds makes random writes locally at once, as an app does offline-first: increments of `n` in
// `counters/c{k}` (created by the harness beforehand), edits of its own field NAME in `edits/e{k}`, creates of
// `items/NAME-{i}` and deletes of its own items. Beside the writes, a loop syncs (push, then pull) every 50–250 ms and
// counts what failed. The network between it and the server is what the harness breaks.
//
// Then it prints `{"event": "written", …}` and reads commands on stdin, one a line:
// - `converge`: sync until the outbox is empty and a sync succeeded; prints `{"event": "pushed", "seconds": …}`.
// - `dump`: one more sync (pull), then prints `{"event": "dump", "documents": {path: data}, "expected": …,
//   "figures": …}` and exits. `expected` is what this replica's own writes promise (its increments per counter, the
//   last value of its field per edit document, its items alive and deleted); `documents` is what it holds.
//
// Every line on stdout is one JSON object; errors go to stderr and exit 1 (2 for a wrong command line).
import Documents
import Foundation
import SuiteCore
import Sync
import Synchronization

/// Command-line options.
struct Options {
    var server = ""
    var token = ""
    var store = ""
    var name = ""
    var seconds = 10.0
    var seed: UInt64 = 1
    var rate = 20.0
    var counters = 4
    var timeout = 3.0

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var index = 0
        func value() -> String {
            index += 1
            guard index < arguments.count else { usage("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--server": options.server = value()
            case "--token": options.token = value()
            case "--store": options.store = value()
            case "--name": options.name = value()
            case "--seconds": options.seconds = number(value(), "--seconds")
            case "--seed": options.seed = UInt64(number(value(), "--seed"))
            case "--rate": options.rate = number(value(), "--rate")
            case "--counters": options.counters = Int(number(value(), "--counters"))
            case "--timeout": options.timeout = number(value(), "--timeout")
            default: usage("unknown option '\(arguments[index])'")
            }
            index += 1
        }
        if options.server.isEmpty || options.store.isEmpty || options.name.isEmpty {
            usage("--server, --store and --name are required")
        }
        guard options.name.allSatisfy({ $0.isLetter || $0.isNumber }) else { usage("--name takes letters and digits") }
        return options
    }

    static func number(_ text: String, _ option: String) -> Double {
        guard let number = Double(text), number >= 0, number.isFinite else { usage("\(option) takes a number ≥ 0") }
        return number
    }

    static func usage(_ message: String) -> Never {
        FileHandle.standardError.write(
            Data(
                ("suite-faults-replica: \(message)\nusage: suite-faults-replica --server URL --token T --store FILE "
                    + "--name NAME --seconds S [--seed N] [--rate OPS] [--counters K] [--timeout SECONDS]\n").utf8))
        exit(2)
    }
}

/// A small deterministic generator (SplitMix64), so that a seed replays the same writes.
struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
}

/// What the transport saw: requests that failed (each one a retry later), and the server's answers per mutation.
struct TransportCounts: Sendable {
    var failedRequests = 0
    var pushes = 0
    var applied = 0
    var duplicates = 0
    var rejected = 0
    var rejections: [String] = []
}

/// The HTTP transport, counting what happens on the wire.
final class CountingTransport: SyncTransport {
    let base: HTTPSyncTransport
    let counts = Mutex(TransportCounts())

    init(_ base: HTTPSyncTransport) { self.base = base }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        let response = try await counting { try await base.push(request) }
        counts.withLock { counts in
            counts.pushes += 1
            for result in response.results {
                switch result.status {
                case .applied: counts.applied += 1
                case .duplicate: counts.duplicates += 1
                case .rejected:
                    counts.rejected += 1
                    counts.rejections.append("\(result.id): \(result.message ?? "rejected")")
                }
            }
        }
        return response
    }

    func changes(since: Int64, wait: Duration, limit: Int) async throws -> SyncChangesResponse {
        try await counting { try await base.changes(since: since, wait: wait, limit: limit) }
    }

    func document(_ path: String) async throws -> JSONValue? {
        try await counting { try await base.document(path) }
    }

    func snapshot(after: String?, limit: Int) async throws -> SyncSnapshotResponse {
        try await counting { try await base.snapshot(after: after, limit: limit) }
    }

    private func counting<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            counts.withLock { $0.failedRequests += 1 }
            throw error
        }
    }
}

/// What this replica's own writes promise.
struct Expected {
    var increments: [String: Int] = [:]
    var edits: [String: Int] = [:]
    var alive: Set<String> = []
    var deleted: Set<String> = []
    var mutations = 0

    var json: JSONValue {
        .object([
            "increments": .object(increments.mapValues { .int(Int64($0)) }),
            "edits": .object(edits.mapValues { .int(Int64($0)) }),
            "alive": .array(alive.sorted().map { .string($0) }),
            "deleted": .array(deleted.sorted().map { .string($0) }),
            "mutations": .int(Int64(mutations)),
        ])
    }
}

func emit(_ object: [String: JSONValue]) {
    FileHandle.standardOutput.write(Data((JSONValue.object(object).jsonString + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("suite-faults-replica: \(message)\n".utf8))
    exit(1)
}

/// Makes one random write; returns after the local commit (the write is acknowledged to the app then).
func writeOnce(_ client: SyncClient, _ options: Options, _ random: inout Generator, _ expected: inout Expected)
    async throws
{
    let roll = random.below(100)
    let sequence = expected.mutations + 1
    if roll < 40 {
        let path = "counters/c\(random.below(options.counters))"
        try await client.write([["op": "update", "path": .string(path), "transforms": ["n": ["increment": 1]]]])
        expected.increments[path, default: 0] += 1
    } else if roll < 65 {
        let path = "edits/e\(random.below(options.counters))"
        try await client.write([
            ["op": "set", "path": .string(path), "data": [options.name: .int(Int64(sequence))], "merge": true]
        ])
        expected.edits[path] = sequence
    } else if roll < 85 || expected.alive.isEmpty {
        let path = "items/\(options.name)-\(sequence)"
        try await client.write([
            ["op": "set", "path": .string(path), "data": ["by": .string(options.name), "n": .int(Int64(sequence))]]
        ])
        expected.alive.insert(path)
    } else {
        let alive = expected.alive.sorted()
        let path = alive[random.below(alive.count)]
        try await client.write([["op": "delete", "path": .string(path)]])
        expected.alive.remove(path)
        expected.deleted.insert(path)
    }
    expected.mutations = sequence
}

/// Every document of the collections the harness compares, as tagged JSON by path.
func documents(_ store: DocumentStore) async throws -> [String: JSONValue] {
    var result: [String: JSONValue] = [:]
    for collection in ["counters", "edits", "items"] {
        for snapshot in try await store.collection(collection).query.getDocuments().documents {
            result[snapshot.path.string] = snapshot.json["data"] ?? .null
        }
    }
    return result
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
do {
    let store = DocumentStore(engine: try SQLiteDocumentEngine(path: options.store))
    let transport = CountingTransport(
        try HTTPSyncTransport(
            baseURL: options.server, token: options.token, timeout: .milliseconds(Int(options.timeout * 1000))))
    let client = try await SyncClient(store: store, transport: transport)
    // The first pull brings the counters the harness created (an update needs its document), before any fault.
    var attempts = 0
    while true {
        do {
            try await client.sync()
            break
        } catch {
            attempts += 1
            if attempts >= 50 { fail("the first sync failed 50 times: \(error)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
    emit(["event": "ready", "name": .string(options.name)])
    let started = ContinuousClock.now
    let syncs = Mutex((attempts: 0, failures: 0))

    // The sync loop: push and pull while the writes go on, whatever the network does.
    let syncing = Task {
        var random = Generator(state: options.seed ^ 0x5EED)
        while !Task.isCancelled {
            do {
                try await client.sync()
                syncs.withLock { $0.attempts += 1 }
            } catch is CancellationError {
                break
            } catch {
                syncs.withLock {
                    $0.attempts += 1
                    $0.failures += 1
                }
            }
            try? await Task.sleep(for: .milliseconds(50 + random.below(200)))
        }
    }

    var random = Generator(state: options.seed)
    var expected = Expected()
    let interval = options.rate > 0 ? 1.0 / options.rate : 0.05
    while ContinuousClock.now - started < .milliseconds(Int(options.seconds * 1000)) {
        try await writeOnce(client, options, &random, &expected)
        try await Task.sleep(for: .milliseconds(Int(interval * 1000 * (0.5 + Double(random.below(100)) / 100))))
    }
    syncing.cancel()
    _ = await syncing.result
    emit(["event": "written", "name": .string(options.name), "mutations": .int(Int64(expected.mutations))])

    while let line = readLine() {
        switch line.trimmingCharacters(in: .whitespaces) {
        case "converge":
            let from = ContinuousClock.now
            var pending = Int.max
            while pending > 0 {
                do {
                    try await client.sync()
                    pending = client.status.pending
                } catch {
                    syncs.withLock { $0.failures += 1 }
                    try await Task.sleep(for: .milliseconds(200))
                }
                syncs.withLock { $0.attempts += 1 }
            }
            let elapsed = (ContinuousClock.now - from).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            emit(["event": "pushed", "name": .string(options.name), "seconds": .double(seconds)])
        case "dump":
            var pulled = false
            for _ in 0..<50 where !pulled {
                do {
                    try await client.sync()
                    pulled = true
                } catch {
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            guard pulled else { fail("the last pull failed 50 times") }
            let counts = transport.counts.withLock { $0 }
            let loops = syncs.withLock { $0 }
            emit([
                "event": "dump", "name": .string(options.name),
                "documents": .object(try await documents(store)),
                "expected": expected.json,
                "pending": .int(Int64(client.status.pending)),
                "figures": [
                    "mutations": .int(Int64(expected.mutations)),
                    "syncs": .int(Int64(loops.attempts)),
                    "failedSyncs": .int(Int64(loops.failures)),
                    "failedRequests": .int(Int64(counts.failedRequests)),
                    "pushes": .int(Int64(counts.pushes)),
                    "applied": .int(Int64(counts.applied)),
                    "duplicates": .int(Int64(counts.duplicates)),
                    "rejected": .int(Int64(counts.rejected)),
                    "rejections": .array(counts.rejections.prefix(10).map { .string($0) }),
                ],
            ])
            try await transport.base.shutdown()
            await store.close()
            exit(0)
        case "": continue
        default: fail("unknown command '\(line)' (converge, dump)")
        }
    }
    fail("stdin closed before dump")
} catch {
    fail((error as? any SuiteDescribedError).map { "\($0.message)" } ?? "\(error)")
}
