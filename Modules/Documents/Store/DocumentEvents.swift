public import SuiteCore

/// Published on the bus after every commit made through a ``DocumentStore`` (name `documents.changed`).
public struct DocumentsChanged: BusEvent {
    /// What changed.
    public struct Payload: Codable, Sendable, Hashable {
        /// The commit's change-log sequence.
        public var sequence: Int64
        /// Every document path the commit wrote or deleted, in commit order.
        public var paths: [String]
        /// The subset of `paths` that was deleted.
        public var deletedPaths: [String]
        /// The operation: `set`, `update`, `delete`, `batch`, `transaction` or `import` (one event per imported chunk).
        public var kind: String

        /// Creates a payload.
        public init(sequence: Int64, paths: [String], deletedPaths: [String], kind: String) {
            self.sequence = sequence
            self.paths = paths
            self.deletedPaths = deletedPaths
            self.kind = kind
        }
    }

    /// Always `documents.changed`.
    public var name: String { "documents.changed" }
    /// What changed.
    public var payload: Payload

    /// Creates the event.
    public init(payload: Payload) { self.payload = payload }
}

/// Published on the bus after every billed operation (name `documents.cost`), Firestore-style: document reads,
/// writes and deletes.
public struct DocumentsCost: BusEvent {
    /// One operation's cost.
    public struct Payload: Codable, Sendable, Hashable {
        /// The operation kind (`get`, `query`, `aggregation`, `listen`, `set`, `update`, `delete`, `batch`,
        /// `transaction`, `import`).
        public var kind: String
        /// The collection id billed (the last collection segment, e.g. `orders` for `users/u1/orders/o1`).
        public var collection: String
        /// Document reads.
        public var reads: Int64
        /// Document writes.
        public var writes: Int64
        /// Document deletes.
        public var deletes: Int64

        /// Creates a payload.
        public init(kind: String, collection: String, reads: Int64, writes: Int64, deletes: Int64) {
            self.kind = kind
            self.collection = collection
            self.reads = reads
            self.writes = writes
            self.deletes = deletes
        }
    }

    /// Always `documents.cost`.
    public var name: String { "documents.cost" }
    /// The cost.
    public var payload: Payload

    /// Creates the event.
    public init(payload: Payload) { self.payload = payload }
}
