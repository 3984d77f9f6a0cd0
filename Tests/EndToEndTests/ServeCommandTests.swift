import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RealBinary {
    /// `suite serve` as a real process on loopback, called with curl.
    @Suite("suite serve (real binary)")
    struct ServeCommandTests {
        /// A server process on a free port with users `ana` and `root` (admin).
        final class Server {
            let suite: SuiteRunner
            let process: RunningSuite
            let url: String
            /// The one-time console link the server printed (signs in as `admin`).
            let console: String
            let ana: String
            let root: String

            init(config: String? = nil, files: [String: String] = [:], arguments: [String] = []) throws {
                suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-serve"))
                if let config {
                    try config.write(
                        to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
                }
                for (name, text) in files {
                    try text.write(to: suite.directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
                }
                ana = try Self.token(suite, ["ana"])
                root = try Self.token(suite, ["root", "--admin"])
                process = try suite.start(["serve", "--port", "0", "--json"] + arguments)
                let line = process.readLine() ?? ""
                url = (try? JSONValue(parsing: line))?["url"]?.stringValue ?? "http://127.0.0.1:1"
                console = (try? JSONValue(parsing: line))?["console"]?.stringValue ?? ""
            }

            static func token(_ suite: SuiteRunner, _ arguments: [String]) throws -> String {
                let result = try suite.run(["users", "add"] + arguments + ["--json"])
                #expect(result.status == 0, "\(result.stderr)")
                return try JSONValue(parsing: result.stdout)["token"]?.stringValue ?? ""
            }

            /// `curl` with a method, a path, a bearer token and a body; the status and the body as JSON.
            func call(
                _ method: String, _ path: String, token: String?, body: String? = nil, bodyFile: String? = nil
            ) throws -> (status: Int, json: JSONValue) {
                let answer = try request(
                    method, path, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [], body: body,
                    bodyFile: bodyFile)
                return (answer.status, answer.json)
            }

            /// `curl` with headers; the status, the response headers (lower-cased names) and the body as JSON.
            func request(
                _ method: String, _ path: String, headers: [String] = [], body: String? = nil, bodyFile: String? = nil
            ) throws -> (status: Int, headers: [String: String], json: JSONValue) {
                let process = TestProcess()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                var arguments = ["-s", "-D", "-", "-X", method, url + path]
                for header in headers { arguments += ["-H", header] }
                if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
                if let bodyFile { arguments += ["--data-binary", "@" + bodyFile] }
                process.arguments = arguments
                let out = Pipe()
                process.standardOutput = out
                try process.run()
                let data = out.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                let text = String(decoding: data, as: UTF8.self)
                // Interim answers (100 Continue) come first: the last header block is the answer's.
                var parts = text.components(separatedBy: "\r\n\r\n")
                while parts.count > 1, parts[1].hasPrefix("HTTP/") { parts.removeFirst() }
                let lines = (parts.first ?? "").components(separatedBy: "\r\n")
                let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
                var fields: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    fields[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                        .trimmingCharacters(in: .whitespaces)
                }
                let rest = parts.dropFirst().joined(separator: "\r\n\r\n")
                return (status, fields, (try? JSONValue(parsing: rest)) ?? .string(rest))
            }

            func stop() -> Int32 {
                process.send(SIGTERM)
                return process.wait()
            }
        }

        @Test func documentsThroughTheAPIWithAuthRulesAndErrors() throws {
            let server = try Server()
            let put = try server.call("PUT", "/v1/docs/users/ana", token: server.ana, body: #"{"data":{"points":10}}"#)
            #expect(put.status == 200 && put.json["data"]?["points"] == 10)
            let patch = try server.call(
                "PATCH", "/v1/docs/users/ana", token: server.ana, body: #"{"transforms":{"points":{"increment":5}}}"#)
            #expect(patch.status == 200 && patch.json["data"]?["points"] == 15 && patch.json["version"] == 2)
            #expect(try server.call("GET", "/v1/docs/users/ana", token: server.ana).json["data"]?["points"] == 15)

            // 401 without or with a bad token, 403 on another user's document, 400, 404, 413 — each a JSON error.
            for (method, path, token, body, status, code) in [
                ("GET", "/v1/docs/users/ana", nil, nil, 401, "unauthenticated"),
                ("GET", "/v1/docs/users/ana", "suite_nope", nil, 401, "unauthenticated"),
                ("GET", "/v1/docs/users/bob", server.ana, nil, 403, "forbidden"),
                ("PUT", "/v1/docs/users/bob", server.ana, #"{"data":{"x":1}}"#, 403, "forbidden"),
                ("PUT", "/v1/docs/users/ana", server.ana, #"{"dta":{"x":1}}"#, 400, "invalidRequest"),
                ("PUT", "/v1/docs/users/ana", server.ana, #"{"data":"#, 400, "invalidRequest"),
                ("GET", "/v1/docs/users/ana/orders/none", server.ana, nil, 404, "notFound"),
                ("POST", "/v1/query", server.ana, #"{"collection":"users"}"#, 403, "forbidden"),
                ("POST", "/v1/query", server.ana, #"{"colection":"users/ana/orders"}"#, 400, "invalidRequest"),
                ("POST", "/v1/sync/push", server.ana, #"{"client":"c1"}"#, 400, "invalidRequest"),
                (
                    "POST", "/v1/sync/push", server.ana, #"{"client":"c1","mutations":[{"id":1}]}"#, 400,
                    "invalidRequest"
                ),
            ] as [(String, String, String?, String?, Int, String)] {
                let answer = try server.call(method, path, token: token, body: body)
                #expect(answer.status == status, "\(method) \(path) \(body ?? ""): \(answer.json)")
                #expect(answer.json["error"]?["code"]?.stringValue == code, "\(method) \(path)")
                #expect(answer.json["error"]?["message"]?.stringValue?.isEmpty == false)
            }
            let big = server.suite.directory.appendingPathComponent("big.json").path
            try Data(#"{"data":{"x":""#.utf8 + Data(repeating: 0x61, count: 2 << 20) + Data(#""}}"#.utf8)).write(
                to: URL(fileURLWithPath: big))
            #expect(try server.call("PUT", "/v1/docs/users/ana", token: server.ana, bodyFile: big).status == 413)

            // A commit is all or nothing: a failed precondition is 409 and the other write is not applied.
            let commit = try server.call(
                "POST", "/v1/commit", token: server.ana,
                body: #"""
                    {"writes":[{"op":"set","path":"users/ana/orders/o1","data":{"total":5}},
                               {"op":"update","path":"users/ana","data":{"points":0},"precondition":{"version":1}}]}
                    """#)
            #expect(commit.status == 409 && commit.json["error"]?["code"] == "conflict")
            #expect(try server.call("GET", "/v1/docs/users/ana/orders/o1", token: server.ana).status == 404)
            #expect(try server.call("GET", "/v1/docs/users/ana", token: server.ana).json["data"]?["points"] == 15)
            let ok = try server.call(
                "POST", "/v1/commit", token: server.ana,
                body: #"{"writes":[{"op":"set","path":"users/ana/orders/o1","data":{"total":5}},"#
                    + #"{"op":"update","path":"users/ana","data":{"points":0},"precondition":{"version":2}}]}"#)
            #expect(ok.status == 200 && ok.json["results"]?.arrayValue?.count == 2)
            let query = try server.call(
                "POST", "/v1/query", token: server.ana,
                body: #"{"collection":"users/ana/orders","where":["total >= 5"],"orderBy":"total desc","limit":5}"#)
            #expect(query.status == 200 && query.json["documents"]?.arrayValue?.count == 1)

            // An admin reads everyone; a revoked user is refused at once.
            #expect(try server.call("GET", "/v1/docs/users/ana", token: server.root).status == 200)
            #expect(try server.suite.run(["users", "revoke", "ana"]).status == 0)
            #expect(try server.call("GET", "/v1/docs/users/ana", token: server.ana).status == 401)
            #expect(server.stop() == 0)
        }

        @Test func healthMetricsOpenAPIAndAGracefulStop() throws {
            let server = try Server()
            #expect(try server.call("GET", "/healthz", token: nil).json == .object(["status": "ok"]))
            _ = try server.call("PUT", "/v1/docs/users/ana", token: server.ana, body: #"{"data":{"n":1}}"#)
            let openapi = try server.call("GET", "/openapi.json", token: nil)
            #expect(openapi.status == 200 && openapi.json["openapi"] == "3.0.3")
            for path in ["/v1/docs/{path}", "/v1/query", "/v1/commit", "/healthz", "/metrics"] {
                #expect(openapi.json["paths"]?[path] != nil, "\(path)")
            }
            let metrics = try server.call("GET", "/metrics", token: nil).json.stringValue ?? ""
            #expect(metrics.contains(#"suite_http_requests_total{method="PUT",route="/v1/docs",status="200"} 1"#))
            #expect(metrics.contains("suite_documents_written_total 1"))
            #expect(metrics.contains("suite_http_request_duration_seconds_bucket"))
            // SIGTERM: a clean exit, and the store is whole afterwards.
            #expect(server.stop() == 0)
            let after = try server.suite.run(["docs", "get", "users/ana", "--json"])
            #expect(after.status == 0 && after.stdout.contains("\"n\""))
        }

        @Test func rulesFromTheConfigurationAndBadRulesRefusedAtStart() throws {
            let server = try Server(
                config: """
                    server:
                      rules:
                        - {match: "public/**", read: signed-in, write: nobody}
                        - {match: "users/{uid}/**", read: owner, write: owner}
                    """)
            #expect(
                try server.call("PUT", "/v1/docs/public/news", token: server.root, body: #"{"data":{"a":1}}"#).status
                    == 200)
            #expect(try server.call("GET", "/v1/docs/public/news", token: server.ana).status == 200)
            #expect(
                try server.call("PUT", "/v1/docs/public/news", token: server.ana, body: #"{"data":{"a":2}}"#).status
                    == 403)
            #expect(server.stop() == 0)

            let bad = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-serve-bad"))
            try #"server: {rules: [{match: "users/**", read: owner, write: owner}], prot: 1}"#.write(
                to: bad.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let refused = try bad.run(["serve", "--port", "0"])
            #expect(refused.status == 1 && refused.stderr.contains("prot"), "\(refused.stderr)")
            try #"server: {rules: [{match: "users/**", read: owner, write: owner}]}"#.write(
                to: bad.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let noUID = try bad.run(["serve", "--port", "0"])
            #expect(noUID.status == 1 && noUID.stderr.contains("has no {uid}"), "\(noUID.stderr)")
            // A rules file, relative to the configuration file: missing is an error naming it; present, it is used.
            try "server: {rules-file: rules.yaml}\n".write(
                to: bad.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let missing = try bad.run(["serve", "--port", "0"])
            #expect(missing.status == 1 && missing.stderr.contains("rules.yaml"), "\(missing.stderr)")
            try "- {match: \"users/{uid}\", read: owner, write: nobody}\n".write(
                to: bad.directory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
            let shown = try bad.run(["status", "--json"])
            let module = try JSONValue(parsing: shown.stdout)["modules"]?.arrayValue?.first { $0["name"] == "Server" }
            #expect(module?["details"]?["rules"] == "1 path rules", "\(shown.stdout)")  // the file's one, not two
        }

        static let firestoreRules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /users/{uid} {
                  allow read: if request.auth.uid == uid;
                  allow write: if request.auth.uid == uid && request.resource.data.points is int
                    && request.resource.data.points >= 0;
                }
              }
            }
            """

        @Test func firestoreRulesFromTheCommandLineAndTheConfiguration() throws {
            for (config, arguments) in [
                (nil, ["--rules", "firestore.rules"]), ("server: {rules-file: firestore.rules}\n", []),
            ] {
                let server = try Server(
                    config: config, files: ["firestore.rules": Self.firestoreRules], arguments: arguments)
                let good = try server.call(
                    "PUT", "/v1/docs/users/ana", token: server.ana, body: #"{"data":{"points":3}}"#)
                #expect(good.status == 200)
                let negative = try server.call(
                    "PUT", "/v1/docs/users/ana", token: server.ana, body: #"{"data":{"points":-3}}"#)
                #expect(negative.status == 403)
                #expect(negative.json["error"]?["message"]?.stringValue?.contains("firestore.rules:6:") == true)
                #expect(server.stop() == 0)
            }
            // A rules file outside the subset stops the start, naming the line and column.
            let bad = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-serve-bad-rules"))
            try Self.firestoreRules.replacingOccurrences(of: "is int", with: "is integer").write(
                to: bad.directory.appendingPathComponent("firestore.rules"), atomically: true, encoding: .utf8)
            let refused = try bad.run(["serve", "--port", "0", "--rules", "firestore.rules"])
            #expect(refused.status == 1 && refused.stderr.contains("firestore.rules:6:"), "\(refused.stderr)")
            #expect(refused.stderr.contains("'integer' is not a type"), "\(refused.stderr)")
            let missing = try bad.run(["serve", "--port", "0", "--rules", "nowhere.rules"])
            #expect(missing.status == 1 && missing.stderr.contains("nowhere.rules"), "\(missing.stderr)")
        }

        @Test func rulesTestRunsCasesOffline() throws {
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-rules-test"))
            try Self.firestoreRules.write(
                to: suite.directory.appendingPathComponent("firestore.rules"), atomically: true, encoding: .utf8)
            let cases = """
                cases:
                  - {name: own, get: users/ana, auth: {uid: ana}, resource: {points: 1}, expect: allow}
                  - {name: other, get: users/ana, auth: {uid: bob}, resource: {points: 1}, expect: deny}
                  - {name: negative, create: users/ana, auth: {uid: ana}, data: {points: -1}, expect: deny}
                """
            try cases.write(
                to: suite.directory.appendingPathComponent("cases.yaml"), atomically: true, encoding: .utf8)
            let passed = try suite.run(["rules", "test", "firestore.rules", "--cases", "cases.yaml"])
            #expect(passed.status == 0 && passed.stdout.contains("3 passed, 0 failed"), "\(passed.stdout)")
            #expect(passed.stdout.contains("firestore.rules:5:"))
            try cases.replacingOccurrences(of: "expect: deny}", with: "expect: allow}").write(
                to: suite.directory.appendingPathComponent("cases.yaml"), atomically: true, encoding: .utf8)
            let failed = try suite.run(["rules", "test", "firestore.rules", "--cases", "cases.yaml", "--json"])
            #expect(failed.status == 1)
            #expect(try JSONValue(parsing: failed.stdout)["failed"] == 2, "\(failed.stdout)")
            let unusable = try suite.run(["rules", "test", "firestore.rules", "--cases", "none.yaml"])
            #expect(unusable.status == 64 && unusable.stderr.contains("none.yaml"), "\(unusable.stderr)")
        }
    }
}
