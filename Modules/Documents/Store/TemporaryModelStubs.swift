// TEMPORARY: stands in for MODEL's limits and Codable support until docs-model lands them. Delete after the merge.
public struct DocumentLimits: Sendable, Hashable {
    public var maximumDocumentSize: Int = 1 << 20
    public var maximumDepth: Int = 20
    public var maximumBatchSize: Int = 500
    public init() {}
    public static let `default` = DocumentLimits()
    public func validate(_ data: DocumentData, encodedSize: Int) throws {
        if encodedSize > maximumDocumentSize { throw DocumentsError(.limitExceeded, "document too large") }
    }
}
public struct DocumentEncoder {
    public init() {}
    public func encode<T: Encodable>(_ value: T) throws -> DocumentData { throw DocumentsError(.unsupported, "stub") }
}
public struct DocumentDecoder {
    public init() {}
    public func decode<T: Decodable>(_ type: T.Type, from data: DocumentData, path: DocumentPath?) throws -> T {
        throw DocumentsError(.unsupported, "stub")
    }
}
