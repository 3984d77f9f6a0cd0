import Documents
import GRPCCore
import SuiteCore

/// Suite's errors as Firestore states them: its status codes, and its messages where clients or people match them.
enum FirestoreErrors {
    /// The status for any error of a call; `names` names documents in messages.
    static func status(_ error: any Error, names: ResourceNames?) -> RPCError {
        switch error {
        case let error as RPCError:
            return error
        case let error as DocumentsError:
            return status(error, names: names)
        case let error as SuiteError:
            return RPCError(code: .invalidArgument, message: error.message)
        case is CancellationError:
            return RPCError(code: .cancelled, message: "The call was cancelled")
        default:
            return RPCError(code: .internalError, message: "\(error)")
        }
    }

    private static func status(_ error: DocumentsError, names: ResourceNames?) -> RPCError {
        let name = quotedPath(in: error.message).map { names?.documentName($0) ?? $0 }
        switch error.code {
        case .invalidPath, .invalidField, .invalidValue, .invalidQuery, .limitExceeded:
            return RPCError(code: .invalidArgument, message: error.message)
        case .missingIndex:
            return RPCError(
                code: .failedPrecondition,
                message: "The query requires an index. \(error.message)" + (error.hint.map { " (\($0))" } ?? ""))
        case .notFound:
            return RPCError(code: .notFound, message: "No document to update: \(name ?? error.message)")
        case .preconditionFailed:
            if error.message.hasSuffix("does not exist") {
                return RPCError(code: .notFound, message: "No document to update: \(name ?? error.message)")
            }
            if error.message.hasSuffix("already exists") {
                return RPCError(code: .alreadyExists, message: "Document already exists: \(name ?? error.message)")
            }
            return RPCError(code: .failedPrecondition, message: error.message)
        case .transactionAborted:
            return RPCError(code: .aborted, message: error.message)
        case .permissionDenied:
            return RPCError(code: .permissionDenied, message: "Missing or insufficient permissions.")
        case .unsupported:
            return RPCError(code: .failedPrecondition, message: error.message)
        case .storage:
            return RPCError(code: .unavailable, message: error.message)
        default:
            return RPCError(code: .internalError, message: error.message)
        }
    }

    /// The first `'…'` of a message: Documents names the document it refused there.
    private static func quotedPath(in message: String) -> String? {
        guard let open = message.firstIndex(of: "'") else { return nil }
        let rest = message[message.index(after: open)...]
        guard let close = rest.firstIndex(of: "'") else { return nil }
        let path = rest[..<close]
        return path.contains("/") ? String(path) : nil
    }

    /// The protocol's name of a status code, as `/metrics` labels it.
    static func codeName(_ code: RPCError.Code?) -> String {
        guard let code else { return "OK" }
        switch code {
        case .cancelled: return "CANCELLED"
        case .unknown: return "UNKNOWN"
        case .invalidArgument: return "INVALID_ARGUMENT"
        case .deadlineExceeded: return "DEADLINE_EXCEEDED"
        case .notFound: return "NOT_FOUND"
        case .alreadyExists: return "ALREADY_EXISTS"
        case .permissionDenied: return "PERMISSION_DENIED"
        case .resourceExhausted: return "RESOURCE_EXHAUSTED"
        case .failedPrecondition: return "FAILED_PRECONDITION"
        case .aborted: return "ABORTED"
        case .outOfRange: return "OUT_OF_RANGE"
        case .unimplemented: return "UNIMPLEMENTED"
        case .internalError: return "INTERNAL"
        case .unavailable: return "UNAVAILABLE"
        case .dataLoss: return "DATA_LOSS"
        case .unauthenticated: return "UNAUTHENTICATED"
        default: return "UNKNOWN"
        }
    }
}
