/// An expression of the rules language, as parsed.
indirect enum RulesExpression: Sendable {
    case literal(RulesValue)
    case identifier(String, RulesLocation)
    case list([RulesExpression])
    case map([(RulesExpression, RulesExpression)])
    /// A path literal: segments that are text or `$(expression)`.
    case path([PathPart], RulesLocation)
    case member(RulesExpression, String, RulesLocation)
    case index(RulesExpression, RulesExpression, RulesLocation)
    case range(RulesExpression, RulesExpression?, RulesExpression?, RulesLocation)
    /// A call of a declared or built-in function: `isOwner(uid)`, `get(/…)`, `math.abs(x)`.
    case call(String, [RulesExpression], RulesLocation)
    /// A method of a value: `list.hasAll(other)`.
    case method(RulesExpression, String, [RulesExpression], RulesLocation)
    case unary(String, RulesExpression, RulesLocation)
    case binary(String, RulesExpression, RulesExpression, RulesLocation)
    case isType(RulesExpression, String, RulesLocation)
    case conditional(RulesExpression, RulesExpression, RulesExpression, RulesLocation)

    enum PathPart: Sendable {
        case text(String)
        case expression(RulesExpression)
    }

    var location: RulesLocation? {
        switch self {
        case .literal, .list, .map: nil
        case .identifier(_, let l), .path(_, let l), .member(_, _, let l), .index(_, _, let l),
            .range(_, _, _, let l), .call(_, _, let l), .method(_, _, _, let l), .unary(_, _, let l),
            .binary(_, _, _, let l), .isType(_, _, let l), .conditional(_, _, _, let l):
            l
        }
    }
}

/// A `function name(params) { let …; return …; }` declaration.
struct RulesFunction: Sendable {
    var name: String
    var parameters: [String]
    var lets: [(String, RulesExpression)]
    var body: RulesExpression
    var location: RulesLocation
}

/// The operations an `allow` names; `read` is get and list, `write` is create, update and delete.
package enum RulesMethod: String, Sendable, Hashable, CaseIterable {
    case get, list, create, update, delete

    /// The methods a word in `allow …:` stands for, nil for an unknown word.
    static func expand(_ word: String) -> [RulesMethod]? {
        switch word {
        case "read": [.get, .list]
        case "write": [.create, .update, .delete]
        default: RulesMethod(rawValue: word).map { [$0] }
        }
    }
}

/// `allow get, list: if condition;`
struct RulesAllow: Sendable {
    var methods: Set<RulesMethod>
    /// The words as written, for explanations.
    var written: [String]
    /// Nil for `allow read;` (always).
    var condition: RulesExpression?
    var location: RulesLocation
}

/// One segment of a `match` pattern.
enum RulesPatternSegment: Sendable, Hashable {
    case literal(String)
    /// `{name}`: one segment.
    case single(String)
    /// `{name=**}`: the rest (version 2: zero or more segments anywhere; version 1: one or more, last).
    case recursive(String)
}

/// A `match` block: its pattern (relative to the enclosing match), allows, functions and nested matches.
struct RulesMatch: Sendable {
    var pattern: [RulesPatternSegment]
    var allows: [RulesAllow]
    var functions: [RulesFunction]
    var children: [RulesMatch]
    var location: RulesLocation
}

/// A parsed `firestore.rules` file.
struct RulesFile: Sendable {
    var version: Int
    var functions: [RulesFunction]
    var matches: [RulesMatch]
}
