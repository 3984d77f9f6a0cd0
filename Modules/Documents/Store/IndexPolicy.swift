/// Which index entries a document gets: every field (nested map fields included) in a single-field ascending index,
/// each array element in an array-contains index, and one entry (or one per array element) per declared index.
///
/// Keys of the automatic (single-field and array-contains) entries are bounded to ``IndexKey/maximumLength`` bytes
/// (``IndexKey/bounded(_:)``); declared-index keys are stored whole.
///
/// Index names:
/// - single field: `<collectionPath>|<fieldPath>` — key: the value's ``IndexKey``;
/// - array contains: `<collectionPath>|<fieldPath>|contains` — key: one element's ``IndexKey``;
/// - declared, collection scope: `<collectionPath>|composite|<field:order>|…`;
/// - declared, group scope: `*<collectionID>|composite|<field:order>|…`.
///
/// Declared-index keys are the fields' keys concatenated, then the document path (descending when the last field is),
/// so that entries order exactly like Firestore results (ties broken by document name in the last field's direction).
enum IndexPolicy {
    static func singleFieldIndex(_ collectionPath: String, _ field: FieldPath) -> String {
        "\(collectionPath)|\(field.canonicalString)"
    }

    static func containsIndex(_ collectionPath: String, _ field: FieldPath) -> String {
        "\(collectionPath)|\(field.canonicalString)|contains"
    }

    /// Whether `name` is an automatic (single-field or array-contains) index of the collection at `collectionPath`,
    /// whose keys are bounded; `false` for declared indexes and for other collections' indexes.
    ///
    /// After `<collectionPath>|`, a declared name goes on with `composite|`. A field path's canonical string starts
    /// with `composite|` only as the array-contains index of a field named `composite` (`composite|contains`): a
    /// segment holding `|` is backtick-quoted.
    static func isAutomaticIndex(_ name: String, collectionPath: String) -> Bool {
        let utf8 = name.utf8
        let prefix = collectionPath.utf8
        guard utf8.count > prefix.count + 1, utf8.starts(with: prefix) else { return false }
        let rest = utf8.dropFirst(prefix.count)
        guard rest.first == UInt8(ascii: "|") else { return false }
        let remainder = rest.dropFirst()
        return !remainder.starts(with: "composite|".utf8) || remainder.elementsEqual("composite|contains".utf8)
    }

    /// Every index entry of `data` stored at `path` (a valid document path in `collectionPath`, whose last segment is
    /// `collectionID`).
    ///
    /// With `names`, index names are interned: documents of one collection share their index-name strings instead
    /// of each holding copies (bulk imports keep thousands of documents' entries in memory at once).
    static func entries(
        for data: DocumentData, path: String, collectionPath: String, collectionID: String,
        declared: [IndexDefinition], names: IndexNames? = nil
    ) -> [IndexEntry] {
        var entries: [IndexEntry] = []
        // Room for a nested map or an array's elements per field, about.
        entries.reserveCapacity(data.count * 3)
        var unused: [(name: String, key: [UInt8])] = []
        addFieldEntries(
            data, ancestors: [], collectionPath: collectionPath, canonicalPrefix: collectionPath + "|",
            simplePrefix: true, names: names, into: &entries, keys: &unused, collectKeys: false)
        if !declared.isEmpty {
            for definition in declared where definition.collectionID == collectionID {
                addDeclaredEntries(definition, data: data, path: path, collectionPath: collectionPath, into: &entries)
            }
        }
        return entries
    }

    /// Adds entries for every field of `map`. `canonicalPrefix` is the index name so far (`users|` or
    /// `users|address.`); when a segment needs quoting, names are built from ``FieldPath/canonicalString``.
    ///
    /// Adds each field's key to `keys` when `collectKeys`, so that the key of the map holding these fields is composed
    /// from them (``IndexKey/mapKey(fields:)``) instead of encoding every nested value twice; arrays likewise compose
    /// their key from their elements' keys, which their array-contains entries need anyway. `ancestors` are the field
    /// names leading to `map`, needed only for names that must be quoted.
    private static func addFieldEntries(
        _ map: [String: DocumentValue], ancestors: [String], collectionPath: String, canonicalPrefix: String,
        simplePrefix: Bool, names: IndexNames?, into entries: inout [IndexEntry],
        keys fieldKeys: inout [(name: String, key: [UInt8])], collectKeys: Bool
    ) {
        for (name, value) in map {
            var indexName: String
            let simple = simplePrefix && FieldPath.isSimple(name)
            if simple {
                indexName = canonicalPrefix + name
            } else {
                guard let field = try? FieldPath(segments: ancestors + [name]) else {
                    if collectKeys { fieldKeys.append((name, IndexKey.encode(value))) }
                    continue
                }
                indexName = collectionPath + "|" + field.canonicalString
            }
            if let names { indexName = names.intern(indexName) }
            switch value {
            case .array(let elements):
                let elementKeys = elements.map { IndexKey.encode($0) }
                let key = IndexKey.arrayKey(elementKeys: elementKeys)
                entries.append(IndexEntry(index: indexName, key: IndexKey.bounded(key)))
                if collectKeys { fieldKeys.append((name, key)) }
                if !elementKeys.isEmpty {
                    var contains = indexName + "|contains"
                    if let names { contains = names.intern(contains) }
                    for element in distinct(elementKeys.map(IndexKey.bounded)) {
                        entries.append(IndexEntry(index: contains, key: element))
                    }
                }
            case .map(let nested):
                // The map's own entry comes first; its key is known once its fields' keys are.
                let slot = entries.count
                entries.append(IndexEntry(index: indexName, key: []))
                var nestedKeys: [(name: String, key: [UInt8])] = []
                nestedKeys.reserveCapacity(nested.count)
                addFieldEntries(
                    nested, ancestors: ancestors + [name], collectionPath: collectionPath,
                    canonicalPrefix: indexName + ".", simplePrefix: simple, names: names, into: &entries,
                    keys: &nestedKeys, collectKeys: true)
                let key = IndexKey.mapKey(fields: nestedKeys)
                entries[slot].key = IndexKey.bounded(key)
                if collectKeys { fieldKeys.append((name, key)) }
            default:
                let key = IndexKey.encode(value)
                entries.append(IndexEntry(index: indexName, key: IndexKey.bounded(key)))
                if collectKeys { fieldKeys.append((name, key)) }
            }
        }
    }

