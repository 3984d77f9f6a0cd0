// The precondition checks of the built-in engines: one implementation keeps their failures identical.

extension WritePrecondition {
    /// Whether a write under this precondition may find no document (a put may then create it at once).
    var allowsAbsence: Bool {
        switch self {
        case .none, .exists(false): true
        case .exists(true), .version: false
        }
    }

    /// Throws ``DocumentsError/Code-swift.struct/preconditionFailed`` unless the precondition holds for a document
    /// whose current version is `currentVersion` (`nil` when it does not exist).
    package func check(path: String, currentVersion: Int64?) throws {
        switch self {
        case .none:
            return
        case .exists(true):
            if currentVersion == nil {
                throw DocumentsError(
                    .preconditionFailed,
                    "'\(path)' does not exist",
                    hint: "nothing was written; the write required an existing document"
                )
            }
        case .exists(false):
            if currentVersion != nil {
                throw DocumentsError(
                    .preconditionFailed,
                    "'\(path)' already exists",
                    hint: "nothing was written; the write required that the document not exist"
                )
            }
        case .version(let expected):
            guard let currentVersion else {
                throw DocumentsError(
                    .preconditionFailed,
                    "'\(path)' does not exist (expected version \(expected))",
                    hint: "nothing was written; re-read the document and retry"
                )
            }
            if currentVersion != expected {
                throw DocumentsError(
                    .preconditionFailed,
                    "'\(path)' is at version \(currentVersion), expected \(expected)",
                    hint: "nothing was written; re-read the document and retry"
                )
            }
        }
    }
}
