// `analytics-receiver`: the collector the analytics tests and benchmark upload to, on loopback, as a process of its
// own. It takes what `HTTPAnalyticsEngine` sends (`POST /v1/batch`, gzip'd or not), keeps each record id once, and can
// be told to misbehave:
//
//   analytics-receiver [--port N] [--port-file FILE]
//   POST /control?mode=ok|500|503|429|408|401|hang[&reject=EVENT_NAME]  how the next batches are answered
//   GET  /stats    {"requests":…,"received":…,"unique":…,"duplicates":…,"gzipped":…,"mode":…}
//   GET  /events   the unique records, one JSON line each, in arrival order
//   PUT  /static   sets the body GET /static answers with (JSON): the bare route `suite-bench sync` loads with wrk
//
// With `reject=NAME`, a batch holding an event of that name is answered 400 (so the sender must split it to isolate
// the event), as a strict collector validating a schema would. `hang` never answers.
import CompressNIO
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

struct ReceiverState {
    var mode = "ok"
    var rejectName: String?
    var requests = 0
    var received = 0
    var gzipped = 0
    var seen = Set<String>()
    var lines: [String] = []

    var statsJSON: String {
        let unique = seen.count
        return
            #"{"requests":\#(requests),"received":\#(received),"unique":\#(unique),"duplicates":\#(received - unique),"#
            + #""gzipped":\#(gzipped),"mode":"\#(mode)"}"#
    }
}

struct Batch: Decodable {
    struct Record: Decodable {
        var id: String
        var name: String
    }
    var batch: [Record]
}

let state = Mutex(ReceiverState())

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// Splits the `batch` array of a body into its record texts (the receiver keeps what it was sent, byte for byte).
func recordTexts(_ body: Data) -> [String] {
    guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
        let batch = object["batch"] as? [Any]
    else { return [] }
    return batch.compactMap { item in
        guard let data = try? JSONSerialization.data(withJSONObject: item, options: [.sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

let router = Router()
router.post("/v1/batch") { request, context -> Response in
    var request = request
    var buffer = try await request.collectBody(upTo: 64 << 20)
    let gzipped = request.headers[.contentEncoding] == "gzip"
    if gzipped {
        guard let inflated = try? buffer.decompress(with: .gzip()) else {
            return Response(status: .badRequest, body: .init(byteBuffer: ByteBuffer(string: "corrupt gzip body")))
        }
        buffer = inflated
    }
    let body = Data(buffer.readableBytesView)
    let (mode, rejectName) = state.withLock { state in
        state.requests += 1
        if gzipped { state.gzipped += 1 }
        return (state.mode, state.rejectName)
    }
    switch mode {
    case "hang":
        try await Task.sleep(for: .seconds(3_600))
        return Response(status: .gatewayTimeout)
    case "ok": break
    default:
        return Response(status: HTTPResponse.Status(code: Int(mode) ?? 500))
    }
    guard let batch = try? JSONDecoder().decode(Batch.self, from: body) else {
        return Response(status: .badRequest, body: .init(byteBuffer: ByteBuffer(string: "not a batch")))
    }
    if let rejectName, batch.batch.contains(where: { $0.name == rejectName }) {
        return Response(
            status: .badRequest, body: .init(byteBuffer: ByteBuffer(string: "event '\(rejectName)' is not allowed")))
    }
    let texts = recordTexts(body)
    state.withLock { state in
        for (index, record) in batch.batch.enumerated() {
            state.received += 1
            if state.seen.insert(record.id).inserted, index < texts.count { state.lines.append(texts[index]) }
        }
    }
    return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"rejected":[]}"#)))
}
router.post("/control") { request, context -> Response in
    let mode = request.uri.queryParameters.get("mode") ?? "ok"
    let reject = request.uri.queryParameters.get("reject")
    state.withLock { state in
        state.mode = mode
        state.rejectName = reject
    }
    return Response(status: .ok)
}
let staticBody = Mutex(ByteBuffer(string: "{}"))
router.put("/static") { request, _ -> Response in
    var request = request
    let body = try await request.collectBody(upTo: 1 << 20)
    staticBody.withLock { $0 = body }
    return Response(status: .ok)
}
router.get("/static") { _, _ -> Response in
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: staticBody.withLock { $0 }))
}
router.get("/stats") { _, _ -> Response in
    Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: state.withLock { $0.statsJSON })))
}
router.get("/events") { _, _ -> Response in
    let text = state.withLock { $0.lines.map { $0 + "\n" }.joined() }
    return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: text)))
}

var logger = Logger(label: "analytics-receiver")
logger.logLevel = .warning
let portFile = argument("--port-file")
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: Int(argument("--port") ?? "0") ?? 0)),
    onServerRunning: { channel in
        let port = channel.localAddress?.port ?? 0
        if let portFile {
            try? "\(port)\n".write(toFile: portFile + ".tmp", atomically: false, encoding: .utf8)
            _ = rename(portFile + ".tmp", portFile)
        }
        FileHandle.standardOutput.write(Data("listening on 127.0.0.1:\(port)\n".utf8))
    },
    logger: logger)
try await app.runService()
