/// The tables, indexes and commit function the `postgres` engine keeps in its schema (created when missing, in one
/// transaction, under an advisory lock so that servers starting together do not race).
///
/// - `state`: one row, the last commit's sequence. Every writing commit locks it first, so commits from any number of
///   servers are serialised and their sequences are assigned in commit order — a follower of the change log never
///   sees sequence 8 before 7 is visible.
/// - `documents`: one row per document. `name_key` is the path's document-name sort key (see the Documents module),
///   indexed with `parent` and with `collection_id` for listings; `data` is the body decoded as JSONB when the `json`
///   option is on (for SQL tools; `body` stays the authority); `entry_indexes` and `entry_keys` are the document's
///   own index entries, so that a rewrite deletes exactly those (no index on `entries.path` to maintain).
/// - `entries`: the secondary index entries, `(index_name, key, path)`, the primary key that scans walk. `key` and
///   paths compare bytewise (`bytea`, `COLLATE "C"`), as the engine contract asks.
/// - `changes`: the change log, one row per commit: the paths it wrote in order, each with its body as the commit
///   left it (`NULL` for a delete) and its create time, the commit's time (`update_time`, which pruning goes by) and
///   the number of paths (`records`). One row, not one per path: a commit of 5,000 documents adds one compressed row
///   to the log instead of 5,000 rows and 5,000 primary-key entries (layout 3; layout 2 had a row per path and is
///   migrated at start).
/// - `metadata`: the store's small values, and the change log's horizon (``horizonKey``).
/// - `commit_v3(…)`: a whole commit in one statement (one round trip, atomic by construction): preconditions checked
///   under the lock, writes, index entries, change rows and a `NOTIFY` on the schema's channel.
/// - `prune_changes(…)`: one step of change-log pruning (see ``pruneFunction(_:)``).
enum PostgresSchema {
    /// The version of the layout below, stored in `state.format`.
    static let format = 3

    static func statements(_ s: String) -> [String] {
        [
            "CREATE SCHEMA IF NOT EXISTS \(s)",
            """
            CREATE TABLE IF NOT EXISTS \(s).state (
                id int PRIMARY KEY CHECK (id = 1), last_sequence bigint NOT NULL, format int NOT NULL)
            """,
            "INSERT INTO \(s).state VALUES (1, 0, \(format)) ON CONFLICT (id) DO NOTHING",
            """
            CREATE TABLE IF NOT EXISTS \(s).documents (
                path text COLLATE "C" PRIMARY KEY, parent text COLLATE "C" NOT NULL,
                collection_id text COLLATE "C" NOT NULL, name_key bytea NOT NULL, body bytea NOT NULL,
                version bigint NOT NULL, create_time bigint NOT NULL, update_time bigint NOT NULL, data jsonb,
                entry_indexes text[] NOT NULL DEFAULT '{}', entry_keys bytea[] NOT NULL DEFAULT '{}')
            """,
            "CREATE INDEX IF NOT EXISTS documents_parent ON \(s).documents (parent, name_key)",
            "CREATE INDEX IF NOT EXISTS documents_group ON \(s).documents (collection_id, name_key)",
            """
            CREATE TABLE IF NOT EXISTS \(s).entries (
                index_name text COLLATE "C" NOT NULL, key bytea NOT NULL, path text COLLATE "C" NOT NULL,
                PRIMARY KEY (index_name, key, path))
            """,
            changesTable(s),
            "CREATE TABLE IF NOT EXISTS \(s).metadata (key text COLLATE \"C\" PRIMARY KEY, value bytea NOT NULL)",
        ] + functions(s)
    }

