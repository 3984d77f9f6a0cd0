import Foundation
import RedisTestSupport
import SuiteCore
import SuiteTestSupport
import Testing

extension RealBinary {
    /// `suite cache` through the real binary, against a real nginx on loopback.
    @Suite("suite cache (real binary)")
    struct CacheCommandTests {
        func runner() throws -> SuiteRunner {
            SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-cache"))
        }

        @Test("get: a miss then a hit across processes, the body on stdout, the status on stderr and in --json")
        func getMissThenHit() throws {
            let nginx = try NginxServer(files: ["fresh/a.txt": "alpha"])
            defer { nginx.stop() }
            let suite = try runner()
            let first = try suite.run(["cache", "get", nginx.url("/fresh/a.txt?b=2&a=1")])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout == "alpha")
            #expect(first.stderr.hasPrefix("cache: miss (HTTP 200"))
            let second = try suite.run(["cache", "get", nginx.url("/fresh/a.txt?a=1&b=2"), "--json"])
            let json = try JSONValue(parsing: second.stdout)
            #expect(json["cacheStatus"] == "hit")
            #expect(json["status"] == 200)
            #expect(json["bytes"] == 5)
            #expect(json["headers"]?["cache-status"] == "Suite; hit")
            #expect(nginx.requests(for: "/fresh/a.txt?b=2&a=1").count == 1)
            #expect(nginx.accessLog().count == 1)  // the second process was answered from the cache

            let stats = try JSONValue(parsing: try suite.run(["cache", "stats", "--json"]).stdout)
            #expect(stats["hits"] == 1)
            #expect(stats["misses"] == 1)
            #expect(stats["tiers"]?.arrayValue?.count == 2)

            let listing = try JSONValue(parsing: try suite.run(["cache", "ls", "--json"]).stdout)
            let keys = listing.arrayValue?.compactMap { $0["key"]?.stringValue } ?? []
            #expect(keys == ["GET \(nginx.url("/fresh/a.txt?a=1&b=2"))"])

            let inspect = try suite.run(["cache", "inspect", nginx.url("/fresh/a.txt?a=1&b=2")])
            #expect(inspect.status == 0)
            #expect(inspect.stdout.contains("status     HTTP 200"))
            #expect(inspect.stdout.contains("etag: "))

            let purged = try JSONValue(
                parsing: try suite.run(["cache", "purge", "--prefix", nginx.url("/fresh"), "--json"]).stdout)
            #expect(purged["removed"] == 1)
            #expect(try suite.run(["cache", "ls"]).stdout.contains("the cache is empty"))
        }

