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
    /// The routes `suite serve` adds for the web console (docs/api.md, "The console's routes"), on a real server.
    /// The console itself is tested in Chromium by Tests/Console/console_test.py.
    @Suite("suite serve: the console's API (real binary)")
    struct ConsoleAPITests {
        typealias Server = ServeCommandTests.Server

        static func call(
            _ server: Server, _ method: String, _ path: String, headers: [String] = [], body: String? = nil
        ) throws -> (status: Int, headers: [String: String], json: JSONValue) {
            try server.request(method, path, headers: headers, body: body)
        }

        /// Signs in with a one-time token; the session cookie's header value.
        static func session(_ server: Server, signIn token: String) throws -> String {
            let answer = try call(server, "POST", "/v1/session", body: #"{"signIn":"\#(token)"}"#)
            #expect(answer.status == 200, "\(answer.json)")
            let cookie = answer.headers["set-cookie"] ?? ""
            return String(cookie.prefix { $0 != ";" })
        }

        @Test func oneTimeLinksBecomeHttpOnlySessionCookies() throws {
            let server = try Server()
            defer { _ = server.stop() }
            // The link the server printed signs in as the admin user `admin`, once.
            let printed = String(server.console.split(separator: "#token=").last ?? "")
            #expect(server.console.hasPrefix(server.url + "/console#token=suite_"))
            let first = try Self.call(server, "POST", "/v1/session", body: #"{"signIn":"\#(printed)"}"#)
            #expect(first.status == 200 && first.json["uid"] == "admin" && first.json["admin"] == true)
            let cookie = first.headers["set-cookie"] ?? ""
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
            let again = try Self.call(server, "POST", "/v1/session", body: #"{"signIn":"\#(printed)"}"#)
            #expect(again.status == 401 && again.json["error"]?["code"] == "unauthenticated")
            #expect(again.json["error"]?["hint"]?.stringValue?.contains("suite users signin") == true)

            // `suite users signin` makes a link for any user; the cookie then stands for the bearer token.
            let signin = try server.suite.run(["users", "signin", "ana", "--url", server.url, "--json"])
            #expect(signin.status == 0, "\(signin.stderr)")
            let link = try JSONValue(parsing: signin.stdout)["link"]?.stringValue ?? ""
            let ana = try Self.session(server, signIn: String(link.split(separator: "#token=").last ?? ""))
            #expect(try Self.call(server, "GET", "/v1/session", headers: ["Cookie: " + ana]).json["uid"] == "ana")
            let put = try Self.call(
                server, "PUT", "/v1/docs/users/ana", headers: ["Cookie: " + ana], body: #"{"data":{"n":1}}"#)
            #expect(put.status == 200)
            let other = try Self.call(server, "GET", "/v1/docs/users/root", headers: ["Cookie: " + ana])
            #expect(other.status == 403)
            // Signing out ends the session on the server, not only in the browser.
            let out = try Self.call(server, "DELETE", "/v1/session", headers: ["Cookie: " + ana])
            #expect(out.status == 200 && out.headers["set-cookie"]?.contains("Max-Age=0") == true)
            #expect(try Self.call(server, "GET", "/v1/session", headers: ["Cookie: " + ana]).status == 401)

            // A bearer token can open a session too; wrong input is a 400 or 401 with a hint.
            let viaToken = try Self.call(server, "POST", "/v1/session", body: #"{"token":"\#(server.root)"}"#)
            #expect(viaToken.status == 200 && viaToken.json["admin"] == true)
            let typo = try Self.call(server, "POST", "/v1/session", body: #"{"sigIn":"x"}"#)
            #expect(typo.status == 400 && typo.json["error"]?["hint"]?.stringValue?.contains("signIn") == true)
            #expect(try Self.call(server, "POST", "/v1/session", body: "not json").status == 400)
            #expect(try Self.call(server, "POST", "/v1/session", body: #"{"token":"suite_nope"}"#).status == 401)
            let missing = try server.suite.run(["users", "signin", "nobody"])
            #expect(missing.status != 0 && missing.stderr.contains("suite users add nobody"))
            let badURL = try server.suite.run(["users", "signin", "ana", "--url", "localhost:8080"])
            #expect(badURL.status != 0 && badURL.stderr.contains("--url"))
        }

        @Test func collectionsPagesExplainAndTheConsoleFiles() throws {
            let server = try Server()
            defer { _ = server.stop() }
            for index in 0..<7 {
                _ = try server.call(
                    "PUT", "/v1/docs/users/ana/orders/o\(index)", token: server.ana, body: #"{"data":{"n":\#(index)}}"#)
            }
            _ = try server.call("PUT", "/v1/docs/users/ana/notes/x/deep/d1", token: server.ana, body: #"{"data":{}}"#)
            _ = try server.call("PUT", "/v1/docs/products/p1", token: server.root, body: #"{"data":{}}"#)
            let bearer = { (token: String) in ["Authorization: Bearer " + token] }
            let root = try Self.call(server, "GET", "/v1/collections", headers: bearer(server.root))
            #expect(root.json["collections"] == ["products", "users"])
            let forbidden = try Self.call(server, "GET", "/v1/collections", headers: bearer(server.ana))
            #expect(
                forbidden.status == 403 && forbidden.json["error"]?["hint"]?.stringValue?.contains("users/ana") == true)
            let under = try Self.call(server, "GET", "/v1/collections/users/ana", headers: bearer(server.ana))
            #expect(under.json["collections"] == ["notes", "orders"])
            #expect(
                try Self.call(server, "GET", "/v1/collections/users/root", headers: bearer(server.ana)).status == 403)

            // Pages of 3 in id order, with a cursor; the last page has no next.
            var seen: [String] = []
            var after = ""
            for _ in 0..<4 {
                let page = try Self.call(
                    server, "GET", "/v1/list/users/ana/orders?limit=3" + after, headers: bearer(server.ana))
                #expect(page.status == 200)
                seen += page.json["documents"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
                guard let next = page.json["next"]?.stringValue else { break }
                after = "&after=" + next
            }
            #expect(seen == (0..<7).map { "users/ana/orders/o\($0)" })
            for bad in ["?limit=0", "?limit=abc", "?after=nota/valid/path"] {
                let answer = try Self.call(
                    server, "GET", "/v1/list/users/ana/orders" + bad, headers: bearer(server.ana))
                #expect(answer.status == 400, "\(bad): \(answer.json)")
            }
            #expect(
                try Self.call(server, "GET", "/v1/list/users/root/orders", headers: bearer(server.ana)).status == 403)

            // A query with explain and a cursor.
            let query = try server.call(
                "POST", "/v1/query", token: server.ana,
                body: #"{"collection":"users/ana/orders","where":["n >= 2"],"orderBy":"n","limit":2,"#
                    + #""startAfter":"users/ana/orders/o3","explain":true}"#)
            #expect(
                query.json["documents"]?.arrayValue?.compactMap { $0["path"]?.stringValue }
                    == ["users/ana/orders/o4", "users/ana/orders/o5"])
            #expect(query.json["explain"]?["strategy"]?.stringValue?.isEmpty == false)
            let badCursor = try server.call(
                "POST", "/v1/query", token: server.ana,
                body: #"{"collection":"users/ana/orders","startAfter":"users/ana/orders/nope"}"#)
            #expect(badCursor.status == 400)
            let badExplain = try server.call(
                "POST", "/v1/query", token: server.ana, body: #"{"collection":"users/ana/orders","explain":"yes"}"#)
            #expect(badExplain.status == 400)

            // The console's files, with a content security policy; no token needed.
            let page = try Self.call(server, "GET", "/console")
            #expect(page.status == 200 && page.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(page.headers["content-security-policy"]?.contains("default-src 'self'") == true)
            let script = try Self.call(server, "GET", "/console/console.js")
            #expect(script.status == 200 && script.headers["content-type"]?.hasPrefix("text/javascript") == true)
            #expect(try Self.call(server, "GET", "/console/nope.js").status == 404)
        }

        @Test func theChangeStreamSendsWhatTheCallerMayReadAndEndsOnShutdown() throws {
            let server = try Server()
            let output = try TestSupport.makeTemporaryDirectory("console-sse").appendingPathComponent("stream.txt")
            let curl = TestProcess()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = [
                "-s", "-N", "-o", output.path, "-H", "Authorization: Bearer \(server.ana)",
                server.url + "/v1/changes/stream",
            ]
            try curl.run()
            // The writes come once the stream is open: `event: ready` names the sequence it follows on from.
            var text = ""
            let ready = Date().addingTimeInterval(60)
            while Date() < ready, !text.contains("event: ready\n") {
                Thread.sleep(forTimeInterval: 0.01)
                text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            }
            #expect(text.contains("event: ready\n"), "the stream did not open: \(text)")
            _ = try server.call("PUT", "/v1/docs/users/root", token: server.root, body: #"{"data":{"secret":1}}"#)
            _ = try server.call("PUT", "/v1/docs/users/ana", token: server.ana, body: #"{"data":{"n":1}}"#)
            _ = try server.call("DELETE", "/v1/docs/users/ana", token: server.ana)
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, text.components(separatedBy: "event: change").count < 3 {
                Thread.sleep(forTimeInterval: 0.1)
                text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            }
            #expect(text.hasPrefix("retry: 2000\nevent: ready\n"))
            #expect(text.contains(#""path":"users/ana""#) && text.contains(#""data":{"n":1}"#))
            #expect(!text.contains("users/root") && !text.contains("secret"))
            #expect(text.components(separatedBy: "event: change").count == 3, "\(text)")
            // SIGTERM: the open stream ends and the server stops promptly.
            let start = Date()
            #expect(server.stop() == 0)
            curl.waitUntilExit()
            #expect(Date().timeIntervalSince(start) < 8)
        }

        @Test func theHostsRoutesAnswerWithRulesAndClearErrors() throws {
            let server = try Server()
            defer { _ = server.stop() }
            let root = ["Authorization: Bearer " + server.root]
            let ana = ["Authorization: Bearer " + server.ana]
            let system = try Self.call(server, "GET", "/v1/system", headers: root)
            #expect(system.status == 200 && system.json["modules"]?.arrayValue?.isEmpty == false)
            let denied = try Self.call(server, "GET", "/v1/system", headers: ana)
            #expect(denied.status == 403 && denied.json["error"]?["message"]?.stringValue?.contains("admin") == true)
            #expect(try Self.call(server, "GET", "/v1/system").status == 401)

            #expect(try Self.call(server, "GET", "/v1/work/ana/month/2026-11", headers: ana).json["uid"] == "ana")
            #expect(try Self.call(server, "GET", "/v1/work/root/month/2026-11", headers: ana).status == 403)
            let month = try Self.call(server, "GET", "/v1/work/ana/month/2026-13", headers: ana)
            #expect(month.status == 400 && month.json["error"]?["hint"]?.stringValue?.contains("YYYY-MM") == true)
            #expect(try Self.call(server, "GET", "/v1/work/ana/week/2026-11-02", headers: ana).status == 200)
            #expect(try Self.call(server, "GET", "/v1/work/team/2026-11", headers: ana).status == 403)
            #expect(try Self.call(server, "GET", "/v1/work/team/2026-11", headers: root).json["users"] == [])

            #expect(try Self.call(server, "GET", "/v1/storage", headers: root).json["items"] == 0)
            #expect(try Self.call(server, "GET", "/v1/storage?groups=-1", headers: root).status == 400)
            let group = try Self.call(server, "GET", "/v1/storage/groups/nope", headers: root)
            #expect(group.status == 404 && group.json["error"]?["hint"]?.stringValue?.contains("scan") == true)
            for (body, needle) in [
                (#"{"categroy":"video"}"#, "category"), (#"{"category":"vidoe"}"#, "video"),
                (#"{}"#, "group"), (#"{"olderThan":"yesterday"}"#, "yyyy-MM-dd"), ("[]", "object"),
            ] {
                let answer = try Self.call(server, "POST", "/v1/storage/cleanup", headers: root, body: body)
                let error =
                    "\(answer.json["error"]?["message"]?.stringValue ?? "") \(answer.json["error"]?["hint"]?.stringValue ?? "")"
                #expect(answer.status == 400 && error.contains(needle), "\(body): \(answer.json)")
            }
            let dryRun = try Self.call(
                server, "POST", "/v1/storage/cleanup", headers: root, body: #"{"category":"video"}"#)
            #expect(dryRun.status == 200 && dryRun.json["dryRun"] == true && dryRun.json["freed"]?["items"] == 0)
            #expect(try Self.call(server, "POST", "/v1/storage/cleanup", headers: ana, body: "{}").status == 403)
            let confirm = try Self.call(
                server, "POST", "/v1/storage/cleanup", headers: root, body: #"{"category":"video","confirm":"yes"}"#)
            #expect(confirm.status == 400)

            // Bodies over the limit are 413, with or without a Content-Length (chunked).
            let big = try TestSupport.makeTemporaryDirectory("console-big").appendingPathComponent("big.json")
            try Data(#"{"data":{"x":""#.utf8 + [UInt8](repeating: 0x61, count: 1_100_000) + #""}}"#.utf8).write(to: big)
            let chunked = try server.request(
                "PUT", "/v1/docs/users/ana", headers: ana + ["Transfer-Encoding: chunked"], bodyFile: big.path)
            #expect(chunked.status == 413 && chunked.json["error"]?["code"] == "tooLarge", "\(chunked.json)")
            let session = try server.request(
                "POST", "/v1/session", headers: ["Transfer-Encoding: chunked"], bodyFile: big.path)
            #expect(session.status == 413)

            let usage = try Self.call(server, "GET", "/v1/usage?days=7", headers: root)
            #expect(usage.status == 200 && usage.json["days"]?.arrayValue?.count == 7)
            #expect(usage.json["prices"]?["read"] == 0.06)
            #expect(try Self.call(server, "GET", "/v1/usage?days=0", headers: root).status == 400)
            let analytics = try Self.call(server, "GET", "/v1/analytics?days=3", headers: root)
            #expect(analytics.status == 200 && analytics.json["queue"]?["pending"] != nil)
        }
    }
}
