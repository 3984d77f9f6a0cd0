import Foundation

/// A URL in the one spelling the cache keys it by: scheme and host lower-cased, the scheme's default port dropped, an
/// empty path as `/`, the fragment dropped, percent-encoding normalised (escapes of unreserved characters decoded,
/// the other escapes in upper case) and the query items sorted by name, then value. Two URLs that differ only in those
/// respects have one spelling; any other difference (a value, a path's case) gives another.
///
/// ```swift
/// let a = try NormalizedURL("HTTPS://Api.Example.com:443/users?page=2&sort=name")
/// let b = try NormalizedURL("https://api.example.com/users?sort=name&page=%32")
/// assert(a == b)  // "https://api.example.com/users?page=2&sort=name"
/// ```
public struct NormalizedURL: Sendable, Hashable, CustomStringConvertible {
    /// The normalised text.
    public let text: String
    /// The query items as normalised `name=value` pairs, sorted (names without `=` have no value).
    public let queryItems: [(name: String, value: String?)]

    /// Normalises `string`, first removing the query items named in `removing` (e.g. transient tokens).
    /// - Throws: ``CacheError/Code/invalidInput`` for text that is not an absolute `http` or `https` URL with a host.
    public init(_ string: String, removing transientItems: Set<String> = []) throws {
        // A URL written in RFC 3986's characters alone (nearly every request URL) is split here; anything else
        // (non-ASCII text, spaces, a stray `%`, an IPv6 host, an error) takes URLComponents' path, which escapes what it
        // can and refuses the rest, so both give one spelling and one verdict for every string.
        var string = string
        let parts = string.withUTF8 { bytes in URLParts(bytes) }
        if let parts {
            self.init(parts: parts, removing: transientItems)
        } else {
            try self.init(components: string, removing: transientItems)
        }
    }

    /// Normalises the components of a URL `URLParts` split.
    private init(parts: URLParts, removing transientItems: Set<String>) {
        var text = parts.scheme + "://"
        if let user = parts.user {
            text += Self.normalizeEscapes(user)
            if let password = parts.password { text += ":" + Self.normalizeEscapes(password) }
            text += "@"
        }
        text += Self.normalizeEscapes(parts.host.lowercased())
        if let port = parts.port, !(parts.scheme == "http" && port == 80), !(parts.scheme == "https" && port == 443) {
            text += ":" + String(port)
        }
        text += parts.path.isEmpty ? "/" : Self.normalizeEscapes(parts.path)
        let items = Self.normalizedItems(parts.query, removing: transientItems)
        Self.append(items, to: &text)
        self.text = text
        self.queryItems = items
    }

    /// Normalises what URLComponents makes of `string` (text `URLParts` does not split).
    private init(components string: String, removing transientItems: Set<String>) throws {
        guard let components = URLComponents(string: string), let scheme = components.scheme?.lowercased(),
            let host = components.percentEncodedHost, !host.isEmpty
        else {
            throw CacheError(
                .invalidInput, "'\(string)' is not an absolute URL",
                hint: "give a URL with a scheme and a host, e.g. https://example.com/path")
        }
        guard scheme == "http" || scheme == "https" else {
            throw CacheError(
                .invalidInput, "'\(string)' uses the scheme '\(scheme)'; the cache keeps http and https responses",
                hint: "give an http:// or https:// URL")
        }
        var text = scheme + "://"
        if let user = components.percentEncodedUser {
            text += Self.normalizeEscapes(user)
            if let password = components.percentEncodedPassword { text += ":" + Self.normalizeEscapes(password) }
            text += "@"
        }
        text += Self.normalizeEscapes(host.lowercased())
        if let port = components.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) {
            text += ":\(port)"
        }
        let path = components.percentEncodedPath
        text += path.isEmpty ? "/" : Self.normalizeEscapes(path)
        let items = Self.normalizedItems(components.percentEncodedQuery, removing: transientItems)
        Self.append(items, to: &text)
        self.text = text
        self.queryItems = items
    }

    /// The string's spelling through URLComponents alone (what every string took before `URLParts`): the model the
    /// tests compare the two paths against.
    static func normalizedThroughComponents(_ string: String, removing transientItems: Set<String> = []) throws
        -> NormalizedURL
    {
        try NormalizedURL(components: string, removing: transientItems)
    }

    public var description: String { text }

    public static func == (a: NormalizedURL, b: NormalizedURL) -> Bool { a.text == b.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// The query's `name[=value]` items, escapes normalised, without the transient ones, sorted by name then value.
    private static func normalizedItems(_ query: String?, removing transientItems: Set<String>) -> [(
        name: String, value: String?
    )] {
        guard let query, !query.isEmpty else { return [] }
        var items: [(name: String, value: String?)] = []
        for part in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = part.firstIndex(of: UInt8(ascii: "="))
            let name = normalizeEscapes(String(Substring(part[..<(equals ?? part.endIndex)])))
            if !transientItems.isEmpty, transientItems.contains(name.removingPercentEncoding ?? name) { continue }
            let value = equals.map { normalizeEscapes(String(Substring(part[part.index(after: $0)...]))) }
            items.append((name, value))
        }
        if items.count > 1 {
            items.sort { a, b in
                a.name != b.name ? a.name < b.name : (a.value ?? "") < (b.value ?? "")
            }
        }
        return items
    }

    /// Appends `?` and the items joined by `&`, if there are any.
    private static func append(_ items: [(name: String, value: String?)], to text: inout String) {
        var separator = "?"
        for item in items {
            text += separator
            text += item.name
            if let value = item.value {
                text += "="
                text += value
            }
            separator = "&"
        }
    }

    /// Decodes escapes of unreserved characters (`A–Z a–z 0–9 - . _ ~`) and upper-cases the hex digits of the others.
    static func normalizeEscapes(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let high = URLParts.hexValue(bytes[i + 1]),
                let low = URLParts.hexValue(bytes[i + 2])
            {
                let byte = high << 4 | low
                if URLParts.isUnreserved(byte) {
                    out.append(byte)
                } else {
                    bytes[i + 1] = hexDigit(high)
                    bytes[i + 2] = hexDigit(low)
                    out.append(contentsOf: bytes[i...(i + 2)])
                }
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
