/// What kind of content an item is, from its content type: the categories a person deletes by (seed 001: photos,
/// videos, audio, files).
///
/// `image/*`, `video/*` and `audio/*` are what they say; documents, archives and text (`application/pdf`,
/// `application/zip`, `text/*`, …) are `file`; anything else, `application/octet-stream` included, is `other`.
public enum StorageCategory: String, Codable, Sendable, CaseIterable, Comparable {
    /// Photos and pictures (`image/*`).
    case image
    /// Videos (`video/*`).
    case video
    /// Sound and voice messages (`audio/*`).
    case audio
    /// Documents, archives and text.
    case file
    /// Everything else.
    case other

    /// The category of a content type (a MIME type such as `image/jpeg`; parameters after `;` are ignored).
    public init(contentType: String) {
        let type = contentType.split(separator: ";").first.map { $0.lowercased() } ?? ""
        if type.hasPrefix("image/") {
            self = .image
        } else if type.hasPrefix("video/") {
            self = .video
        } else if type.hasPrefix("audio/") {
            self = .audio
        } else if type.hasPrefix("text/") || Self.fileTypes.contains(type) {
            self = .file
        } else {
            self = .other
        }
    }

    /// The category named `name` (`image`, `video`, `audio`, `file`, `other`; also `photo(s)`, `videos`, `files`).
    ///
    /// - Throws: ``StorageError`` `.invalidInput` naming the accepted values.
    package init(parsing name: String) throws {
        switch name.lowercased() {
        case "image", "images", "photo", "photos": self = .image
        case "video", "videos": self = .video
        case "audio": self = .audio
        case "file", "files", "document", "documents": self = .file
        case "other": self = .other
        default:
            throw StorageError(
                .invalidInput, "unknown category '\(name)'", hint: "use one of image, video, audio, file, other")
        }
    }

    /// The integer stored in the index's `category` column (stable: never renumber).
    var code: Int {
        switch self {
        case .image: 0
        case .video: 1
        case .audio: 2
        case .file: 3
        case .other: 4
        }
    }

    /// The category stored as `code`.
    init(code: Int) {
        self = Self.allCases.first { $0.code == code } ?? .other
    }

    public static func < (lhs: StorageCategory, rhs: StorageCategory) -> Bool { lhs.code < rhs.code }

    private static let fileTypes: Set<String> = [
        "application/pdf", "application/zip", "application/gzip", "application/x-tar", "application/x-7z-compressed",
        "application/x-rar-compressed", "application/json", "application/xml", "application/msword",
        "application/rtf", "application/epub+zip", "application/vnd.ms-excel", "application/vnd.ms-powerpoint",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "application/vnd.apple.pkpass", "application/x-bzip2", "application/x-xz",
        "application/vnd.android.package-archive",
    ]
}