        @Test("wrong input: a bad URL, a misspelled policy, a bad header, no purge choice, a missing entry")
        func wrongInputIsAnErrorWithAHint() throws {
            let suite = try runner()
            let cases: [([String], String, String)] = [
                (["cache", "get", "example.com/x"], "is not an absolute URL", "hint: give a URL with a scheme"),
                (
                    ["cache", "get", "http://127.0.0.1:9/x", "--policy", "cache-frist"], "unknown cache policy",
                    "did you mean 'cache-first'"
                ),
                (
                    ["cache", "get", "http://127.0.0.1:9/x", "--header", "nocolon"], "bad header",
                    "hint: write --header"
                ),
                (["cache", "purge"], "say what to purge", "hint:"),
                (["cache", "purge", "--all", "--expired"], "give only one of", "hint:"),
                (["cache", "inspect", "http://127.0.0.1:9/never"], "nothing is cached", "hint: fetch it"),
                (["cache", "secret", "get", "missing"], "no secret named 'missing'", "hint: store it"),
                (["cache", "get", "http://127.0.0.1:9/x", "--policy", "cache-only"], "nothing is cached", "hint:"),
            ]
            for (arguments, message, hint) in cases {
                let result = try suite.run(arguments)
                #expect(result.status != 0, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(hint), "\(arguments): \(result.stderr)")
                #expect(result.exitedNormally)
            }
            let json = try suite.run(["cache", "get", "nope", "--json"])
            #expect(
                try JSONValue(parsing: json.stderr)["error"]?["message"]?.stringValue?.contains("absolute URL") == true)
        }

        @Test("a misspelled key in the cache section is an error naming it, with the closest key")
        func misspelledConfigurationKey() throws {
            let suite = try runner()
            try Data("cache:\n  engine: sqlite\n  options: {byte-limt: 1000}\n".utf8).write(
                to: suite.directory.appendingPathComponent("suite.yaml"))
            let result = try suite.run(["cache", "ls"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("cache.options.byte-limt"))
            #expect(result.stderr.contains("did you mean 'byte-limit'?"))
            try Data("cache:\n  rules: [{pattern: 'https://x/**', lifetime: -5}]\n".utf8).write(
                to: suite.directory.appendingPathComponent("suite.yaml"))
            let bad = try suite.run(["cache", "ls"])
            #expect(bad.stderr.contains("cache.rules[0].lifetime"))
        }

        @Test("write-behind: a response stored by one process is in the file for the next; bad values are refused")
        func writeBehindStoresSurviveTheProcess() throws {
            let suite = try runner()
            let nginx = try NginxServer(files: ["fresh/a.txt": "alpha"])
            defer { nginx.stop() }
            let configuration = suite.directory.appendingPathComponent("suite.yaml")
            try Data("cache:\n  options: {write-behind: 30}\n".utf8).write(to: configuration)
            #expect(try suite.run(["cache", "get", nginx.url("/fresh/a.txt")]).stdout == "alpha")
            // The delay is 30 s, so only the write at exit can have put it in the file the second process reads.
            let second = try suite.run(["cache", "get", nginx.url("/fresh/a.txt"), "--policy", "cache-only"])
            #expect(second.stdout == "alpha", "\(second.stderr)")
            #expect(nginx.accessLog().count == 1)
            for (value, message) in [("0", "above 0 and at most 60"), ("fast", "not \"fast\""), ("61", "not 61")] {
                try Data("cache:\n  options: {write-behind: \(value)}\n".utf8).write(to: configuration)
                let result = try suite.run(["cache", "ls"])
                #expect(result.status == 1)
                #expect(result.stderr.contains("cache.options.write-behind"), "\(result.stderr)")
                #expect(result.stderr.contains(message), "\(result.stderr)")
                #expect(result.stderr.contains("hint:"), "\(result.stderr)")
            }
        }

        @Test("secrets: set from stdin, read back, never in plaintext on disk; no secret on stdin is an error")
        func secretsRoundTripEncrypted() throws {
            let suite = try runner()
            let set = try suite.run(["cache", "secret", "set", "api-token"], input: "tok-SECRET-123")
            #expect(set.status == 0, "\(set.stderr)")
            let get = try suite.run(["cache", "secret", "get", "api-token"])
            #expect(get.stdout == "tok-SECRET-123")
            let dataDirectory = suite.directory.appendingPathComponent("xdg-data/suite")
            let files = FileManager.default.enumerator(atPath: dataDirectory.path)?.compactMap { $0 as? String } ?? []
            #expect(!files.isEmpty)
            for file in files {
                let data = (try? Data(contentsOf: dataDirectory.appendingPathComponent(file))) ?? Data()
                #expect(data.range(of: Data("tok-SECRET-123".utf8)) == nil, "\(file) holds the secret in plaintext")
                #expect(
                    data.range(of: Data("api-token".utf8)) == nil || file.hasSuffix(".key"), "\(file) names the secret")
            }
            let key = dataDirectory.appendingPathComponent("cache.key").path
            let mode = (try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600)
            let empty = try suite.run(["cache", "secret", "set", "x"], input: "")
            #expect(empty.status == 1 && empty.stderr.contains("no secret on standard input"))
        }
    }
}

extension RealBinary.CacheCommandTests {
    @Test(
        "the redis engine from the RedisCache plugin, named in the configuration: a second process hits what the first stored"
    )
    func redisPluginEngineThroughTheBinary() throws {
        let redis = try RedisServer.start()
        defer { redis.stop() }
        let nginx = try NginxServer(files: ["fresh/a.txt": "alpha"])
        defer { nginx.stop() }
        let suite = try runner()
        let configuration = """
            plugins: [RedisCache]
            plugin-path: [\(TestSupport.binDirectory.path)]
            cache: {engine: redis, options: {url: "\(redis.url)", prefix: "e2e:"}, memory: {byte-limit: 0}}
            """
        try Data(configuration.utf8).write(to: suite.directory.appendingPathComponent("suite.yaml"))
        let first = try suite.run(["cache", "get", nginx.url("/fresh/a.txt")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.hasPrefix("cache: miss"))
        let second = try suite.run(["cache", "get", nginx.url("/fresh/a.txt")])
        #expect(second.stderr.hasPrefix("cache: hit"), "\(second.stderr)")
        #expect(second.stdout == "alpha")
        #expect(try redis.cli(["--scan", "--pattern", "e2e:*"]).contains("e2e:"))
        let stats = try JSONValue(parsing: try suite.run(["cache", "stats", "--json"]).stdout)
        #expect(stats["tiers"]?.arrayValue?.first?["engine"] == "redis")

        // A Redis that is not there: a clear error naming host and port.
        redis.stop()
        let down = try suite.run(["cache", "get", nginx.url("/fresh/a.txt")])
        #expect(down.status == 1)
        #expect(down.stderr.contains("127.0.0.1:\(redis.port)"), "\(down.stderr)")
    }
}
