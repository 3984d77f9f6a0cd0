@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import Foundation
import PostgresTestSupport
import SuiteCore
import Testing

/// The `postgres` engine's change log keeps one row per commit (layout 3); a schema of layout 2 (a row per path) is
/// moved at start.
@Suite("PostgresDocuments change-log layout")
struct PostgresChangeLogLayoutTests {
    private func put(_ path: String, _ n: Int) -> DocumentMutation {
        DocumentMutation(
            path: path,
            kind: .put(
                body: ValueCodec.encode(["n": .int(Int64(n))]), indexEntries: [IndexEntry(index: "n", key: [UInt8(n)])]
            ))
    }

    private func rows(_ sql: String) async throws -> String {
        try await PostgresServer.shared().psql(sql).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a commit of several paths is one log row; its records read in order, split across pages")
    func oneRowPerCommit() async throws {
        let options = try await PostgresFixture.options()
        let schema = options["schema"]?.stringValue ?? ""
        let engine = try PostgresFixture.engine(options)
        _ = try await engine.commit([put("c/a", 1), put("c/b", 2), put("c/c", 3)], commitTime: 10)
        _ = try await engine.commit(
            [DocumentMutation(path: "c/b", kind: .delete), put("c/d", 4), put("c/a", 5)], commitTime: 20)
        #expect(try await rows("SELECT count(*), sum(records) FROM \(schema).changes") == "2|6")
        let all = try await engine.changes(after: 0, limit: 100)
        #expect(all.map(\.path) == ["c/a", "c/b", "c/c", "c/b", "c/d", "c/a"])
        #expect(all.map(\.sequence) == [1, 1, 1, 2, 2, 2])
        #expect(all[3].document == nil, "a delete has no document")
        #expect(all[5].document?.createTime == 10, "a rewrite keeps its create time")
        #expect(all[5].document?.updateTime == 20)
        #expect(all[5].document?.body == ValueCodec.encode(["n": 5]))
        // Pages of two records: a commit is split where the limit falls.
        #expect(try await engine.changes(after: 0, limit: 2).map(\.path) == ["c/a", "c/b"])
        #expect(try await engine.changes(after: 1, limit: 2).map(\.path) == ["c/b", "c/d"])
        #expect(try await engine.changeLogStatus() == ChangeLogStatus(records: 6, horizon: 0, lastSequence: 2))
    }

    @Test("pruning counts records, keeping whole commits: the commit holding the minimum-th latest record stays")
    func pruningCountsRecords() async throws {
        let options = try await PostgresFixture.options(extra: ["change-log-days": 0, "change-log-minimum": 4])
        let engine = try PostgresFixture.engine(options)
        for i in 1...5 {
            _ = try await engine.commit(
                [put("c/a\(i)", i), put("c/b\(i)", i), put("c/c\(i)", i)], commitTime: Int64(i))
        }
        await engine.shutdown()
        let reopened = try PostgresFixture.engine(options)
        // 15 records in 5 commits of 3; the latest 4 records reach into commit 4, so commits 4 and 5 stay.
        #expect(try await reopened.changeLogStatus() == ChangeLogStatus(records: 6, horizon: 3, lastSequence: 5))
        #expect(try await reopened.changes(after: 3, limit: 100).map(\.sequence) == [4, 4, 4, 5, 5, 5])
        await reopened.shutdown()
    }

    @Test("a schema of layout 2 moves to layout 3 at start: same records, the old commit function gone")
    func migratesLayout2() async throws {
        let options = try await PostgresFixture.options()
        let s = options["schema"]?.stringValue ?? ""
        let engine = try PostgresFixture.engine(options)
        _ = try await engine.commit([put("c/a", 1), put("c/b", 2)], commitTime: 10)
        _ = try await engine.commit([DocumentMutation(path: "c/a", kind: .delete)], commitTime: 20)
        _ = try await engine.commit([put("c/c", 3)], commitTime: 30)
        let before = try await engine.changes(after: 0, limit: 100)
        await engine.shutdown()
        // Back to layout 2 as an older plugin left it: a row per path, a delete without a time.
        _ = try await rows(
            """
            BEGIN;
            ALTER TABLE \(s).changes RENAME TO changes_v3;
            ALTER INDEX \(s).changes_pkey RENAME TO changes_v3_pkey;
            CREATE TABLE \(s).changes (
                sequence bigint NOT NULL, position int NOT NULL, path text COLLATE "C" NOT NULL, body bytea,
                create_time bigint, update_time bigint, PRIMARY KEY (sequence, position));
            INSERT INTO \(s).changes
            SELECT c.sequence, u.position, u.path, u.body, CASE WHEN u.body IS NULL THEN NULL ELSE u.create_time END,
                CASE WHEN u.body IS NULL THEN NULL ELSE c.update_time END
            FROM \(s).changes_v3 c, unnest(c.paths, c.bodies, c.create_times) WITH ORDINALITY u(path, body, create_time, position);
            DROP TABLE \(s).changes_v3;
            CREATE FUNCTION \(s).commit_v2(
                bigint, boolean, text[], smallint[], bigint[], bigint, text[], text[], text[], bytea[], boolean[],
                bytea[], boolean[], text[], text[], text[], bytea[]) RETURNS integer LANGUAGE sql AS 'SELECT 1';
            UPDATE \(s).state SET format = 2;
            COMMIT;
            """)
        #expect(try await rows("SELECT count(*) FROM \(s).changes") == "4")
        let migrated = try PostgresFixture.engine(options)
        #expect(try await rows("SELECT format FROM \(s).state") == "3")
        #expect(try await rows("SELECT count(*), sum(records) FROM \(s).changes") == "3|4")
        #expect(
            try await rows(
                "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                    + "WHERE n.nspname = '\(s)' AND p.proname = 'commit_v2'") == "0")
        #expect(try await migrated.changes(after: 0, limit: 100) == before)
        #expect(try await migrated.changeLogStatus() == ChangeLogStatus(records: 4, horizon: 0, lastSequence: 3))
        _ = try await migrated.commit([put("c/d", 4)], commitTime: 40)
        #expect(try await migrated.changes(after: 3, limit: 100).map(\.path) == ["c/d"])
        await migrated.shutdown()
    }
}
