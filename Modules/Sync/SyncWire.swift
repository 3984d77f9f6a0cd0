public import SuiteCore

/// One client mutation on the wire: an id unique to the client and the writes it makes, in the JSON of a commit
/// (`{"op", "path", "data", "merge", "transforms", "precondition"}`), so transforms stay transforms.
public struct SyncMutation: Sendable, Hashable, Codable {
    /// The mutation's id (unique per client); a retried push with the same id is applied once.
    public var id: String
    /// The writes, applied atomically.
    public var writes: [JSONValue]

    /// Creates a mutation.
    public init(id: String, writes: [JSONValue]) {
        self.id = id
        self.writes = writes
    }
}

/// `POST /v1/sync/push`.
public struct SyncPushRequest: Sendable, Hashable, Codable {
    /// The client's id (one per replica).
    public var client: String
    /// The mutations, in the order they were made.
    public var mutations: [SyncMutation]

    /// Creates a request.
    public init(client: String, mutations: [SyncMutation]) {
        self.client = client
        self.mutations = mutations
    }
}

/// The answer to a push: one result per mutation, in order.
public struct SyncPushResponse: Sendable, Hashable, Codable {
    /// What became of one mutation.
    public struct Result: Sendable, Hashable, Codable {
        /// `applied`, `duplicate` (applied before) or `rejected` (refused: rules, validation, a precondition).
        public enum Status: String, Sendable, Hashable, Codable {
            case applied, duplicate, rejected
        }
        /// The mutation's id.
        public var id: String
        /// What became of it.
        public var status: Status
        /// The server's sequence of the commit that applied it.
        public var sequence: Int64?
        /// Why it was rejected.
        public var message: String?

        /// Creates a result.
        public init(id: String, status: Status, sequence: Int64? = nil, message: String? = nil) {
            self.id = id
            self.status = status
            self.sequence = sequence
            self.message = message
        }
    }

    /// One per mutation pushed, in order.
    public var results: [Result]

    /// Creates a response.
    public init(results: [Result]) { self.results = results }
}

/// One change of the server's change feed: a document as it is after the commit, or its deletion.
public struct SyncChange: Sendable, Hashable, Codable {
    /// The commit's sequence.
    public var sequence: Int64
    /// The document's path.
    public var path: String
    /// Its data in tagged JSON; nil when deleted.
    public var data: JSONValue?

    /// Creates a change.
    public init(sequence: Int64, path: String, data: JSONValue?) {
        self.sequence = sequence
        self.path = path
        self.data = data
    }
}

/// `GET /v1/sync/changes?since=N&wait=S`: the changes after a checkpoint that the caller may read.
public struct SyncChangesResponse: Sendable, Hashable, Codable {
    /// The changes, by sequence (a commit's changes are never split across pages).
    public var changes: [SyncChange]
    /// The checkpoint to ask from next (covers changes the caller may not read, too).
    public var sequence: Int64
    /// Whether more changes wait after `sequence`.
    public var more: Bool

    /// Creates a response.
    public init(changes: [SyncChange], sequence: Int64, more: Bool) {
        self.changes = changes
        self.sequence = sequence
        self.more = more
    }
}

/// Ids on the wire: one path segment of letters, digits, `-` and `_`, at most 128 characters.
enum SyncIdentifier {
    static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128
            && id.utf8.allSatisfy {
                ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95
            }
    }
}

/// A page of a resync's snapshot: the documents the caller may read, in the walk's order
/// (`GET /v1/sync/snapshot?after=&limit=`).
public struct SyncSnapshotResponse: Sendable, Hashable, Codable {
    /// A document as the server has it.
    public struct Document: Sendable, Hashable, Codable {
        /// Its path.
        public var path: String
        /// Its data (tagged JSON).
        public var data: JSONValue

        /// Creates a document.
        public init(path: String, data: JSONValue) {
            self.path = path
            self.data = data
        }
    }

    /// The documents of this page.
    public var documents: [Document]
    /// The server's last sequence when the page was read: the first page's is where the feed goes on after a resync.
    public var sequence: Int64
    /// Where the next page starts (its `after`); nil on the last page.
    public var next: String?

    /// Creates a page.
    public init(documents: [Document], sequence: Int64, next: String?) {
        self.documents = documents
        self.sequence = sequence
        self.next = next
    }
}
