import Documents
import GRPCCore

/// The resource names of one database: `projects/{project}/databases/{database}/documents/{path}`. Project ids are
/// accepted as given; answers name documents under the project and database the call named.
struct ResourceNames: Sendable {
    /// `projects/{project}/databases/{database}`.
    let database: String
    /// The database id (`(default)` for the server's store).
    let databaseID: String
    /// `projects/{project}/databases/{database}/documents`.
    var root: String { database + "/documents" }

    /// The names of the database a resource name (a database, a document root, a document or a parent) lies in.
    static func parse(_ name: String, what: String) throws -> (names: ResourceNames, rest: String?) {
        let parts = name.split(separator: "/", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == "projects", !parts[1].isEmpty, parts[2] == "databases", !parts[3].isEmpty
        else {
            throw RPCError(
                code: .invalidArgument,
                message: "Invalid \(what) '\(name)': expected projects/{project_id}/databases/{database_id}/documents/…"
            )
        }
        let names = ResourceNames(database: "projects/\(parts[1])/databases/\(parts[3])", databaseID: String(parts[3]))
        guard parts.count > 4 else { return (names, nil) }
        guard parts[4] == "documents" else {
            throw RPCError(
                code: .invalidArgument,
                message: "Invalid \(what) '\(name)': expected …/databases/{database_id}/documents")
        }
        return (names, parts.count > 5 ? String(parts[5]) : "")
    }

    /// The full name of a document path.
    func documentName(_ path: String) -> String { root + "/" + path }

    /// The document path in a document name of this database.
    func documentPath(_ name: String, what: String) throws -> DocumentPath {
        let (other, rest) = try Self.parse(name, what: what)
        guard other.database == database else {
            throw RPCError(
                code: .invalidArgument,
                message: "\(what) '\(name)' is not in the database of the request (\(database))")
        }
        guard let rest, !rest.isEmpty else {
            throw RPCError(code: .invalidArgument, message: "\(what) '\(name)' names no document")
        }
        do {
            return try DocumentPath(rest)
        } catch let error as DocumentsError {
            throw RPCError(code: .invalidArgument, message: "Invalid \(what) '\(name)': \(error.message)")
        }
    }

    /// The parent of a listing or query: the root (nil) or a document.
    func parentPath(_ name: String, what: String) throws -> DocumentPath? {
        let (other, rest) = try Self.parse(name, what: what)
        guard other.database == database, let rest else {
            throw RPCError(code: .invalidArgument, message: "Invalid \(what) '\(name)'")
        }
        if rest.isEmpty { return nil }
        do {
            return try DocumentPath(rest)
        } catch let error as DocumentsError {
            throw RPCError(code: .invalidArgument, message: "Invalid \(what) '\(name)': \(error.message)")
        }
    }
}
