public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real nginx (Debian's `nginx-light`) on a loopback port, as an ordinary process of the test's user with its own
/// configuration, document root and logs in a temporary directory: files served with ETag and Last-Modified, and
/// `Cache-Control` set per folder. Tests fail, not skip, when nginx is missing (`.ci/run` installs it).
public final class NginxServer {
    /// Its folder: configuration, `www/` (the document root), logs.
    public let directory: URL
    /// The loopback port it listens on.
    public let port: Int
    private let process: TestProcess

    /// The folders served, each with its own caching headers.
    public static let locations = """
            location /fresh/ { add_header Cache-Control "max-age=60"; }
            location /short/ { add_header Cache-Control "max-age=5"; }
            location /nocache/ { add_header Cache-Control "no-cache"; }
            location /nostore/ { add_header Cache-Control "no-store"; }
            location /vary/ { add_header Cache-Control "max-age=60"; add_header Vary "Accept-Language"; }
            location /swr/ { add_header Cache-Control "max-age=1, stale-while-revalidate=30"; }
            location /gzip/ { gzip on; gzip_min_length 1; gzip_types text/plain; add_header Cache-Control "max-age=60"; }
            location /slow/ { add_header Cache-Control "no-cache"; limit_rate 1m; limit_rate_after 0; sendfile off; }
            location /hostile/ { add_header Cache-Control "=, max-age=99999999999999999999, s-maxage=9223372036854775807, stale-while-revalidate=99999999999999999999"; add_header Age "9223372036854775807"; }
        """

    /// Starts nginx serving `files` (path under the root → content).
    public init(files: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") else {
            throw NginxError("nginx is not installed: run `bash Tools/install-deps.sh` (Debian package nginx-light)")
        }
        directory = try TestSupport.makeTemporaryDirectory("nginx")
        let root = directory.appendingPathComponent("www")
        for (path, content) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content.utf8).write(to: url)
        }
        var lastError = ""
        for _ in 0..<10 {
            let port = try LoopbackPort.free()
            let d = directory.path
            let configuration = """
                daemon off;
                master_process off;
                worker_processes 1;
                pid \(d)/nginx.pid;
                error_log \(d)/error.log warn;
                events { worker_connections 512; }
                http {
                    log_format cachetest escape=none '$request_method $request_uri $status "$http_if_none_match"';
                    access_log \(d)/access.log cachetest;
                    client_body_temp_path \(d)/tmp-body;
                    proxy_temp_path \(d)/tmp-proxy;
                    fastcgi_temp_path \(d)/tmp-fastcgi;
                    uwsgi_temp_path \(d)/tmp-uwsgi;
                    scgi_temp_path \(d)/tmp-scgi;
                    default_type text/plain;
                    etag on;
                    server {
                        listen 127.0.0.1:\(port);
                        root \(d)/www;
                \(Self.locations)
                    }
                }
                """
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("nginx.pid"))
            let file = directory.appendingPathComponent("nginx.conf")
            try Data(configuration.utf8).write(to: file)
            let process = TestProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-p", d, "-c", file.path, "-e", "\(d)/error.log"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Self.waitUntilListening(
                port: port, process: process, pidFile: directory.appendingPathComponent("nginx.pid"))
            {
                self.port = port
                self.process = process
                return
            }
            process.signal(SIGKILL)
            process.waitUntilExit()
            lastError = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        }
        throw NginxError("nginx did not start: \(lastError)")
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The access log's lines: `METHOD URI STATUS "IF-NONE-MATCH"`.
    public func accessLog() -> [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Lines of the access log for `uri` (requests nginx answered for it). nginx logs a request just after sending its
    /// response, so this waits (up to 2 s) for at least `expected` lines, then 50 ms more for any extra one.
    public func requests(for uri: String, expected: Int = 1) -> [String] {
        func lines() -> [String] {
            accessLog().filter { $0.split(separator: " ").dropFirst().first.map(String.init) == uri }
        }
        for _ in 0..<100 where lines().count < expected { usleep(20_000) }
        usleep(50_000)
        return lines()
    }

    /// ``requests(for:expected:)`` for async tests: waits with `Task.sleep`, so the work it waits for (a refresh in a
    /// task of its own) gets a thread of the cooperative pool.
    public func requests(for uri: String, expected: Int = 1) async -> [String] {
        func lines() -> [String] {
            accessLog().filter { $0.split(separator: " ").dropFirst().first.map(String.init) == uri }
        }
        for _ in 0..<100 where lines().count < expected { try? await Task.sleep(for: .milliseconds(20)) }
        try? await Task.sleep(for: .milliseconds(50))
        return lines()
    }

    /// Rewrites a served file (nginx's ETag changes with its size and time).
    public func write(_ path: String, _ content: String) throws {
        try Data(content.utf8).write(to: directory.appendingPathComponent("www").appendingPathComponent(path))
    }

    /// Kills nginx (SIGKILL: a test server needs no graceful stop, and single-process nginx can linger on SIGTERM).
    public func stop() {
        if process.isRunning {
            process.signal(SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    /// Whether this nginx listens on `port`: it wrote its pid file (which it does only once its sockets are bound) and
    /// is running, and a connection succeeds. A connection alone could reach another server that took the port first
    /// (nginx then fails to bind and exits), or the socket itself (a loopback connect to a free port can self-connect).
    private static func waitUntilListening(port: Int, process: TestProcess, pidFile: URL) -> Bool {
        for _ in 0..<200 {
            if !process.isRunning { return false }
            guard FileManager.default.fileExists(atPath: pidFile.path) else {
                usleep(20_000)
                continue
            }
            if LoopbackPort.accepts(port) { return true }
            usleep(20_000)
        }
        return false
    }
}

/// nginx is missing or did not start.
public struct NginxError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
