/// The key of a cached HTTP response: the method, the normalised URL, the request headers the response's `Vary`
/// names, and an optional scope (the user, for authenticated responses), spelled as one string that stores index by.
///
/// The spelling starts with `METHOD URL`, so every response under a URL prefix shares a key prefix (what
/// `suite cache purge --prefix` removes): `GET https://api.example.com/users?page=2`, then ` scope[u1]` when scoped,
/// then ` vary[accept-language=en]` for a response that varies. Equal parameters in any order give one key;
/// different values never do.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The request method, upper-cased.
    public var method: String
    /// The request's URL, normalised.
    public var url: NormalizedURL
    /// Whose response this is (e.g. a user id), for responses that differ by who asks; `nil` for shared ones.
    public var scope: String?

    /// Creates a key.
    public init(method: String = "GET", url: NormalizedURL, scope: String? = nil) {
        self.method = method.uppercased()
        self.url = url
        self.scope = scope
    }

    /// The key without `Vary`: where a response that does not vary is stored.
    public var primary: String {
        var text = method + " " + url.text
        if let scope { text += " scope[\(scope)]" }
        return text
    }

    /// Where the names of the headers a varying response depends on are stored.
    var varyIndex: String { primary + " vary" }

    /// The key of a response that varies by `names`, as requested with `headers`.
    func varying(by names: [String], requestHeaders headers: [CacheHeader]) -> String {
        let pairs = names.map { name in
            let values = headers.filter { $0.name == name }.map { $0.value.trimmingWhitespace() }
            return name + "=" + values.joined(separator: ",")
        }
        return primary + " vary[" + pairs.joined(separator: "&") + "]"
    }

    public var description: String { primary }

    /// The key prefix of every response whose URL starts with `urlPrefix` (normalised when it parses as a URL).
    public static func prefix(method: String = "GET", urlPrefix: String) -> String {
        let normalized = (try? NormalizedURL(urlPrefix).text).map { text in
            // Normalising adds a `/` path to a bare host; a prefix keeps what it was given.
            urlPrefix.hasSuffix("/") || !text.hasSuffix("/") || urlPrefix.contains("?") ? text : String(text.dropLast())
        }
        return method.uppercased() + " " + (normalized ?? urlPrefix)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