    /// The change log of layout 3: one row per commit.
    static func changesTable(_ s: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(s).changes (
            sequence bigint PRIMARY KEY, update_time bigint NOT NULL, records integer NOT NULL,
            paths text[] NOT NULL, bodies bytea[] NOT NULL, create_times bigint[] NOT NULL)
        """
    }

    /// Moves a layout-2 schema to layout 3, in one transaction (the caller's): the change log's rows of one commit
    /// become that commit's row, and the layout-2 commit function goes, so that a server still running an older
    /// plugin fails its commits cleanly (no such function) instead of writing the old layout.
    static func migrationFrom2(_ s: String) -> [String] {
        [
            "ALTER TABLE \(s).changes RENAME TO changes_v2",
            "ALTER INDEX \(s).changes_pkey RENAME TO changes_v2_pkey",
            changesTable(s),
            // A delete's row from a plugin before pruning had no time: 0 keeps it counting as old.
            """
            INSERT INTO \(s).changes (sequence, update_time, records, paths, bodies, create_times)
            SELECT c.sequence, coalesce(max(c.update_time), 0), count(*), array_agg(c.path ORDER BY c.position),
                array_agg(c.body ORDER BY c.position), array_agg(coalesce(c.create_time, 0) ORDER BY c.position)
            FROM \(s).changes_v2 c GROUP BY c.sequence
            """,
            "DROP TABLE \(s).changes_v2",
            """
            DROP FUNCTION IF EXISTS \(s).commit_v2(bigint, boolean, text[], smallint[], bigint[], bigint, text[], text[],
                text[], bytea[], boolean[], bytea[], boolean[], text[], text[], text[], bytea[])
            """,
            "UPDATE \(s).state SET format = 3 WHERE id = 1",
        ]
    }

    /// The functions, created with the schema and replaced by every engine that starts (a newer plugin may have fixed
    /// them).
    static func functions(_ s: String) -> [String] {
        [commitFunction(s), pruneFunction(s)]
    }

    /// The `metadata` key of the change log's horizon (decimal text): `changes` holds every record after it, none at
    /// or before it. Absent while nothing was pruned.
    static let horizonKey = "postgres.changes.horizon"

    /// The horizon as SQL, 0 while absent.
    static func horizon(_ s: String) -> String {
        "coalesce((SELECT convert_from(m.value, 'UTF8')::bigint FROM \(s).metadata m WHERE m.key = '\(horizonKey)'), 0)"
    }

    /// `prune_changes(threshold, minimum, step_rows)`: moves the horizon forward over the oldest commits that
    /// retention lets go and deletes their rows, in one transaction. A commit goes when its time is before
    /// `threshold` (a row without a time, from an older plugin's delete, counts as old), it is not the last commit,
    /// and it is not among the latest `minimum` records; the horizon stops at the first commit young enough to keep.
    /// At most about `step_rows` rows go in one step (whole commits); `more` says whether another step would find
    /// more. One pruner at a time (a transaction-scoped advisory lock; a second one returns at once). Commits are not
    /// blocked: they only add rows after the last sequence, and the horizon never reaches it. A reader of the log
    /// reads the horizon and the rows in one statement, so it sees the log before a step or after it, never between.
    static func pruneFunction(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).prune_changes(
            threshold bigint, minimum integer, step_rows integer,
            OUT removed bigint, OUT horizon bigint, OUT more boolean)
        LANGUAGE plpgsql AS $prune$
        DECLARE
            last bigint;
            cut bigint;
            bound bigint;
            young bigint;
            first_time bigint;
        BEGIN
            removed := 0;
            more := false;
            horizon := \(Self.horizon(s));
            -- Cheap first: nothing goes while the first commit after the horizon is young (a fresh store, an import).
            SELECT c.update_time INTO first_time FROM \(s).changes c WHERE c.sequence > horizon
            ORDER BY c.sequence LIMIT 1;
            IF first_time >= threshold THEN RETURN; END IF;
            IF NOT pg_try_advisory_xact_lock(hashtext('\(s).prune_changes')) THEN RETURN; END IF;
            SELECT st.last_sequence INTO last FROM \(s).state st WHERE st.id = 1;
            cut := last - 1;
            -- The commits that hold the latest `minimum` records stay (a running sum from the newest commit back).
            SELECT w.sequence - 1 INTO bound FROM (
                SELECT c.sequence, sum(c.records) OVER (ORDER BY c.sequence DESC) AS newer FROM \(s).changes c) AS w
            WHERE w.newer >= greatest(minimum, 1) ORDER BY w.sequence DESC LIMIT 1;
            IF bound IS NULL THEN RETURN; END IF;
            cut := least(cut, bound);
            SELECT w.sequence INTO bound FROM (
                SELECT c.sequence, sum(c.records) OVER (ORDER BY c.sequence) AS older FROM \(s).changes c
                WHERE c.sequence > horizon) AS w
            WHERE w.older >= greatest(step_rows, 1) ORDER BY w.sequence LIMIT 1;
            IF bound IS NOT NULL AND bound < cut THEN
                cut := bound;
                more := true;
            END IF;
            SELECT min(c.sequence) INTO young FROM \(s).changes c
            WHERE c.sequence > horizon AND c.sequence <= cut AND c.update_time >= threshold;
            IF young IS NOT NULL THEN
                cut := young - 1;
                more := false;
            END IF;
            IF cut <= horizon THEN
                more := false;
                RETURN;
            END IF;
            WITH gone AS (DELETE FROM \(s).changes c WHERE c.sequence > horizon AND c.sequence <= cut RETURNING c.records)
            SELECT coalesce(sum(gone.records), 0) INTO removed FROM gone;
            horizon := cut;
            INSERT INTO \(s).metadata AS m (key, value) VALUES ('\(horizonKey)', convert_to(cut::text, 'UTF8'))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value;
        END
        $prune$
        """
    }

