/// Maps a file's path below a managed root to its service, group and content: how a scan turns files into items.
///
/// A rule is a glob pattern with placeholders, or a regular expression with named captures:
///
/// - `chats/{groupId}/{contentId}.{ext}` — segments separated by `/`; `{service}`, `{groupId}`, `{contentId}`,
///   `{contentSubId}` and `{ext}` each capture part of one segment (`{ext}` never contains a `.`); `*` matches any
///   text within a segment, `**` any number of whole segments (zero included).
/// - `regex:^chats/(?<groupId>[^/]+)/(?<contentId>[^/.]+)\.(?<ext>.+)$` — a Swift regular expression over the path's
///   escaped form (``StoragePath``), with the same capture names. Slower than a glob (microseconds per file).
///
/// The first matching rule wins. What a rule does not capture has a default: the service is the rule's ``service``
/// or the scan's; the group is the file's top-level directory (`.` for a file directly in the root); the content id
/// is the file name without its extension; the extension is the file name's.
///
/// ```swift
/// let rules = [
///     try LayoutRule("chats/{groupId}/{contentId}.{ext}", service: "chat"),
///     try LayoutRule("Library/Caches/**", service: "caches"),
/// ]
/// ```
public struct LayoutRule: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The rule as written (`regex:` prefix included).
    public let pattern: String
    /// The service of the files this rule matches when it does not capture `{service}`; the scan's default when nil.
    public let service: String?
    private let matcher: Matcher

    /// The placeholders a rule may use.
    package static let placeholders = ["service", "groupId", "contentId", "contentSubId", "ext"]

    /// Parses a rule.
    ///
    /// - Throws: ``StorageError`` `.invalidInput` for an unknown placeholder, an unclosed `{`, `**` inside a segment,
    ///   an empty pattern, or a regular expression that does not compile.
    public init(_ pattern: String, service: String? = nil) throws {
        self.pattern = pattern
        self.service = service
        if pattern.hasPrefix("regex:") {
            matcher = .regex(try RegexBox(String(pattern.dropFirst("regex:".count))))
        } else {
            matcher = .glob(try GlobPattern(pattern))
        }
    }

    /// The rule as written, with its service when it has one (`chat=chats/{groupId}/**`).
    public var description: String { service.map { "\($0)=\(pattern)" } ?? pattern }

    /// What the rule captures from `path`, or `nil` when it does not match.
    package func match(_ path: StoragePath) -> LayoutMatch? {
        switch matcher {
        case .glob(let glob): glob.match(path.bytes)
        case .regex(let regex): regex.match(path.description)
        }
    }

    /// What the rule captures from the path `bytes`: byte ranges for a glob, escaped text for a regular expression;
    /// `nil` when it does not match. ``match(_:)`` without building strings, for the scan's hot path.
    func captures(_ bytes: [UInt8]) -> LayoutCaptures? {
        switch matcher {
        case .glob(let glob): glob.captureRanges(bytes).map(LayoutCaptures.ranges)
        case .regex(let regex): regex.match(StoragePath(bytes: bytes).description).map(LayoutCaptures.text)
        }
    }

    /// How many directory levels below the root decide the group (`chats/{groupId}/…` → 2), or `nil` when that is
    /// not fixed (`**` before `{groupId}`, a regular expression, no `{groupId}`). A scan commits one directory at
    /// that depth at a time.
    package var groupDepth: Int? {
        guard case .glob(let glob) = matcher else { return nil }
        return glob.groupDepth
    }

    public static func == (lhs: LayoutRule, rhs: LayoutRule) -> Bool {
        lhs.pattern == rhs.pattern && lhs.service == rhs.service
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(service)
    }

    private enum CodingKeys: String, CodingKey { case pattern, service }

    /// Decodes `{"pattern": …, "service": …}` and parses the pattern.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            try container.decode(String.self, forKey: .pattern),
            service: try container.decodeIfPresent(String.self, forKey: .service))
    }

    /// Encodes `{"pattern": …, "service": …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pattern, forKey: .pattern)
        try container.encodeIfPresent(service, forKey: .service)
    }

    private enum Matcher: Sendable {
        case glob(GlobPattern)
        case regex(RegexBox)
    }
}

/// What ``LayoutRule/captures(_:)`` found.
enum LayoutCaptures {
    /// A glob's captures, as ranges of the path's bytes.
    case ranges(LayoutCaptureRanges)
    /// A regular expression's captures, as escaped text.
    case text(LayoutMatch)
}

/// What a ``LayoutRule`` captured (escaped text, see ``StoragePath``); `nil` for what it does not capture.
package struct LayoutMatch: Sendable, Hashable, Codable {
    /// `{service}`.
    package var service: String?
    /// `{groupId}`.
    package var groupId: String?
    /// `{contentId}`.
    package var contentId: String?
    /// `{contentSubId}`.
    package var contentSubId: String?
    /// `{ext}`.
    package var ext: String?

    mutating func set(_ name: String, _ value: String) {
        switch name {
        case "service": service = value
        case "groupId": groupId = value
        case "contentId": contentId = value
        case "contentSubId": contentSubId = value
        default: ext = value
        }
    }
}

/// A compiled regular expression (Swift's `Regex` is not `Sendable`; it is only read after creation).
private final class RegexBox: @unchecked Sendable {
    let regex: Regex<AnyRegexOutput>

    init(_ text: String) throws {
        do {
            regex = try Regex(text)
        } catch {
            throw StorageError(
                .invalidInput, "the layout rule 'regex:\(text)' does not compile: \(error)",
                hint: "use named captures such as (?<groupId>[^/]+)", underlying: error)
        }
    }

    func match(_ path: String) -> LayoutMatch? {
        guard let found = try? regex.wholeMatch(in: path) else { return nil }
        var result = LayoutMatch()
        for name in LayoutRule.placeholders {
            if let capture = found.output[name], let text = capture.substring { result.set(name, String(text)) }
        }
        return result
    }
}
