/// Content types (MIME types) for files: from a file name's extension, or from a file's first bytes.
///
/// ```swift
/// StorageContentType.forExtension("JPG")                      // "image/jpeg"
/// StorageContentType.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])  // "image/png"
/// ```
public enum StorageContentType {
    /// The type of content whose kind is unknown.
    public static let unknown = "application/octet-stream"

    /// How many leading bytes ``sniff(_:)`` looks at.
    public static let sniffLength = 16

    /// The content type for a file name extension (without the dot, any case), or ``unknown``.
    public static func forExtension(_ ext: some StringProtocol) -> String {
        byExtension[ext.lowercased()] ?? unknown
    }

    /// The content type for a file name (its text after the last `.`), or ``unknown``.
    public static func forFileName(_ name: some StringProtocol) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return unknown }
        return forExtension(name[name.index(after: dot)...])
    }

    /// The content type recognised from a file's first bytes (at least ``sniffLength`` when the file has them), or
    /// `nil`: JPEG, PNG, GIF, WebP, WAV, MP4/QuickTime (`ftyp`), MP3 (ID3 or a frame sync), Ogg, PDF and ZIP.
    public static func sniff(_ bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<(offset + prefix.count)]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("RIFF".utf8)) && starts(Array("WAVE".utf8), at: 8) { return "audio/wav" }
        if starts(Array("ftyp".utf8), at: 4) {
            return starts(Array("qt  ".utf8), at: 8)
                ? "video/quicktime" : (starts(Array("M4A ".utf8), at: 8) ? "audio/mp4" : "video/mp4")
        }
        if starts(Array("ID3".utf8)) { return "audio/mpeg" }
        if bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0 { return "audio/mpeg" }
        if starts(Array("OggS".utf8)) { return "audio/ogg" }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) { return "application/zip" }
        return nil
    }

    private static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff",
        "svg": "image/svg+xml", "ico": "image/x-icon", "avif": "image/avif",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska",
        "avi": "video/x-msvideo", "3gp": "video/3gpp", "ts": "video/mp2t",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav", "ogg": "audio/ogg",
        "oga": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac", "amr": "audio/amr", "caf": "audio/x-caf",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "7z": "application/x-7z-compressed", "rar": "application/x-rar-compressed",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "json": "application/json", "xml": "application/xml",
        "doc": "application/msword", "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "rtf": "application/rtf", "epub": "application/epub+zip", "pkpass": "application/vnd.apple.pkpass",
        "apk": "application/vnd.android.package-archive",
        "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "html": "text/html", "htm": "text/html",
        "log": "text/plain", "vcf": "text/vcard", "ics": "text/calendar",
    ]
}