    /// The notification channel of schema `s`: its payload is the sequence just committed.
    static func channel(_ s: String) -> String { "suite_changes_\(s)" }

    /// `commit_v3`: requirements on the state before the commit (`r_*`: kind 1 exists, 2 absent, 3 version), an
    /// optional sequence the commit must get (a version check of a document the same commit writes), then the final
    /// state of every written path (`w_*`, in order of first appearance; `w_puts` false for a delete) and the index
    /// entries of the puts (`e_*`, each with its document's path). Returns the sequence
    /// (the last one when nothing was written), the position (from 1) of the first requirement that failed with that
    /// document's version (0: the required sequence did not hold), and the create times the written documents had
    /// before (the commit's time for those that did not exist).
    ///
    /// New documents are plain inserts and their entries plain inserts (no `ON CONFLICT`: a path's entries are
    /// deleted before it is rewritten, and a put's entries are distinct): a bulk import of new documents does no
    /// lookup beyond one primary-key probe per document.
    static func commitFunction(_ s: String) -> String {
        // Each put's entries as two arrays, grouped in one pass (a slice of a text[] per row would walk it each time).
        let grouped = """
            SELECT e.path, array_agg(e.index_name) AS indexes, array_agg(e.key) AS keys
            FROM unnest(e_paths, e_indexes, e_keys) AS e(path, index_name, key) GROUP BY e.path
            """
        return """
            CREATE OR REPLACE FUNCTION \(s).commit_v3(
                commit_time bigint, writes boolean,
                r_paths text[], r_kinds smallint[], r_versions bigint[], required_sequence bigint,
                w_paths text[], w_parents text[], w_groups text[], w_names bytea[], w_puts boolean[], w_bodies bytea[],
                w_keeps boolean[], w_json text[],
                e_paths text[], e_indexes text[], e_keys bytea[],
                OUT sequence bigint, OUT failed integer, OUT failed_version bigint, OUT create_times bigint[])
            LANGUAGE plpgsql AS $commit$
            DECLARE
                last bigint;
                existed boolean[];
            BEGIN
                IF writes THEN
                    SELECT st.last_sequence INTO last FROM \(s).state st WHERE st.id = 1 FOR UPDATE;
                ELSE
                    SELECT st.last_sequence INTO last FROM \(s).state st WHERE st.id = 1 FOR SHARE;
                END IF;
                sequence := last;
                IF cardinality(r_paths) > 0 THEN
                    SELECT r.ord, d.version INTO failed, failed_version
                    FROM unnest(r_paths, r_kinds, r_versions) WITH ORDINALITY AS r(path, kind, version, ord)
                    LEFT JOIN \(s).documents d ON d.path = r.path
                    WHERE (r.kind = 1 AND d.path IS NULL) OR (r.kind = 2 AND d.path IS NOT NULL)
                        OR (r.kind = 3 AND (d.path IS NULL OR d.version <> r.version))
                    ORDER BY r.ord LIMIT 1;
                    IF failed IS NOT NULL THEN RETURN; END IF;
                END IF;
                IF NOT writes THEN RETURN; END IF;
                IF required_sequence IS NOT NULL AND required_sequence <> last + 1 THEN
                    failed := 0;
                    RETURN;
                END IF;
                sequence := last + 1;
                SELECT array_agg(coalesce(d.create_time, commit_time) ORDER BY w.ord),
                    array_agg(d.path IS NOT NULL ORDER BY w.ord)
                INTO create_times, existed
                FROM unnest(w_paths) WITH ORDINALITY AS w(path, ord) LEFT JOIN \(s).documents d ON d.path = w.path;
                UPDATE \(s).state SET last_sequence = sequence WHERE id = 1;
                IF true = ANY(existed) THEN
                    DELETE FROM \(s).entries e USING (
                        SELECT d.path, u.index_name, u.key
                        FROM \(s).documents d, unnest(d.entry_indexes, d.entry_keys) AS u(index_name, key)
                        WHERE d.path = ANY(w_paths)) AS o
                    WHERE e.index_name = o.index_name AND e.key = o.key AND e.path = o.path;
                    DELETE FROM \(s).documents d USING unnest(w_paths, w_puts) AS w(path, put)
                    WHERE NOT w.put AND d.path = w.path;
                    UPDATE \(s).documents AS d SET body = w.body, version = sequence,
                        create_time = CASE WHEN w.keeps THEN create_times[w.ord] ELSE commit_time END,
                        update_time = commit_time, data = nullif(w.json, '')::jsonb,
                        entry_indexes = coalesce(g.indexes, '{}'), entry_keys = coalesce(g.keys, '{}')
                    FROM unnest(w_paths, w_puts, w_bodies, w_keeps, w_json)
                        WITH ORDINALITY AS w(path, put, body, keeps, json, ord)
                    LEFT JOIN (\(grouped)) AS g ON g.path = w.path
                    WHERE w.put AND existed[w.ord] AND d.path = w.path;
                END IF;
                INSERT INTO \(s).documents
                    (path, parent, collection_id, name_key, body, version, create_time, update_time, data,
                     entry_indexes, entry_keys)
                SELECT w.path, w.parent, w.grp, w.name, w.body, sequence, commit_time, commit_time,
                    nullif(w.json, '')::jsonb, coalesce(g.indexes, '{}'), coalesce(g.keys, '{}')
                FROM unnest(w_paths, w_parents, w_groups, w_names, w_puts, w_bodies, w_json)
                    WITH ORDINALITY AS w(path, parent, grp, name, put, body, json, ord)
                LEFT JOIN (\(grouped)) AS g ON g.path = w.path
                WHERE w.put AND NOT existed[w.ord];
                IF cardinality(e_paths) > 0 THEN
                    INSERT INTO \(s).entries (index_name, key, path) SELECT * FROM unnest(e_indexes, e_keys, e_paths);
                END IF;
                INSERT INTO \(s).changes (sequence, update_time, records, paths, bodies, create_times)
                SELECT sequence, commit_time, cardinality(w_paths), w_paths,
                    array_agg(CASE WHEN w.put THEN w.body END ORDER BY w.ord),
                    array_agg(CASE WHEN w.keeps THEN create_times[w.ord] ELSE commit_time END ORDER BY w.ord)
                FROM unnest(w_puts, w_bodies, w_keeps) WITH ORDINALITY AS w(put, body, keeps, ord);
                PERFORM pg_notify('\(channel(s))', sequence::text);
            END
            $commit$
            """
    }
}
