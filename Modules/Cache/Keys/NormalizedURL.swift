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
        var items: [(name: String, value: String?)] = []
        if let query = components.percentEncodedQuery, !query.isEmpty {
            for part in query.split(separator: "&", omittingEmptySubsequences: true) {
                let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = Self.normalizeEscapes(String(pieces[0]))
                if transientItems.contains(name.removingPercentEncoding ?? name) { continue }
                items.append((name, pieces.count > 1 ? Self.normalizeEscapes(String(pieces[1])) : nil))
            }
            items.sort { a, b in
                a.name != b.name ? a.name < b.name : (a.value ?? "") < (b.value ?? "")
            }
        }
        if !items.isEmpty {
            text +=
                "?" + items.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }.joined(separator: "&")
        }
        self.text = text
        self.queryItems = items
    }

    public var description: String { text }

    public static func == (a: NormalizedURL, b: NormalizedURL) -> Bool { a.text == b.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Decodes escapes of unreserved characters (`A–Z a–z 0–9 - . _ ~`) and upper-cases the hex digits of the others.
    static func normalizeEscapes(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hexValue(bytes[i + 1]),
                let low = hexValue(bytes[i + 2])
            {
                let byte = high << 4 | low
                if isUnreserved(byte) {
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

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
