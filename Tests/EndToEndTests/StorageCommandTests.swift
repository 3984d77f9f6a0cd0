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
    /// `suite storage` through the real binary, on generated trees.
    @Suite("suite storage (real binary)")
    struct StorageCommandTests {
        /// A runner and an app-data tree: two chats (one with a hard-linked video), downloads, and a file outside.
        struct Fixture {
            let suite: SuiteRunner
            let app: URL
            let outside: URL

            init() throws {
                suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-storage"))
                app = suite.directory.appendingPathComponent("app")
                outside = suite.directory.appendingPathComponent("outside")
                for directory in ["chats/c1", "chats/c2", "downloads"] {
                    try FileManager.default.createDirectory(
                        at: app.appendingPathComponent(directory), withIntermediateDirectories: true)
                }
                try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
                try Data(repeating: 1, count: 300_000).write(to: app.appendingPathComponent("chats/c1/a.jpg"))
                try Data(repeating: 2, count: 50_000).write(to: app.appendingPathComponent("chats/c1/b.mp4"))
                try Data(repeating: 3, count: 2_000_000).write(to: app.appendingPathComponent("chats/c2/v.mp4"))
                #expect(
                    link(
                        app.appendingPathComponent("chats/c2/v.mp4").path,
                        app.appendingPathComponent("chats/c2/v2.mp4").path) == 0)
                try Data("hello\n".utf8).write(to: app.appendingPathComponent("downloads/notes.txt"))
                try Data("keep me".utf8).write(to: outside.appendingPathComponent("secret.txt"))
            }

            func run(_ arguments: [String]) throws -> CommandResult { try suite.run(arguments) }

            func json(_ arguments: [String]) throws -> JSONValue {
                let result = try suite.run(arguments + ["--json"])
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                return try JSONValue(parsing: result.stdout)
            }

            func scan() throws {
                let result = try run([
                    "storage", "scan", app.path, "--layout", "chat=chats/{groupId}/{contentId}.{ext}",
                ])
                #expect(result.status == 0, "\(result.stderr)")
            }
        }

        /// The sum of `st_blocks × 512` and of `st_size` over the unique inodes of the regular files below `root`.
        static func expectedTotals(_ root: URL) -> (allocated: Int64, logical: Int64) {
            var seen = Set<[UInt64]>()
            var allocated: Int64 = 0
            var logical: Int64 = 0
            let enumerator = FileManager.default.enumerator(atPath: root.path)
            while let relative = enumerator?.nextObject() as? String {
                guard let info = FileStatus(root.appendingPathComponent(relative).path), info.isRegularFile,
                    seen.insert([info.device, info.inode]).inserted
                else { continue }
                allocated += info.blocks * 512
                logical += info.size
            }
            return (allocated, logical)
        }

        @Test("scan then report: totals equal lstat's over unique inodes, groups and categories from the layout")
        func scanAndReport() throws {
            let fixture = try Fixture()
            try fixture.scan()
            let report = try fixture.json(["storage", "report"])
            let expected = Self.expectedTotals(fixture.app)
            #expect(report["allocatedBytes"]?.intValue == expected.allocated)
            #expect(report["logicalBytes"]?.intValue == expected.logical)
            #expect(report["items"] == 5)
            let groups = report["groups"]?.arrayValue ?? []
            #expect(groups.map { $0["groupId"]?.stringValue ?? "" } == ["c2", "c1", "downloads"])
            #expect(groups.first?["service"] == "chat")
            #expect(groups.first?["usage"]?["items"] == 2)  // two links, one file's bytes
            let categories = (report["categories"]?.arrayValue ?? []).compactMap { $0["category"]?.stringValue }
            #expect(categories == ["video", "image", "file"])

            let table = try fixture.run(["storage", "report"])
            #expect(table.stdout.contains("CATEGORY") && table.stdout.contains("█"))
            let top = try fixture.json(["storage", "top", "-n", "1"])
            #expect(top.arrayValue?.first?["groupId"] == "c2")
            let group = try fixture.json(["storage", "group", "c1"])
            #expect(group["usage"]?["items"] == 2)
            let byCount = try fixture.json(["storage", "groups", "--sort", "name"])
            #expect(byCount.arrayValue?.map { $0["groupId"]?.stringValue ?? "" } == ["c1", "c2", "downloads"])
        }

        @Test("a first scan killed (SIGKILL) while it writes: the next scan completes it, totals equal lstat's")
        func killedFirstScan() throws {
            let fixture = try Fixture()
            for group in 0..<80 {
                let directory = fixture.app.appendingPathComponent("chats/k\(group)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                for file in 0..<50 {
                    try Data(repeating: 7, count: 100 + group * 50 + file).write(
                        to: directory.appendingPathComponent("\(file).jpg"))
                }
            }
            let arguments = ["storage", "scan", fixture.app.path, "--layout", "chat=chats/{groupId}/{contentId}.{ext}"]
            let running = try fixture.suite.start(arguments)
            // The signal that the scan writes: the index's write-ahead log exists (the scan begins with a write).
            let wal = fixture.suite.directory.appendingPathComponent("xdg-data/suite/storage.sqlite-wal").path
            let deadline = Date().addingTimeInterval(30)
            while !FileManager.default.fileExists(atPath: wal), Date() < deadline { sched_yield() }
            running.send(SIGKILL)
            running.wait()
            #expect(!running.exitedNormally)

            let again = try fixture.json(arguments)
            #expect(again.arrayValue?.first?["files"]?.intValue ?? 0 > 0)
            let report = try fixture.json(["storage", "report"])
            let expected = Self.expectedTotals(fixture.app)
            #expect(report["allocatedBytes"]?.intValue == expected.allocated)
            #expect(report["logicalBytes"]?.intValue == expected.logical)
            let items: Int64 = 5 + 80 * 50
            #expect(report["items"]?.intValue == items)
            let groups = try fixture.json(["storage", "groups", "--sort", "name"]).arrayValue ?? []
            #expect(groups.count == 2 + 80 + 1)
        }

        @Test("clean: a dry run frees nothing; --yes deletes files and rows; a link out of the root is refused")
        func clean() throws {
            let fixture = try Fixture()
            // A directory inside the root that is a link to a directory outside it.
            #expect(symlink(fixture.outside.path, fixture.app.appendingPathComponent("chats/evil").path) == 0)
            try fixture.scan()

            let plan = try fixture.json(["storage", "clean", "--category", "video"])
            #expect(plan["freed"]?["items"] == 3)
            #expect(FileManager.default.fileExists(atPath: fixture.app.appendingPathComponent("chats/c2/v.mp4").path))

            let deleted = try fixture.json(["storage", "clean", "--group", "c2", "--yes"])
            #expect(deleted["deleted"] == 2)
            #expect(!FileManager.default.fileExists(atPath: fixture.app.appendingPathComponent("chats/c2/v.mp4").path))
            #expect(try fixture.json(["storage", "report"])["items"] == 3)
            #expect(FileManager.default.fileExists(atPath: fixture.outside.appendingPathComponent("secret.txt").path))

            // Nothing selected, or an unknown category: an error with a hint, nothing deleted.
            let empty = try fixture.run(["storage", "clean", "--yes"])
            #expect(empty.status != 0 && empty.stderr.contains("hint:"))
            let typo = try fixture.run(["storage", "clean", "--category", "vidoe", "--yes"])
            #expect(typo.status != 0 && typo.stderr.contains("image, video, audio, file, other"))
            #expect(try fixture.json(["storage", "report"])["items"] == 3)
        }

        @Test("reconcile: the cheap mode says what it cannot see; --full finds drift; --fix repairs")
        func reconcile() throws {
            let fixture = try Fixture()
            try fixture.scan()
            let handle = try FileHandle(forWritingTo: fixture.app.appendingPathComponent("downloads/notes.txt"))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("appended\n".utf8))
            try handle.close()
            try FileManager.default.removeItem(at: fixture.app.appendingPathComponent("chats/c1/b.mp4"))

            let cheap = try fixture.run(["storage", "reconcile"])
            #expect(cheap.status == 0 && cheap.stdout.contains("note: appending"))
            let full = try fixture.json(["storage", "reconcile", "--full"])
            #expect(full.arrayValue?.first?["counts"]?["drifted"] == 1)
            #expect(full.arrayValue?.first?["counts"]?["missingFiles"] == 1)
            _ = try fixture.json(["storage", "reconcile", "--full", "--fix"])
            let after = try fixture.json(["storage", "reconcile", "--full"])
            #expect(after.arrayValue?.first?["counts"]?["drifted"] == 0)
            let expected = Self.expectedTotals(fixture.app)
            #expect(try fixture.json(["storage", "report"])["allocatedBytes"]?.intValue == expected.allocated)
        }

        @Test("wrong input: a missing directory, a bad layout, a bad sort, an unknown group, app-size without dirs")
        func wrongInput() throws {
            let fixture = try Fixture()
            let cases: [([String], String)] = [
                (["storage", "scan", fixture.suite.directory.appendingPathComponent("nope").path], "nope"),
                (["storage", "scan", fixture.app.path, "--layout", "chats/{groupid}/**"], "groupid"),
                (["storage", "groups", "--sort", "sise"], "did you mean 'size'"),
                (["storage", "group", "c9"], "no group 'c9'"),
                (["storage", "app-size"], "--bundle"),
                (["storage", "reconcile", fixture.app.path], "never been scanned"),
            ]
            for (arguments, expected) in cases {
                let result = try fixture.run(arguments)
                #expect(result.status != 0 && result.exitedNormally, "\(arguments)")
                #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
            }
            let config = try fixture.suite.run(["storage", "report"])
            #expect(config.status == 0)
            try "storage: {roots: [{path: /tmp, layot: []}]}\n".write(
                to: fixture.suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let typo = try fixture.run(["storage", "report"])
            #expect(typo.status != 0 && typo.stderr.contains("did you mean 'layout'"), "\(typo.stderr)")
        }

        @Test("app-size: bundle + (data − caches) + groups, in allocated bytes")
        func appSize() throws {
            let fixture = try Fixture()
            let size = try fixture.json([
                "storage", "app-size", "--bundle", fixture.outside.path, "--data", fixture.app.path, "--caches",
                fixture.app.appendingPathComponent("chats/c2").path,
            ])
            let bundle = size["bundleBytes"]?.intValue ?? 0
            let data = size["dataBytes"]?.intValue ?? 0
            let caches = size["cachesBytes"]?.intValue ?? 0
            #expect(caches >= 2_000_000 && data > caches && bundle > 0)
            #expect(size["totalBytes"]?.intValue == bundle + data - caches)
        }

        @Test("the Cache module's stored responses show up as the caches service, without a scan")
        func cacheEntriesAreItems() throws {
            let nginx = try NginxServer(files: ["fresh/a.txt": String(repeating: "a", count: 5_000)])
            defer { nginx.stop() }
            let fixture = try Fixture()
            let fetched = try fixture.run(["cache", "get", nginx.url("/fresh/a.txt")])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            let groups = try fixture.json(["storage", "groups", "--service", "caches"])
            let rows = groups.arrayValue ?? []
            #expect(!rows.isEmpty)
            #expect(rows.allSatisfy { $0["service"] == "caches" })
            #expect(rows.compactMap { $0["usage"]?["logicalBytes"]?.intValue }.reduce(0, +) >= 5_000)

        }

        @Test("the caches recorder opens the storage index on the first cache event: a documents command creates none")
        func recorderOpensTheIndexLazily() throws {
            let fixture = try Fixture()
            let index = fixture.suite.directory.appendingPathComponent("xdg-data/suite/storage.sqlite").path
            let set = try fixture.run(["docs", "set", "users/ana", #"{"points":3}"#])
            #expect(set.status == 0, "\(set.stderr)")
            let get = try fixture.run(["docs", "get", "users/ana"])
            #expect(get.status == 0, "\(get.stderr)")
            #expect(!FileManager.default.fileExists(atPath: index))

            let nginx = try NginxServer(files: ["fresh/a.txt": String(repeating: "a", count: 1_000)])
            defer { nginx.stop() }
            let fetched = try fixture.run(["cache", "get", nginx.url("/fresh/a.txt")])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(FileManager.default.fileExists(atPath: index))
            let rows = try fixture.json(["storage", "groups", "--service", "caches"]).arrayValue ?? []
            #expect(rows.compactMap { $0["usage"]?["items"]?.intValue }.reduce(0, +) == 1)
        }

        @Test("suite cache purge --prefix and --all take the purged entries out of the caches service")
        func purgedCacheEntriesLeaveTheIndex() throws {
            let nginx = try NginxServer(files: [
                "fresh/a.txt": String(repeating: "a", count: 5_000), "fresh/b.txt": String(repeating: "b", count: 700),
            ])
            defer { nginx.stop() }
            let fixture = try Fixture()
            for path in ["/fresh/a.txt", "/fresh/b.txt"] {
                let fetched = try fixture.run(["cache", "get", nginx.url(path)])
                #expect(fetched.status == 0, "\(fetched.stderr)")
            }
            func caches() throws -> (items: Int64, bytes: Int64) {
                let rows = try fixture.json(["storage", "groups", "--service", "caches"]).arrayValue ?? []
                let usages = rows.compactMap { $0["usage"] }
                return (
                    usages.compactMap { $0["items"]?.intValue }.reduce(0, +),
                    usages.compactMap { $0["logicalBytes"]?.intValue }.reduce(0, +)
                )
            }
            let before = try caches()
            #expect(before.items == 2 && before.bytes >= 5_700)

            let purged = try fixture.json(["cache", "purge", "--prefix", nginx.url("/fresh/a")])
            #expect(purged["removed"] == 1)
            let after = try caches()
            #expect(after.items == 1)
            #expect(after.bytes >= 700 && after.bytes < 5_000)

            let all = try fixture.json(["cache", "purge", "--all"])
            #expect(all["removed"] == 1)
            #expect(try caches().items == 0)
        }
    }
}
