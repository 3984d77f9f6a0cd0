import Documents
import GRPCCore
import SwiftProtobuf

/// Vector search (`find_nearest`) over a query's documents. A vector is Firestore's `__vector__` map:
/// `{"__type__": "__vector__", "value": [numbers]}`, stored in Suite as that map.
extension FirestoreService {
    static func vector(_ value: DocumentValue?) -> [Double]? {
        guard case .map(let map)? = value, let elements = DocumentValue.vectorElements(map) else { return nil }
        return elements.map { element in
            switch element {
            case .int(let n): Double(n)
            case .double(let d): d
            default: .nan  // vectorElements holds numbers only
            }
        }
    }

    /// The documents nearest to the query vector, nearest first, at most `limit`, within the threshold; the
    /// distance written into `distance_result_field` when named.
    static func nearest(
        _ nearest: Google_Firestore_V1_StructuredQuery.FindNearest, in documents: [DocumentSnapshot],
        values: FirestoreValues
    ) throws -> [DocumentSnapshot] {
        let field = try FirestoreValues.fieldPath(nearest.vectorField.fieldPath, what: "find_nearest")
        guard let query = vector(try values.value(nearest.queryVector, field: "query_vector")), !query.isEmpty else {
            throw RPCError(code: .invalidArgument, message: "find_nearest needs a non-empty query_vector")
        }
        guard nearest.hasLimit, (1...1_000).contains(nearest.limit.value) else {
            throw RPCError(code: .invalidArgument, message: "find_nearest needs a limit from 1 to 1000")
        }
        let measure = nearest.distanceMeasure
        guard measure == .euclidean || measure == .cosine || measure == .dotProduct else {
            throw RPCError(code: .invalidArgument, message: "find_nearest needs a distance measure")
        }
        var resultField: FieldPath?
        if !nearest.distanceResultField.isEmpty {
            resultField = try FirestoreValues.fieldPath(nearest.distanceResultField, what: "distance_result_field")
        }
        var scored: [(DocumentSnapshot, Double)] = []
        for document in documents {
            guard let vector = vector(document.get(field)), vector.count == query.count else { continue }
            let distance: Double
            switch measure {
            case .euclidean:
                distance = zip(vector, query).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
            case .cosine:
                let dot = zip(vector, query).reduce(0.0) { $0 + $1.0 * $1.1 }
                let norms =
                    vector.reduce(0.0) { $0 + $1 * $1 }.squareRoot()
                    * query.reduce(0.0) { $0 + $1 * $1 }
                    .squareRoot()
                guard norms > 0 else { continue }
                distance = 1 - dot / norms
            default:
                distance = zip(vector, query).reduce(0.0) { $0 + $1.0 * $1.1 }
            }
            if nearest.hasDistanceThreshold {
                let threshold = nearest.distanceThreshold.value
                if measure == .dotProduct ? distance < threshold : distance > threshold { continue }
            }
            scored.append((document, distance))
        }
        scored.sort { measure == .dotProduct ? $0.1 > $1.1 : $0.1 < $1.1 }
        return scored.prefix(Int(nearest.limit.value)).map { document, distance in
            guard let resultField, var data = document.data else { return document }
            data.setValue(.double(distance), at: resultField)
            return DocumentSnapshot(
                path: document.path, data: data, version: document.version, createTime: document.createTime,
                updateTime: document.updateTime)
        }
    }
}