    /// `keys` without repeats, in order of first appearance. Small arrays compare directly: hashing keys byte by byte
    /// costs more than a few comparisons.
    static func distinct(_ keys: [[UInt8]]) -> [[UInt8]] {
        if keys.count <= 1 { return keys }
        var result: [[UInt8]] = []
        result.reserveCapacity(keys.count)
        if keys.count <= 16 {
            for key in keys where !result.contains(key) { result.append(key) }
        } else {
            var seen = Set<[UInt8]>(minimumCapacity: keys.count)
            for key in keys where seen.insert(key).inserted { result.append(key) }
        }
        return result
    }

    /// A bounded set of index names shared by the documents of one import.
    final class IndexNames {
        private var names = Set<String>()
        /// Names beyond this many are not remembered (documents with ever-new field names).
        static let capacity = 4096

        /// The shared instance equal to `name` (remembering it while there is room).
        func intern(_ name: String) -> String {
            if names.count < Self.capacity { return names.insert(name).memberAfterInsert }
            if let index = names.firstIndex(of: name) { return names[index] }
            return name
        }
    }

    /// The entries of one declared index for one document (none when a field is missing).
    static func addDeclaredEntries(
        _ definition: IndexDefinition, data: DocumentData, path: String, collectionPath: String,
        into entries: inout [IndexEntry]
    ) {
        var keys: [[UInt8]] = [[]]
        for field in definition.fields {
            guard let value = data.value(at: field.fieldPath) else { return }
            switch field.order {
            case .ascending, .descending:
                let descending = field.order == .descending
                for i in keys.indices { IndexKey.append(value, descending: descending, to: &keys[i]) }
            case .arrayContains:
                guard case .array(let elements) = value, !elements.isEmpty else { return }
                let distinct = Self.distinct(elements.map { IndexKey.encode($0) })
                keys = keys.flatMap { base in distinct.map { base + $0 } }
            }
        }
        let descending = definition.fields.last?.order == .descending
        let name = definition.indexName(collectionPath: collectionPath)
        for var key in keys {
            IndexKey.appendDocumentPath(path, descending: descending, to: &key)
            entries.append(IndexEntry(index: name, key: key))
        }
    }

    /// The smallest key strictly greater than every key that starts with `prefix`; `nil` when there is none.
    static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var key = prefix
        while let last = key.last {
            if last == 0xFF {
                key.removeLast()
            } else {
                key[key.count - 1] = last + 1
                return key
            }
        }
        return nil
    }

    /// Whether `key` starts with `prefix`.
    static func hasPrefix(_ key: [UInt8], _ prefix: [UInt8]) -> Bool {
        guard key.count >= prefix.count else { return false }
        for i in 0..<prefix.count where key[i] != prefix[i] { return false }
        return true
    }

    /// memcmp order.
    static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        let n = min(a.count, b.count)
        for i in 0..<n where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// The smallest value of the given type order (0 null … 9 map) in Firestore's order, used as a range bound so
    /// that a comparison stays within one type. Chosen among candidates by their index keys, so it does not depend on
    /// the key layout.
    static func typeMinimum(_ typeOrder: Int) -> DocumentValue? {
        let candidates: [DocumentValue]
        switch typeOrder {
        case 0: candidates = [.null]
        case 1: candidates = [.bool(false)]
        case 2: candidates = [.double(.nan), .double(-.infinity), .int(.min)]
        case 3: candidates = [.timestamp(Timestamp(microseconds: .min))]
        case 4: candidates = [.string("")]
        case 5: candidates = [.bytes([])]
        case 6: candidates = [.reference("")]
        case 7:
            candidates = [
                .geoPoint(GeoPoint(latitude: .nan, longitude: .nan)),
                .geoPoint(GeoPoint(latitude: -.infinity, longitude: -.infinity)),
                .geoPoint(GeoPoint(latitude: -90, longitude: -180)),
            ]
        case 8: candidates = [.array([])]
        case 9: candidates = [.map([:])]
        default: return nil
        }
        var best: (value: DocumentValue, key: [UInt8])?
        for value in candidates {
            let key = IndexKey.encode(value)
            if let current = best, compareBytes(key, current.key) >= 0 { continue }
            best = (value, key)
        }
        return best?.value
    }
}
