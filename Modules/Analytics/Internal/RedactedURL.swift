import Foundation

/// A URL as an `http_request` event may carry it: no user or password, no fragment, and query values dropped unless
/// their key is allowed (`/search?q=shoes&token=abc` becomes `/search?q&token`).
enum RedactedURL {
    /// `url` redacted; works on any string, parsed or not, so nothing secret survives a malformed URL.
    static func string(_ url: String, keepingValuesOf allowedKeys: Set<String>) -> String {
        let withoutFragment = url.prefix { $0 != "#" }
        let parts = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var result = withoutUserInfo(parts.first ?? "")
        guard parts.count == 2 else { return result }
        let items = parts[1].split(separator: "&").map { item -> Substring in
            let key = item.prefix { $0 != "=" }
            let decodedKey = String(key).removingPercentEncoding ?? String(key)
            return allowedKeys.contains(String(key)) || allowedKeys.contains(decodedKey) ? item : key
        }
        if !items.isEmpty {
            result += "?" + items.joined(separator: "&")
        }
        return result
    }

    /// `scheme://user:password@host/path` without `user:password@`.
    private static func withoutUserInfo(_ base: Substring) -> String {
        guard let schemeEnd = base.range(of: "://") else { return String(base) }
        let rest = base[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@") else { return String(base) }
        return String(base[..<schemeEnd.upperBound]) + String(rest[rest.index(after: at)...])
    }
}
