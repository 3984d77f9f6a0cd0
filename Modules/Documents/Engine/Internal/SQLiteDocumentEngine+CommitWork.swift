extension SQLiteDocumentEngine {
    struct Prepared: Sendable {
        var parts: EnginePath.Parts
        var entries: [IndexEntry]
    }

    /// A commit's work that needs no database: paths split, change-log slots and, for a bulk commit prepared ahead
    /// (``prepareCommit(_:)``), its own-entry lists and sorted puts.
    struct CommitWork: Sendable {
        var prepared: [Prepared]
        var changes: ChangeSlots
        /// Per mutation: the encoded own-entry list (``OwnEntryList/encode(_:)``) of each path's final put, when the
        /// commit was prepared ahead and every index id was known; empty otherwise.
        var ownBlobs: [[UInt8]?]
        /// Each distinct path's final entries as puts, sorted: the commit's index operations when no document
        /// existed before it (an import of new documents). `nil` when an index id was unknown.
        var puts: IndexOpBuffer?
        /// ``puts`` as a run's blocks, encoded ahead when they are enough for a run of their own
        /// (``IndexTuning/directRunThreshold``): the transaction then only inserts the blocks' rows.
        var encodedPuts: EncodedRun?

        init(_ mutations: [DocumentMutation], ahead: Bool, indexIDs: IndexIDs, tuning: IndexTuning) throws {
            try self.init(
                mutations,
                entries: { mutation in
                    if case .put(_, let entries) = mutation.kind { return entries }
                    return []
                })
            guard ahead, mutations.count > SQLiteDocumentEngine.inlineWriteLimit else { return }
            // Ids from the shared cache; an unknown name leaves the work to the transaction.
            let known = indexIDs.snapshot()
            var (operations, bytes) = (0, 0)
            for last in changes.last {
                operations += prepared[last].entries.count
                bytes += mutations[last].path.utf8.count
                for entry in prepared[last].entries { bytes += entry.key.count }
            }
            let prepared = prepared
            var buffer = IndexOpBuffer()
            buffer.reserveCapacity(operations: operations, bytes: bytes)
            sortPuts(mutations, into: buffer, tuning: tuning) { document, buffer, path in
                for entry in prepared[document].entries {
                    guard let id = known[entry.index] else { return nil }
                    buffer.add(index: id, key: entry.key, path: path, isPut: true)
                }
                return prepared[document].entries.count
            }
        }

        /// The work of ``BulkPuts`` (as `mutations`, puts without entries), whose index names have the ids `ids`.
        init(bulk puts: BulkPuts, mutations: [DocumentMutation], ids: [Int64], tuning: IndexTuning) throws {
            try self.init(mutations, entries: { _ in [] })
            // A path put twice: its earlier puts are applied in the transaction, with their entries as arrays.
            if changes.last.count < mutations.count {
                var isLast = [Bool](repeating: false, count: mutations.count)
                for last in changes.last { isLast[last] = true }
                for i in mutations.indices where !isLast[i] {
                    prepared[i].entries = puts.entries.entries(ofDocument: i)
                }
            }
            var pathBytes = 0
            for path in puts.paths { pathBytes += path.utf8.count }
            // The batch's keys become the buffer's arena in one copy; entries are added by position.
            let buffer = IndexOpBuffer(
                arena: puts.entries.keys, operations: puts.entries.entryCount, bytes: pathBytes)
            sortPuts(mutations, into: buffer, tuning: tuning) { document, buffer, path in
                puts.entries.forEachStoredEntry(ofDocument: document) { name, key in
                    buffer.add(index: ids[name], storedKey: key, path: path, isPut: true)
                }
            }
        }

        private init(_ mutations: [DocumentMutation], entries: (DocumentMutation) -> [IndexEntry]) throws {
            prepared = try mutations.map { mutation in
                Prepared(parts: try EnginePath.split(document: mutation.path), entries: entries(mutation))
            }
            changes = ChangeSlots(mutations)
            guard changes.last.count <= SQLiteDocumentEngine.maximumPathsPerCommit else {
                throw DocumentsError(
                    .limitExceeded,
                    "a commit writes \(changes.last.count) documents; the SQLite engine takes at most \(SQLiteDocumentEngine.maximumPathsPerCommit)",
                    hint: "split the import into several commits"
                )
            }
            ownBlobs = []
        }

        /// Sorts every final put's entries, as puts, into one buffer (``puts``, starting from `buffer`), once for the
        /// whole commit, and encodes each one's own-entry list from it (``ownBlobs``). `addEntries(document, buffer,
        /// path)` adds the entries of mutation `document` as puts of `path` and returns how many, or `nil` when an
        /// index id is unknown: then nothing is prepared and the transaction does the work.
        private mutating func sortPuts(
            _ mutations: [DocumentMutation], into buffer: consuming IndexOpBuffer, tuning: IndexTuning,
            addEntries: (_ document: Int, _ buffer: inout IndexOpBuffer, _ path: (start: Int, count: Int)) -> Int?
        ) {
            var buffer = buffer
            var documentOfOperation: [Int32] = []
            documentOfOperation.reserveCapacity(buffer.ops.capacity)
            for last in changes.last {
                guard case .put = mutations[last].kind else { continue }
                let path = buffer.addPath(mutations[last].path.utf8)
                guard let added = addEntries(last, &buffer, path) else { return }
                documentOfOperation.append(contentsOf: repeatElement(Int32(truncatingIfNeeded: last), count: added))
            }
            buffer.sortAndCollapse()
            // Each document's own-entry list falls out of the sorted buffer: its entries come in (index, key) order,
            // deduplicated — ``OwnEntryList``'s canonical form — so it is encoded without sorting it again.
            var counts = [Int](repeating: 0, count: mutations.count)
            var sizes = [Int](repeating: 0, count: mutations.count)
            buffer.forEachOperation { order, _, key, _ in
                let document = Int(documentOfOperation[order])
                counts[document] += 1
                sizes[document] += key.count + 12
            }
            var blobs: [[UInt8]?] = Array(repeating: nil, count: mutations.count)
            for last in changes.last where counts[last] > 0 {
                var blob: [UInt8] = []
                blob.reserveCapacity(sizes[last] + 10)
                IndexOpCodec.appendVarint(UInt64(counts[last]), to: &blob)
                blobs[last] = blob
            }
            buffer.forEachOperation { order, index, key, _ in
                let document = Int(documentOfOperation[order])
                IndexOpCodec.appendVarint(UInt64(index), to: &blobs[document]!)
                IndexOpCodec.appendVarint(UInt64(key.count), to: &blobs[document]!)
                blobs[document]!.append(contentsOf: key)
            }
            ownBlobs = blobs
            puts = buffer
            if buffer.count >= tuning.directRunThreshold { encodedPuts = RunWriter.encode(buffer, tuning: tuning) }
        }
    }
}
