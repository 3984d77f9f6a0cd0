@_spi(Engine) import Documents
import SuitePluginKit

// The documents kind's composite values, built on SuitePluginKit's wire primitives (see DocumentEngineWire).

extension WireWriter {
    mutating func entry(_ entry: IndexEntry) {
        string(entry.index)
        blob(entry.key)
    }

    mutating func entries(_ entries: [IndexEntry]) {
        count(entries.count)
        for entry in entries { self.entry(entry) }
    }

    /// A commit's mutations: `[mutation]`, mutation = `string` path, precondition, kind (see DocumentEngineWire).
    mutating func mutations(_ mutations: [DocumentMutation]) {
        count(mutations.count)
        for mutation in mutations {
            string(mutation.path)
            switch mutation.precondition {
            case .none:
                u8(0)
            case .exists(let exists):
                u8(1)
                bool(exists)
            case .version(let version):
                u8(2)
                i64(version)
            }
            switch mutation.kind {
            case .delete:
                u8(0)
            case .put(let body, let entries):
                u8(1)
                blob(body)
                self.entries(entries)
            case .check:
                u8(2)
            }
        }
    }

    mutating func document(_ document: StoredDocument) {
        string(document.path)
        blob(document.body)
        i64(document.version)
        i64(document.createTime)
        i64(document.updateTime)
    }

    mutating func optionalDocument(_ document: StoredDocument?) {
        if let document {
            u8(1)
            self.document(document)
        } else {
            u8(0)
        }
    }

    mutating func optionalStrings(_ strings: [String]?) {
        guard let strings else { return u8(0) }
        u8(1)
        count(strings.count)
        for string in strings { self.string(string) }
    }

    mutating func verification(_ report: IndexVerification) {
        i64(Int64(report.indexes))
        i64(Int64(report.entries))
        i64(Int64(report.differenceCount))
        count(report.differences.count)
        for difference in report.differences {
            u8(difference.kind == .missing ? 0 : 1)
            string(difference.index)
            blob(difference.key)
            string(difference.path)
        }
    }

    mutating func bound(_ bound: IndexBound?) {
        if let bound {
            u8(1)
            blob(bound.key)
            bool(bound.inclusive)
        } else {
            u8(0)
        }
    }
}

extension WireReader {
    mutating func entry() throws -> IndexEntry {
        let index = try string()
        return IndexEntry(index: index, key: try blob())
    }

    mutating func entries() throws -> [IndexEntry] {
        let n = try count(minimumSize: 8)
        var result: [IndexEntry] = []
        result.reserveCapacity(n)
        for _ in 0..<n { result.append(try entry()) }
        return result
    }

    /// A commit's mutations (see ``WireWriter/mutations(_:)``).
    mutating func mutations() throws -> [DocumentMutation] {
        // path length + precondition tag + kind tag
        let n = try count(minimumSize: 6)
        var mutations: [DocumentMutation] = []
        mutations.reserveCapacity(n)
        for _ in 0..<n {
            let path = try string()
            let precondition: WritePrecondition
            switch try u8() {
            case 0: precondition = .none
            case 1: precondition = .exists(try bool())
            case 2: precondition = .version(try i64())
            case let tag: throw malformed("unknown precondition tag \(tag)")
            }
            let kind: DocumentMutation.Kind
            switch try u8() {
            case 0: kind = .delete
            case 1:
                let body = try blob()
                kind = .put(body: body, indexEntries: try entries())
            case 2: kind = .check
            case let tag: throw malformed("unknown mutation tag \(tag)")
            }
            mutations.append(DocumentMutation(path: path, kind: kind, precondition: precondition))
        }
        return mutations
    }

    mutating func document() throws -> StoredDocument {
        let path = try string()
        let body = try blob()
        let version = try i64()
        let createTime = try i64()
        return StoredDocument(path: path, body: body, version: version, createTime: createTime, updateTime: try i64())
    }

    mutating func optionalDocument() throws -> StoredDocument? {
        try present() ? try document() : nil
    }

    mutating func optionalStrings() throws -> [String]? {
        guard try present() else { return nil }
        let n = try count(minimumSize: 4)
        var strings: [String] = []
        strings.reserveCapacity(n)
        for _ in 0..<n { strings.append(try string()) }
        return strings
    }

    mutating func verification() throws -> IndexVerification {
        let indexes = Int(truncatingIfNeeded: try i64())
        let entries = Int(truncatingIfNeeded: try i64())
        let differenceCount = Int(truncatingIfNeeded: try i64())
        // kind + index length + key length + path length
        let n = try count(minimumSize: 13)
        var differences: [IndexDifference] = []
        differences.reserveCapacity(n)
        for _ in 0..<n {
            let kind: IndexDifference.Kind
            switch try u8() {
            case 0: kind = .missing
            case 1: kind = .unexpected
            case let tag: throw malformed("unknown index difference kind \(tag)")
            }
            let index = try string()
            let key = try blob()
            differences.append(IndexDifference(kind: kind, index: index, key: key, path: try string()))
        }
        return IndexVerification(
            indexes: indexes, entries: entries, differenceCount: differenceCount, differences: differences)
    }

    mutating func bound() throws -> IndexBound? {
        guard try present() else { return nil }
        let key = try blob()
        return IndexBound(key: key, inclusive: try bool())
    }
}

/// The smallest encoded sizes, used to bound forged counts.
enum WireSize {
    /// `u32` path length + `u32` body length + three `i64`.
    static let document = 4 + 4 + 24
    /// A presence tag.
    static let optional = 1
}
