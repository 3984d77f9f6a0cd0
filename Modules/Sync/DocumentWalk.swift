import Documents

/// A walk over the documents of a store below root paths, in a fixed order that can resume after any document it
/// visited: a resync's snapshot pages, on the server and over the replica's own documents.
///
/// Order: roots in path order; in a collection, documents in id order, each followed by its subcollections (in id
/// order) with their documents. A root is the whole store (no segments), a collection or a document (which is
/// included, then everything below it). The top-level `_sync` collection (sync's own state) is never visited.
///
/// Documents that do not exist but have subcollections (Firestore's "missing documents") are not visited; what lies
/// below them is.
struct DocumentWalk {
    let store: DocumentStore
    /// Which visited documents are kept (the others are skipped, the walk goes on below them).
    let keep: (String, DocumentData?) async -> Bool
    /// Documents kept before the walk stops.
    let limit: Int
    /// Documents visited (kept or not) before the walk stops: bounds a page of mostly unreadable documents.
    let visitLimit: Int
    private(set) var kept: [DocumentSnapshot] = []
    /// The last document visited: where the next page resumes.
    private(set) var last: DocumentPath?
    private var visited = 0
    /// Whether the walk stopped on a limit (so there may be more after ``last``).
    var isFull: Bool { kept.count >= limit || visited >= visitLimit }

    init(store: DocumentStore, limit: Int, keep: @escaping (String, DocumentData?) async -> Bool) {
        self.store = store
        self.limit = limit
        self.visitLimit = max(limit, 1) > Int.max / 20 ? .max : max(limit, 1) * 20
        self.keep = keep
    }

    /// Roots as path segments without duplicates or roots inside another root, in path order.
    static func normalized(_ roots: [[String]]) -> [[String]] {
        let sorted = Set(roots).sorted { $0.joined(separator: "/") < $1.joined(separator: "/") }
        return sorted.filter { root in
            !sorted.contains { other in other.count < root.count && Array(root.prefix(other.count)) == other }
        }
    }

    /// Walks `roots` (normalized) from the start, or after `after` (a document visited by an earlier page).
    mutating func walk(_ roots: [[String]], after: DocumentPath?) async throws {
        var start = roots.startIndex
        if let after {
            let segments = after.segments
            guard let index = roots.firstIndex(where: { Array(segments.prefix($0.count)) == $0 }) else { return }
            try await resume(after: after, root: roots[index])
            start = index + 1
        }
        for root in roots[start...] {
            if isFull { return }
            try await walk(root: root)
        }
    }

    private mutating func walk(root: [String]) async throws {
        if root.isEmpty {
            try await walkSubcollections(of: nil, after: nil)
        } else if root.count % 2 == 1 {
            try await walkCollection(try CollectionPath(root.joined(separator: "/")), after: nil)
        } else {
            let document = try DocumentPath(segments: root)
            if let snapshot = try await store.getDocuments([document]).first, snapshot.exists { await visit(snapshot) }
            if isFull { return }
            try await walkSubcollections(of: document, after: nil)
        }
    }

    /// Goes on after `document` (visited, its subtree not yet) up to the end of `root`.
    private mutating func resume(after document: DocumentPath, root: [String]) async throws {
        var current = document
        try await walkSubcollections(of: current, after: nil)
        while !isFull, current.segments.count > root.count {
            let collection = current.collection
            try await walkCollection(collection, after: current)
            if isFull || collection.segments.count == root.count { return }
            // The collections after this one under the same parent (the top-level ones when it has none).
            let parent = collection.parent
            try await walkSubcollections(of: parent, after: collection.collectionID)
            guard let parent, parent.segments.count > root.count else { return }
            current = parent
        }
    }

    private mutating func walkCollection(_ collection: CollectionPath, after: DocumentPath?) async throws {
        // Documents with subcollections, whether they exist or not: a missing one is not visited, its subtree is.
        var parents = try await store.parentDocumentIDs(in: collection)[...]
        if let after { parents = parents.drop { !Self.precedes(after.documentID, $0) } }
        var cursor = after
        while !isFull {
            let page = try await store.listDocuments(in: collection, after: cursor, limit: 100)
            for snapshot in page {
                let id = snapshot.path.documentID
                while let missing = parents.first, Self.precedes(missing, id) {
                    parents.removeFirst()
                    try await walkSubcollections(of: try collection.document(missing), after: nil)
                    if isFull { return }
                }
                if parents.first == id { parents.removeFirst() }
                await visit(snapshot)
                if isFull { return }
                try await walkSubcollections(of: snapshot.path, after: nil)
                if isFull { return }
            }
            guard page.count == 100, let next = page.last?.path else { break }
            cursor = next
        }
        while !isFull, let missing = parents.popFirst() {
            try await walkSubcollections(of: try collection.document(missing), after: nil)
        }
    }

    /// Document-id order: UTF-8 bytes, as the engines sort.
    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    private mutating func walkSubcollections(of parent: DocumentPath?, after: String?) async throws {
        for id in try await store.collectionIDs(under: parent) where after.map({ id > $0 }) ?? true {
            if parent == nil && id == SyncHost.reservedRoot { continue }
            try await walkCollection(parent.map { try $0.collection(id) } ?? CollectionPath(id), after: nil)
            if isFull { return }
        }
    }

    private mutating func visit(_ snapshot: DocumentSnapshot) async {
        visited += 1
        last = snapshot.path
        if await keep(snapshot.path.string, snapshot.data) { kept.append(snapshot) }
    }
}
