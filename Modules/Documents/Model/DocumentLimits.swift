/// The limits a document must respect, each failing with a clear error (Firestore's defaults).
///
/// ```swift
/// var limits = DocumentLimits()
/// limits.maximumDocumentSize = 4 << 20            // allow 4 MiB documents
/// try limits.validate(data, encodedSize: ValueCodec.encodedSize(data))
/// ```
public struct DocumentLimits: Sendable, Hashable {
    /// The largest encoded document body, in bytes (1 MiB by default).
    public var maximumDocumentSize: Int = 1 << 20
    /// The deepest nesting of maps and arrays: a top-level field is at depth 1 (20 by default). Values deeper
    /// than `ValueCodec/maximumDecodingDepth` are refused whatever this says.
    public var maximumDepth: Int = 20
    /// The most writes in one batch or transaction commit (500 by default).
    public var maximumBatchSize: Int = 500
    /// The longest field name, in UTF-8 bytes (Firestore's 1,500).
    public static let maximumFieldNameBytes = 1500

    /// The earliest storable timestamp, 0001-01-01T00:00:00Z, in microseconds since the Unix epoch.
    public static let earliestTimestamp: Int64 = -62_135_596_800_000_000
    /// The latest storable timestamp, 9999-12-31T23:59:59.999999Z, in microseconds since the Unix epoch.
    public static let latestTimestamp: Int64 = 253_402_300_799_999_999

    /// The default limits.
    public init() {}

    /// Limits with the given values.
    public init(maximumDocumentSize: Int = 1 << 20, maximumDepth: Int = 20, maximumBatchSize: Int = 500) {
        self.maximumDocumentSize = maximumDocumentSize
        self.maximumDepth = maximumDepth
        self.maximumBatchSize = maximumBatchSize
    }

    /// Firestore's limits: 1 MiB documents, depth 20, 500 writes per batch.
    public static let `default` = DocumentLimits()

    /// Checks a document about to be written.
    ///
    /// - `encodedSize` (usually `ValueCodec.encode(data).count`) above ``maximumDocumentSize``: `.limitExceeded`;
    /// - nesting deeper than ``maximumDepth``: `.limitExceeded`;
    /// - a field name (at any depth) that is empty, longer than 1,500 bytes or of the reserved form `__x__`:
    ///   `.invalidField`;
    /// - a geo point outside [-90, 90] × [-180, 180], a timestamp outside years 0001–9999 or a reference that is
    ///   not a valid document path: `.invalidValue`.
    ///
    /// Each error names the field and carries a hint.
    public func validate(_ data: DocumentData, encodedSize: Int) throws {
        if encodedSize > maximumDocumentSize {
            throw DocumentsError(
                .limitExceeded,
                "the document is \(encodedSize) bytes; the limit is \(maximumDocumentSize) bytes",
                hint: "split large content across documents or a subcollection, or raise the configured "
                    + "maximum document size")
        }
        let depthLimit = min(maximumDepth, ValueCodec.maximumDecodingDepth)
        do {
            try validateMap(data, depth: 1, depthLimit: depthLimit)
        } catch let failure as Failure {
            throw failure.error(failure.reversedPath.reversed())
        }
    }

    /// Checks the number of writes in a batch: more than ``maximumBatchSize`` is `.limitExceeded`.
    public func validateBatchSize(_ count: Int) throws {
        if count > maximumBatchSize {
            throw DocumentsError(
                .limitExceeded, "the batch has \(count) writes; the limit is \(maximumBatchSize)",
                hint: "split the writes into batches of at most \(maximumBatchSize)")
        }
    }

    /// One step of the path to the value being checked; turned into text only for an error message.
    enum PathComponent: Sendable {
        case field(String)
        case element(Int)
    }

    /// A failed check on its way up to ``validate(_:encodedSize:)``: each level adds its step to the path, so that
    /// the walk keeps no path while it succeeds.
    private struct Failure: Error {
        /// The steps from the failing value up to the document (innermost first).
        var reversedPath: [PathComponent] = []
        /// The error, given the path from the document down to the failing value.
        let error: @Sendable ([PathComponent]) -> DocumentsError

