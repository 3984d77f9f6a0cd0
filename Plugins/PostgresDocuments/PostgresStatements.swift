import NIOCore
import PostgresNIO

// The hot reads as prepared statements: parsed and planned once per connection, not on every call. Their SQL names
// tables without the schema: every connection of an engine's pool starts with `search_path` set to its schema.

/// One document by path (a point get).
struct GetDocumentStatement: PostgresPreparedStatement {
    typealias Row = (String, ByteBuffer, Int64, Int64, Int64)
    static let sql = "SELECT path, body, version, create_time, update_time FROM documents WHERE path = $1"
    var path: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(path)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}

/// A query's usual scan, with each hit's document: `lower <= key < upper`, in key then path order (`reverse`: the
/// opposite), at most `limit`.
struct ScanRangeStatement: PostgresPreparedStatement {
    typealias Row = (ByteBuffer, String, ByteBuffer?, Int64?, Int64?, Int64?)
    static let sql = """
        SELECT e.key, e.path, d.body, d.version, d.create_time, d.update_time FROM entries e
        LEFT JOIN documents d ON d.path = e.path
        WHERE e.index_name = $1 AND e.key >= $2 AND e.key < $3 ORDER BY e.key, e.path LIMIT $4
        """
    var index: String
    var lower: ByteBuffer
    var upper: ByteBuffer
    var limit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(index)
        bindings.append(lower)
        bindings.append(upper)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}

/// ``ScanRangeStatement`` in reverse order.
struct ScanRangeReversedStatement: PostgresPreparedStatement {
    typealias Row = ScanRangeStatement.Row
    static let sql = """
        SELECT e.key, e.path, d.body, d.version, d.create_time, d.update_time FROM entries e
        LEFT JOIN documents d ON d.path = e.path
        WHERE e.index_name = $1 AND e.key >= $2 AND e.key < $3 ORDER BY e.key DESC, e.path DESC LIMIT $4
        """
    var range: ScanRangeStatement

    func makeBindings() throws -> PostgresBindings { try range.makeBindings() }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
