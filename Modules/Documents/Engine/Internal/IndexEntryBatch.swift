/// The index entries of many documents in flat storage: every key in one byte arena, every index name once in a
/// table, and per entry only integers.
///
/// A bulk commit hands its entries to the engine in this form (``BulkPuts``, ``DocumentEngine/prepareCommit(_:)-(BulkPuts)``)
/// instead of an array per document and an array per key: an import of 5,000 order documents has 85,000 entries,
/// and building, copying and freeing them one by one cost more CPU than writing them.
///
/// ```swift
/// var batch = IndexEntryBatch()
/// batch.append(IndexEntry(index: "users|city", key: IndexKey.encode(.string("Lyon"))))
/// batch.endDocument()
/// batch.entries(ofDocument: 0)  // [IndexEntry(index: "users|city", key: …)]
/// ```
package struct IndexEntryBatch: Sendable {
    /// One entry: its index name's position in ``names`` and its key's bytes in `keys`.
    struct Slot {
        var name: Int32
        var keyStart: Int
        var keyEnd: Int
    }

    /// The index names, each stored once (a store's internal one-document batch may repeat one); entries refer to
    /// them by position.
    package private(set) var names: [String] = []
    /// Per name, its position in ``names``; `nil` for a batch of one document, where repeats are rare and harmless.
    private var numbers: ExactKeyDictionary<Int32>?
    var slots: [Slot] = []
    var keys: [UInt8] = []
    /// Per document, the end of its entries in `slots` (documents are numbered in the order they ended).
    private var documentEnds: [Int] = []
    /// When set, document `i` is the one that ended `order[i]`-th (``reordered(_:)``).
    private var order: [Int]?

    /// The store's cache of automatic index names (see `IndexPolicy`), for batches of many documents: per parent
    /// and field name, the name's position in ``names``, or -1 when the field has no index.
    var fieldNames: [FieldNameKey: Int32]?
    /// Per position in ``names``: the field it indexes, when it is an automatic single-field index (`IndexPolicy`).
    var fields: [FieldName?] = []
    /// The collections whose fields are indexed here; root parent `-1 - i` is collection `i`.
    var collections: [String] = []
    /// Per single-field index name, its array-contains index name (with the name cache).
    var containsNames: [Int32: Int32] = [:]
    /// Working space for composing keys (`IndexPolicy`), kept from document to document.
    var scratch: [UInt8] = []
    var composed: [UInt8] = []
    var fieldStack: [(name: String, start: Int, end: Int)] = []
    var elementStack: [(start: Int, end: Int)] = []

    struct FieldNameKey: Hashable {
        var parent: Int32
        var field: String
    }

    /// The field an automatic index name stands for: a field of `parent` (a root, `-1 - collection`, or a map
    /// field's name).
    struct FieldName {
        var parent: Int32
        var field: String
        var root: Int32
        /// Whether every segment from the root is simple (names are then `parent.field`).
        var simple: Bool
    }

    /// An empty batch. Index names are stored once, however many documents use them.
    package init() {
        numbers = ExactKeyDictionary()
        fieldNames = [:]
    }

    /// A batch for one document: no name cache (its names never repeat), room for about `fields` entries.
    init(oneDocumentOf fields: Int) {
        slots.reserveCapacity(fields * 3)
        keys.reserveCapacity(fields * 24)
        names.reserveCapacity(fields * 3)
    }

    /// Documents ended so far.
    package var documentCount: Int { documentEnds.count }

    /// Entries in all documents.
    package var entryCount: Int { slots.count }

    /// Bytes of all keys.
    package var keyBytes: Int { keys.count }

    /// Reserves room for about `entries` entries holding `keyBytes` bytes of keys.
    package mutating func reserveCapacity(entries: Int, keyBytes: Int) {
        slots.reserveCapacity(entries)
        keys.reserveCapacity(keyBytes)
    }

    /// Adds an entry to the document being built; ``endDocument()`` closes it.
    package mutating func append(_ entry: IndexEntry) {
        let name = number(of: entry.index)
        let start = keys.count
        keys.append(contentsOf: entry.key)
        slots.append(Slot(name: name, keyStart: start, keyEnd: keys.count))
    }

    /// Closes the document being built: the entries added since the previous call are its own.
    package mutating func endDocument() {
        documentEnds.append(slots.count)
    }

    /// The entries of document `document` (0 for the first one ended), in the order they were added.
    package func entries(ofDocument document: Int) -> [IndexEntry] {
        let range = slotRange(ofDocument: document)
        var result: [IndexEntry] = []
        result.reserveCapacity(range.count)
        for slot in slots[range] {
            result.append(IndexEntry(index: names[Int(slot.name)], key: Array(keys[slot.keyStart..<slot.keyEnd])))
        }
        return result
    }

    /// Calls `body` with each entry of `document`: its name's position in ``names`` and its key.
    package func forEachEntry(
        ofDocument document: Int, _ body: (_ name: Int, _ key: UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        let range = slotRange(ofDocument: document)
        try keys.withUnsafeBytes { bytes in
            for slot in slots[range] {
                try body(Int(slot.name), UnsafeRawBufferPointer(rebasing: bytes[slot.keyStart..<slot.keyEnd]))
            }
        }
    }

    /// Calls `body` with each entry of `document`: its name's position in ``names`` and where its key lies in the
    /// batch's key arena; returns the number of entries.
    func forEachStoredEntry(
        ofDocument document: Int, _ body: (_ name: Int, _ key: (start: Int, count: Int)) -> Void
    ) -> Int {
        let range = slotRange(ofDocument: document)
        for slot in slots[range] { body(Int(slot.name), (slot.keyStart, slot.keyEnd - slot.keyStart)) }
        return range.count
    }

    /// Removes every document and entry, keeping the index names (and their cache) and the storage.
    mutating func removeAllDocuments() {
        slots.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        documentEnds.removeAll(keepingCapacity: true)
        order = nil
    }

    /// The same entries with the documents renumbered: document `i` of the result is document `order[i]` of this
    /// batch. `order` must be a permutation of the documents' numbers (the bulk importer's sort by path).
    func reordered(_ order: [Int]) -> IndexEntryBatch {
        var result = self
        result.order = self.order.map { current in order.map { current[$0] } } ?? order
        return result
    }

    /// The position of `name` in ``names``, added when new.
    mutating func number(of name: String) -> Int32 {
        if let known = numbers?[name] { return known }
        let number = Int32(truncatingIfNeeded: names.count)
        names.append(name)
        fields.append(nil)
        numbers?[name] = number
        return number
    }

    private func slotRange(ofDocument document: Int) -> Range<Int> {
        let stored = order?[document] ?? document
        return (stored == 0 ? 0 : documentEnds[stored - 1])..<documentEnds[stored]
    }
}

/// A bulk commit of puts: document `i` is `paths[i]` with `bodies[i]` and the index entries
/// `entries.entries(ofDocument: i)`. The store's bulk importer commits its chunks this way (see
/// ``DocumentEngine/prepareCommit(_:)-(BulkPuts)``).
package struct BulkPuts: Sendable {
    package var paths: [String]
    package var bodies: [[UInt8]]
    package var entries: IndexEntryBatch

    /// Throws ``DocumentsError/Code-swift.struct/invalidValue`` unless there are as many bodies and documents of
    /// entries as paths.
    package init(paths: [String], bodies: [[UInt8]], entries: IndexEntryBatch) throws {
        guard paths.count == bodies.count, paths.count == entries.documentCount else {
            throw DocumentsError(
                .invalidValue,
                "bulk puts of \(paths.count) paths with \(bodies.count) bodies and \(entries.documentCount) documents of index entries",
                hint: "give one body and one document of entries (IndexEntryBatch.endDocument()) per path")
        }
        self.paths = paths
        self.bodies = bodies
        self.entries = entries
    }

    package var count: Int { paths.count }

    /// The puts as ordinary mutations (unconditional puts, in order), with their index entries.
    package func mutations() -> [DocumentMutation] {
        paths.indices.map { i in
            DocumentMutation(path: paths[i], kind: .put(body: bodies[i], indexEntries: entries.entries(ofDocument: i)))
        }
    }
}