        init(_ error: @escaping @Sendable ([PathComponent]) -> DocumentsError) { self.error = error }
    }

    private func validateMap(_ map: [String: DocumentValue], depth: Int, depthLimit: Int) throws {
        // Firestore's vector value is the map {"__type__": "__vector__", "value": [numbers]}: its one reserved name.
        let isVector = DocumentValue.vectorElements(map) != nil
        for (name, value) in map {
            do {
                if !(isVector && name == "__type__") { try Self.validateName(name) }
                try validateValue(value, depth: depth, depthLimit: depthLimit)
            } catch var failure as Failure {
                failure.reversedPath.append(.field(name))
                throw failure
            }
        }
    }

    private func validateValue(_ value: DocumentValue, depth: Int, depthLimit: Int) throws {
        if depth > depthLimit {
            throw Failure { path in
                DocumentsError(
                    .limitExceeded, "\(Self.describe(path)) is nested more than \(depthLimit) levels deep",
                    hint: "flatten the data or move deep parts to a subcollection")
            }
        }
        switch value {
        case .map(let map):
            try validateMap(map, depth: depth + 1, depthLimit: depthLimit)
        case .array(let items):
            for (i, item) in items.enumerated() {
                do {
                    try validateValue(item, depth: depth + 1, depthLimit: depthLimit)
                } catch var failure as Failure {
                    failure.reversedPath.append(.element(i))
                    throw failure
                }
            }
        case .geoPoint(let g):
            guard (-90...90).contains(g.latitude), (-180...180).contains(g.longitude) else {
                throw Failure { path in
                    DocumentsError(
                        .invalidValue,
                        "\(Self.describe(path)): the geo point (\(g.latitude), \(g.longitude)) is out of range",
                        hint: "latitude must be within [-90, 90] and longitude within [-180, 180]")
                }
            }
        case .timestamp(let t):
            guard (Self.earliestTimestamp...Self.latestTimestamp).contains(t.microseconds) else {
                throw Failure { path in
                    DocumentsError(
                        .invalidValue, "\(Self.describe(path)): the timestamp is outside years 0001–9999",
                        hint: "store times between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z")
                }
            }
        case .reference(let s):
            do { _ = try DocumentPath(s) } catch let error as DocumentsError {
                throw Failure { path in
                    DocumentsError(
                        .invalidValue, "\(Self.describe(path)): the reference is invalid: \(error.message)",
                        hint: error.hint)
                }
            }
        default:
            break
        }
    }

    /// Checks a field name; the failure's path ends with the field itself.
    private static func validateName(_ name: String) throws {
        if name.isEmpty {
            throw Failure { path in
                DocumentsError(
                    .invalidField, "\(Self.describe(path.dropLast())) has a field with an empty name",
                    hint: "give every field a non-empty name")
            }
        }
        let bytes = name.utf8.count
        if bytes > Self.maximumFieldNameBytes {
            throw DocumentsError(
                .invalidField, "a field name is \(bytes) bytes long; the limit is \(Self.maximumFieldNameBytes)",
                hint: "use a shorter field name")
        }
        if PathSegments.isReserved(name) {
            throw Failure { path in
                DocumentsError(
                    .invalidField, "\(Self.describe(path)) uses a reserved name",
                    hint: "names of the form __x__ are reserved; rename the field")
            }
        }
    }

    static func describe<C: Collection<PathComponent>>(_ path: C) -> String {
        if path.isEmpty { return "the document" }
        var out = ""
        for part in path {
            switch part {
            case .element(let i):
                out += "[\(i)]"
            case .field(let name):
                if !out.isEmpty { out += "." }
                out += FieldPath.isSimple(name) ? name : "`\(name)`"
            }
        }
        return "field '\(out)'"
    }
}
