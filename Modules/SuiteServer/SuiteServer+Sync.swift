import Documents
import Foundation
import Hummingbird
import NIOCore
import SuiteCore
import Sync

extension SuiteServer {
    /// `POST /v1/sync/push`: `{"client", "mutations": [{"id", "writes": [...]}]}`; each mutation is applied once,
    /// atomically, if the rules let the caller write every path it touches; otherwise it is rejected with the reason.
    func push(_ account: ServerAccounts.Account, _ body: JSONValue) async throws -> (Int, ByteBuffer) {
        let request: SyncPushRequest
        do { request = try SyncPushRequest(json: body) } catch let error as SyncError {
            throw ServerError(
                .invalidRequest, "the body is not a push (\(error.message))",
                hint: "expected {\"client\", \"mutations\": [{\"id\", \"writes\"}]}")
        }
        try await admit(account, .writes(ops: request.mutations.flatMap(\.writes).map { $0["op"]?.stringValue }))
        let response = try await sync.push(
            request, authorize: { path in try require(account, write: true, path) },
            review: rules.review(for: account, reserved: SyncHost.reservedRoot))
        metrics.documents(written: response.results.filter { $0.status == .applied }.count)
        return (200, ByteBuffer(string: response.json.jsonString))
    }

    /// `GET /v1/sync/changes?since=N&wait=SECONDS&limit=N`: the changes after `since` the caller may read, waiting up
    /// to `wait` seconds (at most 30) for one.
    func changes(_ account: ServerAccounts.Account, _ query: Parameters) async throws -> (Int, ByteBuffer) {
        func number(_ name: String, default value: Double, range: ClosedRange<Double>) throws -> Double {
            guard let text = query.get(name) else { return value }
            guard let number = Double(text), range.contains(number) else {
                throw ServerError(
                    .invalidRequest, "\(name) must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        func integer(_ name: String, default value: Int64, range: ClosedRange<Int64>) throws -> Int64 {
            guard let text = query.get(name) else { return value }
            guard let number = Int64(text), range.contains(number) else {
                throw ServerError(
                    .invalidRequest, "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        let since = try integer("since", default: 0, range: 0...Int64.max)
        let wait = try number("wait", default: 0, range: 0...30)
        let limit = Int(try integer("limit", default: 500, range: 1...1_000))
        let response = try await sync.changes(since: since, limit: limit, wait: .milliseconds(Int(wait * 1000))) {
            await mayRead(account, $0, $1)
        }
        try await admit(account, .reads(response.changes.count))
        metrics.documents(read: response.changes.count)
        return (200, ByteBuffer(bytes: try JSONEncoder().encode(response)))
    }

    /// `GET /v1/sync/snapshot?after=PATH&limit=N`: a page of every document the caller may read (what a replica reads
    /// again when the change log no longer reaches its checkpoint). Only the parts of the store the caller's rules can
    /// open are walked.
    func snapshot(_ account: ServerAccounts.Account, _ query: Parameters) async throws -> (Int, ByteBuffer) {
        let limitText = query.get("limit") ?? "500"
        guard let limit = Int(limitText), (1...1_000).contains(limit) else {
            throw ServerError(.invalidRequest, "limit must be an integer from 1 to 1000, not '\(limitText)'")
        }
        let after = query.get("after").flatMap { $0.isEmpty ? nil : $0 }
        let response: SyncSnapshotResponse
        do {
            response = try await sync.snapshot(roots: rules.readRoots(for: account), after: after, limit: limit) {
                await mayRead(account, $0, $1)
            }
        } catch let error as SyncError where error.code == .invalidInput {
            throw ServerError(.invalidRequest, error.message, hint: error.hint)
        }
        try await admit(account, .reads(response.documents.count))
        metrics.documents(read: response.documents.count)
        return (200, ByteBuffer(bytes: try JSONEncoder().encode(response)))
    }
}
