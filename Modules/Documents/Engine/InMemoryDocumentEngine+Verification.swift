import Synchronization

extension InMemoryDocumentEngine {
    /// Compares each selected index's rows with the documents' own entries; see
    /// ``DocumentEngine/verifyIndexes(_:maximumReported:progress:)``.
    @_spi(Engine) public func verifyIndexes(
        _ selection: IndexSelection, maximumReported: Int, progress: IndexProgressHandler?
    ) async throws -> IndexVerification {
        let report = state.withLock { state -> IndexVerification in
            struct Row: Hashable {
                var index: String
                var key: [UInt8]
                var path: String
            }
            var expected = Set<Row>()
            for (path, record) in state.documents {
                for entry in record.entries where selection.contains(entry.index) {
                    expected.insert(Row(index: entry.index, key: entry.key, path: path))
                }
            }
            let entries = expected.count
            var differences: [IndexDifference] = []
            var count = 0
            func note(_ kind: IndexDifference.Kind, _ row: Row) {
                count += 1
                if differences.count < maximumReported {
                    differences.append(IndexDifference(kind: kind, index: row.index, key: row.key, path: row.path))
                }
            }
            var indexes = Set(expected.map(\.index))
            for (name, list) in state.indexes where selection.contains(name) {
                indexes.insert(name)
                list.forEach(from: list.startPosition) { indexRow in
                    let row = Row(index: name, key: indexRow.key, path: indexRow.path)
                    if expected.remove(row) == nil { note(.unexpected, row) }
                    return true
                }
            }
            for row in expected.sorted(by: { ($0.index, $0.path) < ($1.index, $1.path) }) { note(.missing, row) }
            return IndexVerification(
                indexes: indexes.count, entries: entries, differenceCount: count, differences: differences)
        }
        progress?(report.entries, report.entries)
        return report
    }

    /// Rebuilds each selected index from the documents' own entries; see
    /// ``DocumentEngine/rebuildIndexes(_:progress:)``.
    @_spi(Engine) public func rebuildIndexes(_ selection: IndexSelection, progress: IndexProgressHandler?) async throws
        -> IndexRebuild
    {
        let report = state.withLock { state -> IndexRebuild in
            for name in state.indexes.keys where selection.contains(name) { state.indexes[name] = nil }
            var names = Set<String>()
            var written = 0
            for (path, record) in state.documents {
                let entries = record.entries.filter { selection.contains($0.index) }
                state.addEntries(entries, path: path)
                for entry in entries { names.insert(entry.index) }
                written += entries.count
            }
            return IndexRebuild(indexes: names.count, entries: written)
        }
        progress?(report.entries, report.entries)
        return report
    }
}
