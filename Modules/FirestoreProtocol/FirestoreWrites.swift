import Documents
import GRPCCore
import SwiftProtobuf

/// One protocol write translated for the store, with what its answer needs.
struct TranslatedWrite {
    var pending: PendingWrite
    /// The transformed fields, in the order of the write's transforms (their results are answered in that order).
    var transformed: [FieldPath]
}

extension FirestoreValues {
    /// Translates a protocol `Write` exactly as Firestore reads it: an update (with or without a mask, then its
    /// transforms), a delete, or a transform alone; its precondition on existence or on the update time.
    func write(_ write: Google_Firestore_V1_Write) throws -> TranslatedWrite {
        let path: DocumentPath
        var operation: PendingWrite.Operation
        var transforms: [Google_Firestore_V1_DocumentTransform.FieldTransform] = write.updateTransforms
        switch write.operation {
        case .update(let document)?:
            path = try names.documentPath(document.name, what: "document name")
            let data = try fields(document.fields)
            var mask: [FieldPath]?
            if write.hasUpdateMask {
                mask = try write.updateMask.fieldPaths.map { try Self.fieldPath($0, what: "update_mask") }
                if let field = mask?.first(where: \.isDocumentID) {
                    throw RPCError(
                        code: .invalidArgument, message: "Invalid field path in update_mask: \(field.canonicalString)")
                }
            }
            operation = .patch(mask: mask, data: data, transforms: [])
        case .delete(let name)?:
            path = try names.documentPath(name, what: "document name")
            operation = .delete
            guard transforms.isEmpty else {
                throw RPCError(code: .invalidArgument, message: "A delete cannot have update_transforms")
            }
        case .transform(let transform)?:
            path = try names.documentPath(transform.document, what: "document name")
            transforms = transform.fieldTransforms + transforms
            operation = .patch(mask: [], data: [:], transforms: [])
        case nil:
            throw RPCError(code: .invalidArgument, message: "A write must have an update, a delete or a transform")
        }
        var translated: [(FieldPath, FieldTransform)] = []
        var seen = Set<FieldPath>()
        for transform in transforms {
            let field = try Self.fieldPath(transform.fieldPath, what: "field transform")
            guard !field.isDocumentID, seen.insert(field).inserted else {
                throw RPCError(
                    code: .invalidArgument,
                    message: "Invalid field transform: field path '\(transform.fieldPath)' is used twice or is reserved"
                )
            }
            translated.append((field, try fieldTransform(transform, field: transform.fieldPath)))
        }
        if case .patch(let mask, let data, _) = operation {
            operation = .patch(mask: mask, data: data, transforms: translated)
        }
        var precondition = WritePrecondition.none
        var updateTime: Timestamp?
        if write.hasCurrentDocument {
            switch write.currentDocument.conditionType {
            case .exists(let flag)?: precondition = .exists(flag)
            case .updateTime(let time)?:
                updateTime = Timestamp(microseconds: try Self.microseconds(time, what: "update_time precondition"))
            case nil: break
            }
        }
        return TranslatedWrite(
            pending: PendingWrite(path: path, operation: operation, precondition: precondition, updateTime: updateTime),
            transformed: translated.map(\.0))
    }

    private func fieldTransform(
        _ transform: Google_Firestore_V1_DocumentTransform.FieldTransform, field: String
    ) throws -> FieldTransform {
        switch transform.transformType {
        case .setToServerValue(let value)?:
            guard value == .requestTime else {
                throw RPCError(code: .invalidArgument, message: "Invalid server value in field transform of \(field)")
            }
            return .serverTimestamp
        case .increment(let operand)?:
            switch try value(operand, field: field) {
            case .int(let n): return .incrementInt(n)
            case .double(let d): return .incrementDouble(d)
            default:
                throw RPCError(
                    code: .invalidArgument, message: "Increment operand for field \(field) must be a number")
            }
        case .maximum(let operand)?, .minimum(let operand)?:
            let number = try value(operand, field: field)
            switch number {
            case .int, .double: break
            default:
                throw RPCError(
                    code: .invalidArgument, message: "Maximum/minimum operand for field \(field) must be a number")
            }
            if case .maximum? = transform.transformType { return .maximum(number) }
            return .minimum(number)
        case .appendMissingElements(let array)?:
            return .arrayUnion(try array.values.map { try value($0, field: field) })
        case .removeAllFromArray(let array)?:
            return .arrayRemove(try array.values.map { try value($0, field: field) })
        case nil:
            throw RPCError(code: .invalidArgument, message: "A field transform of \(field) has no transform")
        }
    }

    /// The answer to one applied write: its update time and its transforms' results.
    func writeResult(_ snapshot: DocumentSnapshot, _ write: TranslatedWrite, commitTime: Int64)
        -> Google_Firestore_V1_WriteResult
    {
        var result = Google_Firestore_V1_WriteResult()
        // Not set after a delete, as Firestore answers.
        if snapshot.exists { result.updateTime = Self.timestamp(snapshot.updateTime?.microseconds ?? commitTime) }
        let data = snapshot.data ?? [:]
        result.transformResults = write.transformed.map { proto(data.value(at: $0) ?? .null) }
        return result
    }
}

extension Google_Firestore_V1_Write {
    /// The write's encoded size.
    var serializedBytesCount: Int { (try? serializedBytes() as [UInt8])?.count ?? 0 }
}
