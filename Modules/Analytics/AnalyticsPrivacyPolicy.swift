import Crypto
public import Foundation

/// What happens to each parameter before any engine (or the queue's file) sees it: kept, hashed with a salt, or
/// dropped, declared per key with a rule for every other key.
///
/// ```swift
/// let policy = AnalyticsPrivacyPolicy(
///     rules: ["email": .hash, "query": .drop], otherKeys: .keep, salt: Data("per-app secret".utf8))
/// ```
///
/// A hashed value is the lowercase hex SHA-256 of the salt followed by the value's UTF-8 bytes: stable (so values can
/// still be counted and joined) but not readable without the salt.
public struct AnalyticsPrivacyPolicy: Sendable, Hashable {
    /// What to do with one parameter.
    public enum Rule: String, Sendable, Hashable, Codable, CaseIterable {
        /// Send the value as logged.
        case keep
        /// Send the salted SHA-256 of the value (64 hex characters).
        case hash
        /// Remove the parameter.
        case drop
    }

    /// The rule per parameter key.
    public var rules: [String: Rule]
    /// The rule for keys ``rules`` does not name.
    public var otherKeys: Rule
    /// The salt prepended to a value before hashing.
    public var salt: Data

    /// Creates a policy; the default keeps everything.
    public init(rules: [String: Rule] = [:], otherKeys: Rule = .keep, salt: Data = Data()) {
        self.rules = rules
        self.otherKeys = otherKeys
        self.salt = salt
    }

    /// The parameters with the policy applied.
    package func apply(to parameters: [String: String]) -> [String: String] {
        if rules.isEmpty && otherKeys == .keep { return parameters }
        var result: [String: String] = [:]
        result.reserveCapacity(parameters.count)
        for (key, value) in parameters {
            switch rules[key] ?? otherKeys {
            case .keep: result[key] = value
            case .hash: result[key] = hash(value)
            case .drop: break
            }
        }
        return result
    }

    /// The salted SHA-256 of `value`, lowercase hex.
    package func hash(_ value: String) -> String {
        var hasher = SHA256()
        hasher.update(data: salt)
        hasher.update(data: Data(value.utf8))
        return hasher.finalize().map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }
}
