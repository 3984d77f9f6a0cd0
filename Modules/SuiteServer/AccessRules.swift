public import SuiteCore

/// Who may read and write which documents: path patterns with `{uid}` bound to the caller, first match wins, nothing
/// allowed where no rule matches. Admins may do everything.
///
/// ```yaml
/// rules:
///   - {match: "users/{uid}/**", read: owner, write: owner}       # the default, with workInfo/{uid}/**
///   - {match: "public/**", read: signed-in, write: nobody}
/// ```
/// A pattern's segments are literals, `*` or `{name}` (one segment; `{uid}` must equal the caller's id) and `**`
/// (any number of segments, none included), so `users/{uid}/**` covers `users/ana` and everything below it.
public struct AccessRules: Sendable, Hashable {
    /// Who a rule lets in.
    public enum Access: String, Sendable, Hashable, CaseIterable {
        /// The user whose id the pattern's `{uid}` binds.
        case owner
        /// Any authenticated user.
        case signedIn = "signed-in"
        /// Nobody but admins.
        case nobody
    }

    /// One rule.
    public struct Rule: Sendable, Hashable {
        /// The pattern as written.
        public var match: String
        /// Who may read.
        public var read: Access
        /// Who may write.
        public var write: Access
        let segments: [Substring]
        /// ``segments`` classified once, for the per-request match.
        let pattern: [Segment]

        /// A pattern's segment.
        enum Segment: Sendable, Hashable {
            /// This text exactly.
            case literal(Substring)
            /// `{uid}`: any one segment; the caller owns it when it is their id.
            case uid
            /// `*` or another `{name}`: any one segment.
            case any
            /// `**`: any number of segments, none included (always last).
            case anyDepth

            init(_ text: Substring) {
                self =
                    switch text {
                    case "**": .anyDepth
                    case "{uid}": .uid
                    case "*": .any
                    default: text.hasPrefix("{") && text.hasSuffix("}") ? .any : .literal(text)
                    }
            }
        }

        /// Creates a rule; throws for a malformed pattern or `owner` without `{uid}`.
        public init(match: String, read: Access, write: Access) throws {
            let segments = match.split(separator: "/", omittingEmptySubsequences: false)
            guard !match.isEmpty, segments.allSatisfy({ !$0.isEmpty }) else {
                throw ServerError(
                    .invalidRequest, "'\(match)' is not a path pattern", hint: "e.g. users/{uid}/** or public/*")
            }
            if (read == .owner || write == .owner) && !segments.contains("{uid}") {
                throw ServerError(
                    .invalidRequest, "the rule '\(match)' gives access to the owner but has no {uid}",
                    hint: "bind the owner with {uid}, e.g. users/{uid}/**")
            }
            if let misplaced = segments.dropLast().firstIndex(of: "**") {
                throw ServerError(
                    .invalidRequest, "'\(match)': ** must be the last segment (found at \(misplaced + 1))")
            }
            self.match = match
            self.read = read
            self.write = write
            self.segments = segments
            self.pattern = segments.map(Segment.init)
        }

        /// Whether the pattern matches `path`, and the caller `uid` is its owner.
        func matches(_ path: [Substring], uid: String) -> (matches: Bool, owner: Bool) {
            var owner = false
            for (index, segment) in pattern.enumerated() {
                if case .anyDepth = segment { return (true, owner) }
                guard index < path.count else { return (false, false) }
                switch segment {
                case .literal(let text): if text != path[index] { return (false, false) }
                case .uid: owner = path[index] == uid[...]
                case .any, .anyDepth: break
                }
            }
            return (pattern.count == path.count, owner)
        }
    }

    /// The rules, in order.
    public var rules: [Rule]

    /// Creates rules.
    public init(_ rules: [Rule]) { self.rules = rules }

    /// A user reads and writes `users/{uid}/**` and `workInfo/{uid}/**` only.
    public static var standard: AccessRules {
        AccessRules(
            ["users/{uid}/**", "workInfo/{uid}/**"].compactMap { try? Rule(match: $0, read: .owner, write: .owner) })
    }

    /// Rules from JSON: an array of `{match, read, write}` (or an object with `rules`).
    public init(json: JSONValue) throws {
        let list = json.objectValue?["rules"]?.arrayValue ?? json.arrayValue
        guard let list else {
            throw ServerError(
                .invalidRequest, "rules must be a list of {match, read, write}",
                hint: "e.g. rules: [{match: \"users/{uid}/**\", read: owner, write: owner}]")
        }
        rules = try list.enumerated().map { index, item in
            guard let object = item.objectValue else {
                throw ServerError(.invalidRequest, "rule \(index + 1) must be a map {match, read, write}")
            }
            if let unknown = object.keys.sorted().first(where: { !["match", "read", "write"].contains($0) }) {
                throw ServerError(
                    .invalidRequest, "rule \(index + 1): unknown key '\(unknown)'",
                    hint: Suggestion.didYouMean(unknown, among: ["match", "read", "write"], what: "keys"))
            }
            guard let match = object["match"]?.stringValue else {
                throw ServerError(.invalidRequest, "rule \(index + 1) has no match pattern")
            }
            func access(_ key: String) throws -> Access {
                guard let text = object[key]?.stringValue else { return .nobody }
                guard let access = Access(rawValue: text) else {
                    throw ServerError(
                        .invalidRequest, "rule \(index + 1): \(key) '\(text)' is not owner, signed-in or nobody",
                        hint: Suggestion.didYouMean(text, among: Access.allCases.map(\.rawValue), what: "values"))
                }
                return access
            }
            return try Rule(match: match, read: try access("read"), write: try access("write"))
        }
    }

    /// Where the documents `account` may read can be: for each rule that can let it read, the pattern's literal
    /// start with `{uid}` bound (`users/{uid}/**` → `users/ana`); `[]` (the whole store) for an admin or a pattern
    /// that starts with a wildcard. What lies there is still checked with ``allows(_:write:path:)``.
    public func readRoots(for account: ServerAccounts.Account) -> [[String]] {
        if account.isAdmin { return [[]] }
        return rules.compactMap { rule in
            guard rule.read != .nobody else { return nil }
            var root: [String] = []
            for segment in rule.segments {
                if segment == "{uid}" {
                    root.append(account.uid)
                } else if segment == "*" || segment == "**" || segment.hasPrefix("{") {
                    break
                } else {
                    root.append(String(segment))
                }
            }
            return root
        }
    }

    /// Whether `account` may read (or write) the document or collection at `path`.
    public func allows(_ account: ServerAccounts.Account, write: Bool, path: String) -> Bool {
        if account.isAdmin { return true }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for rule in rules {
            let (matches, owner) = rule.matches(segments, uid: account.uid)
            guard matches else { continue }
            switch write ? rule.write : rule.read {
            case .owner: return owner
            case .signedIn: return true
            case .nobody: return false
            }
        }
        return false
    }
}
