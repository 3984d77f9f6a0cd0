/// Rules by URL pattern: which requests are never cached (seed 003: payments and user information), which query
/// items are transient (tokens, stripped from keys), and lifetimes and tags for matching responses.
///
/// Patterns are globs over the normalised URL without its query: `*` matches within a path segment, `**` across
/// segments, e.g. `https://api.example.com/payments/**`.
public struct CacheRules: Sendable {
    /// One rule.
    public struct Rule: Sendable {
        /// The URLs it applies to (a glob, see ``CacheRules``).
        public var pattern: String
        /// Never read from nor stored in the cache.
        public var neverCache: Bool
        /// A lifetime in seconds for responses without one of their own (or, with `overridesHTTP`, instead of it).
        public var lifetime: Int?
        /// Whether ``lifetime`` replaces the response's HTTP freshness.
        public var overridesHTTP: Bool
        /// Tags given to the stored responses (to purge them together).
        public var tags: [String]
        /// Keep matching responses in the protected store only (encrypted at rest).
        public var sensitive: Bool

        /// Creates a rule.
        public init(
            pattern: String, neverCache: Bool = false, lifetime: Int? = nil, overridesHTTP: Bool = false,
            tags: [String] = [], sensitive: Bool = false
        ) {
            self.sensitive = sensitive
            self.pattern = pattern
            self.neverCache = neverCache
            self.lifetime = lifetime
            self.overridesHTTP = overridesHTTP
            self.tags = tags
        }
    }

    /// The rules, first match wins for lifetimes; any matching rule that says never makes it never.
    public var rules: [Rule]
    /// Query item names removed from every key (e.g. `token`, `sig`, `_`).
    public var transientQueryItems: Set<String>

    /// Creates rules.
    public init(rules: [Rule] = [], transientQueryItems: Set<String> = []) {
        self.rules = rules
        self.transientQueryItems = transientQueryItems
    }

    /// The rules that apply to `url`.
    package func matching(_ url: NormalizedURL) -> [Rule] {
        let target = url.text.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url.text
        return rules.filter { Self.glob($0.pattern, matches: target) }
    }

    /// Whether `pattern` matches `text` (`*` within a segment, `**` across segments).
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let p = Array(pattern.utf8)
        let t = Array(text.utf8)
        var memo: [Int: Bool] = [:]
        func match(_ i: Int, _ j: Int) -> Bool {
            let slot = i * (t.count + 1) + j
            if let known = memo[slot] { return known }
            let result: Bool
            if i == p.count {
                result = j == t.count
            } else if p[i] == UInt8(ascii: "*") {
                let double = i + 1 < p.count && p[i + 1] == UInt8(ascii: "*")
                let next = double ? i + 2 : i + 1
                var k = j
                var found = match(next, k)
                while !found, k < t.count, double || t[k] != UInt8(ascii: "/") {
                    k += 1
                    found = match(next, k)
                }
                result = found
            } else {
                result = j < t.count && p[i] == t[j] && match(i + 1, j + 1)
            }
            memo[slot] = result
            return result
        }
        return match(0, 0)
    }
}
