import Synchronization

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
    static func entries(
        for data: DocumentData, path: String, collectionPath: String, collectionID: String,
        declared: [IndexDefinition]
    ) -> [IndexEntry] {
        var batch = IndexEntryBatch(oneDocumentOf: data.count)
        appendEntries(
            for: data, path: path, collectionPath: collectionPath, collectionID: collectionID, declared: declared,
            into: &batch)
        return batch.entries(ofDocument: 0)
    }

    /// Index names kept from write to write: a store's writes build each document's entries in one batch whose name
    /// cache lives on (``IndexEntryBatch`` for many documents), instead of building every name again. Forgets them
    /// all past ``capacity`` names (documents with ever-new field names).
    final class NameCache: Sendable {
        private let batch = Mutex(IndexEntryBatch())
        static let capacity = 4096

        /// As ``IndexPolicy/entries(for:path:collectionPath:collectionID:declared:)``.
        func entries(
            for data: DocumentData, path: String, collectionPath: String, collectionID: String,
            declared: [IndexDefinition]
        ) -> [IndexEntry] {
            batch.withLock { batch in
                if batch.names.count > Self.capacity { batch = IndexEntryBatch() }
                batch.removeAllDocuments()
                appendEntries(
                    for: data, path: path, collectionPath: collectionPath, collectionID: collectionID,
                    declared: declared, into: &batch)
                return batch.entries(ofDocument: 0)
            }
        }
    }

    /// Adds every index entry of `data` stored at `path` to `batch` as its next document (see
    /// ``entries(for:path:collectionPath:collectionID:declared:)``).
    ///
    /// Keys are written straight into the batch's byte arena, and index names are looked up per parent and field
    /// name in the batch's cache: a bulk import of order documents builds no array and no string per entry.
    static func appendEntries(
        for data: DocumentData, path: String, collectionPath: String, collectionID: String,
        declared: [IndexDefinition], into batch: inout IndexEntryBatch
    ) {
        batch.scratch.removeAll(keepingCapacity: true)
        batch.addFieldEntries(data, parent: batch.root(collectionPath), collectKeys: false)
        if !declared.isEmpty {
            var entries: [IndexEntry] = []
            for definition in declared where definition.collectionID.hasSameBytes(as: collectionID) {
                addDeclaredEntries(definition, data: data, path: path, collectionPath: collectionPath, into: &entries)
            }
            for entry in entries { batch.append(entry) }
        }
        batch.endDocument()
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

    /// The smallest value of the given type order (0 null … 10 map) in Firestore's order, used as a range bound so
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
        case 9: candidates = [.map(["__type__": .string("__vector__"), "value": .array([])])]
        case 10: candidates = [.map([:])]
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

// MARK: - Building entries into a batch

extension IndexEntryBatch {
    /// The root parent of `collectionPath`'s top-level fields.
    mutating func root(_ collectionPath: String) -> Int32 {
        // By bytes: collections whose paths differ only by their Unicode normalization are two (and so their indexes).
        let position = collections.firstIndex(where: { $0.hasSameBytes(as: collectionPath) }) ?? collections.endIndex
        if position == collections.endIndex { collections.append(collectionPath) }
        return -1 - Int32(truncatingIfNeeded: position)
    }

    /// The single-field index of field `field` under `parent` (a root, or a map field's index), or -1 when the field
    /// path is not valid (the field then has no entries).
    ///
    /// As ``IndexPolicy/singleFieldIndex(_:_:)``: `parent.field` while every segment is simple, the whole field
    /// path's canonical string once one needs quoting.
    @inline(__always)
    mutating func fieldIndex(parent: Int32, field: String) -> Int32 {
        guard fieldNames != nil else { return newFieldIndex(parent: parent, field: field) }
        if let known = fieldNames?[FieldNameKey(parent: parent, field: field)] { return known }
        let number = newFieldIndex(parent: parent, field: field)
        fieldNames?[FieldNameKey(parent: parent, field: field)] = number
        return number
    }

    private mutating func newFieldIndex(parent: Int32, field: String) -> Int32 {
        let info: FieldName?
        if parent < 0 {
            info = nil
        } else {
            guard let known = fields[Int(parent)] else { return -1 }
            info = known
        }
        let root = info?.root ?? parent
        let collectionPath = collections[Int(-1 - root)]
        let simple = (info?.simple ?? true) && FieldPath.isSimple(field)
        let name: String
        if simple {
            name = (info == nil ? collectionPath + "|" : names[Int(parent)] + ".") + field
        } else {
            var segments = [field]
            var up = parent
            while up >= 0, let next = fields[Int(up)] {
                segments.append(next.field)
                up = next.parent
            }
            guard let path = try? FieldPath(segments: segments.reversed()) else { return -1 }
            name = collectionPath + "|" + path.canonicalString
        }
        let number = number(of: name)
        fields[Int(number)] = FieldName(parent: parent, field: field, root: root, simple: simple)
        return number
    }

    /// The array-contains index of single-field index `index`.
    mutating func containsIndex(_ index: Int32) -> Int32 {
        guard fieldNames != nil else { return number(of: names[Int(index)] + "|contains") }
        if let known = containsNames[index] { return known }
        let number = number(of: names[Int(index)] + "|contains")
        containsNames[index] = number
        return number
    }

    /// Adds the entries of every field of `map`, whose index names go on from `parent`.
    ///
    /// With `collectKeys` (the fields of a map, whose own key is composed from theirs), each field's whole key is
    /// left in `scratch` and listed on `fieldStack`; arrays compose their key from their elements' keys, which their
    /// array-contains entries need anyway. Nothing is encoded twice.
    mutating func addFieldEntries(_ map: [String: DocumentValue], parent: Int32, collectKeys: Bool) {
        for (name, value) in map {
            let index = fieldIndex(parent: parent, field: name)
            switch value {
            case .array(let elements):
                let start = scratch.count
                let elementBase = elementStack.count
                scratch.append(0x18)
                for element in elements {
                    let elementStart = scratch.count
                    IndexKey.appendAscending(element, to: &scratch)
                    elementStack.append((elementStart, scratch.count))
                }
                scratch.append(0x00)
                if index >= 0 {
                    appendBounded(index, fromScratch: start, scratch.count)
                    if !elements.isEmpty { addContainsEntries(containsIndex(index), elementBase: elementBase) }
                }
                elementStack.removeLast(elementStack.count - elementBase)
                finishField(name, start: start, collectKeys: collectKeys)
            case .map(let nested) where index >= 0 && DocumentValue.vectorElements(nested) == nil:
                // The map's own entry comes first; its key is known once its fields' keys are.
                let slot = slots.count
                slots.append(Slot(name: index, keyStart: 0, keyEnd: 0))
                let (start, fieldBase) = (scratch.count, fieldStack.count)
                addFieldEntries(nested, parent: index, collectKeys: true)
                composeMapKey(fieldBase: fieldBase)
                // The map's key replaces its fields' keys in `scratch`.
                scratch.removeLast(scratch.count - start)
                scratch.append(contentsOf: composed)
                slots[slot].keyStart = keys.count
                appendBoundedKey(fromScratch: start, scratch.count)
                slots[slot].keyEnd = keys.count
                finishField(name, start: start, collectKeys: collectKeys)
            default:
                if index >= 0, !collectKeys {
                    // A top-level scalar: its key goes straight into the arena.
                    let start = keys.count
                    IndexKey.appendAscending(value, to: &keys)
                    boundInPlace(from: start)
                    slots.append(Slot(name: index, keyStart: start, keyEnd: keys.count))
                    continue
                }
                // A nested scalar (its map needs its whole key), or a field without an index (a map's whole key).
                let start = scratch.count
                IndexKey.appendAscending(value, to: &scratch)
                if index >= 0 { appendBounded(index, fromScratch: start, scratch.count) }
                finishField(name, start: start, collectKeys: collectKeys)
            }
        }
    }

    /// Lists the field whose whole key starts at `start` in `scratch` (when its map collects keys), or drops the key.
    @inline(__always)
    private mutating func finishField(_ name: String, start: Int, collectKeys: Bool) {
        if collectKeys {
            fieldStack.append((name, start, scratch.count))
        } else {
            scratch.removeLast(scratch.count - start)
        }
    }

    /// Composes into `composed` the key of the map whose fields are listed on `fieldStack` from `fieldBase` (their
    /// keys in `scratch`), and takes them off the stack: the same bytes as ``IndexKey/mapKey(fields:)``.
    private mutating func composeMapKey(fieldBase: Int) {
        composed.removeAll(keepingCapacity: true)
        composed.append(0x19)
        let fields = fieldStack[fieldBase...]
        UTF8Order.forEachSorted(fields.lazy.map(\.name)) { position in
            let field = fields[position]
            composed.append(0x01)
            IndexKey.appendEscaped(field.name, to: &composed)
            scratch.withUnsafeBytes { composed.append(contentsOf: $0[field.start..<field.end]) }
        }
        composed.append(0x00)
        fieldStack.removeLast(fieldStack.count - fieldBase)
    }

    /// Adds one array-contains entry per distinct element key listed on `elementStack` from `elementBase`, in order of
    /// first appearance.
    private mutating func addContainsEntries(_ index: Int32, elementBase: Int) {
        let elements = elementStack[elementBase...]
        if elements.count <= 16 {
            // Small arrays compare directly: hashing keys costs more than a few comparisons.
            for n in elements.indices {
                let repeated = scratch.withUnsafeBytes { bytes in
                    let key = UnsafeRawBufferPointer(rebasing: bytes[elements[n].start..<elements[n].end])
                    return elements[elementBase..<n].contains { earlier in
                        compareRaw(UnsafeRawBufferPointer(rebasing: bytes[earlier.start..<earlier.end]), key) == 0
                    }
                }
                if !repeated { appendBounded(index, fromScratch: elements[n].start, elements[n].end) }
            }
        } else {
            var seen = Set<ArraySlice<UInt8>>(minimumCapacity: elements.count)
            for element in elements where seen.insert(scratch[element.start..<element.end]).inserted {
                appendBounded(index, fromScratch: element.start, element.end)
            }
        }
    }

    /// Adds an entry of `index` whose whole key is `scratch[start..<end]`, bounded (``IndexKey/bounded(_:)``).
    @inline(__always)
    private mutating func appendBounded(_ index: Int32, fromScratch start: Int, _ end: Int) {
        let keyStart = keys.count
        appendBoundedKey(fromScratch: start, end)
        slots.append(Slot(name: index, keyStart: keyStart, keyEnd: keys.count))
    }

    /// Appends `scratch[start..<end]` to the arena, bounded.
    @inline(__always)
    private mutating func appendBoundedKey(fromScratch start: Int, _ end: Int) {
        scratch.withUnsafeBytes { bytes in
            let key = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            if key.count <= IndexKey.maximumLength {
                keys.append(contentsOf: key)
            } else {
                keys.append(contentsOf: key[0..<IndexKey.boundedPrefixLength])
                IndexKey.appendBigEndian(IndexKey.longKeyHash(key), to: &keys)
            }
        }
    }

    /// Bounds the key written to the arena from `start`, in place.
    @inline(__always)
    private mutating func boundInPlace(from start: Int) {
        guard keys.count - start > IndexKey.maximumLength else { return }
        let hash = keys.withUnsafeBytes { IndexKey.longKeyHash(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        keys.removeLast(keys.count - start - IndexKey.boundedPrefixLength)
        IndexKey.appendBigEndian(hash, to: &keys)
    }
}
